/* cov_lib: a small shared library for the cross-image coverage tests. */
#include "cov_lib.h"

int covlib_gcd(int a, int b)
{
	while (b != 0) {
		int t = a % b;

		a = b;
		b = t;
	}
	return a;
}

int covlib_is_prime(int n)
{
	if (n < 2)
		return 0;
	for (int d = 2; d * d <= n; d++)
		if (n % d == 0)
			return 0;
	return 1;
}

const char *covlib_name(int kind)
{
	switch (kind) {
	case 0:
		return "zero";
	case 1:
		return "one";
	default:
		return "many";
	}
}
