/*
 * The trace bundle library: reads and writes the directory that one
 * recording produces (see docs/bundle.md).
 *
 * In the style of libipt: small opaque objects with alloc/free, functions
 * that return a negative enum hwt_bundle_error on failure (hwt_bundle_errstr
 * names it), no hidden global state. Plain data that a reader hands out
 * (images, streams, records, diagnostics) is a public struct owned by the
 * object it came from.
 *
 * Nothing is lost silently: everything wrong with a readable bundle (a torn
 * or corrupt sideband file, an image without its first or last record, a
 * stream without sideband, lost data, a missing summary, stray files) ends
 * up in the bundle's list of diagnostics, which every command that reads a
 * bundle prints.
 */
#ifndef HWT_BUNDLE_H
#define HWT_BUNDLE_H

#include "hwt_errors.h"
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>

#include "hwt_record.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The bundle version this library reads and writes. */
#define HWT_BUNDLE_VERSION 1

/* Error codes, returned negated. */
enum hwt_bundle_error {
	hbe_ok = hwt_ok,
	hbe_internal = hwt_err_internal,  /* a bug in this library */
	hbe_invalid = hwt_err_invalid,    /* bad argument */
	hbe_nomem = hwt_err_nomem,
	hbe_io = hwt_err_io,              /* a system call failed; errno tells why */
	hbe_no_dir = HWT_ERR_BUNDLE_BASE, /* the bundle directory does not exist */
	hbe_not_dir,                      /* the path is not a directory */
	hbe_not_bundle,                   /* a directory without an hwt-bundle header */
	hbe_bad_header,                   /* hwt-bundle exists but is not a bundle header */
	hbe_version,                      /* a bundle version this library does not read */
	hbe_exists,                       /* create: the directory exists and is not empty */
	hbe_eos,                          /* no more records */
	hbe_torn,                         /* the file ends inside a record */
	hbe_corrupt,                      /* a record does not check (header, CRC or payload) */
};

/* A human readable string for an error code (negative or not). */
const char *hwt_bundle_errstr(int code);

/* ----- Diagnostics ------------------------------------------------------ */

enum hwt_diag_kind {
	hwt_diag_fatal,        /* the bundle cannot be read (open failed) */
	hwt_diag_header,       /* a malformed line in hwt-bundle or summary */
	hwt_diag_unfinished,   /* no summary: the recorder did not finish */
	hwt_diag_stray,        /* a file that is not part of the format, ignored */
	hwt_diag_io,           /* a file could not be read */
	hwt_diag_torn,         /* a sideband file ends inside a record */
	hwt_diag_corrupt,      /* a sideband record does not check */
	hwt_diag_no_start,     /* an image whose first record is not PROCESS_START */
	hwt_diag_mismatch,     /* PROCESS_START disagrees with the file name */
	hwt_diag_no_exit,      /* an image without PROCESS_EXIT (killed?) */
	hwt_diag_lost,         /* LOST records: trace or records were dropped */
	hwt_diag_orphan,       /* a stream without a sideband file */
	hwt_diag_stream,       /* a stream that does not decode (set by readers of packets) */
};

struct hwt_bundle_diag {
	enum hwt_diag_kind kind;
	/* The file concerned (the bundle directory for bundle-wide ones). */
	const char *path;
	/* Byte offset in that file, or -1. */
	int64_t offset;
	/* Complete text, naming the file: "PATH: what happened". */
	const char *message;
};

/* ----- The bundle ------------------------------------------------------- */

struct hwt_bundle;

/* One process image: sideband/<pid>.<gen>.sb. */
struct hwt_bundle_image {
	uint32_t pid;
	uint32_t generation;
	const char *name;      /* "<pid>.<gen>" */
	const char *path;      /* DIR/sideband/<pid>.<gen>.sb, or DIR/sideband/untraced.sb */
	int shared;            /* a native image: one record of untraced.sb */
	uint64_t offset;       /* where that record is in untraced.sb */
	uint64_t size;         /* bytes of its records (its file's size, or the record's) */

