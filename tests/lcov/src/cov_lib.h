#ifndef COV_LIB_H
#define COV_LIB_H
int covlib_gcd(int a, int b);
int covlib_is_prime(int n);
const char *covlib_name(int kind);
#endif
