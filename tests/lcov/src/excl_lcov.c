/* Every kind of lcov exclusion marker (tests/lcov/markers.py checks hwt-cov
   against lcov --capture of a --coverage build of this file). */
#include <stdio.h>
#include <stdlib.h>

static int clamp(int x)
{
	if (x > 3) /* LCOV_EXCL_BR_LINE */
		return 3;
	return x;
}

/* A function whose first line is excluded: lcov drops it. */
static int twice(int x) /* LCOV_EXCL_LINE */
{
	return 2 * x;
}

static int odd_sum(int n)
{
	int s = 0;

	// LCOV_EXCL_BR_START
	for (int i = 0; i < n; i++)
		if (i & 1)
			s += i;
	// LCOV_EXCL_BR_STOP
	return s;
}

static void report(int s)
{
	/* LCOV_EXCL_START */
	if (s > 1000) {
		fprintf(stderr, "too big: %d\n", s);
		exit(1);
	}
	/* LCOV_EXCL_STOP */
	if (s < 0)
		abort(); // LCOV_EXCL_LINE
	printf("%d\n", s);
}

/* A section opened and closed again before anything in it: LCOV_EXCL_START LCOV_EXCL_STOP */
static int negate(int x)
{
	return x < 0 ? -x : x;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 5;
	int s = 0;

	for (int i = 0; i < n; i++)
		s += clamp(i) + twice(i);
	s += odd_sum(n);
	report(negate(s));
	return 0;
}

/* An unterminated section: lcov warns and leaves out the rest. LCOV_EXCL_START */
int unused_tail(int x)
{
	if (x)
		return x - 1;
	return 0;
}
