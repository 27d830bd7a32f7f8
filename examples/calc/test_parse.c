/* Tests of calc_parse_int. */
#include "calc.h"
#include "check.h"

int main(void)
{
	int v = 0;

	CHECK(calc_parse_int("0", &v) == CALC_OK && v == 0);
	CHECK(calc_parse_int("12345", &v) == CALC_OK && v == 12345);
	CHECK(calc_parse_int("-42", &v) == CALC_OK && v == -42);
	CHECK(calc_parse_int("+7", &v) == CALC_OK && v == 7);
	CHECK(calc_parse_int("-2147483648", &v) == CALC_OK && v == -2147483647 - 1);
	CHECK(calc_parse_int("", &v) == CALC_ERR_INPUT);
	CHECK(calc_parse_int("12x", &v) == CALC_ERR_INPUT);
	CHECK(calc_parse_int("2147483648", &v) == CALC_ERR_RANGE);
	/* very long numbers (the in-loop range check) are never tested */

	printf("test_parse: %s\n", check_failures ? "FAIL" : "ok");
	return check_failures != 0;
}