	/* What hwt_bundle_open found reading the file through. */
	uint64_t records;      /* records that checked, before any damage */
	int end;               /* 0, or -hbe_torn, -hbe_corrupt, -hbe_io */
	uint64_t end_offset;   /* where reading stopped */
	int has_start;         /* the first record is PROCESS_START */
	int has_exit;          /* a PROCESS_EXIT record is present */
	int32_t exit_status;   /* its status (waitpid style) when has_exit */
	int has_exec;          /* an EXEC record (not failed): the image ended in exec */
	uint64_t lost;         /* LOST records */
	uint64_t lost_records; /* records they say were dropped */
	uint64_t lost_bytes;   /* trace bytes they say were dropped */
	uint64_t untraced;     /* UNTRACED records */
	int native;            /* first record is UNTRACED: a process that ran natively
	                          (not selected); it has no start, exit or streams */
	/* The file as hwt_bundle_open read it (bytes_size bytes), which
	   hwt_bundle_image_open reads again; NULL: the file is read again. */
	const void *bytes;
	size_t bytes_size;

	/* Its streams: hwt_bundle_stream_at(first_stream .. + streams - 1). */
	size_t first_stream;
	size_t streams;
};

/* The trace format of a stream, from its file's name. */
enum hwt_bundle_trace {
	hwt_trace_intel_pt,    /* <name>.pt: Intel PT packets */
	hwt_trace_etmv4,       /* <name>.etm: ETMv4 instruction trace, unformatted */
	hwt_trace_spe,         /* spe/<name>.spe: Arm SPE records (never among the streams) */
};

/* One thread stream: streams/<pid>.<gen>-<tid>.pt (or .etm). */
struct hwt_bundle_stream {
	uint32_t pid;
	uint32_t generation;
	uint32_t tid;
	uint32_t trace;        /* enum hwt_bundle_trace */
	const char *name;      /* "<pid>.<gen>-<tid>" */
	const char *path;      /* DIR/streams/<pid>.<gen>-<tid>.pt (.etm) */
	uint64_t size;
	/* Index of its image, or -1 when there is no sideband file for it. */
	int64_t image;
};

/* Totals as the summary file states them (docs/bundle.md). */
struct hwt_bundle_totals {
	uint64_t processes;     /* traced images that did not come from an exec */
	uint64_t images;        /* sideband files */
	uint64_t untraced;      /* UNTRACED records */
	uint64_t threads;       /* thread streams */
	uint64_t trace_bytes;   /* sum of stream sizes */
	uint64_t sideband_bytes;/* sum of sideband file sizes */
	uint64_t lost_records;  /* sum of LOST records' records */
	uint64_t lost_bytes;    /* sum of LOST records' bytes */
};

struct hwt_bundle *hwt_bundle_alloc(void);
void hwt_bundle_free(struct hwt_bundle *bundle);

/*
 * Opens the bundle in directory dir: checks the header, reads its keys and
 * the summary, lists images and streams (sorted by pid, generation, tid),
 * reads every sideband file through and collects diagnostics.
 *
 * Returns 0 when the bundle is readable (diagnostics may still hold
 * warnings), or a negative error when it is not (hbe_no_dir, hbe_not_dir,
 * hbe_not_bundle, hbe_bad_header, hbe_version, hbe_io, hbe_nomem); then
 * the diagnostics hold one hwt_diag_fatal entry saying why.
 * A bundle object can be opened once.
 */
int hwt_bundle_open(struct hwt_bundle *bundle, const char *dir);

/* The directory given to hwt_bundle_open. */
const char *hwt_bundle_dir(const struct hwt_bundle *bundle);

/* Header keys (hwt-bundle), in file order. NULL when absent. */
const char *hwt_bundle_key(const struct hwt_bundle *bundle, const char *key);
size_t hwt_bundle_key_count(const struct hwt_bundle *bundle);
int hwt_bundle_key_at(const struct hwt_bundle *bundle, size_t i,
		      const char **key, const char **value);

