/*
 * `hwt record [-o BUNDLE] [options] -- CMD ARGS...`
 *
 * Makes the bundle, runs CMD and everything it starts under the trace
 * unit, writes the summary, reports what the bundle says is wrong, and
 * exits with CMD's status so that it can stand in for CMD in a script.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "hwt_bundle.h"
#include "hwt_command.h"
#include "record.h"
#include "trace_unit.h"

#define DEFAULT_OUTPUT "hwt.bundle"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: hwt record [options] [--] COMMAND [ARGS...]\n"
		"       hwt record [options] -p PID | -a | --cpu LIST\n"
		"       hwt record [options] -a | --cpu LIST -- COMMAND [ARGS...]\n"
		"\n"
		"Records the branch trace of COMMAND and of every process it starts into\n"
		"a trace bundle, then exits with COMMAND's exit status (128+N when signal N\n"
		"killed it; 127 not found, 126 not runnable; 2 a bad option or nothing\n"
		"recorded: docs/exit-status.md). SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to\n"
		"hwt record go to COMMAND; the bundle keeps what was recorded.\n"
		"\n"
		"  -o, --output DIR      the bundle to write [" DEFAULT_OUTPUT "]; must not exist\n"
		"                        or be an empty directory\n"
		"  -f, --force           replace DIR when it is an existing bundle\n"
		"  -q, --quiet           print nothing but errors and warnings\n"
		HWT_UNIT_USAGE
		"      --psb-period N    bytes of trace between two sync points [4096]\n"
		"      --debug-blocks    also log every executed block (for tests)\n"
		"      --spe[=N]         aarch64 programs (QEMU unit) also write Arm SPE records:\n"
		"                        one sampled operation per N, randomly perturbed as\n"
		"                        hardware does; 1 samples every one [1024]\n"
		"      --no-etm          with --spe: the SPE records alone, no ETMv4 trace (as\n"
		"                        on a machine with SPE and no reachable trace unit);\n"
		"                        the reports then count from the samples\n"
		HWT_UNIT_ROOT_USAGE HWT_UNIT_SELECT_USAGE
		"\n"
		"The kernel unit (--unit kmod; -p and -a imply it):\n"
		"  -p, --pid PID         attach to the running process PID (and what it starts)\n"
		"                        instead of running COMMAND; detach at Ctrl-C, after\n"
		"                        --duration, or when it ends\n"
		"      --duration S      seconds to record with -p, -a or --cpu [until Ctrl-C]\n"
		"  -a, --all-cpus        CPU mode: the user code of every thread on every CPU\n"
		"                        (not hwt's own, not kernel threads), until Ctrl-C,\n"
		"                        --duration, or the end of COMMAND if one is given\n"
		"      --cpu LIST        CPU mode on the CPUs of LIST (0,2-3)\n"
		"      --wrap            a full trace buffer is written over (the loss is\n"
		"                        recorded) instead of pausing its thread until read\n"
		"      --buffer-size N   bytes of trace buffer per thread (CPU mode: per CPU,\n"
		"                        always written over when full), 4 KiB multiples [4 MiB]\n"
		"  -h, --help            this text\n");
}

int hwt_remove_bundle(const char *dir, const char *prefix)
{
	char header[PATH_MAX];

	snprintf(header, sizeof(header), "%s/hwt-bundle", dir);
	if (access(dir, F_OK) != 0)
		return 0;
	if (access(header, F_OK) != 0) {
		fprintf(stderr, "%s: %s exists and is not a trace bundle: not replacing it\n", prefix,
			dir);
		return -1;
	}
	if (hwt_bundle_remove(dir) < 0) {
		fprintf(stderr, "%s: cannot remove %s\n", prefix, dir);
		return -1;
	}
	return 0;
}

static void print_summary(const char *dir, const struct hwt_unit_options *unit, int quiet)
{
	struct hwt_bundle *bundle = hwt_bundle_alloc();
	struct hwt_bundle_totals totals;
	int err, counted;

	if (!bundle)
		return;
	err = hwt_bundle_open(bundle, dir);
	hwt_command_print_diags(bundle, stderr, "hwt record");
	counted = !err && hwt_bundle_totals(bundle, &totals) == 0;
	if (counted && totals.processes == 0) {
		fprintf(stderr, "hwt record: warning: %s: no process was traced%s\n", dir,
			totals.untraced ? "" : " (the command could not be started?)");
		hwt_record_print_untraced(bundle, stderr, "hwt record");
	} else if (counted && !quiet) {
		char size[32];

		fprintf(stderr,
			"hwt record: %s: %llu %s, %llu %s, %s of trace, %llu untraced\n", dir,
			(unsigned long long)totals.processes,
			hwt_noun(totals.processes, "process", "processes"),
			(unsigned long long)totals.threads, hwt_noun(totals.threads, "thread", "threads"),
			hwt_format_size(size, sizeof(size), totals.trace_bytes),
			(unsigned long long)totals.untraced);
		/* What ran natively where that may surprise (not the project's, set-ID...). */
		hwt_record_print_untraced(bundle, stderr, "hwt record");
	}
	if (!err && !quiet)
		hwt_record_print_by_library(bundle, unit, stderr, "hwt record");
	hwt_bundle_free(bundle);
}

