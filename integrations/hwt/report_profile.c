/*
 * hwt report profile BUNDLE -o OUT: decodes a bundle into a profile file.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "hwt_command.h"
#include "hwt_decode.h"

static void usage(FILE *out)
{
	fputs("usage: hwt report profile [options] BUNDLE -o OUT\n"
	      "\n"
	      "Decodes every trace stream of BUNDLE (libipt) and writes the profile:\n"
	      "execution counts of every block and branch edge, keyed by image\n"
	      "(build-id, else path) and file offset (docs/profile.md). Profiles merge\n"
	      "with 'hwt merge'.\n"
	      "\n"
	      "options:\n"
	      "  -o OUT        the profile to write ('-': standard output)\n"
	      "  --progress    show progress on stderr even when it is not a terminal\n"
	      "  --stats       print decode figures on stderr\n"
	      "  -q, --quiet   do not print the bundle's warnings\n"
	      "  -j, --jobs N  " HWT_DECODE_JOBS_HELP "\n"
	      "  -h, --help    this text\n"
	      "\n"
	      "Exit status: 0 clean, 1 the profile was written but the bundle had\n"
	      "warnings (partial profile), 2 nothing was written.\n", out);
}

int hwt_report_profile_main(int argc, char **argv)
{
	struct hwt_command_decode_options options = { .prefix = "hwt report profile" };
	struct hwt_decode_stats stats;
	struct hwt_profile *profile;
	const char *out = NULL, *dir = NULL;
	int show_stats = 0, status, warnings, i;

	options.progress = hwt_progress_tty;
	options.stats = &stats;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			out = argv[++i];
		} else if (!strcmp(argv[i], "--progress")) {
			options.progress = hwt_progress_always;
		} else if ((!strcmp(argv[i], "-j") || !strcmp(argv[i], "--jobs")) && i + 1 < argc) {
			if (hwt_decode_parse_jobs(argv[++i], &options.jobs) < 0) {
				fprintf(stderr, "hwt report profile: bad -j value '%s'\n", argv[i]);
				return 2;
			}
		} else if (!strncmp(argv[i], "-j", 2) && argv[i][2]) {
			if (hwt_decode_parse_jobs(argv[i] + 2, &options.jobs) < 0) {
				fprintf(stderr, "hwt report profile: bad -j value '%s'\n", argv[i] + 2);
				return 2;
			}
		} else if (!strncmp(argv[i], "--jobs=", 7)) {
			if (hwt_decode_parse_jobs(argv[i] + 7, &options.jobs) < 0) {
				fprintf(stderr, "hwt report profile: bad -j value '%s'\n", argv[i] + 7);
				return 2;
			}
		} else if (!strcmp(argv[i], "--stats")) {
			show_stats = 1;
		} else if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet")) {
			options.quiet = 1;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "hwt report profile: unknown option '%s'\n", argv[i]);
			usage(stderr);
			return 2;
		} else if (!dir) {
			dir = argv[i];
		} else {
			fprintf(stderr, "hwt report profile: one bundle at a time ('%s')\n", argv[i]);
			return 2;
		}
	}
	if (!dir || !out) {
		usage(stderr);
		return 2;
	}
	profile = hwt_profile_alloc();
	if (!profile) {
		fprintf(stderr, "hwt report profile: out of memory\n");
		return 2;
	}
	warnings = hwt_command_decode(dir, profile, &options);
	if (warnings < 0) {
		status = 2;
		goto out;
	}
	if (show_stats)
		fprintf(stderr,
			"hwt report profile: %" PRIu64 " streams, %" PRIu64 " trace bytes, %" PRIu64
			" blocks, %" PRIu64 " instructions, %" PRIu64 " decode errors (%" PRIu64
			" bytes skipped), %" PRIu64 " overflows\n",
			stats.streams, stats.trace_bytes, stats.blocks, stats.insns, stats.errors,
			stats.error_bytes, stats.overflows);
	status = strcmp(out, "-") ? hwt_profile_save(profile, out)
				  : hwt_profile_write(profile, stdout);
	if (status < 0) {
		fprintf(stderr, "hwt report profile: error: %s: %s\n", out,
			status == -hpe_io ? strerror(errno) : hwt_profile_errstr(status));
		status = 2;
		goto out;
	}
	status = warnings ? 1 : 0;
out:
	hwt_profile_free(profile);
	return status;
}
