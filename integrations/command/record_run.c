/*
 * hwt_record_run, shared by `hwt record`, hwt-cov, hwt-pgo and hwt flame:
 * make the bundle, run the command under the trace unit (collector/record)
 * into it, write the summary, saying what went wrong; hwt_exit_code;
 * hwt_command_print_untraced.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hwt_bundle.h"
#include "hwt_command.h"
#include "record.h"
#include "trace_unit.h"

int hwt_exit_code(int wait_status)
{
	if (WIFEXITED(wait_status))
		return WEXITSTATUS(wait_status);
	if (WIFSIGNALED(wait_status))
		return HWT_EXIT_SIGNAL + WTERMSIG(wait_status);
	return 255;
}

/*
 * A unit that writes files of its own (perf): they go into a work directory
 * beside the bundle, and the unit makes the bundle from them once the
 * command has exited. The bundle directory is made (empty) first, so that
 * a bad -o fails before the command runs.
 */
/*
 * The bundle's header names the unit that writes it, the formats of its
 * trace and the project's root the selection used (root=, when there is
 * one).
 */
static int create_bundle(const char *dir, const struct hwt_unit *unit, const char *command,
			 const char *root)
{
	char trace[64], *root_key = NULL;
	const char *keys[3] = { NULL };
	const char *clock = unit->clock ? unit->clock : "sequence";
	size_t n = 0;
	int err;

	if (unit->traces) {
		snprintf(trace, sizeof(trace), "trace=%s", unit->traces);
		keys[n++] = trace;
	}
	if (root && !strchr(root, '\n') && asprintf(&root_key, "root=%s", root) >= 0)
		keys[n++] = root_key;
	err = hwt_bundle_create_keys(dir, unit->name, clock, command, n ? keys : NULL);
	free(root_key);
	return err;
}

/*
 * The project's root into root (PATH_MAX bytes) for a recording that
 * selects (not --trace-all, not the kernel unit, which does not use it),
 * said unless quiet; *use 0 when none is used. -1 with a message when
 * --root names no directory.
 */
static int find_root(const struct hwt_unit_run *run, const struct hwt_unit_options *unit,
		     char *root, int *use, const char *prefix)
{
	const char *from;
	int err;

	*use = !unit->trace_all && !run->unit->record;
	if (!*use)
		return 0;
	err = hwt_unit_root(unit, root, &from);
	if (err < 0) {
		fprintf(stderr, "%s: --root %s: %s\n", prefix, unit->root, strerror(-err));
		return -1;
	}
	if (!unit->quiet)
		fprintf(stderr, "%s: root %s (%s): programs whose debug info names no source "
			"under it run natively\n", prefix, root, from);
	return 0;
}

/* What runs once the command does: the progress line, then what the caller asked for. */
struct progress_start {
	void (*running)(void *context);
	void *running_context;
	const char *dir, *unit, *prefix;
	struct hwt_record_progress *progress;
};

static void start_progress(void *context)
{
	struct progress_start *start = context;

	/* Only now, after the fork: the child does more than exec (unit_run.c). */
	start->progress = hwt_record_progress_start(start->dir, start->unit, start->prefix,
						    hwt_progress_tty);
	if (start->running)
		start->running(start->running_context);
}

/* hwt_unit_run with the recording's progress on a terminal, unless quiet. */
static int run_with_progress(const struct hwt_unit_run *run, const char *dir,
			     const struct hwt_unit_options *unit, char *const argv[], int *status,
			     const char *prefix)
{
	struct progress_start start = { unit->running, unit->running_context, dir, run->unit->name,
					prefix, NULL };
	struct hwt_unit_options with_progress = *unit;
	int err;

	if (!unit->quiet) {
		with_progress.running = start_progress;
		with_progress.running_context = &start;
	}
	err = hwt_unit_run(run, dir, &with_progress, argv, status, prefix);
	hwt_record_progress_stop(start.progress);
	return err;
}

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
	err = run_with_progress(run, work, unit, argv, status, prefix);
	if (err < 0)
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
	struct hwt_unit_options with_root = *unit;
	char abs_dir[PATH_MAX], root[PATH_MAX], *command;
	int argc, err, use_root;

	if (hwt_unit_prepare(&run, unit, prefix) < 0)
		return -1;
	if (find_root(&run, unit, root, &use_root, prefix) < 0)
		return -1;
	with_root.project_root = use_root ? root : NULL;
	unit = &with_root;
	if (run.unit->finish)
		return record_then_finish(&run, dir, unit, argv, status, prefix);
	for (argc = 0; argv[argc]; argc++)
		;
	command = hwt_bundle_quote_argv(argc, argv);
	/* The header names the unit that writes the bundle. */
	err = create_bundle(dir, run.unit, command ? command : "", unit->project_root);
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
	err = run_with_progress(&run, abs_dir, unit, argv, status, prefix);
	if (err < 0)
		return -1;
	err = hwt_bundle_write_summary(abs_dir, *status);
	if (err < 0)
		fprintf(stderr, "%s: cannot write the summary of %s: %s\n", prefix, dir,
			hwt_bundle_errstr(err));
	return 0;
}

void hwt_command_print_untraced(const char *dir, const struct hwt_unit_options *unit,
				const char *prefix)
{
	struct hwt_bundle *b = hwt_bundle_alloc();

	if (b && hwt_bundle_open(b, dir) == 0) {
		hwt_record_print_untraced(b, stderr, prefix);
		hwt_record_print_by_library(b, unit, stderr, prefix);
	}
	hwt_bundle_free(b);
}
