/* Internals of the profile library, shared by its files. */
#ifndef HWT_PROFILE_INT_H
#define HWT_PROFILE_INT_H

#include "profile.h"

/*
 * Open-addressing hash of indices into an item array: slot value 0 is
 * empty, else index + 1. Power-of-two size, at most half full.
 */
struct hwt_index_table {
	uint32_t *slots;
	size_t mask;      /* slots - 1, or 0 when there are none */
};

struct hwt_block_set {
	struct hwt_profile_block *items;
	size_t count, capacity;
	struct hwt_index_table table;
	int sorted;        /* items are sorted (and the table matches) */
};

struct hwt_edge_set {
	struct hwt_profile_edge *items;
	size_t count, capacity;
	struct hwt_index_table table;
	int sorted;
};

struct hwt_profile_image_int {
	struct hwt_profile_image pub;
	struct hwt_block_set blocks;
};

struct hwt_profile {
	struct hwt_profile_image_int **images;
	size_t image_count, image_capacity;
	struct hwt_edge_set edges;
};

static inline uint64_t hwt_hash_mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

/* Sorts blocks and edges (and rebuilds their tables) when needed. */
int hwt_profile_sort_blocks(struct hwt_block_set *set);
int hwt_profile_sort_edges(struct hwt_edge_set *set);

/* qsort order of edges: from image, from, kind, to image, to (the file order too). */
int hwt_profile_edge_cmp(const void *a, const void *b);

#endif /* HWT_PROFILE_INT_H */
