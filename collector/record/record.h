/*
 * What a recording's bundle says about the selection of processes, for the
 * commands that record (hwt record, hwt-cov) to tell their user.
 */
#ifndef HWT_RECORDER_REPORT_H
#define HWT_RECORDER_REPORT_H

#include <stdio.h>

struct hwt_bundle;
struct hwt_unit_options;

/*
 * Says which processes ran natively for a reason that may surprise (no debug
 * info, setuid, below a static program; not system tools or scripts), one
 * line per executable and reason, so that a user who expected their coverage
 * knows what to select. Returns the number of untraced processes.
 */
size_t hwt_record_print_untraced(struct hwt_bundle *bundle, FILE *out, const char *prefix);

/*
 * Says which traced processes were selected for a library they load rather
 * than for their executable (judged again from the bundle with unit's
 * --trace/--no-trace), one line per executable and library. Returns their
 * number.
 */
size_t hwt_record_print_by_library(struct hwt_bundle *bundle, const struct hwt_unit_options *unit,
				   FILE *out, const char *prefix);

#endif
