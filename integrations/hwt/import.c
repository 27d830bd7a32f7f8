/*
 * `hwt import [-o BUNDLE] PERF_DATA`: a perf.data file with Intel PT or
 * CoreSight ETM trace (perf record -e intel_pt//u, -e cs_etm//u), or Arm SPE records
 * (-e arm_spe_0//u), into a trace bundle (collector/perf,
 * docs/perf.md).
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "hwt_bundle.h"
#include "hwt_command.h"
#include "hwt_perf_import.h"

#define PREFIX "hwt import"
#define DEFAULT_OUTPUT "hwt.bundle"

static void usage(FILE *out)
{
	fputs("usage: hwt import [options] PERF_DATA\n"
	      "\n"
	      "Converts a perf.data file holding Intel PT trace (perf record -e intel_pt//u,\n"
	      "per CPU or per thread, full or snapshot mode, file or pipe mode) or CoreSight\n"
	      "ETMv4/ETE trace (perf record -e cs_etm//u, formatted by an ETR or raw from a\n"
	      "TRBE) into a trace bundle that every hwt report reads, or Arm SPE records\n"
	      "(perf record -e arm_spe_0//u) into its SPE streams (spe/; hwt dump --spe),\n"
	      "each record to the thread its Context packet names. PERF_DATA '-' reads\n"
	      "standard input.\n"
	      "\n"
	      "  -o, --output DIR        the bundle to write [" DEFAULT_OUTPUT "]; must not\n"
	      "                          exist or be an empty directory\n"
	      "  -f, --force             replace DIR when it is an existing bundle\n"
	      "  -q, --quiet             print nothing but errors and warnings\n"
	      "      --symfs DIR         look for the recorded binaries under DIR first\n"
	      "      --buildid-dir DIR   perf's build-id cache [$PERF_BUILDID_DIR, else ~/.debug]\n"
	      "  -h, --help              this text\n"
	      "\n"
	      "Binaries are found by build-id (--symfs, the path, perf's build-id cache);\n"
	      "kernel-mode trace is skipped. Whatever was lost (trace the kernel truncated,\n"
	      "records perf lost, AUX data missing or cut, binaries not found) is reported\n"
	      "and written to the bundle. Exit status: 0 imported, 1 imported with such\n"
	      "warnings, 2 nothing imported.\n", out);
}

struct warnings {
	unsigned count;
};

static void warn(void *context, const char *message)
{
	struct warnings *w = context;

	w->count++;
	fprintf(stderr, PREFIX ": warning: %s\n", message);
}

int hwt_import_main(int argc, char **argv)
{
	static const struct option long_options[] = {
		HWT_OPTION_OUTPUT,
		{ "force", no_argument, NULL, 'f' },
		HWT_OPTION_QUIET,
		{ "symfs", required_argument, NULL, 's' },
		{ "buildid-dir", required_argument, NULL, 'b' },
		HWT_OPTION_HELP,
		{ NULL, 0, NULL, 0 },
	};
	char size[32];
	struct hwt_command_options common = { .output = DEFAULT_OUTPUT };
	struct hwt_perf_import_options o = { 0 };
	struct hwt_perf_import_stats st;
	struct warnings w = { 0 };
	const char *output;
	char error[512] = "";
	int force = 0, quiet, status, opt, err;

	optind = 0; /* glibc: a fresh start, with this optstring's ordering */
	opterr = 0; /* the messages are ours */
	while ((opt = getopt_long(argc, argv, ":o:fqh", long_options, NULL)) != -1) {
		switch (opt) {
		case 'f': force = 1; break;
		case 's': o.symfs = optarg; break;
		case 'b': o.buildid_dir = optarg; break;
		default:
			status = hwt_command_other_option(&common, opt, optarg, argv, usage, PREFIX);
			if (status >= 0)
				return status;
		}
	}
	output = common.output;
	quiet = common.quiet;
	if (optind + 1 != argc) {
		return hwt_command_usage_error(usage, PREFIX, "%s",
					       optind >= argc ? "no perf.data file to import"
							      : "one perf.data file at a time");
	}
	if (force && hwt_remove_bundle(output, PREFIX) < 0)
		return HWT_EXIT_ERROR;
	o.warn.fn = warn;
	o.warn.context = &w;
	o.error = error;
	o.error_size = sizeof(error);
	err = hwt_perf_import(argv[optind], output, &o, &st);
	if (err) {
		fprintf(stderr, PREFIX ": %s\n", error[0] ? error : hwt_perf_import_errstr(err));
		if (err == -hie_exists)
			fprintf(stderr, PREFIX ": use -f to replace an old bundle, or another "
				"directory\n");
		return HWT_EXIT_ERROR;
	}
	if (!quiet)
		fprintf(stderr, PREFIX ": %s: %" PRIu64 " %s, %" PRIu64 " %s, %s of trace "
			"(%s, %s mode%s)%s\n", output, st.images,
			hwt_noun(st.images, "process image", "process images"), st.streams,
			hwt_noun(st.streams, "thread stream", "thread streams"),
			hwt_format_size(size, sizeof(size), st.trace_bytes), st.per_cpu ? "per CPU" : "per thread",
			st.pipe_mode ? "pipe" : "file", st.snapshot ? ", snapshots" : "",
			st.kernel_bytes ? "; kernel-mode trace skipped" : "");
	if (st.kernel_bytes && !quiet)
		fprintf(stderr, PREFIX ": %s of kernel-mode trace skipped\n",
			hwt_format_size(size, sizeof(size), st.kernel_bytes));
	return w.count || st.lost_events || st.damaged_bytes || st.missing_binaries ? HWT_EXIT_PARTIAL
										       : HWT_EXIT_OK;
}
