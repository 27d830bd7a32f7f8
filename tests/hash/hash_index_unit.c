/*
 * The hash index of the converters (converters/hash): look-ups in an empty
 * index, growth from empty to many items, many items of one hash, hashes
 * that differ only above the low 32 bits, clearing and adding again in
 * another order, and the limits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash_index.h"
#include "unit_check.h"

/* Every item a look-up of hash yields, as a count per item (seen[k]). */
static size_t yields(const struct hwt_hash_index *ix, uint64_t hash, unsigned *seen, size_t n)
{
	struct hwt_hash_probe p;
	size_t got = 0;

	for (long k = hwt_hash_index_find(ix, hash, &p); k >= 0; k = hwt_hash_index_next(ix, &p)) {
		if ((size_t)k < n)
			seen[k]++;
		got++;
	}
	return got;
}

/* The item of key keys[k] found by its key. */
static long find(const struct hwt_hash_index *ix, const uint64_t *keys, uint64_t key)
{
	struct hwt_hash_probe p;

	for (long k = hwt_hash_index_find(ix, hwt_hash_mix(key), &p); k >= 0;
	     k = hwt_hash_index_next(ix, &p))
		if (keys[k] == key)
			return k;
	return -1;
}

static void test_empty(void)
{
	struct hwt_hash_index ix = { 0 };
	struct hwt_hash_probe p;

	CHECK(hwt_hash_index_find(&ix, 0, &p) == -1);
	CHECK(hwt_hash_index_find(&ix, 12345, &p) == -1);
	hwt_hash_index_clear(&ix);
	CHECK(hwt_hash_index_find(&ix, 12345, &p) == -1);
	hwt_hash_index_free(&ix);
	CHECK(!ix.slots && !ix.count && !ix.mask);
}

/* Grows from nothing: every item stays found, the index stays at most half full. */
static void test_growth(void)
{
	enum { N = 200000 };
	uint64_t *keys = malloc(N * sizeof(*keys));
	struct hwt_hash_index ix = { 0 };
	size_t grew = 0, last_mask = 0;
	int lost = 0;

	CHECK(keys != NULL);
	if (!keys)
		return;
	for (size_t i = 0; i < N; i++) {
		keys[i] = i * 7919 + 3; /* distinct */
		CHECK(hwt_hash_index_add(&ix, hwt_hash_mix(keys[i]), i) == 0);
		if (ix.mask != last_mask) {
			grew++;
			last_mask = ix.mask;
		}
		CHECK(ix.count * 2 <= ix.mask + 1);
		/* What was there before a growth is still there after. */
		if ((i & (i - 1)) == 0)
			for (size_t k = 0; k <= i; k++)
				lost += find(&ix, keys, keys[k]) != (long)k;
	}
	CHECK(lost == 0);
	CHECK(ix.count == N);
	CHECK(grew >= 10);
	for (size_t i = 0; i < N; i++)
		lost += find(&ix, keys, keys[i]) != (long)i;
	CHECK(lost == 0);
	/* Keys that are not there. */
	for (size_t i = 0; i < 1000; i++)
		CHECK(find(&ix, keys, i * 7919 + 4) == -1);
	hwt_hash_index_free(&ix);
	free(keys);
}

/* Many items of one hash: a look-up yields each of them once, then stops. */
static void test_collisions(void)
{
	enum { N = 5000 };
	unsigned *seen = calloc(N, sizeof(*seen));
	struct hwt_hash_index ix = { 0 };
	size_t bad = 0;

	CHECK(seen != NULL);
	if (!seen)
		return;
	for (size_t i = 0; i < N; i++) {
		/*
		 * Half of them share one hash; the others differ from it only
		 * above the low 32 bits, which the index does not keep: a
		 * look-up yields them too (the caller's keys tell them apart).
		 * Their slots begin at the last one: the run wraps around.
		 */
		uint64_t hash = i % 2 ? 0xffffffffu : ((uint64_t)(i + 1) << 32 | 0xffffffffu);

		CHECK(hwt_hash_index_add(&ix, hash, i) == 0);
	}
	CHECK(yields(&ix, 0xffffffffu, seen, N) == N);
	for (size_t i = 0; i < N; i++)
		bad += seen[i] != 1;
	CHECK(bad == 0);
	/* Other hashes whose look-up walks the same slots yield none of them. */
	memset(seen, 0, N * sizeof(*seen));
	CHECK(yields(&ix, 0xfffffffeu, seen, N) == 0);
	CHECK(yields(&ix, 0, seen, N) == 0);
	CHECK(yields(&ix, (uint64_t)0xffffffffu + (ix.mask + 1), seen, N) == 0);
	hwt_hash_index_free(&ix);
	free(seen);
}

/* Cleared and filled again in another order (as after a sort). */
static void test_clear(void)
{
	enum { N = 3000 };
	uint64_t keys[N];
	struct hwt_hash_index ix = { 0 };
	size_t mask;
	int lost = 0;

	for (size_t i = 0; i < N; i++) {
		keys[i] = i;
		CHECK(hwt_hash_index_add(&ix, hwt_hash_mix(keys[i]), i) == 0);
	}
	mask = ix.mask;
	for (size_t i = 0; i < N; i++)
		keys[i] = N - 1 - i;
	hwt_hash_index_clear(&ix);
	CHECK(ix.count == 0 && ix.mask == mask && ix.slots != NULL);
	for (size_t i = 0; i < N; i++)
		CHECK(hwt_hash_index_add(&ix, hwt_hash_mix(keys[i]), i) == 0);
	CHECK(ix.mask == mask); /* no growth: the slots were kept */
	for (size_t i = 0; i < N; i++)
		lost += find(&ix, keys, keys[i]) != (long)i;
	CHECK(lost == 0);
	hwt_hash_index_free(&ix);
}

static void test_limits(void)
{
	struct hwt_hash_index ix = { 0 };
	struct hwt_hash_probe p;

	CHECK(hwt_hash_index_add(&ix, 1, HWT_HASH_INDEX_MAX) == -1);
	CHECK(ix.count == 0);
	CHECK(hwt_hash_index_add(&ix, 1, HWT_HASH_INDEX_MAX - 1) == 0);
	CHECK(hwt_hash_index_find(&ix, 1, &p) == (long)(HWT_HASH_INDEX_MAX - 1));
	CHECK(hwt_hash_index_next(&ix, &p) == -1);
	hwt_hash_index_free(&ix);
}

int main(void)
{
	test_empty();
	test_growth();
	test_collisions();
	test_clear();
	test_limits();
	return unit_exit("hash_index_unit");
}
