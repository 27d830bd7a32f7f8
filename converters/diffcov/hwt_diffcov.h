/*
 * Diff coverage: the coverage of the lines a change adds or modifies, per
 * file and in total, as diff-cover computes it. Two objects, in the style
 * of libipt:
 *
 *  - struct hwt_diff: the lines added or changed per file, read from a
 *    unified diff (what `git diff` writes), numbered as in the new files;
 *  - struct hwt_diff_coverage: those lines met with a coverage report
 *    (converters/lcov's files): which of them have code, which of those ran.
 *
 * Functions return 0 or a negative enum hwt_diffcov_error
 * (hwt_diffcov_errstr names it). Nothing is printed: the reports are
 * written to a file the caller opened.
 */
#ifndef HWT_DIFFCOV_H
#define HWT_DIFFCOV_H

#include "hwt_errors.h"
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

struct hwt_cov_files;

enum hwt_diffcov_error {
	hdc_ok = hwt_ok,
	hdc_internal = hwt_err_internal,
	hdc_invalid = hwt_err_invalid,
	hdc_nomem = hwt_err_nomem,
	hdc_io = hwt_err_io,               /* the diff cannot be read, or the report written */
	hdc_syntax = HWT_ERR_DIFFCOV_BASE, /* not a unified diff: a hunk header or a hunk is malformed */
	hdc_combined,                      /* a combined diff ("@@@": a merge with conflicts in progress) */
};

const char *hwt_diffcov_errstr(int code);

/* ----- The lines a diff adds or changes ------------------------------------ */

struct hwt_diff;

struct hwt_diff *hwt_diff_alloc(void);
void hwt_diff_free(struct hwt_diff *diff);

/*
 * Reads a unified diff from file (git's "diff --git" sections, a/ and b/
 * prefixes, quoted names, any amount of context; plain `diff -u` output
 * too) and adds, for each file of the new side, the numbers of its '+'
 * lines. Deleted files have none, nor do binary files, renames without
 * changes and mode changes. Returns 0, -hdc_nomem, -hdc_io, or
 * -hdc_syntax / -hdc_combined with *bad_line (when not NULL) the number
 * of the line it stopped at.
 */
int hwt_diff_read(struct hwt_diff *diff, FILE *file, size_t *bad_line);

/* Files of the new side (paths as the diff gives them, prefix removed), sorted. */
size_t hwt_diff_file_count(const struct hwt_diff *diff);
const char *hwt_diff_file_path(const struct hwt_diff *diff, size_t i);
/* The file's added or changed lines, ascending, each once. */
const uint32_t *hwt_diff_file_lines(const struct hwt_diff *diff, size_t i, size_t *count);

/* ----- Those lines in a coverage report ------------------------------------ */

struct hwt_diff_file_coverage {
	const char *path;         /* as the diff names it */
	const char *source;       /* the coverage's name of the file */
	size_t changed;           /* lines added or changed */
	size_t measured;          /* of those, lines with code (in the report) */
	size_t covered;           /* of those, lines that ran */
	const uint32_t *not_run;  /* the measured lines that did not run, ascending */
};

struct hwt_diff_coverage {
	const struct hwt_diff_file_coverage *file;  /* files with measured lines, by path */
	size_t count;
	size_t files_changed;     /* files of the diff with added or changed lines */
	size_t changed;           /* their lines added or changed */
	size_t measured, covered; /* sums over file[] */
};

/*
 * Meets diff with the coverage files: a diff path is top/PATH (top: the
 * absolute directory the diff's paths are relative to, the repository's
 * top for git), and names the coverage file with that path or, when both
 * exist, the same file after symbolic links (realpath). A line is
 * measured when a coverage file has it, covered when its count there is
 * above 0. Returns 0 or -hdc_nomem; *out is freed with
 * hwt_diff_coverage_free.
 */
int hwt_diff_coverage_compute(const struct hwt_diff *diff, const struct hwt_cov_files *files,
			      const char *top, struct hwt_diff_coverage **out);
void hwt_diff_coverage_free(struct hwt_diff_coverage *coverage);

/* The covered share of the measured lines in percent: 100 when none is measured. */
double hwt_diff_coverage_percent(size_t covered, size_t measured);

/* ----- The report ---------------------------------------------------------- */

enum hwt_diff_format {
	hwt_diff_text,      /* for a terminal or a CI log */
	hwt_diff_markdown,  /* for a pull request's comment */
	hwt_diff_json,      /* for scripts */
};

/* The format named name, or -1. */
int hwt_diff_format_from_name(const char *name);
/* By the file name: *.md Markdown, *.json JSON, anything else text. */
enum hwt_diff_format hwt_diff_format_from_path(const char *path);

struct hwt_diff_report_options {
	const char *base;        /* what the change is measured from ("origin/main") */
	const char *merge_base;  /* the commit the diff starts at, or NULL */
};

/* Writes coverage in format to file; options may be NULL. 0 or -hdc_io. */
int hwt_diff_coverage_write(const struct hwt_diff_coverage *coverage,
			    enum hwt_diff_format format,
			    const struct hwt_diff_report_options *options, FILE *file);

#ifdef __cplusplus
}
#endif

#endif /* HWT_DIFFCOV_H */
