/*
 * struct hwt_hash_index: finds the items of a caller's array by a hash of
 * their keys. Open addressing with linear probing, at most half full,
 * doubling when it would be more. Each slot holds an item's index and the
 * low 32 bits of its hash (so that growing needs no help from the caller,
 * and most other keys are told apart without reading their items); the
 * items, and comparing their keys, stay the caller's:
 *
 *	struct hwt_hash_probe p;
 *
 *	for (long k = hwt_hash_index_find(&ix, hash, &p); k >= 0;
 *	     k = hwt_hash_index_next(&ix, &p))
 *		if (same_key(&items[k], key))
 *			return &items[k];
 *	... append the item at index n, then hwt_hash_index_add(&ix, hash, n)
 *
 * For the converters' user-space libraries (the profile, the lcov
 * coverage, the decode while recording). Zero-initialised, it is empty.
 */
#ifndef HWT_HASH_INDEX_H
#define HWT_HASH_INDEX_H

#include <stddef.h>
#include <stdint.h>

struct hwt_hash_slot {
	uint32_t hash;  /* the low 32 bits of the item's hash */
	uint32_t item;  /* the item's index + 1; 0: an empty slot */
};

struct hwt_hash_index {
	struct hwt_hash_slot *slots;
	size_t mask;    /* slot count - 1 (a power of two - 1); 0 with no slots */
	size_t count;   /* items held */
};

/* The most items an index holds (32 bits of hash address all its slots). */
#define HWT_HASH_INDEX_MAX ((size_t)1 << 31)

/* Where a look-up stands. */
struct hwt_hash_probe {
	size_t slot;
	uint32_t hash;
};

/* The next item whose hash may be the one looked up, or -1 (then stop). */
static inline long hwt_hash_index_next(const struct hwt_hash_index *index,
				       struct hwt_hash_probe *probe)
{
	if (!index->slots)
		return -1;
	for (;;) {
		const struct hwt_hash_slot *s = &index->slots[probe->slot];

		probe->slot = (probe->slot + 1) & index->mask;
		if (!s->item)
			return -1;
		if (s->hash == probe->hash)
			return (long)s->item - 1;
	}
}

/* The first item whose hash may be hash, or -1; hwt_hash_index_next for more. */
static inline long hwt_hash_index_find(const struct hwt_hash_index *index, uint64_t hash,
				       struct hwt_hash_probe *probe)
{
	probe->hash = (uint32_t)hash;
	probe->slot = probe->hash & index->mask;
	return hwt_hash_index_next(index, probe);
}

/*
 * Adds item (an index in the caller's array) with its hash, growing the
 * index when it would be more than half full. Returns 0, or -1 when out of
 * memory or full (HWT_HASH_INDEX_MAX), leaving the index as it was.
 */
int hwt_hash_index_add(struct hwt_hash_index *index, uint64_t hash, size_t item);

/* Forgets every item, keeping the slots (to add the items again, reordered). */
void hwt_hash_index_clear(struct hwt_hash_index *index);

/* Frees the slots; the index is empty again. */
void hwt_hash_index_free(struct hwt_hash_index *index);

/* Mixes the bits of a 64-bit key into a hash whose low bits all count. */
static inline uint64_t hwt_hash_mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

#endif /* HWT_HASH_INDEX_H */
