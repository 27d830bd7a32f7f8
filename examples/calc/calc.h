/* libcalc: a small calculator library, the example that hwt's README traces. */
#ifndef CALC_H
#define CALC_H

enum calc_status {
	CALC_OK = 0,
	CALC_ERR_INPUT = 1,	/* not a number, unknown operator */
	CALC_ERR_RANGE = 2,	/* overflow */
	CALC_ERR_ZERO = 3,	/* division by zero */
};

int calc_parse_int(const char *text, int *out);
int calc_apply(char op, int a, int b, int *out);
int calc_gcd(int a, int b);
int calc_is_prime(int n);
long calc_factorial(int n);
int calc_pow(int base, unsigned exp, int *out);
int calc_fib(int n);

#endif
