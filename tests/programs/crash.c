/* crash: does some work, then stores through a NULL pointer and dies with
 * SIGSEGV (exit status 139 in a shell). */
#include <stdio.h>

static int *volatile null_pointer;	/* NULL; volatile so the store stays */

static long work(int n)
{
	long acc = 0;

	for (int i = 0; i < n; i++)
		acc += (i % 7 == 0) ? i * 3 : -i;
	return acc;
}

int main(void)
{
	printf("crash: work %ld\n", work(2000));
	fflush(stdout);
	*null_pointer = 42;
	printf("crash: not reached\n");
	return 0;
}
