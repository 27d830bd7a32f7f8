/* Internals of the bundle library, shared by its files; not installed. */
#ifndef HWT_BUNDLE_INT_H
#define HWT_BUNDLE_INT_H

#include "hwt_bundle.h"

#include <stdarg.h>

/* Largest header or summary file read (a long shell-quoted command line fits). */
#define HWT_BUNDLE_TEXT_MAX (4u << 20)

/* A key=value list in file order. */
struct hwt_kv {
	char *key;
	char *value;
};

struct hwt_kv_list {
	struct hwt_kv *items;
	size_t count;
	size_t cap;
};

struct hwt_bundle {
	char *dir;
	int opened;

	struct hwt_kv_list keys;     /* hwt-bundle */
	struct hwt_kv_list summary;  /* summary */
	int has_summary;

	struct hwt_bundle_image *images;
	size_t nimages;
	size_t cap_images;

	struct hwt_bundle_stream *streams;
	size_t nstreams;
	size_t cap_streams;
	struct hwt_bundle_stream *spe;   /* spe/ */
	size_t nspe;
	size_t cap_spe;

	struct hwt_bundle_diag *diags;
	size_t ndiags;
	size_t cap_diags;
};

/* keyvalue.c */
int hwt_kv_add(struct hwt_kv_list *list, const char *key, size_t key_len,
	       const char *value, size_t value_len);
const char *hwt_kv_get(const struct hwt_kv_list *list, const char *key);
void hwt_kv_clear(struct hwt_kv_list *list);
/*
 * Parses "key=value" lines of text[0..len) into list, starting at line
 * first_line (1-based, for messages). Lines that are not key=value get a
 * hwt_diag_header warning naming path. Returns 0 or -hbe_nomem.
 */
int hwt_kv_parse(struct hwt_bundle *bundle, struct hwt_kv_list *list, const char *path,
		 const char *text, size_t len, unsigned first_line);

/* diag.c */
int hwt_bundle_diag_addv(struct hwt_bundle *bundle, enum hwt_diag_kind kind,
			 const char *path, int64_t offset, const char *fmt, va_list ap)
	__attribute__((format(printf, 5, 0)));

/* file.c: small helpers for paths and whole files. */
/* "a/b" (malloc'd) or NULL. */
char *hwt_path_join(const char *dir, const char *name);
/* printf into a malloc'd string, or NULL. */
char *hwt_strdup_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * Reads a whole file of at most max bytes into a malloc'd, NUL-terminated
 * buffer. Returns 0, -hbe_io (errno set; EFBIG when larger than max) or
 * -hbe_nomem.
 */
int hwt_file_read(const char *path, size_t max, char **text, size_t *len);
/*
 * Reads a file that a listing found size bytes long into a malloc'd buffer
 * (*bytes); path is relative to dir_fd (openat). 0, or -hbe_io when it
 * cannot be read or is no longer that size (-hbe_nomem).
 */
int hwt_file_read_listed(int dir_fd, const char *path, size_t size, void **bytes);
/* Writes dir/name atomically: temporary file, fsync, rename. 0 or -hbe_io. */
int hwt_file_write_atomic(const char *dir, const char *name, const char *text, size_t len);
/*
 * Escapes len bytes of s for a message: printable ASCII as is, the rest as
 * C escapes, at most out_size - 1 characters (with "..." when cut).
 */
void hwt_escape(char *out, size_t out_size, const char *s, size_t len);
/*
 * Parses a decimal uint32 without sign or leading zeros at *p, advancing
 * *p. Returns 0 or -1.
 */
int hwt_parse_u32(const char **p, uint32_t *value);
/*
 * The names in dir but . and .., sorted (so that whatever is reported
 * about them comes out in the same order every time). Returns 0, -hbe_io
 * (errno set) or -hbe_nomem.
 */
int hwt_dir_list(const char *dir, char ***names, size_t *count);
void hwt_dir_list_free(char **names, size_t count);

/*
 * One folder of the bundle, file by file: for each entry of DIR/sub whose
 * name parse() accepts (returns 0; it keeps what it parsed in ctx) and that
 * is a regular file, calls add(ctx, path, size), which takes path over.
 * Other entries are reported as stray (expected names the pattern); a folder
 * that cannot be listed is reported with what, e.g. "process images".
 * Returns 0 or a negative error.
 */
int hwt_bundle_list_folder(struct hwt_bundle *bundle, const char *sub, const char *what,
			   const char *expected, int (*parse)(const char *name, void *ctx),
			   int (*add)(struct hwt_bundle *bundle, void *ctx, char *path, uint64_t size),
			   void *ctx);

/* header.c */
int hwt_bundle_header_read(struct hwt_bundle *bundle);

/* summary.c */
int hwt_bundle_summary_read(struct hwt_bundle *bundle);
/* Compares summary totals with the files; warns when they disagree. */
int hwt_bundle_summary_check(struct hwt_bundle *bundle);

/* image.c */
int hwt_bundle_images_list(struct hwt_bundle *bundle);
int hwt_bundle_images_check(struct hwt_bundle *bundle);

/* stream.c */
int hwt_bundle_streams_list(struct hwt_bundle *bundle);
/* Lists spe/ when there is one. */
int hwt_bundle_spe_list(struct hwt_bundle *bundle);

/* Grows *items (of size elem) to hold at least need; 0 or -hbe_nomem. */
int hwt_grow(void **items, size_t *cap, size_t need, size_t elem);

#endif /* HWT_BUNDLE_INT_H */
