/*
 * `hwt export [-o perf.data] BUNDLE`: a trace bundle as a perf.data file
 * with Intel PT AUX data that Linux perf decodes (converters/perf,
 * docs/perf.md).
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "hwt_bundle.h"
#include "hwt_command.h"
#include "hwt_perf_export.h"

#define PREFIX "hwt export"
#define DEFAULT_OUTPUT "perf.data"

static void usage(FILE *out)
{
	fputs("usage: hwt export [options] BUNDLE\n"
	      "\n"
	      "Writes a trace bundle as a perf.data file with Intel PT AUX data, which\n"
	      "Linux perf decodes as a recording of Intel PT hardware (perf script, perf\n"
	      "report, perf inject --itrace) with its own decoder; a bundle of ETMv4\n"
	      "streams (aarch64 programs) as cs_etm AUX data, a CoreSight ETM per thread,\n"
	      "which perf decodes with OpenCSD. With --spe, the bundle's Arm SPE\n"
	      "streams (hwt record --spe) instead, as arm_spe AUX data, which perf's\n"
	      "arm_spe decoder reads (perf script -D, perf report).\n"
	      "\n"
	      "  -o, --output FILE   the file to write [" DEFAULT_OUTPUT "]; '-': standard\n"
	      "                      output, in pipe mode\n"
	      "      --pipe          pipe mode (as perf record -o -) into FILE too\n"
	      "  -z, --compress      zstd-compress the records (as perf record -z)\n"
	      "      --cpuid CPUID   the CPU the file claims, perf's \"GenuineIntel,F,M,S\"\n"
	      "                      [the bundle's pt_cpu, else one without errata]\n"
	      "      --one-cpu       every thread on one CPU, with context switch records\n"
	      "                      (for tests of per-CPU decoders; Intel PT only)\n"
	      "      --spe           the SPE streams (spe/) as an arm_spe recording, not\n"
	      "                      the branch trace (one kind of trace per file)\n"
	      "  -q, --quiet         print nothing but errors and warnings\n"
	      "  -h, --help          this text\n"
	      "\n"
	      "Exit status: 0 written, 1 written with warnings, 2 not written.\n", out);
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

int hwt_export_main(int argc, char **argv)
{
	static const struct option long_options[] = {
		HWT_OPTION_OUTPUT,
		{ "pipe", no_argument, NULL, 'p' },
		{ "compress", no_argument, NULL, 'z' },
		{ "cpuid", required_argument, NULL, 'c' },
		{ "one-cpu", no_argument, NULL, '1' },
		{ "spe", no_argument, NULL, 's' },
		HWT_OPTION_QUIET,
		HWT_OPTION_HELP,
		{ NULL, 0, NULL, 0 },
	};
	char size[32];
	struct hwt_command_options common = { .output = DEFAULT_OUTPUT };
	struct hwt_perf_export_options o = { 0 };
	struct hwt_perf_export_stats st;
	struct hwt_bundle *bundle;
	struct warnings w = { 0 };
	const char *output;
	int quiet, status, opt, err;

	optind = 0; /* glibc: a fresh start, with this optstring's ordering */
	opterr = 0; /* the messages are ours */
	while ((opt = getopt_long(argc, argv, ":o:zqh", long_options, NULL)) != -1) {
		switch (opt) {
		case 'p': o.flags |= HWT_PERF_EXPORT_PIPE; break;
		case 'z': o.flags |= HWT_PERF_EXPORT_COMPRESS; break;
		case 'c': o.cpuid = optarg; break;
		case '1': o.flags |= HWT_PERF_EXPORT_ONE_CPU; break;
		case 's': o.flags |= HWT_PERF_EXPORT_SPE; break;
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
					       optind >= argc ? "no bundle to export"
							      : "one bundle at a time");
	}
	bundle = hwt_command_open_bundle(argv[optind], stderr, PREFIX);
	if (!bundle)
		return HWT_EXIT_ERROR;
	hwt_command_print_diags(bundle, stderr, PREFIX);
	o.argv = (const char *const *)argv;
	o.argc = (size_t)argc;
	o.warn.fn = warn;
	o.warn.context = &w;
	err = hwt_perf_export(bundle, output, &o, &st);
	if (err) {
		fprintf(stderr, PREFIX ": %s: %s\n", output, hwt_perf_export_errstr(err));
		hwt_bundle_free(bundle);
		return HWT_EXIT_ERROR;
	}
	if (!quiet && strcmp(output, "-"))
		fprintf(stderr, PREFIX ": %s: %" PRIu64 " %s, %" PRIu64 " %s, %s of trace, %" PRIu64
			" %s\n", output, st.images, hwt_noun(st.images, "process image", "process images"),
			st.streams, hwt_noun(st.streams, "thread stream", "thread streams"),
			hwt_format_size(size, sizeof(size), st.trace_bytes), st.records,
			hwt_noun(st.records, "sideband record", "sideband records"));
	if (!quiet && st.skipped_records)
		fprintf(stderr, PREFIX ": %" PRIu64 " %s perf.data has no place for (signals, "
			"...) left out\n", st.skipped_records,
			hwt_noun(st.skipped_records, "record", "records"));
	w.count += (unsigned)hwt_bundle_warning_count(bundle);
	hwt_bundle_free(bundle);
	return w.count ? HWT_EXIT_PARTIAL : HWT_EXIT_OK;
}
