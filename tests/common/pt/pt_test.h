/*
 * Helpers shared by the PT encoder tests: a seeded PRNG, a check macro,
 * and the SDM's last-IP rules written out independently of the encoder.
 */
#ifndef HWT_PT_TEST_H
#define HWT_PT_TEST_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int pt_test_failures;

#define CHECK(cond, ...)							\
	do {									\
		if (!(cond)) {							\
			fprintf(stderr, "%s:%d: CHECK(%s) failed: ",		\
				__FILE__, __LINE__, #cond);			\
			fprintf(stderr, __VA_ARGS__);				\
			fputc('\n', stderr);					\
			if (++pt_test_failures > 20)				\
				exit(1);					\
		}								\
	} while (0)

/* splitmix64: reproducible from the seed alone. */
struct rng {
	uint64_t s;
};

static inline uint64_t rng_next(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [0, n). */
static inline uint32_t rng_below(struct rng *r, uint32_t n)
{
	return (uint32_t)(rng_next(r) % n);
}

static inline uint64_t seed_from_args(int argc, char **argv, uint64_t dflt)
{
	if (argc > 1)
		return strtoull(argv[1], NULL, 0);
	return dflt;
}

/* SDM IPBytes values (bits 7:5 of TIP/TIP.PGE/TIP.PGD/FUP). */
enum {
	IPB_SUPPRESSED = 0,
	IPB_UPDATE_16 = 1,
	IPB_UPDATE_32 = 2,
	IPB_SEXT_48 = 3,
	IPB_UPDATE_48 = 4,
	IPB_FULL = 6,
};

static inline uint64_t sext48(uint64_t v)
{
	v &= 0xffffffffffffull;
	return (v & (1ull << 47)) ? (v | 0xffff000000000000ull) : v;
}

/* Decoder side: rebuild an IP from IPBytes, payload and the last IP. */
static inline int ipb_rebuild(int ipb, uint64_t payload, uint64_t last,
			      uint64_t *ip)
{
	switch (ipb) {
	case IPB_UPDATE_16:
		*ip = (last & ~0xffffull) | (payload & 0xffffull);
		return 0;
	case IPB_UPDATE_32:
		*ip = (last & ~0xffffffffull) | (payload & 0xffffffffull);
		return 0;
	case IPB_SEXT_48:
		*ip = sext48(payload);
		return 0;
	case IPB_UPDATE_48:
		*ip = (last & ~0xffffffffffffull) | (payload & 0xffffffffffffull);
		return 0;
	case IPB_FULL:
		*ip = payload;
		return 0;
	}
	return -1;
}

static inline int ipb_len(int ipb)
{
	static const int len[8] = { 0, 2, 4, 6, 6, -1, 8, -1 };

	return len[ipb & 7];
}

/*
 * Fewest payload bytes any IPBytes form needs to give ip from last; with
 * independent set only forms that ignore the last IP count (after OVF).
 */
static inline int ipb_min_len(uint64_t ip, uint64_t last, int independent)
{
	static const int forms[] = { IPB_UPDATE_16, IPB_UPDATE_32, IPB_SEXT_48,
				     IPB_UPDATE_48, IPB_FULL };
	int best = 99;
	unsigned int i;

	for (i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		uint64_t got = 0;
		int f = forms[i];

		if (independent && f != IPB_SEXT_48 && f != IPB_FULL)
			continue;
		ipb_rebuild(f, ip, last, &got);
		if (got == ip && ipb_len(f) < best)
			best = ipb_len(f);
	}
	return best;
}

/*
 * An IP that exercises a chosen compression case against last: 0..7 pick
 * same-high-48, same-high-32, canonical user, canonical kernel,
 * non-canonical sharing the top 16 bits, random 64 bits, a small IP, and
 * last with one bit flipped (hits every boundary between the forms).
 */
static inline uint64_t pick_ip(struct rng *r, uint64_t last)
{
	uint64_t x = rng_next(r);

	switch (rng_below(r, 8)) {
	case 0:
		return (last & ~0xffffull) | (x & 0xffffull);
	case 1:
		return (last & ~0xffffffffull) | (x & 0xffffffffull);
	case 2:
		return x & 0x00007fffffffffffull;
	case 3:
		return x | 0xffff800000000000ull;
	case 4:
		/* Keep bits 63:48, make bits 47:0 disagree with them. */
		x = (last & 0xffff000000000000ull) | (x & 0xffffffffffffull);
		if (sext48(x) == x)
			x ^= 1ull << 47;
		return x;
	case 5:
		return x;
	case 6:
		return x & 0xffffull; /* small: compresses against 0 */
	default:
		return last ^ (1ull << (x & 63));
	}
}

#endif /* HWT_PT_TEST_H */
