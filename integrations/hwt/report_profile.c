/*
 * hwt report profile BUNDLE -o OUT: decodes a bundle into a profile file.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "hwt_command.h"
#include "hwt_decode.h"
#include "hwt_spe_profile.h"

static void usage(FILE *out)
{
	fputs("usage: hwt report profile [options] BUNDLE -o OUT\n"
	      "\n"
	      "Decodes every trace stream of BUNDLE (--decoder) and writes the profile:\n"
	      "execution counts of every block and branch edge, keyed by image\n"
	      "(build-id, else path) and file offset (docs/profile.md). Profiles merge\n"
	      "with 'hwt merge'.\n"
	      "\n"
	      "From Arm SPE samples (--trace spe, or a bundle with no branch trace) the\n"
	      "counts are estimates: each sampled instruction and branch counted the\n"
	      "interval's times. The profile then says so in a comment after its first\n"
	      "line, and so does standard error.\n"
	      "\n"
	      "options:\n"
	      "  -o OUT        the profile to write, required ('-': standard output)\n"
	      "  --progress    show progress on stderr even when it is not a terminal\n"
	      "  --stats       print decode figures on stderr (streams, blocks, decode\n"
	      "                errors and the trace bytes they lost, kernel-mode trace left\n"
	      "                out, the edge decoder's, the decode's wall time)\n"
	      "  -q, --quiet   do not print the bundle's warnings\n"
	      "  -j, --jobs N  " HWT_JOBS_HELP "\n"
	      HWT_DECODER_HELP
	      HWT_TRACE_SOURCE_HELP
	      "  -h, --help    this text\n"
	      "\n"
	      "Exit status: 0 clean, 1 the profile was written but the bundle had\n"
	      "warnings (partial profile), 2 nothing was written or a bad option\n"
	      "(docs/exit-status.md).\n", out);
}

static void print_stats(const struct hwt_decode_stats *stats)
{
	fprintf(stderr,
		"hwt report profile: %" PRIu64 " streams, %" PRIu64 " trace bytes, %" PRIu64
		" blocks, %" PRIu64 " instructions, %" PRIu64 " decode errors (%" PRIu64
		" bytes skipped), %" PRIu64 " overflows, %" PRIu64
		" kernel-mode trace bytes left out; edge decoder: %" PRIu64
		" streams, %" PRIu64 " handed to libipt, %" PRIu64 " parts on threads of their own, %"
		PRIu64 " decoded again, %" PRIu64 " split off for idle threads, %" PRIu64
		" walked again to take counts back; decoded in %.4f s\n",
		stats->streams, stats->trace_bytes, stats->blocks, stats->insns, stats->errors,
		stats->error_bytes, stats->overflows, stats->kernel_bytes, stats->edge_streams, stats->edge_fallbacks,
		stats->edge_segments, stats->edge_redecoded, stats->edge_split_off,
		stats->edge_taken_back, (double)stats->wall_ns / 1e9);
}

/*
 * The profile with a comment after its first line that says the counts
 * are sampled, and from what (readers skip comments).
 */
static int write_sampled(const struct hwt_profile *profile, const char *out, const char *source)
{
	char *text = NULL, *nl;
	size_t size = 0;
	FILE *mem = open_memstream(&text, &size), *file;
	int status;

	if (!mem)
		return -hpe_nomem;
	status = hwt_profile_write(profile, mem);
	if (fclose(mem) != 0 && status == 0)
		status = -hpe_nomem;
	nl = status == 0 && text ? strchr(text, '\n') : NULL;
	if (!nl) {
		free(text);
		return status < 0 ? status : -hpe_internal;
	}
	file = strcmp(out, "-") ? fopen(out, "w") : stdout;
	if (!file) {
		free(text);
		return -hpe_io;
	}
	fwrite(text, 1, (size_t)(nl + 1 - text), file);
	fprintf(file, "# sampled: counts from %s; an instruction without a sample may still "
		"have run\n", source);
	fputs(nl + 1, file);
	free(text);
	if (ferror(file))
		status = -hpe_io;
	if (file != stdout ? fclose(file) != 0 : fflush(file) != 0)
		status = -hpe_io;
	return status;
}

