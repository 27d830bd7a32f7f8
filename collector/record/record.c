/*
 * `hwt record [-o BUNDLE] [options] -- CMD ARGS...`
 *
 * Makes the bundle, runs CMD and everything it starts under the trace
 * unit, writes the summary, reports what the bundle says is wrong, and
 * exits with CMD's status so that it can stand in for CMD in a script.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hwt_bundle.h"
#include "record.h"
#include "trace_unit.h"

#define DEFAULT_OUTPUT "hwt.bundle"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: hwt record [options] [--] COMMAND [ARGS...]\n"
		"\n"
		"Records the branch trace of COMMAND and of every process it starts into\n"
		"a trace bundle, then exits with COMMAND's exit status.\n"
		"\n"
		"  -o, --output DIR      the bundle to write [" DEFAULT_OUTPUT "]; must not exist\n"
		"                        or be an empty directory\n"
		"  -f, --force           replace DIR when it is an existing bundle\n"
		"  -q, --quiet           print nothing but errors and warnings\n"
		HWT_UNIT_USAGE
		"      --psb-period N    bytes of trace between two sync points [4096]\n"
		"      --debug-blocks    also log every executed block (for tests)\n"
		HWT_UNIT_SELECT_USAGE
		"  -h, --help            this text\n");
}

int hwt_remove_bundle(const char *dir, const char *prefix)
{
	char header[PATH_MAX];
	char *cmd;
	int rc;

	snprintf(header, sizeof(header), "%s/hwt-bundle", dir);
	if (access(dir, F_OK) != 0)
		return 0;
	if (access(header, F_OK) != 0) {
		fprintf(stderr, "%s: %s exists and is not a trace bundle: not replacing it\n", prefix,
			dir);
		return -1;
	}
	if (asprintf(&cmd, "rm -rf -- '%s'", dir) < 0 || strchr(dir, '\'')) {
		fprintf(stderr, "%s: cannot replace %s\n", prefix, dir);
		return -1;
	}
	rc = system(cmd);
	free(cmd);
	if (rc != 0) {
		fprintf(stderr, "%s: cannot remove %s\n", prefix, dir);
		return -1;
	}
	return 0;
}

int hwt_exit_code(int wait_status)
{
	if (WIFEXITED(wait_status))
		return WEXITSTATUS(wait_status);
	if (WIFSIGNALED(wait_status))
		return 128 + WTERMSIG(wait_status);
	return 255;
}

static void print_summary(const char *dir, const struct hwt_unit_options *unit, int quiet)
{
	struct hwt_bundle *bundle = hwt_bundle_alloc();
	struct hwt_bundle_totals totals;
	int err;

	if (!bundle)
		return;
	err = hwt_bundle_open(bundle, dir);
	hwt_bundle_diag_print(bundle, stderr, "hwt record");
	if (!err && hwt_bundle_totals(bundle, &totals) == 0 && totals.processes == 0) {
		fprintf(stderr, "hwt record: warning: %s: no process was traced%s\n", dir,
			totals.untraced ? "" : " (the command could not be started?)");
		hwt_record_print_untraced(bundle, stderr, "hwt record");
	} else if (!err && !quiet && hwt_bundle_totals(bundle, &totals) == 0)
		fprintf(stderr,
			"hwt record: %s: %llu process%s, %llu thread%s, %.1f KiB of trace, "
			"%llu untraced\n", dir,
			(unsigned long long)totals.processes, totals.processes == 1 ? "" : "es",
			(unsigned long long)totals.threads, totals.threads == 1 ? "" : "s",
			totals.trace_bytes / 1024.0, (unsigned long long)totals.untraced);
	if (!err && !quiet)
		hwt_record_print_by_library(bundle, unit, stderr, "hwt record");
	hwt_bundle_free(bundle);
}

/*
 * A unit that writes files of its own (perf): they go into a work directory
 * beside the bundle, and the unit makes the bundle from them once the
 * command has exited. The bundle directory is made (empty) first, so that
 * a bad -o fails before the command runs.
 */
