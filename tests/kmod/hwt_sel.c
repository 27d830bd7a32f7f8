/*
 * The selection tests' program (run_qemu.sh installs copies under /opt/t,
 * outside the system directories: with DWARF, stripped, stripped with a
 * .gnu_debuglink, stripped with a build-id debug file). It sleeps in short
 * steps (so a traced thread is switched in and out and its buffer
 * advances), then does what its arguments say:
 *   hwt_sel MS exit                 exit 0
 *   hwt_sel MS exec PATH ARG...     exec PATH (the same thread)
 *   hwt_sel MS fork PATH ARG...     a child execs PATH; waits for it, exits with its status
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef HWT_SEL_VARIANT
#define HWT_SEL_VARIANT "plain"
#endif
const char hwt_sel_variant[] = HWT_SEL_VARIANT;	/* a build-id of its own per variant */

static void run_ms(long ms)
{
	struct timespec step = { 0, 1000000 }, t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		nanosleep(&step, NULL);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

int main(int argc, char **argv)
{
	pid_t c;
	int st;

	if (argc < 3)
		return 2;
	run_ms(atol(argv[1]));
	if (!strcmp(argv[2], "exit"))
		return 0;
	if (argc < 4)
		return 2;
	if (!strcmp(argv[2], "exec")) {
		execv(argv[3], argv + 3);
		return 3;
	}
	if (!strcmp(argv[2], "fork")) {
		c = fork();
		if (c == 0) {
			execv(argv[3], argv + 3);
			_exit(3);
		}
		if (c < 0 || waitpid(c, &st, 0) != c)
			return 4;
		return WIFEXITED(st) ? WEXITSTATUS(st) : 5;
	}
	return 2;
}
