/* One test program of the suites: which test it runs is argv[1]. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "calc.h"

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "all";
	int n = argc > 2 ? atoi(argv[2]) : 10, failed = 0;

	if (!strcmp(what, "gcd") || !strcmp(what, "all"))
		failed |= calc_gcd(12 * n, 18) != calc_gcd(18, 12 * n);
	if (!strcmp(what, "fib") || !strcmp(what, "all"))
		failed |= calc_fib(n) < 0;
	if (!strcmp(what, "prime") || !strcmp(what, "all")) {
		int count = 0;

		for (int i = 0; i < n; i++)
			count += calc_is_prime(i);
		failed |= count > n;
	}
	if (!strcmp(what, "argv0"))
		/* The traced program sees the argv[0] it was started with. */
		failed |= strcmp(argv[0], argc > 2 ? argv[2] : "") != 0;
	printf("%s %s\n", what, failed ? "FAIL" : "ok");
	return failed;
}
