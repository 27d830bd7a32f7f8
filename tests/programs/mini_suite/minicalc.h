/* libminicalc.so: the library that the mini suite tests. */
#ifndef MINICALC_H
#define MINICALC_H

#include <stddef.h>

enum mc_error {
	MC_OK = 0,
	MC_ERR_SYNTAX = -1,
	MC_ERR_DIV_ZERO = -2,
	MC_ERR_OVERFLOW = -3,
	MC_ERR_DOMAIN = -4,
};

const char *mc_strerror(int err);

/* checked integer math: each returns MC_OK and stores the result, or an error */
int mc_add(long a, long b, long *out);
int mc_sub(long a, long b, long *out);
int mc_mul(long a, long b, long *out);
int mc_div(long a, long b, long *out);
int mc_pow(long base, unsigned exp, long *out);
long mc_gcd(long a, long b);
int mc_isqrt(long x, long *out);

/* expressions: integers, + - * / %, unary minus, parentheses */
int mc_eval(const char *text, long *out);

/* strings */
char *mc_trim(char *s);
void mc_reverse(char *s);
size_t mc_count_words(const char *s);
int mc_is_palindrome(const char *s);
void mc_to_upper(char *s);

#endif
