/* gcd, integer square root and checked power. */
#include "minicalc.h"
#include "mini_test.h"

int main(void)
{
	long v;

	MT_CHECK(mc_gcd(12, 18) == 6);
	MT_CHECK(mc_gcd(-12, 18) == 6);
	MT_CHECK(mc_gcd(17, 0) == 17);
	MT_CHECK(mc_gcd(0, 0) == 0);
	for (long i = 1; i < 200; i++)
		MT_CHECK(mc_gcd(i * 6, i * 10) == i * 2);

	MT_CHECK(mc_isqrt(-1, &v) == MC_ERR_DOMAIN);
	for (long x = 0; x < 2000; x += 3) {
		MT_CHECK(mc_isqrt(x, &v) == MC_OK);
		MT_CHECK(v * v <= x && (v + 1) * (v + 1) > x);
	}

	MT_CHECK(mc_pow(2, 10, &v) == MC_OK && v == 1024);
	MT_CHECK(mc_pow(-3, 3, &v) == MC_OK && v == -27);
	MT_CHECK(mc_pow(7, 0, &v) == MC_OK && v == 1);
	MT_CHECK(mc_pow(2, 62, &v) == MC_OK && v == 1L << 62);
	MT_CHECK(mc_pow(2, 63, &v) == MC_ERR_OVERFLOW);
	MT_CHECK(mc_pow(10, 30, &v) == MC_ERR_OVERFLOW);
	return mt_done("test_number_theory");
}
