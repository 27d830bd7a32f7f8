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
 * trace, the project's root the selection used (root=, when there is
 * one) and whether the trace is filtered to the selected images.
 */
static int create_bundle(const char *dir, const struct hwt_unit *unit, const char *command,
			 const char *root, unsigned long long max_trace_size, long spe_interval,
			 int no_etm, int record_filter)
{
	char trace[64], cap[48], spe[40], *root_key = NULL;
	const char *keys[6] = { NULL };
	const char *clock = unit->clock ? unit->clock : "sequence";
	size_t n = 0;
	int err;

	if (unit->traces) {
		/* --no-etm: the SPE records are the only trace. */
		snprintf(trace, sizeof(trace), "trace=%s", no_etm ? "spe" : unit->traces);
		keys[n++] = trace;
	}
	if (root && !strchr(root, '\n') && asprintf(&root_key, "root=%s", root) >= 0)
		keys[n++] = root_key;
	if (max_trace_size) {
		snprintf(cap, sizeof(cap), "max_trace_size=%llu", max_trace_size);
		keys[n++] = cap;
	}
	/* What each SPE sample stands for: the reports scale by it. */
	if (spe_interval > 0) {
		snprintf(spe, sizeof(spe), "spe_interval=%ld", spe_interval);
		keys[n++] = spe;
	}
	/* The units filter the trace to the selected images (reports say so). */
	if (record_filter)
		keys[n++] = HWT_RECORD_FILTER_KEY "=" HWT_RECORD_FILTER_SELECTED;
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
 * While the command runs, one thread of the recorder watches the bundle:
 * every 100 ms it looks at the --max-trace-size budget and says the stop
 * once, when it happens (the units say nothing: the command's stderr is its
 * own, and ctest or make keep it); every second it redraws the progress
 * line on a terminal.
 */
struct record_watch {
	struct hwt_trace_budget *budget;        /* mapped; NULL: no cap */
	struct hwt_record_progress *progress;   /* NULL: none shown */
	const char *prefix;
	int quiet, said;
	int started;                            /* the thread runs */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t done_cond;
	int done;                               /* the run ended (under lock) */
	void (*running)(void *context);         /* the caller's, after the thread starts */
	void *running_context;
};

static void watch_budget(struct record_watch *w)
{
	if (!w->budget || w->said || !hwt_trace_budget_spent(w->budget))
		return;
	w->said = 1;
	hwt_record_progress_clear(w->progress);
	if (!w->quiet)
		fprintf(stderr, "%s: the trace reached --max-trace-size (%llu bytes): "
			"tracing stops, the command runs on\n", w->prefix,
			(unsigned long long)w->budget->cap);
}

static void *watch_run(void *arg)
{
	struct record_watch *w = arg;
	struct timespec at;

	pthread_mutex_lock(&w->lock);
	for (unsigned tick = 1; !w->done; tick++) {
		clock_gettime(CLOCK_REALTIME, &at);
		at.tv_nsec += 100 * 1000 * 1000;
		if (at.tv_nsec >= 1000000000) {
			at.tv_sec++;
			at.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&w->done_cond, &w->lock, &at);
		if (w->done)
			break;
		watch_budget(w);
		/* A count of a few directories a second: cheap beside the trace units. */
		if (tick % 10 == 0)
			hwt_record_progress_show(w->progress);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

/* The unit's running callback: the thread starts only now, after the fork (unit_run.c's child does more than exec). */
static void watch_start(void *context)
{
	struct record_watch *w = context;

	if ((w->budget || w->progress) && pthread_create(&w->thread, NULL, watch_run, w) == 0)
		w->started = 1;
	if (w->running)
		w->running(w->running_context);
}

/* hwt_unit_run watched: the budget in dir, if the run has one, and the progress on a terminal unless quiet. */
static int run_watched(const struct hwt_unit_run *run, const char *dir,
		       const struct hwt_unit_options *unit, char *const argv[], int *status,
		       const char *prefix)
{
	struct record_watch w = { .prefix = prefix, .quiet = unit->quiet,
				  .running = unit->running,
				  .running_context = unit->running_context };
	struct hwt_unit_options watched = *unit;
	char path[PATH_MAX + 32];
	void *map;
	int fd, err;

	snprintf(path, sizeof(path), "%s/" HWT_TRACE_BUDGET_FILE, dir);
	fd = unit->max_trace_size ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	if (fd >= 0) {
		map = mmap(NULL, HWT_TRACE_BUDGET_SIZE, PROT_READ, MAP_SHARED, fd, 0);
		close(fd);
		/* None: the stop is still said after the run (budget_finish). */
		w.budget = map == MAP_FAILED ? NULL : map;
	}
	if (!unit->quiet)
		w.progress = hwt_record_progress_new(dir, run->unit->name, prefix,
						     hwt_progress_tty);
	pthread_mutex_init(&w.lock, NULL);
	pthread_cond_init(&w.done_cond, NULL);
	watched.running = watch_start;
	watched.running_context = &w;
	err = hwt_unit_run(run, dir, &watched, argv, status, prefix);
	if (w.started) {
		pthread_mutex_lock(&w.lock);
		w.done = 1;
		pthread_cond_signal(&w.done_cond);
		pthread_mutex_unlock(&w.lock);
		pthread_join(w.thread, NULL);
	}
	/* A last look: a short run may reach the cap and end within 100 ms. */
	watch_budget(&w);
	hwt_record_progress_free(w.progress);
	if (w.budget)
		munmap(w.budget, HWT_TRACE_BUDGET_SIZE);
	pthread_cond_destroy(&w.done_cond);
	pthread_mutex_destroy(&w.lock);
	return err;
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
	err = run_watched(run, work, unit, argv, status, prefix);
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
			    unit->max_trace_size, unit->spe_interval, unit->spe_interval && unit->no_etm,
			    hwt_unit_record_filter(run.unit, unit));
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
	err = run_watched(&run, abs_dir, unit, argv, status, prefix);
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
