/* abort: does some work, then abort(): dies with SIGABRT (exit status 134
 * in a shell) after the libc abort path. */
#include <stdio.h>
#include <stdlib.h>

static long work(int n)
{
	long acc = 1;

	for (int i = 1; i < n; i++)
		acc = (acc * 3 + i) % 100003;
	return acc;
}

int main(void)
{
	printf("abort: work %ld\n", work(2000));
	fflush(stdout);
	abort();
}
