/* A function gcc -O2 splits into foo and foo.cold (tests/lcov/cold_split.py). */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noreturn, cold, noinline)) static void die(const char *what, int v)
{
	fprintf(stderr, "bad %s: %d\n", what, v);
	exit(3);
}

__attribute__((noinline)) int checked_div(int a, int b)
{
	if (__builtin_expect(b == 0, 0))
		die("divisor", a);
	if (__builtin_expect(a < -1000000, 0)) {
		fprintf(stderr, "too small: %d\n", a);
		abort();
	}
	return a / b;
}

int main(int argc, char **argv)
{
	int i, sum = 0, n = argc > 1 ? atoi(argv[1]) : 37;

	for (i = 0; i < n; i++)
		sum += checked_div(i * 7 + 1, (i % 5) + 1);
	printf("%d\n", sum);
	return 0;
}
