/*
 * What the commands (hwt's subcommands, hwt-cov, hwt-pgo) share: the parts
 * that print messages, run other programs or decide exit statuses, on top
 * of the libraries (bundle/, collector/, converters/), which do none of
 * that.
 */
#ifndef HWT_COMMAND_H
#define HWT_COMMAND_H

#include "hwt_lcov.h"

struct hwt_decode_live;
struct hwt_unit_options;

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
