/* cov_main: calls into libcovlib.so; argv[1] picks how much it does. */
#include <stdio.h>
#include <stdlib.h>

#include "cov_lib.h"

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 30;
	int primes = 0, g = 0;

	for (int i = 0; i < n; i++) {
		primes += covlib_is_prime(i);
		g += covlib_gcd(i * 6, 84);
	}
	if (n > 100)
		puts(covlib_name(n % 3));
	printf("cov_main: %d primes, gcd sum %d, %s\n", primes, g, covlib_name(primes > 1));
	return 0;
}
