/*
 * The Valgrind trace unit (collector/valgrind): Valgrind with hwt's tool,
 * from lib/hwt/valgrind (or $HWT_VALGRIND_LIB). unit_run.c runs it.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

#include "trace_unit.h"

static int valgrind_prepare(struct hwt_unit_files *files, const struct hwt_unit_options *opts,
			    const char *prefix, int quiet)
{
	/* Debian's `valgrind` is a shell script around valgrind.bin: spare a shell per
	   traced process when selecting (with --trace-all, as before). */
	if ((opts->trace_all ||
	     hwt_unit_find_in_path("valgrind.bin", files->exe, sizeof(files->exe)) < 0) &&
	    hwt_unit_find_in_path("valgrind", files->exe, sizeof(files->exe)) < 0) {
		if (!quiet)
			fprintf(stderr, "%s: cannot run valgrind: not found in PATH "
				"(install it: apt-get install valgrind)\n", prefix);
		return -1;
	}
	return 0;
}

static int valgrind_argv_prefix(const struct hwt_unit_files *files, const char *bundle,
				const struct hwt_unit_options *opts, struct hwt_unit_argv *out)
{
	int rc = 0;

	rc |= hwt_unit_arg(out, files->exe);
	rc |= hwt_unit_arg(out, "--tool=hwt");
	rc |= hwt_unit_arg(out, "-q");
	rc |= hwt_unit_arg(out, opts->trace_all ? "--trace-children=yes" : "--trace-children=no");
	/* One translated block per run of straight-line code (see collector/valgrind/instrument.c). */
	rc |= hwt_unit_arg(out, "--vex-guest-chase=no");
	rc |= hwt_unit_arg(out, "--vex-iropt-unroll-thresh=0");
	rc |= hwt_unit_argf(out, "--hwt-bundle=%s", bundle);
	if (opts->debug_blocks)
		rc |= hwt_unit_arg(out, "--hwt-debug-blocks=yes");
	if (opts->psb_period > 0)
		rc |= hwt_unit_argf(out, "--hwt-psb-period=%ld", opts->psb_period);
	for (int i = 0; opts->filters[i] && i < 16; i++)
		rc |= hwt_unit_argf(out, "--hwt-filter=%s", opts->filters[i]);
	if (hwt_unit_record_filter(&hwt_valgrind_unit, opts))
		rc |= hwt_unit_arg(out, "--hwt-select-filter=yes");
	return rc ? -1 : 0;
}

static void valgrind_child_env(const struct hwt_unit_files *files)
{
	setenv("VALGRIND_LIB", files->lib, 1);
}

const struct hwt_unit hwt_valgrind_unit = {
	.name = "valgrind",
	.title = "Valgrind",
	.lib_env = "HWT_VALGRIND_LIB",
	.lib_dir = "valgrind",
	.lib_file = "hwt-amd64-linux",
	.prepare = valgrind_prepare,
	.argv_prefix = valgrind_argv_prefix,
	.child_env = valgrind_child_env,
	.traces = "intel-pt",
	.argv_prefix_aarch64 = NULL,
	.follows_children = 1,
	.record_filter = HWT_RECORD_FILTER_ALWAYS,
};
