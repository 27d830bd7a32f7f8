/* killed: does some work, then raise(SIGKILL): dies with SIGKILL (exit
 * status 137 in a shell) with no chance to run any handler or atexit. */
#include <signal.h>
#include <stdio.h>

static long work(int n)
{
	long acc = 0;

	for (int i = 0; i < n; i++)
		acc = (acc * 5 + ((i & 3) ? i : i << 4)) % 1000003;
	return acc;
}

int main(void)
{
	printf("killed: work %ld\n", work(2000));
	fflush(stdout);
	raise(SIGKILL);
	printf("killed: not reached\n");
	return 0;
}
