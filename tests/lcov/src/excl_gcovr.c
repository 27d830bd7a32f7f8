/* Every kind of gcovr exclusion marker (tests/lcov/markers.py checks
   hwt-cov against gcovr's JSON of a --coverage build of this file). */
#include <stdio.h>
#include <stdlib.h>

static int clamp(int x)
{
	if (x > 3) // GCOVR_EXCL_BR_LINE
		return 3;
	return x;
}

/* A function whose first line is excluded: gcovr keeps the function. */
static int twice(int x) // GCOVR_EXCL_LINE
{
	return 2 * x;
}

static int odd_sum(int n)
{
	int s = 0;

	// GCOVR_EXCL_BR_START
	for (int i = 0; i < n; i++)
		if (i & 1)
			s += i;
	// GCOVR_EXCL_BR_STOP
	return s;
}

static void report(int s)
{
	// GCOVR_EXCL_START
	if (s > 1000) {
		// GCOVR_EXCL_START nested: the outer STOP ends the section
		fprintf(stderr, "too big: %d\n", s);
		// GCOVR_EXCL_STOP
		exit(1);
	}
	// GCOVR_EXCL_STOP
	if (s < 0)
		abort(); // GCOVR_EXCL_LINE
	printf("%d\n", s);
}

/* A STOP without START: gcovr warns and ignores it. GCOVR_EXCL_STOP */
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

/* An unterminated section: gcovr warns and excludes nothing. GCOVR_EXCL_START */
int unused_tail(int x)
{
	if (x)
		return x - 1;
	return 0;
}
