/*
 * `hwt report lcov BUNDLE -o cov.info [-o cov.xml] [--html DIR] [--include G]
 * [--exclude G] [--fail-under-lines N] [--diff REF]`: its options;
 * hwt_lcov_report (integrations/command) does the rest.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "commands.h"
#include "hwt_command.h"

static void usage(FILE *out)
{
	fputs("usage: hwt report lcov [options] BUNDLE\n"
	      "\n"
	      "Writes the line, function and branch coverage of a recorded run (an lcov\n"
	      "tracefile, Cobertura, SonarQube XML, a JSON summary), from the DWARF of every\n"
	      "executed binary and library.\n"
	      "\n"
	      HWT_LCOV_REPORT_USAGE
	      "  -v, --verbose             also say which system libraries were left out\n"
	      "  -q, --quiet               only errors and warnings: no table, no totals, no\n"
	      "                            progress\n"
	      HWT_LCOV_REPORT_SUMMARY_USAGE
	      "  -j, --jobs N              " HWT_JOBS_HELP "\n"
	      "      --decoder NAME        Intel PT decoder: edge (default), libipt, or check\n"
	      "      --trace SOURCE        the trace to count from: etm (the exact branch\n"
	      "                            trace) or spe (Arm SPE samples: SAMPLED coverage,\n"
	      "                            lcov test name spe_sampled); default: the exact\n"
	      "                            trace when the bundle has one, else spe\n"
	      "  -h, --help                this text\n"
	      "\n"
	      "Exit status (docs/exit-status.md): 2 when a report cannot be written (or a\n"
	      "bad option); else the sum of 1 (the bundle had warnings: a partial report),\n"
	      "4 (lines), 8 (functions), 16 (branches) and 32 (diff) for each gate the\n"
	      "coverage is under; else 0.\n",
	      out);
}

int hwt_report_lcov_main(int argc, char **argv)
{
	static const struct option long_options[] = {
		HWT_LCOV_REPORT_LONG_OPTIONS,
		HWT_OPTION_TRACE_SOURCE,
		{ NULL, 0, NULL, 0 },
	};
	struct hwt_lcov_report_options opts;
	int opt, rc;

	if (hwt_lcov_report_options_init(&opts, argc, "hwt report lcov") < 0)
		return HWT_EXIT_ERROR;
	optind = 0; /* glibc: a fresh start (hwt-pgo runs several), with this optstring's ordering */
	opterr = 0; /* the messages are ours */
	while ((opt = getopt_long(argc, argv, ":" HWT_LCOV_REPORT_SHORT_OPTIONS, long_options,
				  NULL)) != -1) {
		rc = hwt_command_option_end(opt, hwt_lcov_report_option(&opts, opt, optarg), argv,
					    usage, "hwt report lcov");
		if (rc >= 0) {
			hwt_lcov_report_options_fini(&opts);
			return rc;
		}
	}
	if (optind != argc - 1) {
		hwt_command_usage_error(usage, "hwt report lcov", "%s",
					optind >= argc ? "which bundle?" : "one bundle at a time");
		hwt_lcov_report_options_fini(&opts);
		return HWT_EXIT_USAGE;
	}
	rc = hwt_lcov_report(argv[optind], &opts);
	hwt_lcov_report_options_fini(&opts);
	return rc;
}
