/* many_calls [N]: N calls (default 10,000,000) spread over a few small
 * call trees: a memory benchmark for the stack builder, whose memory must
 * follow the distinct stacks (a few dozen here), not the calls. */
#include <stdio.h>
#include <stdlib.h>

static volatile long sink;

__attribute__((noinline)) static void leaf_a(long i) { sink += i; }
__attribute__((noinline)) static void leaf_b(long i) { sink ^= i; }
/* The stores after the calls keep them calls at -O2 (not tail jumps). */
__attribute__((noinline)) static void pair(long i)
{
	leaf_a(i);
	leaf_b(i);
	sink++;
}
__attribute__((noinline)) static void nest(long i, int depth)
{
	if (depth)
		nest(i, depth - 1);
	else
		pair(i);
	sink--;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000000, calls = 0;

	/* nest(i, 4): 5 calls of nest, pair, 2 leaves: 8 calls per round. */
	for (long i = 0; calls + 8 <= n; i++, calls += 8)
		nest(i, 4);
	printf("many_calls %ld\n", calls);
	return 0;
}
