/*
 * `hwt report diff --base REF [options] COVERAGE.info`: the coverage of
 * the lines added or changed since REF (the merge base of REF and HEAD,
 * to the working tree), per file and in total, from an lcov tracefile
 * (hwt-cov's, or any other), as text, Markdown or JSON.
 */
#include <errno.h>
#include <math.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "hwt_command.h"
#include "hwt_diffcov.h"
#include "hwt_lcov.h"

#define PREFIX "hwt report diff"

static void usage(FILE *out)
{
	fputs("usage: hwt report diff --base REF [options] COVERAGE.info\n"
	      "\n"
	      "The coverage of the lines added or changed since the merge base of REF and\n"
	      "HEAD (git diff from there to the working tree, in the repository of the\n"
	      "current directory), per file and in total, from an lcov tracefile: of the\n"
	      "changed lines that have code, how many ran.\n"
	      "\n"
	      "      --base REF            the revision the change is measured from\n"
	      "                            (origin/main, a commit)\n"
	      "  -o, --output FILE         write the report to FILE [the standard output]\n"
	      "      --format FORMAT       text, markdown (a pull request's comment) or json\n"
	      "                            [by -o's name: *.md, *.json, else text]\n"
	      "      --include GLOB        only source files matching GLOB (repeatable)\n"
	      "      --exclude GLOB        leave out source files matching GLOB (repeatable)\n"
	      HWT_DIFF_GATE_USAGE
	      "  -q, --quiet               no total on stderr\n"
	      "  -h, --help                this text\n"
	      "\n"
	      "Exit status: 0; 32 when under --fail-under-diff; 2 when the report cannot be\n"
	      "made (no such revision, not an lcov file, not in a git repository).\n",
	      out);
}

/* Reads the lcov file path into cov; -1 with a message. */
static int read_lcov(struct hwt_coverage *cov, const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	size_t bad_line;
	int rc;

	if (!f) {
		fprintf(stderr, PREFIX ": cannot read %s: %s\n", path, strerror(errno));
		return -1;
	}
	rc = hwt_coverage_read_lcov(cov, f, &bad_line);
	if (f != stdin)
		fclose(f);
	if (rc == -hle_syntax)
		fprintf(stderr, PREFIX ": %s:%zu: %s\n", path, bad_line, hwt_lcov_errstr(rc));
	else if (rc < 0)
		fprintf(stderr, PREFIX ": %s: %s\n", path, hwt_lcov_errstr(rc));
	return rc < 0 ? -1 : 0;
}

int hwt_report_diff_main(int argc, char **argv)
{
	static const struct option long_options[] = {
		{ "base", required_argument, NULL, 'b' },
		HWT_OPTION_OUTPUT,
		{ "format", required_argument, NULL, 'F' },
		{ "include", required_argument, NULL, 'i' },
		{ "exclude", required_argument, NULL, 'x' },
		HWT_OPTION_FAIL_UNDER_DIFF,
		HWT_OPTION_QUIET,
		HWT_OPTION_HELP,
		{ NULL, 0, NULL, 0 },
	};
	const char **include = calloc((size_t)argc + 1, sizeof(*include));
	const char **exclude = calloc((size_t)argc + 1, sizeof(*exclude));
	struct hwt_lcov_filter filter = { include, 0, exclude, 0 };
	struct hwt_coverage_gates gates;
	struct hwt_diff_report_command how = { 0 };
	struct hwt_coverage *cov = NULL;
	struct hwt_cov_files *files = NULL;
	int opt, rc = 2;

	hwt_coverage_gates_init(&gates);
	how.format = -1;
	how.gates = &gates;
	how.prefix = PREFIX;
	how.output = "-";
	if (!include || !exclude) {
		fprintf(stderr, PREFIX ": out of memory\n");
		goto out;
	}
	optind = 0;
	opterr = 0; /* the messages are ours */
	while ((opt = getopt_long(argc, argv, ":o:qh", long_options, NULL)) != -1) {
		switch (opt) {
		case 'b': how.base = optarg; break;
		case 'o': how.output = optarg; break;
		case 'F':
			how.format = hwt_diff_format_from_name(optarg);
			if (how.format < 0) {
				fprintf(stderr, PREFIX ": unknown format '%s' (known: text, markdown, "
					"json)\n", optarg);
				goto out;
			}
			break;
		case 'i': include[filter.includes++] = optarg; break;
		case 'x': exclude[filter.excludes++] = optarg; break;
		case HWT_LCOV_OPT_FAIL_DIFF:
			if (hwt_coverage_gate_parse(optarg, "fail-under-diff", &gates.diff, PREFIX) < 0)
				goto out;
			break;
		case 'q': how.quiet = 1; break;
		default:
			rc = hwt_command_option_end(opt, 0, argv, usage, PREFIX);
			goto out;
		}
	}
	if (!how.base || optind != argc - 1) {
		hwt_command_usage_error(usage, PREFIX, "%s", !how.base ? "--base REF is needed" :
					optind >= argc ? "which lcov file?" : "one lcov file at a time");
		goto out;
	}
	cov = hwt_coverage_alloc();
	if (!cov) {
		fprintf(stderr, PREFIX ": out of memory\n");
		goto out;
	}
	if (read_lcov(cov, argv[optind]) < 0)
		goto out;
	if (hwt_coverage_files(cov, &filter, &files) < 0) {
		fprintf(stderr, PREFIX ": out of memory\n");
		goto out;
	}
	rc = hwt_diff_report_run(files, &how);
	if (rc < 0) {
		rc = 2;
		goto out;
	}
	if (!how.quiet && strcmp(how.output, "-"))
		fprintf(stderr, PREFIX ": %.1f%% of %zu changed lines with code ran: wrote %s\n",
			floor(how.percent * 10) / 10, how.measured, how.output);
out:
	hwt_cov_files_free(files);
	hwt_coverage_free(cov);
	free(include);
	free(exclude);
	return rc;
}
