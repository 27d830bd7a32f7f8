/* libhwtprobe.so: exported functions that call each other through the PLT
 * (they are interposable), call back into the program, and call libc. */
#include "hwtprobe.h"

#include <stdio.h>
#include <string.h>

int probe_calls;

int probe_add(int a, int b)
{
	probe_calls++;
	return a + b;
}

int probe_square(int x)
{
	probe_calls++;
	return x * x;
}

int probe_sum_squares(int n)
{
	int sum = 0;

	for (int i = 1; i <= n; i++)
		sum = probe_add(sum, probe_square(i));
	return sum;
}

int probe_apply(int (*fn)(int), int n)
{
	int acc = 0;

	for (int i = 0; i < n; i++) {
		if (i % 4 == 3)
			continue;
		acc += fn(i);
	}
	return acc;
}

/* Ping-pong: the library calls the program, which calls the library again. */
int probe_ping(int n, int (*pong)(int))
{
	probe_calls++;
	if (n <= 0)
		return 0;
	return 1 + pong(n - 1);
}

size_t probe_format(char *buf, size_t len, int value)
{
	probe_calls++;
	if (value < 0)
		snprintf(buf, len, "neg %d", -value);
	else
		snprintf(buf, len, "pos %d", value);
	return strlen(buf);
}
