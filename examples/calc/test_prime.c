/* Tests of calc_is_prime and calc_gcd. */
#include "calc.h"
#include "check.h"

int main(void)
{
	static const int primes[] = { 2, 3, 5, 7, 11, 13, 97, 7919 };
	static const int composites[] = { 0, 1, 4, 9, 15, 91, 7917 };
	int count = 0;

	for (unsigned i = 0; i < sizeof primes / sizeof primes[0]; i++)
		CHECK(calc_is_prime(primes[i]));
	for (unsigned i = 0; i < sizeof composites / sizeof composites[0]; i++)
		CHECK(!calc_is_prime(composites[i]));
	for (int n = 0; n < 1000; n++)
		count += calc_is_prime(n);
	CHECK(count == 168);

	CHECK(calc_gcd(12, 18) == 6);
	CHECK(calc_gcd(17, 5) == 1);
	CHECK(calc_gcd(0, 9) == 9);
	/* negative arguments are never tested */

	printf("test_prime: %s\n", check_failures ? "FAIL" : "ok");
	return check_failures != 0;
}
