/*
 * `hwt report lcov BUNDLE -o cov.info [--html DIR] [--include G] [--exclude G]`:
 * its options; hwt_lcov_report (integrations/command) does the rest.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "commands.h"
#include "hwt_command.h"
#include "hwt_decode.h"

#define DEFAULT_OUTPUT "hwt-cov.info"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: hwt report lcov [options] BUNDLE\n"
		"\n"
		"Writes the line, function and branch coverage of a recorded run as an lcov\n"
		"tracefile, from the DWARF of every executed binary and library.\n"
		"\n"
		"  -o, --output FILE   the lcov file to write [" DEFAULT_OUTPUT "]\n"
		"      --html DIR      also write a genhtml report into DIR\n"
		"      --include GLOB  only source files matching GLOB (repeatable; '*'\n"
		"                      matches across '/')\n"
		"      --exclude GLOB  leave out source files matching GLOB (repeatable)\n"
		"      --system        also report system libraries (libc, ...) that have\n"
		"                      debug info (left out by default)\n"
		"  -v, --verbose       also say which system libraries were left out\n"
		"  -q, --quiet         no progress and no summary\n"
		"  -j, --jobs N        " HWT_DECODE_JOBS_HELP "\n"
		"  -h, --help          this text\n");
}

int hwt_report_lcov_main(int argc, char **argv)
{
	static const struct option long_options[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "html", required_argument, NULL, 'H' },
		{ "include", required_argument, NULL, 'i' },
		{ "exclude", required_argument, NULL, 'x' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "system", no_argument, NULL, 'S' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct hwt_lcov_report_options opts = { 0 };
	const char **inc = calloc((size_t)argc + 1, sizeof(*inc));
	const char **exc = calloc((size_t)argc + 1, sizeof(*exc));
	int opt, rc;

	if (!inc || !exc) {
		free(inc);
		free(exc);
		return 2;
	}
	opts.output = DEFAULT_OUTPUT;
	opts.prefix = "hwt report lcov";
	opts.filter.include = inc;
	opts.filter.exclude = exc;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "o:vqj:h", long_options, NULL)) != -1) {
		switch (opt) {
		case 'o': opts.output = optarg; break;
		case 'H': opts.html = optarg; break;
		case 'i': inc[opts.filter.includes++] = optarg; break;
		case 'x': exc[opts.filter.excludes++] = optarg; break;
		case 'v': opts.verbose = 1; break;
		case 'S': opts.system = 1; break;
		case 'q': opts.quiet = 1; break;
		case 'j':
			if (hwt_decode_parse_jobs(optarg, &opts.jobs) < 0) {
				fprintf(stderr, "hwt report lcov: bad -j value '%s'\n", optarg);
				free(inc);
				free(exc);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			free(inc);
			free(exc);
			return 0;
		default:
			usage(stderr);
			free(inc);
			free(exc);
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "hwt report lcov: %s\n",
			optind >= argc ? "which bundle?" : "one bundle at a time");
		usage(stderr);
		free(inc);
		free(exc);
		return 2;
	}
	rc = hwt_lcov_report(argv[optind], &opts);
	free(inc);
	free(exc);
	return rc;
}
