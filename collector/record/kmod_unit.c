/*
 * The kernel trace unit (--unit kmod): hwt.ko's sw backend traces in the
 * kernel, which follows forks and execs itself (no preloaded library:
 * static programs and raw execve system calls are followed too).
 *  - A command: it is forked first and waits; a THREAD-mode context is
 *    allocated for it before it execs.
 *  - -p PID: a THREAD-mode context for a running process (its mappings from
 *    the START snapshot), until Ctrl-C, the duration, or its end; closing
 *    the context detaches, the process runs on.
 *  - -a / --cpu LIST: CPU mode, every user thread that runs on those CPUs
 *    (but this collector's), until Ctrl-C or the duration, or with a
 *    command until it ends (forked first and waiting, as above: what it
 *    runs before its exec is not recorded).
 * The recording (collector/kmod) reads records and buffers meanwhile.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hwt_kmod.h"
#include "trace_unit.h"

/* How often the recording looks at the buffers when no record wakes it. */
#define KMOD_POLL_MS 20

static volatile sig_atomic_t kmod_stop;

static void kmod_interrupt(int sig)
{
	(void)sig;
	kmod_stop = 1;
}

static void kmod_warn(void *prefix, const char *msg)
{
	fprintf(stderr, "%s: warning: %s\n", (const char *)prefix, msg);
}

static void kmod_error(const char *prefix, const char *what, int ret)
{
	int e = errno;

	fprintf(stderr, "%s: %s: %s%s%s\n", prefix, what, hwt_kmod_errstr(ret),
		ret == -hke_io || ret == -hke_bundle ? ": " : "",
		ret == -hke_io || ret == -hke_bundle ? strerror(e) : "");
	if (ret == -hke_no_module || ret == -hke_no_backend)
		fprintf(stderr, "%s: load the modules: insmod hwt.ko; insmod hwt_sw.ko (kmod/README.md)\n",
			prefix);
}

static int kmod_prepare(struct hwt_unit_files *files, const struct hwt_unit_options *opts,
			const char *prefix, int quiet)
{
	struct stat st;

	(void)files;
	(void)opts;
	if (stat("/dev/hwt", &st) == 0)
		return 0;
	if (!quiet)
		kmod_error(prefix, "the kernel trace unit", -hke_no_module);
	return -1;
}

/* --cpu LIST ("0,2-3") or "all" into a CPU bitmap. */
static int kmod_cpus(const char *list, uint8_t *set, size_t size)
{
	const char *p = list;

	memset(set, 0, size);
	if (!strcmp(list, "all")) {
		long n = sysconf(_SC_NPROCESSORS_CONF);

		for (long c = 0; c < n && (size_t)c < size * 8; c++)
			set[c / 8] |= (uint8_t)(1u << (c % 8));
		return n > 0 ? 0 : -1;
	}
	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b = a;

		if (end == p || a < 0)
			return -1;
		if (*end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
			if (end == p || b < a)
				return -1;
		}
		if ((size_t)b >= size * 8)
			return -1;
		for (long c = a; c <= b; c++)
			set[c / 8] |= (uint8_t)(1u << (c % 8));
		p = end;
		if (*p == ',')
			p++;
		else if (*p)
			return -1;
	}
	return 0;
}

