/*
 * Helpers for the bundle tests: checks, scratch directories, writing sealed
 * sideband records and hand-made PT packets, a synthetic bundle whose
 * content is known, running the real hwt binary.
 */
#ifndef HWT_TESTLIB_H
#define HWT_TESTLIB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hwt_bundle.h"

/* ----- checks ----- */

extern int test_failures;
extern int test_checks;

#define CHECK(cond) test_check(!!(cond), __FILE__, __LINE__, "%s", #cond)
#define CHECKF(cond, ...) test_check(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define CHECK_EQ(a, b) \
	test_check_eq((long long)(a), (long long)(b), __FILE__, __LINE__, #a, #b)
#define CHECK_STR(hay, needle) \
	test_check_contains((hay), (needle), __FILE__, __LINE__, #hay)
#define CHECK_NOSTR(hay, needle) \
	test_check_lacks((hay), (needle), __FILE__, __LINE__, #hay)

int test_check(int ok, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int test_check_eq(long long a, long long b, const char *file, int line,
		  const char *as, const char *bs);
int test_check_contains(const char *hay, const char *needle, const char *file, int line,
			const char *what);
int test_check_lacks(const char *hay, const char *needle, const char *file, int line,
		     const char *what);
/* Prints the tally; returns the process exit status. */
int test_done(const char *name);

/* The bundle's diagnostics as one text, "warning: MESSAGE" or "error: ..." a line (malloc'd). */
char *test_diag_text(const struct hwt_bundle *b);

/* ----- files ----- */

/* A fresh scratch directory (under $TMPDIR or /tmp), malloc'd path. */
char *test_tmpdir(const char *tag);
/* rm -rf (hwt_bundle_remove) */
void test_rmtree(const char *path);
char *test_path(const char *dir, const char *name);
/* Whole file, malloc'd and NUL-terminated; NULL when unreadable. */
char *test_read(const char *path, size_t *len);
void test_write(const char *path, const void *bytes, size_t len);
void test_append(const char *path, const void *bytes, size_t len);
void test_mkdir(const char *path);

/* ----- records ----- */

/* A record under construction (8-aligned storage). */
struct test_rec {
	uint64_t words[HWT_RECORD_MAX_SIZE / 8];
	size_t len;
};

/* Starts a record of type with a zeroed fixed part of fixed bytes. */
void *rec_begin(struct test_rec *r, uint16_t type, size_t fixed, uint64_t time,
		uint32_t pid, uint32_t tid);
void rec_string(struct test_rec *r, const char *s);
void rec_bytes(struct test_rec *r, const void *bytes, size_t len);
/* Pads to 8, sets size and seals; returns the header. */
struct hwt_record_header *rec_end(struct test_rec *r);
/* As rec_end but without sealing (for records made wrong on purpose). */
struct hwt_record_header *rec_end_size(struct test_rec *r, uint32_t size);

/* ----- the synthetic bundle ----- */

/* One record written to a sideband file, kept to compare with what is read. */
struct test_written {
	char file[32];        /* "100.0" */
	uint64_t offset;
	uint32_t size;
	uint8_t *bytes;
	/* Decoded expectations for typed records. */
	const char *path;
	const char *reason;
	int argc;
	const char *const *argv;
};

struct test_bundle {
	char *dir;
	struct test_written recs[64];
	size_t nrecs;
	/* Expected totals. */
	struct hwt_bundle_totals totals;
};

#define SYNTH_LOST     0x1  /* LOST records in two images */
#define SYNTH_SUMMARY  0x2  /* write the summary */

/*
 * Writes a bundle with three images (100.0 exec'd into 100.1; 102.0 a
 * fork child), every record type, an unknown type, and four streams
 * made of hand-written packets. Fills tb (dir is dir).
 */
void synth_bundle(struct test_bundle *tb, const char *dir, unsigned flags);
void synth_free(struct test_bundle *tb);

/* Appends a record to sideband/<file>.sb, remembering it in tb. */
void synth_record(struct test_bundle *tb, const char *file, struct test_rec *r,
		  const char *path, const char *reason, int argc, const char *const *argv);

/* Hand-written Intel PT: PSB, PSBEND, MODE.Exec, TIP.PGE, TNT, TIP, TIP.PGD. */
size_t pt_psb(uint8_t *p);
size_t pt_psbend(uint8_t *p);
size_t pt_mode_exec64(uint8_t *p);
size_t pt_tsc(uint8_t *p, uint64_t tsc);
/* ipc 0 (suppressed), 1 (16 bits), 2 (32), 3 (sext 48), 6 (64). */
size_t pt_ip(uint8_t *p, uint8_t opcode, unsigned ipc, uint64_t ip);
#define PT_TIP      0x0d
#define PT_TIP_PGE  0x11
#define PT_TIP_PGD  0x01
#define PT_FUP      0x1d
/* Short TNT with n (1..6) bits, the first branch taken when bits[0] == '!'. */
size_t pt_tnt(uint8_t *p, const char *bits);
size_t pt_pad(uint8_t *p);
size_t pt_ovf(uint8_t *p);

/* ----- running hwt ----- */

struct test_run {
	int status;   /* exit status, or 128 + signal */
	char *out;
	char *err;
};

/* Runs argv (argv[0] a path) with stdout and stderr captured. */
void test_run(struct test_run *run, char *const argv[]);
void test_run_free(struct test_run *run);

#endif /* HWT_TESTLIB_H */
