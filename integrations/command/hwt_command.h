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
