/* string_ops: memcpy, memset, strlen and memcmp of many sizes (libc's
 * vectorised paths), and REP string instructions written inline: rep movsb,
 * rep stosb, rep movsq, repe cmpsb and repne scasb, including a count of 0
 * (on aarch64, loops that compute the same). */
#include <stdio.h>
#include <string.h>

static volatile int scale = 1;
static char src[8192], dst[8192];

#if defined(__x86_64__)
static void rep_movsb(void *d, const void *s, unsigned long n)
{
	__asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
}

static void rep_stosb(void *d, int c, unsigned long n)
{
	__asm__ volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(c) : "memory");
}

static void rep_movsq(void *d, const void *s, unsigned long nq)
{
	__asm__ volatile("rep movsq" : "+D"(d), "+S"(s), "+c"(nq) : : "memory");
}

/* Returns how many bytes were left uncompared (0 if all n were equal).
 * With n == 0 the instruction runs no iteration at all. */
static unsigned long repe_cmpsb(const void *a, const void *b, unsigned long n)
{
	__asm__ volatile("repe cmpsb" : "+D"(a), "+S"(b), "+c"(n) : : "memory", "cc");
	return n;
}

/* Returns the number of bytes left after the first c. */
static unsigned long repne_scasb(const void *s, int c, unsigned long n)
{
	__asm__ volatile("repne scasb" : "+D"(s), "+c"(n) : "a"(c) : "memory", "cc");
	return n;
}
#else
/* Elsewhere (aarch64) the same operations as plain loops, with the same results. */
static void rep_movsb(void *d, const void *s, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		((volatile char *)d)[i] = ((const char *)s)[i];
}

static void rep_stosb(void *d, int c, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		((volatile char *)d)[i] = (char)c;
}

static void rep_movsq(void *d, const void *s, unsigned long nq)
{
	rep_movsb(d, s, nq * 8);
}

static unsigned long repe_cmpsb(const void *a, const void *b, unsigned long n)
{
	const char *x = a, *y = b;

	while (n) {
		n--;
		if (*x++ != *y++)
			break;
	}
	return n;
}

static unsigned long repne_scasb(const void *s, int c, unsigned long n)
{
	const char *p = s;

	while (n) {
		n--;
		if (*p++ == (char)c)
			break;
	}
	return n;
}
#endif

int main(void)
{
	static const unsigned long sizes[] = {
		0, 1, 2, 3, 7, 8, 15, 16, 17, 31, 32, 63, 64, 100, 255, 256, 1000, 4096, 8000,
	};
	const int nsizes = (int)(sizeof sizes / sizeof sizes[0]);
	int ok = 0, checks = 0;
	unsigned long left;

	for (int i = 0; i < (int)sizeof src; i++)
		src[i] = (char)('A' + i % 23);

	for (int r = 0; r < 3 * scale; r++) {
		for (int k = 0; k < nsizes; k++) {
			unsigned long n = sizes[k];

			memset(dst, 0, sizeof dst);
			memcpy(dst, src + r, n);
			ok += strlen(dst) == n;
			ok += memcmp(dst, src + r, n) == 0;

			rep_stosb(dst, 'z', n);
			ok += n == 0 || dst[n - 1] == 'z';
			rep_movsb(dst, src + r, n);
			ok += repe_cmpsb(dst, src + r, n) == 0;
			rep_movsq(dst, src, n / 8);
			dst[n / 2] = '#';
			ok += repne_scasb(dst, '#', n + 1) == n - n / 2;
			checks += 5;
		}
	}
	/* a mismatch in the middle stops repe cmpsb early */
	memcpy(dst, src, 512);
	dst[300] ^= 1;
	left = repe_cmpsb(dst, src, 512);
	ok += left == 511 - 300;
	checks++;
	printf("string_ops: %d of %d checks passed\n", ok, checks);
	return ok == checks ? 0 : 1;
}
