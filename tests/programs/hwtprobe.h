/* libhwtprobe.so: a small shared library that plt_calls links against. */
#ifndef HWTPROBE_H
#define HWTPROBE_H

#include <stddef.h>

extern int probe_calls;	/* reached through the GOT from the program */

int probe_add(int a, int b);
int probe_square(int x);
int probe_sum_squares(int n);
int probe_apply(int (*fn)(int), int n);
int probe_ping(int n, int (*pong)(int));
size_t probe_format(char *buf, size_t len, int value);

#endif