/* Forks the command; it waits for a byte on *go before it execs. */
static pid_t kmod_fork(char *const argv[], int *go, int *failed)
{
	int gop[2], failp[2];
	pid_t pid;

	if (pipe2(gop, O_CLOEXEC) < 0)
		return -1;
	if (pipe2(failp, O_CLOEXEC) < 0) {
		close(gop[0]);
		close(gop[1]);
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		char c;
		int err;

		hwt_unit_signals_default();
		close(gop[1]);
		close(failp[0]);
		if (read(gop[0], &c, 1) == 1)
			execvp(argv[0], argv);
		err = errno;
		if (write(failp[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(127);
	}
	close(gop[0]);
	close(failp[1]);
	if (pid < 0) {
		close(gop[1]);
		close(failp[0]);
		return -1;
	}
	*go = gop[1];
	*failed = failp[0];
	return pid;
}

static double kmod_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* Polls until the child is done (command), or Ctrl-C, the duration, the process's end. */
static int kmod_loop(struct hwt_kmod *k, const struct hwt_unit_options *opts, pid_t child,
		     int *status)
{
	double until = opts->duration > 0 ? kmod_now() + opts->duration : 0;
	int done = 0, ret = 0;

	while (!done && !ret) {
		if (child > 0) {
			pid_t w = waitpid(child, status, WNOHANG);

			if (w == child || (w < 0 && errno != EINTR)) {
				if (w < 0)
					*status = 0x7f00;
				done = 1;
			}
		} else if (kmod_stop || (until && kmod_now() >= until) ||
			   (opts->pid && kill(opts->pid, 0) < 0 && errno == ESRCH)) {
			done = 1;
		}
		ret = hwt_kmod_poll(k, done ? 0 : KMOD_POLL_MS);
	}
	if (!ret)
		ret = hwt_kmod_finish(k);
	return ret;
}

static int kmod_record(const char *bundle, const struct hwt_unit_options *opts,
		       char *const argv[], int *status, const char *prefix)
{
	struct hwt_kmod_options o = { 0 };
	struct sigaction sa, old_int, old_term, old_hup, old_quit;
	struct hwt_unit_signals signals;
	struct hwt_kmod *k = NULL;
	uint8_t cpus[128];
	int go = -1, failed = -1, err, ret;
	pid_t child = 0;

	*status = 0;
	o.psb_period = (uint32_t)opts->psb_period;
	o.debug_blocks = opts->debug_blocks;
	o.wrap = opts->wrap;
	o.bufsize = opts->bufsize;
	o.select = !opts->trace_all;
	o.trace = opts->trace;
	o.no_trace = opts->no_trace;
	o.filters = opts->filters;
	o.warn.fn = kmod_warn;
	o.warn.context = (void *)prefix;
	o.children = 1;
	if (opts->cpus) {
		if (kmod_cpus(opts->cpus, cpus, sizeof(cpus)) < 0) {
			fprintf(stderr, "%s: --cpu wants a list like 0,2-3, not '%s'\n", prefix,
				opts->cpus);
			return -1;
		}
		o.mode = HWT_KMOD_CPU;
		o.cpus = cpus;
		o.cpusetsize = sizeof(cpus);
		o.select = 0;
		if (argv && argv[0]) {
			/* A signal is the command's from its fork on (trace_unit.h). */
			hwt_unit_signals_forward(&signals);
			child = kmod_fork(argv, &go, &failed);
			if (child < 0) {
				fprintf(stderr, "%s: fork: %s\n", prefix, strerror(errno));
				hwt_unit_signals_restore(&signals);
				return -1;
			}
			hwt_unit_signals_child(child);
			o.pid = child;
			o.until_exec = 1;
		}
	} else if (opts->pid) {
		o.mode = HWT_KMOD_THREAD;
		o.pid = opts->pid;
		/* What it runs is already judged: trace it all. */
		o.select = 0;
	} else {
		hwt_unit_signals_forward(&signals);
		child = kmod_fork(argv, &go, &failed);
		if (child < 0) {
			fprintf(stderr, "%s: fork: %s\n", prefix, strerror(errno));
			hwt_unit_signals_restore(&signals);
			return -1;
		}
		hwt_unit_signals_child(child);
		o.mode = HWT_KMOD_THREAD;
		o.pid = child;
		o.until_exec = 1;
	}
	ret = hwt_kmod_alloc(&k, bundle, &o);
	if (!ret)
		ret = hwt_kmod_start(k);
	if (ret) {
		kmod_error(prefix, "the kernel trace unit", ret);
		if (child > 0) {
			kill(child, SIGKILL);
			waitpid(child, NULL, 0);
			close(go);
			close(failed);
			hwt_unit_signals_restore(&signals);
		}
		hwt_kmod_free(k);
		return -1;
	}
	if (child > 0) {
		/* The command execs now, traced. */
		if (write(go, "g", 1) != 1)
			kill(child, SIGKILL);
		close(go);
	}

	kmod_stop = 0;
	/* With a command, its signals are forwarded (above); else they end the recording. */
	if (child <= 0) {
		memset(&sa, 0, sizeof(sa));
		sigemptyset(&sa.sa_mask);
		sa.sa_handler = kmod_interrupt;
		sigaction(SIGTERM, &sa, &old_term);
		sigaction(SIGHUP, &sa, &old_hup);
		sigaction(SIGINT, &sa, &old_int);
		sigaction(SIGQUIT, &sa, &old_quit);
	}
	ret = kmod_loop(k, opts, child, status);
	if (child <= 0) {
		sigaction(SIGTERM, &old_term, NULL);
		sigaction(SIGHUP, &old_hup, NULL);
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGQUIT, &old_quit, NULL);
	} else {
		hwt_unit_signals_restore(&signals);
	}
	if (ret)
		kmod_error(prefix, "recording", ret);
	/* Closing the context detaches: what it traced runs on untraced. */
	hwt_kmod_free(k);
	if (child > 0) {
		if (read(failed, &err, sizeof(err)) == sizeof(err)) {
			fprintf(stderr, "%s: %s: %s\n", prefix, argv[0],
				err == ENOENT ? "command not found" : strerror(err));
			close(failed);
			waitpid(child, NULL, 0);
			/* As a shell says it: 127 not found, 126 found but not run. */
			*status = (err == ENOENT ? 127 : 126) << 8;
			return 0;
		}
		close(failed);
		if (ret)
			waitpid(child, status, 0);
	}
	return 0;
}

const struct hwt_unit hwt_kmod_unit = {
	.name = "kmod",
	.title = "kernel (hwt.ko)",
	.prepare = kmod_prepare,
	.follows_children = 1,
	.clock = "tsc",
	.traces = "intel-pt",
	.record = kmod_record,
};
