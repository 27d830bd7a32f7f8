/* A small program for the BOLT tests, with what BOLT's graph has to hold:
 * loops, a switch through a jump table, static functions (local names),
 * direct, indirect, recursive and tail calls, a cold path.
 *   bolt_prog [N [SEED]]   prints a checksum */
#include <stdio.h>
#include <stdlib.h>

static unsigned __attribute__((noinline)) step(unsigned x, int op)
{
	switch (op & 7) {  /* a jump table at -O2 */
	case 0: return x * 3u + 1u;
	case 1: return x ^ (x >> 3);
	case 2: return x + 0x9e3779b9u;
	case 3: return (x << 5) | (x >> 27);
	case 4: return x - (x >> 2);
	case 5: return ~x;
	case 6: return x * 2654435761u;
	default: return x / 3u + 7u;
	}
}

static unsigned __attribute__((noinline)) fib(unsigned n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static unsigned __attribute__((noinline)) odd_one(unsigned x)
{
	return x * 5u;
}

static unsigned __attribute__((noinline)) even_one(unsigned x)
{
	return x + 11u;
}

/* A tail call at -O2. */
unsigned __attribute__((noinline)) pick(unsigned x)
{
	if (x & 1)
		return odd_one(x);
	return even_one(x);
}

typedef unsigned (*op_fn)(unsigned);
static op_fn table[2] = { odd_one, even_one };

static unsigned __attribute__((noinline)) cold_path(unsigned x)
{
	fprintf(stderr, "rare %u\n", x);
	return x / 7u;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20000;
	unsigned x = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 0) : 12345u, sum = 0;

	for (int i = 0; i < n; i++) {
		x = step(x, (int)(x >> 7) + i);
		if ((x & 0xfff) == 0x7a5)
			x = cold_path(x);
		sum += table[x & 1](x);
		sum ^= pick(x >> 1);
		if (i % 1000 == 0)
			sum += fib(12 + (x & 3));
	}
	printf("%u %u\n", x, sum);
	return 0;
}