int hwt_record_main(int argc, char **argv)
{
	static const struct option long_options[] = {
		HWT_OPTION_OUTPUT,
		{ "force", no_argument, NULL, 'f' },
		HWT_OPTION_QUIET,
		{ "psb-period", required_argument, NULL, 'S' },
		{ "debug-blocks", no_argument, NULL, 'd' },
		{ "spe", optional_argument, NULL, 'E' },
		{ "no-etm", no_argument, NULL, 'N' },
		{ "pid", required_argument, NULL, 'p' },
		{ "duration", required_argument, NULL, 'D' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "wrap", no_argument, NULL, 'W' },
		{ "buffer-size", required_argument, NULL, 'B' },
		HWT_OPTION_HELP,
		HWT_UNIT_SELECT_LONG_OPTIONS,
		HWT_UNIT_ROOT_LONG_OPTION,
		{ NULL, 0, NULL, 0 },
	};
	struct hwt_command_options o = { .output = DEFAULT_OUTPUT };
	struct hwt_unit_options *unit = &o.unit;
	char *end;
	int force = 0, opt, status;

	optind = 0; /* glibc: a fresh start (hwt-pgo runs several), with this optstring's ordering */
	opterr = 0; /* the messages are ours */
	while ((opt = getopt_long(argc, argv, "+:o:fqhp:a", long_options, NULL)) != -1) {
		switch (opt) {
		case 'f': force = 1; break;
		case 'd': unit->debug_blocks = 1; break;
		case 'S':
			errno = 0;
			unit->psb_period = strtol(optarg, &end, 0);
			if (errno || *end || unit->psb_period < 256 || unit->psb_period > (1 << 20)) {
				fprintf(stderr, "hwt record: --psb-period wants 256..1048576, not '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'E':
			errno = 0;
			unit->spe_interval = optarg ? strtol(optarg, &end, 0) : 1024;
			if (optarg && (errno || *end || unit->spe_interval < 1 ||
				       unit->spe_interval > (1l << 24))) {
				fprintf(stderr, "hwt record: --spe wants an interval of 1..16777216 "
					"operations, not '%s'\n", optarg);
				return 2;
			}
			break;
		case 'N': unit->no_etm = 1; break;
		case 'p':
			errno = 0;
			unit->pid = (int)strtol(optarg, &end, 10);
			if (errno || *end || unit->pid <= 0) {
				fprintf(stderr, "hwt record: -p wants a process id, not '%s'\n", optarg);
				return 2;
			}
			break;
		case 'D':
			errno = 0;
			unit->duration = strtod(optarg, &end);
			if (errno || *end || !(unit->duration > 0)) {
				fprintf(stderr, "hwt record: --duration wants seconds, not '%s'\n", optarg);
				return 2;
			}
			break;
		case 'a': unit->cpus = "all"; break;
		case 'C': unit->cpus = optarg; break;
		case 'W': unit->wrap = 1; break;
		case 'B':
			errno = 0;
			unit->bufsize = strtoul(optarg, &end, 0);
			if (errno || *end || unit->bufsize < 4096 || unit->bufsize > (64u << 20) ||
			    unit->bufsize % 4096) {
				fprintf(stderr, "hwt record: --buffer-size wants 4096..67108864 in 4 KiB "
					"steps, not '%s'\n", optarg);
				return 2;
			}
			break;
		default:
			status = hwt_command_other_option(&o, opt, optarg, argv, usage, "hwt record");
			if (status >= 0)
				return status;
		}
	}
	if (unit->pid || unit->cpus) {
		if (unit->pid && unit->cpus) {
			fprintf(stderr, "hwt record: -p and CPU mode exclude each other\n");
			return 2;
		}
		if (unit->pid && optind < argc) {
			fprintf(stderr, "hwt record: -p records what runs: no command\n");
			return 2;
		}
		if (unit->cpus && optind < argc && unit->duration) {
			fprintf(stderr, "hwt record: with a command, CPU mode records until it ends: "
				"no --duration\n");
			return 2;
		}
		if (!unit->unit)
			unit->unit = "kmod";
	} else if (optind >= argc) {
		return hwt_command_usage_error(usage, "hwt record", "no command to record");
	}
	if ((unit->pid || unit->cpus || unit->wrap || unit->bufsize || unit->duration) &&
	    strcmp(unit->unit ? unit->unit : "", "kmod") != 0) {
		fprintf(stderr, "hwt record: -p, -a, --cpu, --duration, --wrap and --buffer-size "
			"are the kernel unit's (--unit kmod)\n");
		return 2;
	}
	if (unit->no_etm && !unit->spe_interval) {
		fprintf(stderr, "hwt record: --no-etm needs --spe (SPE records are then the only "
			"trace)\n");
		return 2;
	}
	/* A command that cannot run is said as a shell says it, before any bundle is made. */
	if (optind < argc) {
		status = hwt_command_check_runnable(argv[optind], "hwt record");
		if (status)
			return status;
	}
	if (force && hwt_remove_bundle(o.output, "hwt record") < 0)
		return HWT_EXIT_ERROR;
	unit->quiet = o.quiet;
	if (hwt_record_run(o.output, unit, argv + optind, &status, "hwt record") < 0)
		return HWT_EXIT_ERROR;
	print_summary(o.output, unit, o.quiet);
	return hwt_exit_code(status);
}
