/* libcalc. The tests leave calc_pow, calc_fib and some error branches
 * unexercised on purpose, so that its coverage is not 100%. */
#include "calc.h"

#include <limits.h>

int calc_parse_int(const char *text, int *out)
{
	long value = 0;
	int negative = 0;

	if (*text == '-' || *text == '+') {
		negative = *text == '-';
		text++;
	}
	if (*text < '0' || *text > '9')
		return CALC_ERR_INPUT;
	for (; *text != '\0'; text++) {
		if (*text < '0' || *text > '9')
			return CALC_ERR_INPUT;
		value = value * 10 + (*text - '0');
		if (value > (long)INT_MAX + 1)
			return CALC_ERR_RANGE;
	}
	if (negative)
		value = -value;
	if (value > INT_MAX || value < INT_MIN)
		return CALC_ERR_RANGE;
	*out = (int)value;
	return CALC_OK;
}

int calc_apply(char op, int a, int b, int *out)
{
	long r;

	switch (op) {
	case '+':
		r = (long)a + b;
		break;
	case '-':
		r = (long)a - b;
		break;
	case '*':
		r = (long)a * b;
		break;
	case '/':
		if (b == 0)
			return CALC_ERR_ZERO;
		r = (long)a / b;
		break;
	case '%':
		if (b == 0)
			return CALC_ERR_ZERO;
		r = (long)a % b;
		break;
	default:
		return CALC_ERR_INPUT;
	}
	if (r > INT_MAX || r < INT_MIN)
		return CALC_ERR_RANGE;
	*out = (int)r;
	return CALC_OK;
}

int calc_gcd(int a, int b)
{
	if (a < 0)
		a = -a;
	if (b < 0)
		b = -b;
	while (b != 0) {
		int t = a % b;

		a = b;
		b = t;
	}
	return a;
}

int calc_is_prime(int n)
{
	if (n < 2)
		return 0;
	if (n % 2 == 0)
		return n == 2;
	for (int d = 3; d <= n / d; d += 2)
		if (n % d == 0)
			return 0;
	return 1;
}

long calc_factorial(int n)
{
	long r = 1;

	if (n < 0)
		return -1;
	for (int i = 2; i <= n; i++) {
		if (r > LONG_MAX / i)
			return -1;	/* overflow */
		r *= i;
	}
	return r;
}

int calc_pow(int base, unsigned exp, int *out)
{
	long r = 1;

	while (exp-- > 0) {
		r *= base;
		if (r > INT_MAX || r < INT_MIN)
			return CALC_ERR_RANGE;
	}
	*out = (int)r;
	return CALC_OK;
}

int calc_fib(int n)
{
	int a = 0, b = 1;

	if (n < 0)
		return -1;
	while (n-- > 0) {
		int t = a + b;

		a = b;
		b = t;
	}
	return a;
}
