/* Checked add, subtract, multiply and divide at the edges. */
#include "minicalc.h"
#include "mini_test.h"

#include <limits.h>

int main(void)
{
	long v;

	MT_CHECK(mc_add(2, 3, &v) == MC_OK && v == 5);
	MT_CHECK(mc_add(LONG_MAX, 1, &v) == MC_ERR_OVERFLOW);
	MT_CHECK(mc_add(LONG_MIN, -1, &v) == MC_ERR_OVERFLOW);
	MT_CHECK(mc_sub(LONG_MIN, 1, &v) == MC_ERR_OVERFLOW);
	MT_CHECK(mc_sub(-3, -5, &v) == MC_OK && v == 2);
	MT_CHECK(mc_mul(0, LONG_MAX, &v) == MC_OK && v == 0);
	MT_CHECK(mc_mul(-4, 5, &v) == MC_OK && v == -20);
	MT_CHECK(mc_mul(LONG_MAX, 2, &v) == MC_ERR_OVERFLOW);
	MT_CHECK(mc_mul(LONG_MIN, -1, &v) == MC_ERR_OVERFLOW);
	MT_CHECK(mc_mul(-2, LONG_MIN / 2, &v) == MC_ERR_OVERFLOW);
	MT_CHECK(mc_div(7, 2, &v) == MC_OK && v == 3);
	MT_CHECK(mc_div(7, 0, &v) == MC_ERR_DIV_ZERO);
	MT_CHECK(mc_div(LONG_MIN, -1, &v) == MC_ERR_OVERFLOW);
	for (long a = -300; a <= 300; a += 7) {
		for (long b = -50; b <= 50; b += 9) {
			MT_CHECK(mc_mul(a, b, &v) == MC_OK && v == a * b);
			MT_CHECK(mc_sub(a, b, &v) == MC_OK && v == a - b);
		}
	}
	return mt_done("test_checked");
}
