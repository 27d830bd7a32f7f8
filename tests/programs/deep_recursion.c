/* deep_recursion: a recursion 100,000 calls deep (argv[1] overrides the
 * depth), each level doing some work before and after its call. */
#include <stdio.h>
#include <stdlib.h>

static volatile long sink;

__attribute__((noinline)) static long down(long n)
{
	long r;

	if (n == 0)
		return 0;
	sink += n;
	r = down(n - 1);
	sink -= r;
	return r + 1;
}

int main(int argc, char **argv)
{
	long depth = argc > 1 ? atol(argv[1]) : 100000;

	printf("deep_recursion %ld\n", down(depth));
	return 0;
}
