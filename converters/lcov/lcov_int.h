/* Internal helpers of the lcov writer. */
#ifndef HWT_LCOV_INT_H
#define HWT_LCOV_INT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct hwt_cov_file;
struct hwt_cov_files;
struct hwt_cov_test;
struct hwt_coverage;

/*
 * Lexically normalised copy of a path (malloc'd, NULL on ENOMEM): "//"
 * and "/./" collapse, "dir/.." goes away (lcov and genhtml compare file
 * names as strings, as gcov writes them).
 */
char *hwt_lcov_normalize_path(const char *path);

/* path relative to root when it lies under it (root NULL: path as is). */
const char *hwt_cov_relative_path(const char *root, const char *path);

/*
 * The branches of f on line, looked for from *next on (call it for
 * ascending lines): their number, the taken ones in *taken; *next moves
 * past them.
 */
uint64_t hwt_cov_line_branches(const struct hwt_cov_file *f, uint32_t line, size_t *next,
			       uint64_t *taken);

/* The writers of each format (format.c dispatches); 0 or -hle_io. */
int hwt_cov_write_lcov(const struct hwt_cov_files *files, const char *test_name, FILE *file);
int hwt_cov_write_cobertura(const struct hwt_cov_files *files, const char *root,
			    long long timestamp, const char *producer, FILE *file);
int hwt_cov_write_json_summary(const struct hwt_cov_files *files,
			       const struct hwt_cov_test *tests, size_t ntests, const char *root,
			       FILE *file);
int hwt_cov_write_sonarqube(const struct hwt_cov_files *files, const char *root, FILE *file);

/* ----- A source file's text (source.c) ------------------------------------- */

struct hwt_source_text {
	char *text;
	size_t size;
	const char **line_start;  /* lines + 1 entries: line k is [k-1, k) */
	uint32_t lines;           /* "a\nb" and "a\nb\n" have 2 */
	int64_t mtime_ns;         /* of the file read */
};

/* Reads path whole; 0, -hle_io (errno says why) or -hle_nomem. */
int hwt_source_text_read(struct hwt_source_text *text, const char *path);
/* Line (1-based) and its length with its newline, or NULL past the end. */
const char *hwt_source_text_line(const struct hwt_source_text *text, uint32_t line,
				 size_t *len);
void hwt_source_text_fini(struct hwt_source_text *text);

/* ----- Exclusion markers (exclusion.c) ------------------------------------- */

/* What a line's markers leave out of the report. */
enum hwt_exclusion {
	HWT_EXCLUDE_LINE = 1,      /* its DA and its branches */
	HWT_EXCLUDE_BRANCH = 2,    /* its branches */
	HWT_EXCLUDE_FUNCTION = 4,  /* the functions that start on it (lcov's rule) */
};

/* A marker that does not pair, as lcov and gcovr warn about it. */
struct hwt_exclusion_problem {
	uint32_t line;
	const char *marker;        /* "LCOV_EXCL_START", "GCOVR_EXCL_BR_STOP"... */
	const char *what;          /* why it is wrong and what was done */
};

/*
 * The markers of text: flags[line] (line 1..text->lines; flags has
 * text->lines + 1 entries) gets the enum hwt_exclusion bits of each line.
 * Problems (up to max of them) go to problems; returns how many there were
 * (more than max: the rest were not stored), or -hle_nomem.
 */
long hwt_exclusion_scan(const struct hwt_source_text *text, uint8_t *flags,
			struct hwt_exclusion_problem *problems, size_t max);

/* ----- hwt_coverage_add in two halves (coverage.c) ------------------------- */

struct hwt_cov_insn;
struct hwt_debuginfo;
struct hwt_cov_plan;

/*
 * What hwt_coverage_add does that no count changes: the lines, functions
 * and branches of info's image (the rules at the top of coverage.c, source
 * text included, read through cov). It keeps pointers into info: free it
 * first. 0, -hle_invalid or -hle_nomem.
 */
int hwt_cov_plan_make(struct hwt_coverage *cov, const struct hwt_debuginfo *info,
		      struct hwt_cov_plan **plan);
/* Adds plan's image to cov with insns' counts (as hwt_coverage_add). */
int hwt_cov_plan_apply(struct hwt_coverage *cov, const struct hwt_cov_plan *plan,
		       const struct hwt_debuginfo *info, const struct hwt_cov_insn *insns,
		       size_t n);
void hwt_cov_plan_free(struct hwt_cov_plan *plan);

/* ----- The coverage's side of the source checks (coverage.c) -------------- */

/* Source file path names lines of image (its file's mtime in ns): the
   oldest image is kept. Unknown paths are ignored; 0 or -hle_nomem. */
int hwt_coverage_source_image(struct hwt_coverage *cov, const char *path, const char *image,
			      int64_t mtime_ns);
/* The image kept for source i (NULL: none known) and its mtime. */
const char *hwt_coverage_source_image_at(const struct hwt_coverage *cov, size_t i,
					 int64_t *mtime_ns);
/* 1 when source i was dropped (hwt_coverage_source_drop). */
int hwt_coverage_source_dropped(const struct hwt_coverage *cov, size_t i);
/* The largest line number that a line, function or branch of source i has. */
uint32_t hwt_coverage_source_last_line(const struct hwt_coverage *cov, size_t i);

/* What hwt_coverage_source_exclude left out. */
struct hwt_cov_excluded {
	uint64_t lines, functions, branches;   /* by the flags */
	uint64_t past_end;                     /* lines (DA) past the last line */
};

/*
 * Leaves out of source i what flags (enum hwt_exclusion per line,
 * 1..nlines) say, and everything on lines past nlines; counts it in
 * *excluded (added to). flags may be NULL (no line flagged). 0 or
 * -hle_invalid.
 */
int hwt_coverage_source_exclude(struct hwt_coverage *cov, size_t i, const uint8_t *flags,
				uint32_t nlines, struct hwt_cov_excluded *excluded);

#endif
