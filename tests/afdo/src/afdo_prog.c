/* A small program for the AutoFDO tests: a hot loop with an inlined
 * helper, a direct call, indirect calls through a table, and a cold path.
 *   afdo_prog [N [MODE]]   MODE 0 or 1 weights the indirect calls */
#include <stdio.h>
#include <stdlib.h>

static inline __attribute__((always_inline)) unsigned mix(unsigned h, unsigned v)
{
	h ^= v;
	h *= 16777619u;
	if (h & 1)
		h += 7;
	return h;
}

static unsigned __attribute__((noinline)) hash(const unsigned char *s, int n)
{
	unsigned h = 2166136261u;

	for (int i = 0; i < n; i++)
		h = mix(h, s[i]);
	return h;
}

static unsigned __attribute__((noinline)) op_add(unsigned a, unsigned b)
{
	return a + b;
}

static unsigned __attribute__((noinline)) op_xor(unsigned a, unsigned b)
{
	return (a ^ b) * 3u;
}

static unsigned __attribute__((noinline)) op_rot(unsigned a, unsigned b)
{
	return (a << (b & 7)) | (a >> (32 - (b & 7) + 1) >> 1);
}

typedef unsigned (*op_fn)(unsigned, unsigned);
static op_fn ops[3] = { op_add, op_xor, op_rot };

static unsigned __attribute__((noinline)) cold_path(unsigned x)
{
	fprintf(stderr, "cold %u\n", x);
	return x / 3;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2000;
	int mode = argc > 2 ? atoi(argv[2]) : 0;
	unsigned char *buf = (unsigned char *)malloc((size_t)n);
	unsigned t = 0;

	if (!buf)
		return 1;
	for (int i = 0; i < n; i++)
		buf[i] = (unsigned char)(i * 7 + mode);
	for (int k = 0; k < 100; k++) {
		t += hash(buf, n - k % 3);
		for (int j = 0; j < 50; j++) {
			int which = mode ? (j % 4 == 0 ? 2 : j % 2) : (j % 5 == 0);
			t = ops[which](t, (unsigned)j);
		}
		if (t == 12345u)
			t = cold_path(t);
	}
	printf("%u\n", t);
	free(buf);
	return 0;
}
