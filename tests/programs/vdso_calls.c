/* vdso_calls: clock_gettime() and gettimeofday(), which glibc serves from
 * the vDSO without entering the kernel (the vDSO is not a file-backed
 * mapping). The output does not depend on the time read. */
#include <stdio.h>
#include <sys/time.h>
#include <time.h>

static volatile int rounds = 300;

int main(void)
{
	struct timespec ts, prev = { 0, 0 };
	struct timeval tv;
	int monotonic_ok = 1, nonzero = 0;

	for (int i = 0; i < rounds; i++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		if (ts.tv_sec < prev.tv_sec ||
		    (ts.tv_sec == prev.tv_sec && ts.tv_nsec < prev.tv_nsec))
			monotonic_ok = 0;
		prev = ts;
		gettimeofday(&tv, NULL);
		nonzero += tv.tv_sec != 0;
	}
	printf("vdso_calls: %d rounds, monotonic %s, nonzero %d\n", rounds,
	       monotonic_ok ? "yes" : "no", nonzero);
	return monotonic_ok && nonzero == rounds ? 0 : 1;
}
