/* plt_calls: calls into libhwtprobe.so through the PLT, callbacks from the
 * library into the program, and the library calling libc. */
#include "hwtprobe.h"

#include <stdio.h>

static volatile int rounds = 40;

static int triple(int x)
{
	return 3 * x + 1;
}

static int pong(int n)
{
	if (n <= 0)
		return 0;
	return 1 + probe_ping(n - 1, pong);
}

int main(void)
{
	char buf[32];
	long total = 0;
	size_t chars = 0;

	for (int i = 0; i < rounds; i++) {
		total += probe_add(i, 2 * i);
		total += probe_sum_squares(i % 10);
		total += probe_apply(triple, i % 8);
		total += probe_ping(i % 12, pong);
		chars += probe_format(buf, sizeof buf, i % 3 == 0 ? -i : i);
	}
	printf("total %ld chars %zu probe_calls %d last '%s'\n", total, chars,
	       probe_calls, buf);
	return 0;
}