int hwt_report_profile_main(int argc, char **argv)
{
	static const struct option long_options[] = {
		HWT_OPTION_OUTPUT,
		{ "progress", no_argument, NULL, 'P' },
		HWT_OPTION_JOBS,
		HWT_OPTION_DECODER,
		{ "stats", no_argument, NULL, 's' },
		{ "trace", required_argument, NULL, 'T' },
		HWT_OPTION_QUIET,
		HWT_OPTION_HELP,
		{ NULL, 0, NULL, 0 },
	};
	struct hwt_command_decode_options options = { .prefix = "hwt report profile" };
	struct hwt_command_options common = { 0 };
	struct hwt_decode_stats stats;
	struct hwt_spe_profile_stats spe_stats;
	struct hwt_profile *profile;
	int used_spe = 0;
	const char *out, *dir = NULL;
	int show_stats = 0, status, warnings, opt;

	options.progress = hwt_progress_tty;
	options.stats = &stats;
	options.used_spe = &used_spe;
	options.spe_stats = &spe_stats;
	/* Options and the bundle in any order. */
	optind = 0; /* glibc: a fresh start (hwt-pgo runs several), with this optstring's ordering */
	opterr = 0; /* the messages are ours */
	while ((opt = getopt_long(argc, argv, ":o:j:qh", long_options, NULL)) != -1) {
		switch (opt) {
		case 'P': options.progress = hwt_progress_always; break;
		case 's': show_stats = 1; break;
		case 'T':
			if (hwt_command_trace_check(optarg, "hwt report profile") < 0)
				return HWT_EXIT_USAGE;
			options.trace = optarg;
			break;
		default:
			status = hwt_command_other_option(&common, opt, optarg, argv, usage,
							  "hwt report profile");
			if (status >= 0)
				return status;
		}
	}
	if (optind < argc)
		dir = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, "hwt report profile: one bundle at a time ('%s')\n", argv[optind]);
		return 2;
	}
	out = common.output;
	options.quiet = common.quiet;
	options.jobs = common.jobs;
	options.decoder = common.decoder;
	if (!dir || !out)
		return hwt_command_usage_error(usage, "hwt report profile", "%s",
					       !dir ? "which bundle?" : "no output file (-o OUT)");
	profile = hwt_profile_alloc();
	if (!profile) {
		fprintf(stderr, "hwt report profile: out of memory\n");
		return HWT_EXIT_ERROR;
	}
	warnings = hwt_command_decode(dir, profile, &options);
	if (warnings < 0) {
		status = HWT_EXIT_ERROR;
		goto out;
	}
	if (used_spe) {
		char source[128];

		hwt_command_spe_source(source, sizeof(source), &spe_stats);
		if (!options.quiet)
			fprintf(stderr, "hwt report profile: counts from %s\n", source);
		if (show_stats)
			fprintf(stderr,
				"hwt report profile: %" PRIu64 " SPE files, %" PRIu64 " bytes, %" PRIu64
				" samples (%" PRIu64 " branches, %" PRIu64 " in no image), %" PRIu64
				" damaged places (%" PRIu64 " bytes lost)\n",
				spe_stats.streams, spe_stats.bytes, spe_stats.samples,
				spe_stats.branches, spe_stats.unmapped, spe_stats.errors,
				spe_stats.lost_bytes);
		status = write_sampled(profile, out, source);
	} else {
		if (show_stats)
			print_stats(&stats);
		status = strcmp(out, "-") ? hwt_profile_save(profile, out)
					  : hwt_profile_write(profile, stdout);
	}
	if (status < 0) {
		fprintf(stderr, "hwt report profile: error: %s: %s\n", out,
			status == -hpe_io ? strerror(errno) : hwt_profile_errstr(status));
		status = HWT_EXIT_ERROR;
		goto out;
	}
	status = warnings ? HWT_EXIT_PARTIAL : HWT_EXIT_OK;
out:
	hwt_profile_free(profile);
	return status;
}
