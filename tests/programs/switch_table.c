/* switch_table: a dense switch that compiles to a jump table (an indirect
 * jmp) at -O0 and -O2, and a sparse switch that compiles to compares. */
#include <stdio.h>

static volatile unsigned seed = 12345;
static volatile int iterations = 3000;
static long sink;

static unsigned next_random(unsigned *state)
{
	*state = *state * 1103515245u + 12345u;
	return (*state >> 16) & 0x7fff;
}

/* Each case does something different so that gcc keeps a jump table rather
 * than turning the switch into a lookup of constants. */
__attribute__((noinline)) static long dense(unsigned op, long acc, long x)
{
	switch (op) {
	case 0:
		acc += x;
		break;
	case 1:
		acc -= x * 3;
		break;
	case 2:
		acc ^= x << 2;
		break;
	case 3:
		acc = acc * 7 + 1;
		break;
	case 4:
		acc |= x;
		sink++;
		break;
	case 5:
		acc &= ~x;
		break;
	case 6:
		acc = (acc >> 1) + x;
		break;
	case 7:
		if (x != 0)
			acc %= x + 1;
		break;
	case 8:
		acc = -acc;
		break;
	case 9:
		acc += sink;
		break;
	case 10:
		sink ^= acc;
		break;
	case 11:
		acc = acc * x - 5;
		break;
	case 12:
		acc += 1000;
		sink -= 3;
		break;
	default:
		acc--;
		break;
	}
	return acc & 0xffffffff;
}

__attribute__((noinline)) static int sparse(unsigned key)
{
	switch (key) {
	case 3:
		return 1;
	case 70:
		return 2;
	case 1000:
		return 3;
	case 4097:
		return 4;
	case 30000:
		return 5;
	case 65536:
		return 6;
	default:
		return 0;
	}
}

int main(void)
{
	static const unsigned keys[] = { 3, 4, 70, 71, 1000, 4097, 30000, 65536, 9, 0 };
	unsigned state = seed;
	long acc = 1;
	int hits[7] = { 0 };

	for (int i = 0; i < iterations; i++) {
		unsigned r = next_random(&state);
		acc = dense(r % 15, acc, r & 0xff);
	}
	printf("dense: acc %ld sink %ld\n", acc, sink);

	for (int i = 0; i < 500; i++) {
		unsigned k = keys[next_random(&state) % 10];
		hits[sparse(k)]++;
	}
	printf("sparse:");
	for (int i = 0; i < 7; i++)
		printf(" %d", hits[i]);
	printf("\n");
	return 0;
}
