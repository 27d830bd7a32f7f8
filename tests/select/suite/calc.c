/* libcalc.so: the code under test of the select suites. */
#include "calc.h"

int calc_gcd(int a, int b)
{
	while (b != 0) {
		int t = a % b;

		a = b;
		b = t;
	}
	return a < 0 ? -a : a;
}

int calc_fib(int n)
{
	int a = 0, b = 1;

	for (int i = 0; i < n; i++) {
		int t = a + b;

		a = b;
		b = t;
	}
	return a;
}

int calc_is_prime(int n)
{
	if (n < 2)
		return 0;
	for (int d = 2; d * d <= n; d++)
		if (n % d == 0)
			return 0;
	return 1;
}

int calc_unused(int n)
{
	return n * 3 + 1;
}