static int record_then_finish(const struct hwt_unit_run *run, const char *dir,
			      const struct hwt_unit_options *unit, char *const argv[],
			      int *status, const char *prefix)
{
	char work[PATH_MAX + 32], abs_dir[PATH_MAX];
	int err;

	if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
		fprintf(stderr, "%s: cannot create the bundle %s: %s\n", prefix, dir, strerror(errno));
		return -1;
	}
	if (!realpath(dir, abs_dir) || rmdir(abs_dir) < 0) {
		fprintf(stderr, "%s: cannot create the bundle %s: %s\n", prefix, dir,
			errno == ENOTEMPTY || errno == EEXIST ? "it exists and is not empty"
							      : strerror(errno));
		if (errno == ENOTEMPTY || errno == EEXIST)
			fprintf(stderr, "%s: use -f to replace an old bundle, or another directory\n",
				prefix);
		return -1;
	}
	snprintf(work, sizeof(work), "%s.%.8s-XXXXXX", abs_dir, run->unit->name);
	if (!mkdtemp(work)) {
		fprintf(stderr, "%s: cannot create %s: %s\n", prefix, work, strerror(errno));
		return -1;
	}
	if (hwt_unit_run(run, work, unit, argv, status, prefix) < 0)
		return -1;
	if (run->unit->finish(&run->files, work, abs_dir, unit, prefix, 1) < 0)
		return -1;
	err = hwt_bundle_write_summary(abs_dir, *status);
	if (err < 0)
		fprintf(stderr, "%s: cannot write the summary of %s: %s\n", prefix, dir,
			hwt_bundle_errstr(err));
	return 0;
}

int hwt_record_run(const char *dir, const struct hwt_unit_options *unit, char *const argv[],
		   int *status, const char *prefix)
{
	struct hwt_unit_run run;
	char abs_dir[PATH_MAX], *command;
	int argc, err;

	if (hwt_unit_prepare(&run, unit, prefix) < 0)
		return -1;
	if (run.unit->finish)
		return record_then_finish(&run, dir, unit, argv, status, prefix);
	for (argc = 0; argv[argc]; argc++)
		;
	command = hwt_bundle_quote_argv(argc, argv);
	/* The header names the unit that writes the bundle. */
	err = hwt_bundle_create(dir, run.unit->name, "sequence", command ? command : "");
	free(command);
	if (err < 0) {
		fprintf(stderr, "%s: cannot create the bundle %s: %s%s%s\n", prefix, dir,
			hwt_bundle_errstr(err), err == -hbe_io ? ": " : "",
			err == -hbe_io ? strerror(errno) : "");
		if (err == -hbe_exists)
			fprintf(stderr, "%s: use -f to replace an old bundle, or another directory\n",
				prefix);
		return -1;
	}
	if (!realpath(dir, abs_dir)) {
		fprintf(stderr, "%s: %s: %s\n", prefix, dir, strerror(errno));
		return -1;
	}
	if (hwt_unit_run(&run, abs_dir, unit, argv, status, prefix) < 0)
		return -1;
	err = hwt_bundle_write_summary(abs_dir, *status);
	if (err < 0)
		fprintf(stderr, "%s: cannot write the summary of %s: %s\n", prefix, dir,
			hwt_bundle_errstr(err));
	return 0;
}

int hwt_record_main(int argc, char **argv)
{
	static const struct option long_options[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'f' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "psb-period", required_argument, NULL, 'p' },
		{ "debug-blocks", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		HWT_UNIT_SELECT_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct hwt_unit_options unit = { 0 };
	const char *output = DEFAULT_OUTPUT;
	char *end;
	int force = 0, quiet = 0, opt, status;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "+o:fqh", long_options, NULL)) != -1) {
		switch (opt) {
		case 'o': output = optarg; break;
		case 'f': force = 1; break;
		case 'q': quiet = 1; break;
		case 'd': unit.debug_blocks = 1; break;
		case 'p':
			errno = 0;
			unit.psb_period = strtol(optarg, &end, 0);
			if (errno || *end || unit.psb_period < 256 || unit.psb_period > (1 << 20)) {
				fprintf(stderr, "hwt record: --psb-period wants 256..1048576, not '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'h': usage(stdout); return 0;
		default:
			switch (hwt_unit_select_option(&unit, opt, optarg, "hwt record")) {
			case 1: break;
			case 0: usage(stderr); return 2;
			default: return 2;
			}
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "hwt record: no command to record\n");
		usage(stderr);
		return 2;
	}
	if (force && hwt_remove_bundle(output, "hwt record") < 0)
		return 2;
	if (hwt_record_run(output, &unit, argv + optind, &status, "hwt record") < 0)
		return 2;
	print_summary(output, &unit, quiet);
	return hwt_exit_code(status);
}