/* Summary keys; hwt_bundle_has_summary is 0 when the file is missing. */
int hwt_bundle_has_summary(const struct hwt_bundle *bundle);
const char *hwt_bundle_summary_key(const struct hwt_bundle *bundle, const char *key);
size_t hwt_bundle_summary_count(const struct hwt_bundle *bundle);
int hwt_bundle_summary_at(const struct hwt_bundle *bundle, size_t i,
			  const char **key, const char **value);

size_t hwt_bundle_image_count(const struct hwt_bundle *bundle);
const struct hwt_bundle_image *hwt_bundle_image_at(const struct hwt_bundle *bundle, size_t i);
/* Opens an image's records for hwt_sideband_next (its file, or its range of
   untraced.sb): the bytes hwt_bundle_open read, where it kept them. */
struct hwt_sideband;
int hwt_bundle_image_open(struct hwt_sideband *sideband, const struct hwt_bundle_image *image);
/* The image pid.generation, or NULL. */
const struct hwt_bundle_image *hwt_bundle_image_find(const struct hwt_bundle *bundle,
						     uint32_t pid, uint32_t generation);

size_t hwt_bundle_stream_count(const struct hwt_bundle *bundle);
const struct hwt_bundle_stream *hwt_bundle_stream_at(const struct hwt_bundle *bundle, size_t i);

/*
 * The SPE streams: spe/<pid>.<gen>-<tid>.spe, the Arm SPE records sampled
 * from one thread (docs/bundle.md), sorted as the streams; trace is
 * hwt_trace_spe. They are not thread streams: hwt_bundle_stream_at does not
 * list them, and the decoders of branch traces do not read them.
 */
size_t hwt_bundle_spe_count(const struct hwt_bundle *bundle);
const struct hwt_bundle_stream *hwt_bundle_spe_at(const struct hwt_bundle *bundle, size_t i);

/* Totals computed from the files (not read from summary). */
int hwt_bundle_totals(const struct hwt_bundle *bundle, struct hwt_bundle_totals *totals);

size_t hwt_bundle_diag_count(const struct hwt_bundle *bundle);
const struct hwt_bundle_diag *hwt_bundle_diag_at(const struct hwt_bundle *bundle, size_t i);
/*
 * Adds a diagnostic (for readers of streams, which this library does not
 * decode). path may be NULL (the bundle directory), offset -1.
 */
