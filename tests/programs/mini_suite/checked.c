/* Checked integer math for libminicalc. */
#include "minicalc.h"

#include <limits.h>

const char *mc_strerror(int err)
{
	switch (err) {
	case MC_OK:
		return "ok";
	case MC_ERR_SYNTAX:
		return "syntax error";
	case MC_ERR_DIV_ZERO:
		return "division by zero";
	case MC_ERR_OVERFLOW:
		return "overflow";
	case MC_ERR_DOMAIN:
		return "argument out of domain";
	default:
		return "unknown error";
	}
}

int mc_add(long a, long b, long *out)
{
	if ((b > 0 && a > LONG_MAX - b) || (b < 0 && a < LONG_MIN - b))
		return MC_ERR_OVERFLOW;
	*out = a + b;
	return MC_OK;
}

int mc_sub(long a, long b, long *out)
{
	if ((b < 0 && a > LONG_MAX + b) || (b > 0 && a < LONG_MIN + b))
		return MC_ERR_OVERFLOW;
	*out = a - b;
	return MC_OK;
}

int mc_mul(long a, long b, long *out)
{
	if (a == 0 || b == 0) {
		*out = 0;
		return MC_OK;
	}
	if (a > 0) {
		if (b > 0 ? a > LONG_MAX / b : b < LONG_MIN / a)
			return MC_ERR_OVERFLOW;
	} else {
		if (b > 0 ? a < LONG_MIN / b : b < LONG_MAX / a)
			return MC_ERR_OVERFLOW;
	}
	*out = a * b;
	return MC_OK;
}

int mc_div(long a, long b, long *out)
{
	if (b == 0)
		return MC_ERR_DIV_ZERO;
	if (a == LONG_MIN && b == -1)
		return MC_ERR_OVERFLOW;
	*out = a / b;
	return MC_OK;
}

int mc_pow(long base, unsigned exp, long *out)
{
	long result = 1;
	int err;

	while (exp > 0) {
		if (exp & 1) {
			err = mc_mul(result, base, &result);
			if (err)
				return err;
		}
		exp >>= 1;
		if (exp > 0) {
			err = mc_mul(base, base, &base);
			if (err)
				return err;
		}
	}
	*out = result;
	return MC_OK;
}

long mc_gcd(long a, long b)
{
	if (a < 0)
		a = -a;
	if (b < 0)
		b = -b;
	while (b != 0) {
		long t = a % b;

		a = b;
		b = t;
	}
	return a;
}

int mc_isqrt(long x, long *out)
{
	long lo = 0, hi;

	if (x < 0)
		return MC_ERR_DOMAIN;
	hi = x < 3037000499L ? x : 3037000499L;	/* floor(sqrt(LONG_MAX)) */
	while (lo < hi) {
		long mid = lo + (hi - lo + 1) / 2;

		if (mid * mid <= x)
			lo = mid;
		else
			hi = mid - 1;
	}
	*out = lo;
	return MC_OK;
}
