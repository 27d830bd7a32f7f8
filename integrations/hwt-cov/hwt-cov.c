/*
 * hwt-cov [options] [--] COMMAND ARGS...
 *
 * Coverage of a command without rebuilding it: records the branch trace of
 * COMMAND and every process it starts (the trace unit: hardware where
 * present, else a software unit, Valgrind or QEMU), decodes it, writes lcov (and
 * HTML with genhtml when asked; Cobertura, SonarQube XML or a JSON summary
 * too), prints a summary, and exits with COMMAND's exit status, or with
 * the bits of the coverage gates it does not meet. docs/hwt-cov.md and
 * docs/ci.md have the details.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config_file.h"
#include "hwt_bundle.h"
#include "hwt_command.h"
#include "hwt_decode.h"
#include "hwt_lcov.h"
#include "trace_unit.h"

#define PREFIX "hwt-cov"

static void usage(FILE *out)
{
	fputs("usage: hwt-cov [options] [--] COMMAND [ARGS...]\n"
	      "\n"
	      "Runs COMMAND (and everything it starts) under a branch trace and writes the\n"
	      "line, function and branch coverage of every binary and shared library it\n"
	      "ran that has debug info (-g). Nothing needs rebuilding with --coverage.\n"
	      "\n"
	      HWT_LCOV_REPORT_USAGE
	      "      --keep BUNDLE         keep the trace bundle in BUNDLE (must not exist);\n"
	      "                            'hwt report lcov BUNDLE' reads it again later\n"
	      "      --config FILE         read options from FILE [the project's " HWT_CONFIG_NAME "]\n"
	      "      --no-config           read no configuration file\n"
	      "  -v, --verbose             also say which system libraries were left out\n"
	      "  -q, --quiet               only errors and warnings: no table, no totals, no\n"
	      "                            progress\n"
	      HWT_LCOV_REPORT_SUMMARY_USAGE
	      "  -j, --jobs N              " HWT_JOBS_HELP "\n"
	      "      --decoder NAME        Intel PT decoder: edge (default), libipt, or check\n"
	      HWT_UNIT_USAGE
	      "  -h, --help                this text\n"
	      "      --version             hwt-cov's version\n"
	      "Which processes are traced (the others run natively, their children\n"
	      "are still followed), as for `hwt record`:\n"
	      HWT_UNIT_SELECT_USAGE
	      HWT_UNIT_RECORD_FILTER_USAGE
	      "\n"
	      "Trace unit: Intel PT hardware where present; here, a software unit (--unit).\n"
	      "\n"
	      "Exit status (docs/exit-status.md): COMMAND's when it fails (128+N when\n"
	      "signal N killed it; 127 not found, 126 not runnable); else 2 when a report\n"
	      "cannot be written (or a bad option); else the sum of 1 (the trace had\n"
	      "warnings: a partial report), 4 (lines), 8 (functions), 16 (branches) and\n"
	      "32 (diff) for each gate the coverage is under; else 0.\n",
	      out);
}

static void remove_tree(const char *dir)
{
	if (hwt_bundle_remove(dir) < 0)
		fprintf(stderr, PREFIX ": warning: cannot remove the temporary bundle %s\n", dir);
}

static int record_and_report(const char *keep, const struct hwt_lcov_report_options *optsp,
			     char **cmd);

enum { OPT_CONFIG = 0x1200, OPT_NO_CONFIG };

/*
 * The keys hwt.cfg may hold (docs/hwt-cov.md, "Configuration file"): long
 * options of the command line, one row each.
 */
static const struct hwt_config_key config_keys[] = {
	{ "output", HWT_CONFIG_PATH },
	{ "format", 0 },
	{ "html", HWT_CONFIG_PATH },
	{ "root", HWT_CONFIG_PATH },
	{ "include", 0 },
	{ "exclude", 0 },
	{ "system", 0 },
	{ "no-markers", 0 },
	{ "debug-dir", HWT_CONFIG_PATH },
	{ "fail-under-lines", 0 },
	{ "fail-under-functions", 0 },
	{ "fail-under-branches", 0 },
	{ "fail-under-diff", 0 },
	{ "diff", 0 },
	{ "diff-output", HWT_CONFIG_PATH },
	{ "unit", 0 },
	{ "trace", 0 },
	{ "no-trace", 0 },
	{ "trace-all", 0 },
	{ "no-preload", 0 },
	{ "filter", 0 },
	{ "no-record-filter", 0 },
	{ "record-filter", 0 },
	{ "max-trace-size", 0 },
	{ "jobs", 0 },
	{ "decoder", 0 },
	{ "quiet", 0 },
	{ "verbose", 0 },
	{ "summary-only", 0 },
	{ "color", 0 },
	{ "per-test", 0 },
	{ "test-name", 0 },
	{ "test-function", 0 },
	{ NULL, 0 },
};

/* hwt_config_apply's take: an option of the report's, its messages prefixed with where. */
static int take_config_option(int opt, const char *arg, void *context, const char *where)
{
	struct hwt_lcov_report_options *opts = context;
	const char *prefix = opts->prefix;
	int taken;

	opts->prefix = where;
	taken = hwt_lcov_report_option(opts, opt, arg);
	opts->prefix = prefix;
	return taken > 0 ? 1 : -1;
}

