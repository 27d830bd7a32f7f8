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

/* The bundle header key of a recording filtered at record time to the
   selected images (docs/bundle.md); its value says to what. */
#define HWT_RECORD_FILTER_KEY "record_filter"
#define HWT_RECORD_FILTER_SELECTED "selected"

/*
 * The images of a recording with HWT_RECORD_FILTER_KEY: *traced the
 * number of distinct files traced in some process, *filtered those mapped
 * but traced in none (HWT_MMAP_FILTERED), *names their paths (malloc'ed,
 * each and the array). Returns 1, 0 when the recording was not filtered
 * (nothing set), -1 when out of memory.
 */
int hwt_record_filter_images(const struct hwt_bundle *bundle, size_t *traced, size_t *filtered,
			     char ***names);

/*
 * "PREFIX: trace filtered at record time to N images; libc.so.6, ... not
 * traced", when the recording was filtered; nothing otherwise.
 */
void hwt_record_print_filter(const struct hwt_bundle *bundle, FILE *out, const char *prefix);

#endif
