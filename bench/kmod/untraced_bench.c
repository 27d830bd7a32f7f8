/*
 * What hwt.ko's hooks cost tasks it does not trace (run in the guest by
 * untraced.sh): fork+exec+exit, mmap/munmap of an executable file mapping,
 * and a pipe ping-pong between two processes, each timed over a count.
 *   untraced_bench LABEL none|ctx FORKS MMAPS PINGS
 * With "ctx", a THREAD-mode context of the "test" backend (hwt_test.ko)
 * traces a sleeping process while the work runs in untraced ones.
 * Prints "BENCH LABEL WORK NS_PER_OP" lines; exit 1 on an error.
 *   untraced_bench exit     (what the fork+exec loop runs)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hwt_ioctl.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int fork_exec(const char *self, long n)
{
	long i;

	for (i = 0; i < n; i++) {
		pid_t c = fork();
		int st;

		if (c < 0)
			return -1;
		if (c == 0) {
			execl(self, self, "exit", (char *)NULL);
			_exit(98);
		}
		if (waitpid(c, &st, 0) != c || !WIFEXITED(st) || WEXITSTATUS(st))
			return -1;
	}
	return 0;
}

static int map_unmap(const char *self, long n)
{
	int fd = open(self, O_RDONLY);
	long i;

	if (fd < 0)
		return -1;
	for (i = 0; i < n; i++) {
		void *p = mmap(NULL, 8192, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);

		if (p == MAP_FAILED || munmap(p, 8192)) {
			close(fd);
			return -1;
		}
	}
	close(fd);
	return 0;
}

static int ping_pong(long n)
{
	int ab[2], ba[2], st;
	long i;
	pid_t c;
	char b = 1;

	if (pipe(ab) || pipe(ba))
		return -1;
	c = fork();
	if (c < 0)
		return -1;
	if (c == 0) {
		while (read(ab[0], &b, 1) == 1 && b)
			if (write(ba[1], &b, 1) != 1)
				_exit(1);
		_exit(0);
	}
	for (i = 0; i < n; i++) {
		b = 1;
		if (write(ab[1], &b, 1) != 1 || read(ba[0], &b, 1) != 1)
			return -1;
	}
	b = 0;
	if (write(ab[1], &b, 1) != 1)
		return -1;
	waitpid(c, &st, 0);
	close(ab[0]);
	close(ab[1]);
	close(ba[0]);
	close(ba[1]);
	return 0;
}

/* A context tracing a sleeping process: its fd, or -1. */
static int traced_sleeper(pid_t *pid)
{
	struct hwt_alloc a;
	int dev, fd;

	*pid = fork();
	if (*pid < 0)
		return -1;
	if (*pid == 0) {
		for (;;)
			pause();
	}
	dev = open("/dev/hwt", O_RDWR);
	if (dev < 0)
		return -1;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.mode = HWT_MODE_THREAD;
	strcpy(a.backend_name, "test");
	a.pid = *pid;
	a.bufsize = 65536;
	fd = ioctl(dev, HWT_IOC_ALLOC, &a);
	close(dev);
	if (fd < 0 || ioctl(fd, HWT_IOC_START))
		return -1;
	return fd;
}

#define TIME(label, work, n, call)						\
	do {									\
		uint64_t t0 = now_ns();						\
		if (call) {							\
			fprintf(stderr, "untraced_bench: %s: %s\n", work, strerror(errno)); \
			return 1;						\
		}								\
		printf("BENCH %s %s %.0f\n", label, work, (double)(now_ns() - t0) / (n)); \
	} while (0)

int main(int argc, char **argv)
{
	long forks, maps, pings;
	pid_t sleeper = 0;
	int fd = -1;

	if (argc == 2 && !strcmp(argv[1], "exit"))
		return 0;
	if (argc != 6) {
		fprintf(stderr, "usage: untraced_bench LABEL none|ctx FORKS MMAPS PINGS\n");
		return 2;
	}
	/* One CPU: the ping-pong switches every round trip, the same way each run. */
	{
		cpu_set_t one;

		CPU_ZERO(&one);
		CPU_SET(0, &one);
		sched_setaffinity(0, sizeof(one), &one);
	}
	forks = atol(argv[3]);
	maps = atol(argv[4]);
	pings = atol(argv[5]);
	if (!strcmp(argv[2], "ctx")) {
		fd = traced_sleeper(&sleeper);
		if (fd < 0) {
			fprintf(stderr, "untraced_bench: context: %s\n", strerror(errno));
			return 1;
		}
	}
	TIME(argv[1], "fork_exec_exit", forks, fork_exec("/proc/self/exe", forks));
	TIME(argv[1], "mmap_munmap", maps, map_unmap("/proc/self/exe", maps));
	TIME(argv[1], "pipe_pingpong", pings, ping_pong(pings));
	if (sleeper > 0) {
		kill(sleeper, SIGKILL);
		waitpid(sleeper, NULL, 0);
	}
	if (fd >= 0)
		close(fd);
	return 0;
}