int main(int argc, char **argv)
{
	static const struct option long_options[] = {
		HWT_LCOV_REPORT_LONG_OPTIONS,
		{ "keep", required_argument, NULL, 'k' },
		{ "config", required_argument, NULL, OPT_CONFIG },
		{ "no-config", no_argument, NULL, OPT_NO_CONFIG },
		HWT_UNIT_SELECT_LONG_OPTIONS,
		HWT_UNIT_RECORD_FILTER_LONG_OPTION,
		{ NULL, 0, NULL, 0 },
	};
	struct hwt_lcov_report_options opts;
	struct hwt_config cfg;
	const char *keep = NULL, *config_file = NULL, *config_root = NULL;
	int opt, code, no_config = 0;

	hwt_config_scan(argc, argv, "+:" HWT_LCOV_REPORT_SHORT_OPTIONS, long_options, OPT_CONFIG,
			OPT_NO_CONFIG, HWT_LCOV_OPT_ROOT, &config_file, &no_config, &config_root);
	code = hwt_config_load(&cfg, config_file, no_config, config_root, PREFIX);
	if (code)
		return code;
	/* The lists have room for every argument and every key of the file. */
	if (hwt_lcov_report_options_init(&opts, argc + (int)cfg.nentries, PREFIX) < 0) {
		hwt_config_fini(&cfg);
		return HWT_EXIT_ERROR;
	}
	/* Its lcov is about the selected images: their trace alone (--no-record-filter). */
	opts.common.unit.record_filter = HWT_RECORD_FILTER_DEFAULT;
	/* The file's keys first: the command line's options override or add to them. */
	if (cfg.path && hwt_config_apply(&cfg, config_keys, long_options, take_config_option, &opts,
					 stderr, PREFIX) < 0) {
		code = HWT_EXIT_USAGE;
		goto out;
	}
	opterr = 0; /* the messages are ours */
	/* '+': options end at COMMAND, whose own options are left alone. */
	while ((opt = getopt_long(argc, argv, "+:" HWT_LCOV_REPORT_SHORT_OPTIONS, long_options,
				  NULL)) != -1) {
		switch (opt) {
		case 'k': keep = optarg; break;
		case OPT_CONFIG: case OPT_NO_CONFIG: break; /* read first */
		default:
			code = hwt_command_option_end(opt, hwt_lcov_report_option(&opts, opt, optarg),
						      argv, usage, PREFIX);
			if (code >= 0)
				goto out;
		}
	}
	if (optind >= argc) {
		code = hwt_command_usage_error(usage, PREFIX, "no command to run");
		goto out;
	}
	/* Per test, a test is known by what calls it, often the framework's
	   library (libcmocka, libcunit): that is traced too unless asked. */
	if (opts.per_test && opts.common.unit.record_filter == HWT_RECORD_FILTER_DEFAULT)
		opts.common.unit.record_filter = 0;
	if (cfg.path && !opts.common.quiet)
		fprintf(stderr, PREFIX ": options from %s\n", cfg.path);
	/* Before anything runs: a report that could not be written, a command not found. */
	if (hwt_lcov_report_check_outputs(&opts) < 0) {
		code = HWT_EXIT_ERROR;
		goto out;
	}
	code = hwt_command_check_runnable(argv[optind], PREFIX);
	if (code)
		goto out;
	code = record_and_report(keep, &opts, argv + optind);
out:
	hwt_lcov_report_options_fini(&opts);
	hwt_config_fini(&cfg);
	return code;
}

/* Records argv into a bundle, writes the report; the exit status. */
static int record_and_report(const char *keep, const struct hwt_lcov_report_options *optsp,
			     char **cmd)
{
	struct hwt_lcov_report_options opts = *optsp;
	struct hwt_unit_options *unit = &opts.common.unit;
	struct hwt_record_live live = { NULL, opts.common.decoder, NULL };
	const char *tmpdir;
	char bundle[PATH_MAX];
	int status = 0, code, report;

	if (keep) {
		if (snprintf(bundle, sizeof(bundle), "%s", keep) >= (int)sizeof(bundle)) {
			fprintf(stderr, PREFIX ": %s: path too long\n", keep);
			return HWT_EXIT_ERROR;
		}
	} else {
		tmpdir = getenv("TMPDIR");
		if (!tmpdir || !*tmpdir)
			tmpdir = "/tmp";
		snprintf(bundle, sizeof(bundle), "%s/hwt-cov.XXXXXX", tmpdir);
		if (!mkdtemp(bundle)) {
			fprintf(stderr, PREFIX ": cannot make a temporary directory in %s: %s\n", tmpdir,
				strerror(errno));
			return HWT_EXIT_ERROR;
		}
	}
	/* Decoded while the command runs; without it (out of memory), at the end. */
	live.live = opts.per_test ? NULL : hwt_decode_live_alloc(bundle); /* per test: at the end */
	unit->quiet = opts.common.quiet;
	unit->root = opts.root; /* the project's, for the selection too */
	if (hwt_record_run_live(bundle, unit, cmd, &status, PREFIX, &live) < 0) {
		hwt_decode_live_free(live.live);
		if (!keep)
			remove_tree(bundle);
		return HWT_EXIT_ERROR;
	}
	code = hwt_exit_code(status);
	if (!opts.common.quiet)
		hwt_command_print_untraced(bundle, unit, PREFIX);

	opts.live = live.live;
	report = hwt_lcov_report(bundle, &opts);
	if (opts.common.verbose)
		hwt_command_live_say(live.live, PREFIX);
	hwt_decode_live_free(live.live);
	if (report == HWT_EXIT_ERROR) {
		/* The run is not lost: its trace stays for another try. */
		fprintf(stderr, PREFIX ": the trace is kept in %s; 'hwt report lcov %s -o FILE' "
			"writes the report from it\n", bundle, bundle);
	} else if (!keep) {
		remove_tree(bundle);
	} else if (!opts.common.quiet) {
		fprintf(stderr, PREFIX ": trace bundle kept in %s\n", keep);
	}
	/* The command's failure first; then no report (2), then the partial and gates' bits. */
	return code != 0 ? code : report;
}
