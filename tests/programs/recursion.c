/* recursion: fib, ackermann, mutual recursion and one deep recursion
 * (deeper than the 64-entry return stack that PT return compression keeps). */
#include <stdio.h>

static volatile int fib_n = 17;
static volatile int depth = 1500;
static volatile long sink;

static int fib(int n)
{
	if (n < 2)
		return n;
	return fib(n - 1) + fib(n - 2);
}

static int ackermann(int m, int n)
{
	if (m == 0)
		return n + 1;
	if (n == 0)
		return ackermann(m - 1, 1);
	return ackermann(m - 1, ackermann(m, n - 1));
}

static int is_odd(unsigned n);

static int is_even(unsigned n)
{
	if (n == 0)
		return 1;
	return is_odd(n - 1);
}

static int is_odd(unsigned n)
{
	if (n == 0)
		return 0;
	return is_even(n - 1);
}

/* The volatile store after the call keeps it a real recursion at -O2. */
static long deep_sum(int n)
{
	long r;

	if (n == 0)
		return 0;
	r = deep_sum(n - 1);
	sink = r;
	return r + n;
}

int main(void)
{
	int evens = 0;

	printf("fib(%d) = %d\n", fib_n, fib(fib_n));
	printf("ackermann(2, 3) = %d\n", ackermann(2, 3));
	printf("ackermann(3, 3) = %d\n", ackermann(3, 3));
	for (unsigned i = 0; i < 60; i++)
		evens += is_even(i * 3);
	printf("even count: %d\n", evens);
	printf("deep_sum(%d) = %ld\n", depth, deep_sum(depth));
	return 0;
}
