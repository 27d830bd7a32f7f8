/*
 * What the commands (hwt's subcommands, hwt-cov, hwt-pgo) share: the parts
 * that print messages, run other programs or decide exit statuses, on top
 * of the libraries (bundle/, collector/, converters/), which do none of
 * that.
 */
#ifndef HWT_COMMAND_H
#define HWT_COMMAND_H

#include <stdint.h>
#include <stdio.h>

#include "hwt_lcov.h"

struct hwt_bundle;
struct hwt_decode_live;
struct hwt_decode_stats;
struct hwt_profile;
struct hwt_unit_options;

/* ----- bundle.c: opening a bundle, its diagnostics ------------------------ */

/* Prints the bundle's diagnostics, one a line: "PREFIX: warning: ..." or "error". */
void hwt_command_print_diags(const struct hwt_bundle *bundle, FILE *file, const char *prefix);

/* Opens the bundle in dir, or says why not to err (prefix first) and returns NULL. */
struct hwt_bundle *hwt_command_open_bundle(const char *dir, FILE *err, const char *prefix);

/* ----- progress.c: the decode's progress on stderr ------------------------ */

enum hwt_progress_mode {
	hwt_progress_none,
	hwt_progress_tty,    /* when stderr is a terminal */
	hwt_progress_always,
};

struct hwt_progress {
	int shown;           /* mode said yes */
	uint64_t last;       /* bytes done at the last line */
	int printed;         /* a line is up (hwt_progress_end ends it) */
};

void hwt_progress_init(struct hwt_progress *progress, enum hwt_progress_mode mode);
/* An hwt_decode_progress_fn: context is the struct hwt_progress. */
void hwt_progress_print(uint64_t done, uint64_t total, void *context);
/* Ends the line when one was printed. */
void hwt_progress_end(struct hwt_progress *progress);

/* ----- run.c: another program ------------------------------------------ */

/*
 * Runs argv[0] (looked up in PATH when it has no '/') with argv, standard
 * output to /dev/null when stdout_to_null, and waits for it. Returns 0
 * with its waitpid status in *status, or the errno value that kept it from
 * running (ENOENT: no such program).
 */
int hwt_command_run(char *const argv[], int stdout_to_null, int *status);

/* ----- decode.c: a bundle's decode ---------------------------------------- */

struct hwt_command_decode_options {
	const char *prefix;              /* of every message */
	enum hwt_progress_mode progress;
	int quiet;                       /* do not print the bundle's diagnostics */
	unsigned jobs;                   /* hwt_decode_options.jobs */
	struct hwt_decode_live *live;    /* the decode while recording to finish, or NULL */
	struct hwt_decode_stats *stats;  /* filled when not NULL */
};

/*
 * Opens the bundle in dir, decodes it into profile (adding to what is
 * there) and prints its diagnostics unless how->quiet. Returns the number
 * of warnings the bundle had (0 clean), or -1 when it cannot be opened or
 * decoded (the message printed).
 */
int hwt_command_decode(const char *dir, struct hwt_profile *profile,
		       const struct hwt_command_decode_options *how);

/* ----- record_run.c: a recording ------------------------------------------ */

/*
 * Creates the bundle dir, runs argv (and everything it starts) under the
 * trace unit into it and writes its summary. Returns 0 with the command's
 * waitpid status in *status, or -1 with a message (prefixed) printed.
 */
int hwt_record_run(const char *dir, const struct hwt_unit_options *unit, char *const argv[],
		   int *status, const char *prefix);

/* Exit status a shell would give for a waitpid status (128 + signal when killed). */
int hwt_exit_code(int wait_status);

/* ----- lcov_report.c: a bundle's lcov report ------------------------------ */

struct hwt_lcov_report_options {
	const char *output;          /* the lcov file (required) */
	const char *html;            /* genhtml output directory, or NULL */
	struct hwt_lcov_filter filter;
	int verbose;                 /* also say which system images were left out */
	int system;                  /* report system images (libc, ...) with debug info too */
	int quiet;                   /* no summary, no progress */
	const char *prefix;          /* message prefix ("hwt report lcov", "hwt-cov") */
	unsigned jobs;               /* decode threads (hwt_decode_options.jobs) */
	struct hwt_decode_live *live; /* the decode while recording to finish, or NULL */
};

/*
 * Decodes the bundle in bundle_dir, writes the lcov file, runs genhtml when
 * asked, prints the summary and every warning (images without debug info,
 * deleted or replaced since the run, damaged trace). Returns 0 when the
 * report was written (possibly with warnings), 2 when it could not be
 * (the bundle cannot be read, the file cannot be written, genhtml failed).
 */
int hwt_lcov_report(const char *bundle_dir, const struct hwt_lcov_report_options *options);

#endif
