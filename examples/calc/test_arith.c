/* Tests of calc_apply and calc_factorial. */
#include "calc.h"
#include "check.h"

int main(void)
{
	int r = 0;

	CHECK(calc_apply('+', 2, 3, &r) == CALC_OK && r == 5);
	CHECK(calc_apply('-', 2, 3, &r) == CALC_OK && r == -1);
	CHECK(calc_apply('*', -4, 6, &r) == CALC_OK && r == -24);
	CHECK(calc_apply('/', 17, 5, &r) == CALC_OK && r == 3);
	CHECK(calc_apply('/', 1, 0, &r) == CALC_ERR_ZERO);
	CHECK(calc_apply('*', 1 << 20, 1 << 20, &r) == CALC_ERR_RANGE);
	CHECK(calc_apply('^', 1, 2, &r) == CALC_ERR_INPUT);
	/* '%' is never tested */

	CHECK(calc_factorial(0) == 1);
	CHECK(calc_factorial(5) == 120);
	CHECK(calc_factorial(20) == 2432902008176640000L);
	CHECK(calc_factorial(-3) == -1);
	/* the overflow branch (n > 20) is never tested */

	printf("test_arith: %s\n", check_failures ? "FAIL" : "ok");
	return check_failures != 0;
}