int hwt_bundle_diag_add(struct hwt_bundle *bundle, enum hwt_diag_kind kind,
			const char *path, int64_t offset, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* Number of diagnostics that are warnings (all but hwt_diag_fatal). */
size_t hwt_bundle_warning_count(const struct hwt_bundle *bundle);

/* ----- Writing ---------------------------------------------------------- */

/*
 * Creates a bundle: the directory (which may exist if it is empty), its
 * sideband/ streams/ images/ blocks/ folders and the hwt-bundle header with
 * unit, clock, command (already shell-quoted, see hwt_bundle_quote_argv) and
 * start. Values must not hold a newline. Returns 0 or a negative error:
 * hbe_exists when dir exists and is not an empty directory, hbe_invalid,
 * hbe_io (errno says why).
 */
int hwt_bundle_create(const char *dir, const char *unit, const char *clock,
		      const char *command);
/*
 * The same with more header keys: keys is NULL or a NULL-terminated list
 * of "key=value" lines (no newline in them), written after the four above:
 * `trace=` (the trace formats of the streams, "intel-pt", "etmv4",
 * comma-separated; absent means intel-pt), pt_* (perf.md). A "start=..."
 * among them replaces the current time (an import keeps the recording's).
 */
int hwt_bundle_create_keys(const char *dir, const char *unit, const char *clock,
			   const char *command, const char *const *keys);

/*
 * Appends the header key "key=value" (no newline) to the hwt-bundle of
 * the bundle in dir, atomically: what a recording learns at its end
 * (max_trace_size_reached). 0, or a negative error.
 */
int hwt_bundle_add_key(const char *dir, const char *key);

/*
 * Removes the directory dir and everything in it (a bundle, or what is
 * left of one), symbolic links as links, never what they point to; a dir
 * that does not exist is no error. Returns 0, or -hbe_io (errno says why;
 * what could be removed is gone) or -hbe_invalid.
 */
int hwt_bundle_remove(const char *dir);

/*
 * Computes the totals of the bundle in dir from its files and writes the
 * summary with them and exit_status (the recorded command's, waitpid style
 * or exit code as the caller decides). Written atomically: a temporary
 * file then rename. Returns 0 or a negative error.
 */
int hwt_bundle_write_summary(const char *dir, int exit_status);

/*
 * Shell-quotes argv into one line (malloc'd; NULL when out of memory):
 * words that need it are single-quoted, words with control characters use
 * bash's $'...' so that the result never holds a newline.
 */
char *hwt_bundle_quote_argv(int argc, char *const argv[]);

/* ----- Reading one sideband file ---------------------------------------- */

struct hwt_sideband;

/*
 * One record as hwt_sideband_next hands it out. Everything points into the
 * reader and stays valid until the next call on it.
 */
struct hwt_sideband_record {
	uint64_t offset;                     /* of the record in its file */
	const struct hwt_record_header *hdr; /* the checked record, hdr->size bytes */
	/*
	 * 1 when the type is one this library knows: then the typed view in
	 * u (the member named after the type) is valid, sized and its strings
	 * are decoded below. 0 for a type this library does not know: readers
	 * skip it.
	 */
	int known;
	union {
		const struct hwt_record_process *process;   /* PROCESS_START, EXEC */
		const struct hwt_record_mmap *mmap;
		const struct hwt_record_munmap *munmap;
		const struct hwt_record_thread *thread;     /* THREAD_CREATE, THREAD_EXIT */
		const struct hwt_record_fork *fork;
		const struct hwt_record_exit *exit;
		const struct hwt_record_lost *lost;
		const struct hwt_record_switch *sw;
		const struct hwt_record_buffer *buffer;
		const struct hwt_record_signal *signal;
		const struct hwt_record_untraced *untraced;
	} u;
	/* PROCESS_START, EXEC, MMAP, UNTRACED: the path; else NULL. */
	const char *path;
	/* PROCESS_START, EXEC: argc arguments then NULL; else NULL. */
	const char *const *argv;
	uint32_t argc;
	/* UNTRACED: why; else NULL. */
	const char *reason;
};

struct hwt_sideband *hwt_sideband_alloc(void);
void hwt_sideband_free(struct hwt_sideband *sideband);

/* Opens a sideband file for reading (closing one opened before). */
int hwt_sideband_open(struct hwt_sideband *sideband, const char *path);
/* The same for length bytes of it from offset on: their end is the end. */
int hwt_sideband_open_range(struct hwt_sideband *sideband, const char *path, uint64_t offset,
			    uint64_t length);
/* The same for the size bytes of a file read before (path names it in
   messages); bytes must stay until the reader is closed or freed. The
   records in their first `checked` bytes were read through before, and
   their CRCs are not taken again (hwt_bundle_image_open: those
   hwt_bundle_open checked). */
int hwt_sideband_open_bytes(struct hwt_sideband *sideband, const char *path, const void *bytes,
			    size_t size, size_t checked);

/*
 * Reads the next record into *record. Returns 0 for a record, -hbe_eos at
 * the end of the file, -hbe_torn when the file ends inside a record,
 * -hbe_corrupt when a record does not check (bad magic, size or CRC, or a
 * payload too short for its type, or strings not NUL-terminated inside
 * it), -hbe_io. Errors are sticky: reading stops at the first bad record.
 */
int hwt_sideband_next(struct hwt_sideband *sideband, struct hwt_sideband_record *record);

/* Offset of the next record, or of the bad record after an error. */
uint64_t hwt_sideband_offset(const struct hwt_sideband *sideband);
/* Records read successfully so far. */
uint64_t hwt_sideband_count(const struct hwt_sideband *sideband);
/*
 * After -hbe_torn, -hbe_corrupt or -hbe_io: what is wrong, with the offset
 * ("torn tail at byte 184: the file ends 24 bytes into a 72-byte record").
 * Empty otherwise.
 */
const char *hwt_sideband_error(const struct hwt_sideband *sideband);

#ifdef __cplusplus
}
#endif

#endif /* HWT_BUNDLE_H */
