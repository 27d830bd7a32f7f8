#ifndef CALC_H
#define CALC_H
int calc_gcd(int a, int b);
int calc_fib(int n);
int calc_is_prime(int n);
int calc_unused(int n);
#endif
