/* tail_calls: at -O2, calls in tail position become jumps (tail calls):
 * a chain of them, one through a function pointer, and a tail-recursive
 * function that gcc turns into a loop. */
#include <stdio.h>

static volatile long sink;

__attribute__((noinline)) static long leaf(long x)
{
	for (int i = 0; i < 20; i++)
		sink += x + i;
	return sink;
}

__attribute__((noinline)) static long middle(long x)
{
	sink += x;
	return leaf(x * 3); /* a jump at -O2 */
}

__attribute__((noinline)) static long top(long x)
{
	sink -= x;
	return middle(x + 1); /* a jump at -O2 */
}

static long (*volatile through)(long) = middle;

__attribute__((noinline)) static long indirect(long x)
{
	sink ^= x;
	return through(x); /* an indirect jump at -O2 */
}

__attribute__((noinline)) static long count_down(long n, long acc)
{
	if (n == 0)
		return acc;
	return count_down(n - 1, acc + n); /* a loop at -O2 */
}

int main(void)
{
	long r = 0;

	for (int i = 0; i < 50; i++) {
		r += top(i);
		r += indirect(i);
	}
	r += count_down(1000, 0);
	printf("tail_calls %d\n", r != 0);
	return 0;
}
