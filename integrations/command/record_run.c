/*
 * hwt_record_run, shared by `hwt record`, hwt-cov, hwt-pgo and hwt flame:
 * make the bundle, run the command under the trace unit (collector/record)
 * into it, write the summary, saying what went wrong; hwt_exit_code;
 * hwt_command_print_untraced.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hwt_bundle.h"
#include "hwt_command.h"
#include "hwt_trace_budget.h"
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
			 const char *root, unsigned long long max_trace_size)
{
	char trace[64], cap[48], *root_key = NULL;
	const char *keys[4] = { NULL };
	const char *clock = unit->clock ? unit->clock : "sequence";
	size_t n = 0;
	int err;

	if (unit->traces) {
		snprintf(trace, sizeof(trace), "trace=%s", unit->traces);
		keys[n++] = trace;
	}
	if (root && !strchr(root, '\n') && asprintf(&root_key, "root=%s", root) >= 0)
		keys[n++] = root_key;
	if (max_trace_size) {
		snprintf(cap, sizeof(cap), "max_trace_size=%llu", max_trace_size);
		keys[n++] = cap;
	}
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

/*
 * --max-trace-size: the budget every traced process of the run maps
 * (common/hwt_trace_budget.h), in the bundle made in dir. 0, or -1 said.
 */
static int budget_create(const char *dir, unsigned long long cap, const char *prefix)
{
	char path[PATH_MAX + 32];
	struct hwt_trace_budget b = { .cap = cap };
	char page[HWT_TRACE_BUDGET_SIZE] = { 0 };
	FILE *f;

	memcpy(page, &b, sizeof(b));
	snprintf(path, sizeof(path), "%s/" HWT_TRACE_BUDGET_FILE, dir);
	f = fopen(path, "wxe");
	if (!f || fwrite(page, sizeof(page), 1, f) != 1 || fclose(f) != 0) {
		fprintf(stderr, "%s: cannot create %s: %s\n", prefix, path, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Says the stop once, when it happens: a thread of the recorder looks at
 * the budget every 100 ms while the command runs (the units say nothing:
 * the command's stderr is its own, and ctest or make keep it).
 */
struct budget_watch {
	struct hwt_trace_budget *budget;  /* mapped; NULL: no watch */
	const char *prefix;
	int quiet;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t done_cond;
	int done;                         /* the run ended (under lock) */
};

static void *budget_watch_run(void *arg)
{
	struct budget_watch *w = arg;
	struct timespec at;
	int said = 0;

	pthread_mutex_lock(&w->lock);
	/* A last look once the run ended: a short one may reach the cap and end within 100 ms. */
	for (;;) {
		if (!said && hwt_trace_budget_spent(w->budget)) {
			said = 1;
			if (!w->quiet)
				fprintf(stderr, "%s: the trace reached --max-trace-size (%llu bytes): "
					"tracing stops, the command runs on\n", w->prefix,
					(unsigned long long)w->budget->cap);
		}
		if (w->done)
			break;
		clock_gettime(CLOCK_REALTIME, &at);
		at.tv_nsec += 100 * 1000 * 1000;
		if (at.tv_nsec >= 1000000000) {
			at.tv_sec++;
			at.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&w->done_cond, &w->lock, &at);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

/* Starts the watch of the budget in dir (none when it cannot: the summary still says it). */
static void budget_watch_start(struct budget_watch *w, const char *dir, const char *prefix,
			       int quiet)
{
	char path[PATH_MAX + 32];
	void *map;
	int fd;

	memset(w, 0, sizeof(*w));
	w->prefix = prefix;
	w->quiet = quiet;
	snprintf(path, sizeof(path), "%s/" HWT_TRACE_BUDGET_FILE, dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	map = mmap(NULL, HWT_TRACE_BUDGET_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return;
	w->budget = map;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->done_cond, NULL);
	if (pthread_create(&w->thread, NULL, budget_watch_run, w) != 0) {
		munmap(map, HWT_TRACE_BUDGET_SIZE);
		w->budget = NULL;
	}
}

static void budget_watch_stop(struct budget_watch *w)
{
	if (!w->budget)
		return;
	pthread_mutex_lock(&w->lock);
	w->done = 1;
	pthread_cond_signal(&w->done_cond);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	munmap(w->budget, HWT_TRACE_BUDGET_SIZE);
	w->budget = NULL;
}

/*
 * After the run: the budget leaves the bundle, whose header says whether
 * the trace stopped at the cap (max_trace_size_reached=1).
 */
static void budget_finish(const char *dir, const char *prefix)
{
	char path[PATH_MAX + 32];
	struct hwt_trace_budget b;
	size_t n = 0;
	int err;
	FILE *f;

	snprintf(path, sizeof(path), "%s/" HWT_TRACE_BUDGET_FILE, dir);
	f = fopen(path, "re");
	if (f) {
		n = fread(&b, sizeof(b), 1, f);
		fclose(f);
	}
	unlink(path);
	if (n != 1) {
		fprintf(stderr, "%s: warning: %s is gone: whether the trace reached "
			"--max-trace-size is not known\n", prefix, path);
		return;
	}
	if (!hwt_trace_budget_spent(&b))
		return;
	err = hwt_bundle_add_key(dir, "max_trace_size_reached=1");
	if (err < 0)
		fprintf(stderr, "%s: cannot write the header of %s: %s\n", prefix, dir,
			hwt_bundle_errstr(err));
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
	struct budget_watch watch;
	struct hwt_unit_options with_root = *unit;
	char abs_dir[PATH_MAX], root[PATH_MAX], *command;
	int argc, err, use_root;

	if (hwt_unit_prepare(&run, unit, prefix) < 0)
		return -1;
	/* The software units write the trace where the budget is checked; hwt.ko and perf do not. */
	if (unit->max_trace_size && (run.unit->finish || run.unit->record)) {
		fprintf(stderr, "%s: --max-trace-size: the %s unit cannot stop its trace at a size "
			"(the valgrind and qemu units can)\n", prefix, run.unit->name);
		return -1;
	}
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
	err = create_bundle(dir, run.unit, command ? command : "", unit->project_root,
			    unit->max_trace_size);
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
	if (unit->max_trace_size && budget_create(abs_dir, unit->max_trace_size, prefix) < 0)
		return -1;
	budget_watch_start(&watch, abs_dir, prefix, unit->quiet);
	err = run_with_progress(&run, abs_dir, unit, argv, status, prefix);
	budget_watch_stop(&watch);
	if (err < 0)
		return -1;
	if (unit->max_trace_size)
		budget_finish(abs_dir, prefix);
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
