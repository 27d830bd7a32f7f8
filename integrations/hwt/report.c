/*
 * `hwt report FORMAT BUNDLE ...`: the converters from a trace bundle, one
 * per output format, each a function taking (argc, argv) with argv[0] the
 * format's name.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "hwt_command.h"

struct hwt_report_format {
	const char *name;
	int (*main)(int argc, char **argv);
	const char *help;
};

static const struct hwt_report_format formats[] = {
	{ "afdo", hwt_report_afdo_main,
	  "LLVM sample profile for clang -fprofile-sample-use (text, binary)" },
	{ "afdo-text", hwt_report_afdo_text_main,
	  "AutoFDO create_llvm_prof --profiler=text input of one binary" },
	{ "bolt", hwt_report_bolt_main,
	  "llvm-bolt's profile (fdata) of one binary: exact branch counts" },
	{ "chrome", hwt_report_flame_main,
	  "every call per thread as Chrome trace events (Perfetto)" },
	{ "diff", hwt_report_diff_main,
	  "diff coverage: the lines changed since a git revision, from lcov" },
	{ "flame", hwt_report_flame_main,
	  "an SVG flame graph of the exact call stacks (--diff A B too)" },
	{ "folded", hwt_report_flame_main,
	  "folded stacks (flamegraph.pl, inferno, speedscope read them)" },
	{ "impact", hwt_report_impact_main,
	  "the tests that ran the lines changed since a git revision" },
	{ "lcov", hwt_report_lcov_main,
	  "lcov: line, function and branch coverage of images with debug info" },
	{ "profile", hwt_report_profile_main,
	  "an hwt profile: exact counts per image and file offset" },
	{ "speedscope", hwt_report_flame_main,
	  "a speedscope file: a timeline of every call per thread" },
	{ "tests", hwt_report_tests_main,
	  "the tests that ran a line or a function (hwt-cov --per-test)" },
};

#define NFORMATS (sizeof(formats) / sizeof(formats[0]))

static void usage(FILE *out)
{
	size_t i;

	fputs("usage: hwt report FORMAT [options] BUNDLE\n\nformats:\n", out);
	for (i = 0; i < NFORMATS; i++)
		fprintf(out, "  %-11s %s\n", formats[i].name, formats[i].help);
	fputs("\n'hwt report FORMAT --help' describes a format's options.\n", out);
}

int hwt_report_main(int argc, char **argv)
{
	size_t i;

	if (argc < 2)
		return hwt_command_usage_error(usage, "hwt report", "which format?");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return HWT_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version"))
		return hwt_command_version("hwt report");
	if (argv[1][0] == '-')
		return hwt_command_usage_error(usage, "hwt report", "unknown option '%s'", argv[1]);
	for (i = 0; i < NFORMATS; i++)
		if (!strcmp(formats[i].name, argv[1]))
			return formats[i].main(argc - 1, argv + 1);
	return hwt_command_usage_error(usage, "hwt report", "'%s' is not a report format", argv[1]);
}
