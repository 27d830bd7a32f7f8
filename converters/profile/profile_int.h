/* Internals of the profile library, shared by its files. */
#ifndef HWT_PROFILE_INT_H
#define HWT_PROFILE_INT_H

#include "hash_index.h"
#include "profile.h"

struct hwt_block_set {
	struct hwt_profile_block *items;
	size_t count, capacity;
	struct hwt_hash_index index;  /* of items by (begin, end) */
	int sorted;        /* items are sorted (and the index matches) */
};

struct hwt_edge_set {
	struct hwt_profile_edge *items;
	size_t count, capacity;
	struct hwt_hash_index index;  /* of items by everything but the count */
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

/* Sorts blocks and edges (and rebuilds their indexes) when needed. */
int hwt_profile_sort_blocks(struct hwt_block_set *set);
int hwt_profile_sort_edges(struct hwt_edge_set *set);

/* qsort order of edges: from image, from, kind, to image, to (the file order too). */
int hwt_profile_edge_cmp(const void *a, const void *b);

#endif /* HWT_PROFILE_INT_H */
