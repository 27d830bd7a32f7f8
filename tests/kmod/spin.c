/*
 * spin SECONDS [MARK]: a target to attach to. Works in rounds for about
 * SECONDS (a checksum each round, checked against the first round's, so
 * that a round the tracing disturbed would show), then prints the rounds
 * and exits 0 when every round agreed, 1 otherwise. With MARK it creates
 * MARK.ready before its first round and MARK.done after its last (each
 * holding its pid), for a test that must act while it runs, however slowly
 * the machine is.
 * SIGUSR1 ends it after the round it is in (as well as SECONDS running out):
 * a test that has seen what it needed lets it go, and SECONDS can stay long
 * enough for the slowest machine.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned work_size = 2000;
static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

/* A call and a return each step: a trace of TIP packets that fills buffers fast. */
static __attribute__((noinline)) unsigned long mix(unsigned long h, unsigned i)
{
	return (h * 33 + i) ^ (h >> 7);
}

static unsigned long round_sum(void)
{
	unsigned long h = 5381;

	for (unsigned i = 0; i < work_size; i++)
		h = mix(h, i);
	return h;
}

static void mark(const char *prefix, const char *what)
{
	char path[4096];
	FILE *f;

	if (!prefix)
		return;
	snprintf(path, sizeof(path), "%s.%s", prefix, what);
	f = fopen(path, "w");
	if (f) {
		fprintf(f, "%d\n", (int)getpid());	/* whom to watch: tests wait on its state */
		fclose(f);
	}
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 5;
	const char *marks = argc > 2 ? argv[2] : NULL;
	unsigned long first;
	struct sigaction sa = { .sa_handler = on_stop };

	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	mark(marks, "ready");
	first = round_sum();
	unsigned long rounds = 0, bad = 0;
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		bad += round_sum() != first;
		rounds++;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (!stop && (t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
	mark(marks, "done");
	printf("spin: %lu rounds, %lu bad\n", rounds, bad);
	return bad != 0;
}
