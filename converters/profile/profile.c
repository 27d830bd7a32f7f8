/*
 * The profile object: images, blocks and edges with their counts.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "profile_int.h"

static const char *const edge_kind_names[hwt_edge_kind_count] = {
	[hwt_edge_cond_taken] = "cond-taken",
	[hwt_edge_cond_not_taken] = "cond-not-taken",
	[hwt_edge_jump] = "jump",
	[hwt_edge_call] = "call",
	[hwt_edge_return] = "return",
	[hwt_edge_indirect_jump] = "indirect-jump",
	[hwt_edge_indirect_call] = "indirect-call",
	[hwt_edge_far] = "far",
};

const char *hwt_profile_edge_kind_name(enum hwt_profile_edge_kind kind)
{
	if ((unsigned)kind >= hwt_edge_kind_count)
		return NULL;
	return edge_kind_names[kind];
}

struct hwt_profile *hwt_profile_alloc(void)
{
	return calloc(1, sizeof(struct hwt_profile));
}

void hwt_profile_free(struct hwt_profile *profile)
{
	if (!profile)
		return;
	for (size_t i = 0; i < profile->image_count; i++) {
		struct hwt_profile_image_int *img = profile->images[i];

		free((char *)img->pub.path);
		free(img->blocks.items);
		hwt_hash_index_free(&img->blocks.index);
		free(img);
	}
	free(profile->images);
	free(profile->edges.items);
	hwt_hash_index_free(&profile->edges.index);
	free(profile);
}

/* ----- Images ----------------------------------------------------------- */

static int image_matches(const struct hwt_profile_image *img, const char *path,
			 const uint8_t *build_id, uint32_t build_id_size)
{
	if (build_id_size || img->build_id_size)
		return build_id_size == img->build_id_size &&
		       !memcmp(build_id, img->build_id, build_id_size);
	return !strcmp(img->path, path);
}

int hwt_profile_image_add(struct hwt_profile *profile, const char *path,
			  const uint8_t *build_id, uint32_t build_id_size, uint32_t flags)
{
	struct hwt_profile_image_int *img;

	if (!profile || !path || build_id_size > HWT_PROFILE_BUILD_ID_MAX ||
	    (build_id_size && !build_id))
		return -hpe_invalid;
	for (size_t i = 0; i < profile->image_count; i++) {
		img = profile->images[i];
		if (image_matches(&img->pub, path, build_id, build_id_size)) {
			img->pub.flags |= flags;
			return (int)i;
		}
	}
	if (profile->image_count >= (size_t)INT32_MAX)
		return -hpe_nomem;
	{
		void *p = hwt_grow_array(profile->images, &profile->image_capacity, profile->image_count + 1,
					 sizeof(*profile->images));

		if (!p)
			return -hpe_nomem;
		profile->images = p;
	}
	img = calloc(1, sizeof(*img));
	if (!img)
		return -hpe_nomem;
	img->pub.path = strdup(path);
	if (!img->pub.path) {
		free(img);
		return -hpe_nomem;
	}
	memcpy(img->pub.build_id, build_id ? build_id : (const uint8_t *)"", build_id_size);
	img->pub.build_id_size = build_id_size;
	img->pub.flags = flags;
	img->blocks.sorted = 1;
	profile->images[profile->image_count] = img;
	return (int)profile->image_count++;
}

size_t hwt_profile_image_count(const struct hwt_profile *profile)
{
	return profile ? profile->image_count : 0;
}

const struct hwt_profile_image *hwt_profile_image_at(const struct hwt_profile *profile, size_t i)
{
	if (!profile || i >= profile->image_count)
		return NULL;
	return &profile->images[i]->pub;
}

int hwt_profile_image_add_undecoded(struct hwt_profile *profile, size_t image, uint64_t n)
{
	if (!profile || image >= profile->image_count)
		return -hpe_invalid;
	profile->images[image]->pub.undecoded += n;
	return 0;
}

/* ----- Indexes --------------------------------------------------------- */

static uint64_t block_hash(uint64_t begin, uint64_t end)
{
	return hwt_hash_mix(begin * 0x9e3779b97f4a7c15ull ^ end);
}

static uint64_t edge_hash(const struct hwt_profile_edge *e)
{
	uint64_t h = hwt_hash_mix(e->from ^ ((uint64_t)e->from_image << 40) ^ ((uint64_t)e->kind << 56));

	return hwt_hash_mix(h ^ e->to ^ ((uint64_t)e->to_image << 40));
}

static int edge_same(const struct hwt_profile_edge *a, const struct hwt_profile_edge *b)
{
	return a->from == b->from && a->to == b->to && a->from_image == b->from_image &&
	       a->to_image == b->to_image && a->kind == b->kind;
}

/* After a sort: the items moved, the index is made again. */
static int block_index_rebuild(struct hwt_block_set *set)
{
	hwt_hash_index_clear(&set->index);
	for (size_t i = 0; i < set->count; i++) {
		const struct hwt_profile_block *b = &set->items[i];

		if (hwt_hash_index_add(&set->index, block_hash(b->begin, b->end), i) < 0)
			return -hpe_nomem;
	}
	return 0;
}

static int edge_index_rebuild(struct hwt_edge_set *set)
{
	hwt_hash_index_clear(&set->index);
	for (size_t i = 0; i < set->count; i++)
		if (hwt_hash_index_add(&set->index, edge_hash(&set->items[i]), i) < 0)
			return -hpe_nomem;
	return 0;
}

/* ----- Blocks ----------------------------------------------------------- */

int hwt_profile_add_block(struct hwt_profile *profile, size_t image, uint64_t begin,
			  uint64_t end, uint32_t insns, uint64_t count)
{
	struct hwt_block_set *set;
	struct hwt_hash_probe probe;
	uint64_t hash = block_hash(begin, end);

	if (!profile || image >= profile->image_count || end < begin || !insns)
		return -hpe_invalid;
	set = &profile->images[image]->blocks;
	for (long k = hwt_hash_index_find(&set->index, hash, &probe); k >= 0;
	     k = hwt_hash_index_next(&set->index, &probe)) {
		struct hwt_profile_block *b = &set->items[k];

		if (b->begin == begin && b->end == end) {
			if (b->insns != insns)
				return -hpe_invalid;
			b->count += count;
			return 0;
		}
	}
	{
		void *p = hwt_grow_array(set->items, &set->capacity, set->count + 1,
					 sizeof(*set->items));

		if (!p)
			return -hpe_nomem;
		set->items = p;
	}
	set->items[set->count] = (struct hwt_profile_block){ begin, end, insns, count };
	set->count++;
	if (set->count > 1 && set->items[set->count - 2].begin > begin)
		set->sorted = 0;
	else if (set->count > 1 && set->items[set->count - 2].begin == begin &&
		 set->items[set->count - 2].end > end)
		set->sorted = 0;
	if (hwt_hash_index_add(&set->index, hash, set->count - 1) < 0) {
		set->count--;
		return -hpe_nomem;
	}
	return 0;
}

static int block_cmp(const void *pa, const void *pb)
{
	const struct hwt_profile_block *a = pa, *b = pb;

	if (a->begin != b->begin)
		return a->begin < b->begin ? -1 : 1;
	if (a->end != b->end)
		return a->end < b->end ? -1 : 1;
	return 0;
}

int hwt_profile_sort_blocks(struct hwt_block_set *set)
{
	if (set->sorted)
		return 0;
	qsort(set->items, set->count, sizeof(*set->items), block_cmp);
	set->sorted = 1;
	return block_index_rebuild(set);
}

int hwt_profile_blocks(const struct hwt_profile *profile, size_t image,
		       const struct hwt_profile_block **blocks, size_t *count)
{
	struct hwt_block_set *set;
	int status;

	if (!profile || image >= profile->image_count || !blocks || !count)
		return -hpe_invalid;
	/* Sorting is a cache refresh: the profile's counts do not change. */
	set = &((struct hwt_profile *)profile)->images[image]->blocks;
	status = hwt_profile_sort_blocks(set);
	if (status < 0)
		return status;
	*blocks = set->items;
	*count = set->count;
	return 0;
}

/* ----- Edges ------------------------------------------------------------ */

int hwt_profile_edge_cmp(const void *pa, const void *pb)
{
	const struct hwt_profile_edge *a = pa, *b = pb;

	if (a->from_image != b->from_image)
		return a->from_image < b->from_image ? -1 : 1;
	if (a->from != b->from)
		return a->from < b->from ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->to_image != b->to_image)
		return a->to_image < b->to_image ? -1 : 1;
	if (a->to != b->to)
		return a->to < b->to ? -1 : 1;
	return 0;
}

int hwt_profile_add_edge(struct hwt_profile *profile, const struct hwt_profile_edge *edge)
{
	struct hwt_edge_set *set;
	struct hwt_hash_probe probe;
	uint64_t hash;

	if (!profile || !edge || edge->from_image >= profile->image_count ||
	    edge->to_image >= profile->image_count || edge->kind >= hwt_edge_kind_count)
		return -hpe_invalid;
	set = &profile->edges;
	hash = edge_hash(edge);
	for (long k = hwt_hash_index_find(&set->index, hash, &probe); k >= 0;
	     k = hwt_hash_index_next(&set->index, &probe)) {
		struct hwt_profile_edge *e = &set->items[k];

		if (edge_same(e, edge)) {
			e->count += edge->count;
			return 0;
		}
	}
	{
		void *p = hwt_grow_array(set->items, &set->capacity, set->count + 1,
					 sizeof(*set->items));

		if (!p)
			return -hpe_nomem;
		set->items = p;
	}
	set->items[set->count++] = *edge;
	if (set->count > 1 && hwt_profile_edge_cmp(&set->items[set->count - 2], edge) > 0)
		set->sorted = 0;
	if (hwt_hash_index_add(&set->index, hash, set->count - 1) < 0) {
		set->count--;
		return -hpe_nomem;
	}
	return 0;
}

int hwt_profile_sort_edges(struct hwt_edge_set *set)
{
	if (set->sorted)
		return 0;
	qsort(set->items, set->count, sizeof(*set->items), hwt_profile_edge_cmp);
	set->sorted = 1;
	return edge_index_rebuild(set);
}

int hwt_profile_edges(const struct hwt_profile *profile,
		      const struct hwt_profile_edge **edges, size_t *count)
{
	struct hwt_edge_set *set;
	int status;

	if (!profile || !edges || !count)
		return -hpe_invalid;
	set = &((struct hwt_profile *)profile)->edges;
	if (!set->count) {
		*edges = NULL;
		*count = 0;
		return 0;
	}
	status = hwt_profile_sort_edges(set);
	if (status < 0)
		return status;
	*edges = set->items;
	*count = set->count;
	return 0;
}

/* ----- Whole profiles --------------------------------------------------- */

int hwt_profile_merge(struct hwt_profile *dst, const struct hwt_profile *src)
{
	int *map;
	int status = 0;

	if (!dst || !src || dst == src)
		return -hpe_invalid;
	map = calloc(src->image_count + 1, sizeof(*map));
	if (!map)
		return -hpe_nomem;
	for (size_t i = 0; i < src->image_count && status >= 0; i++) {
		const struct hwt_profile_image_int *img = src->images[i];
		const struct hwt_block_set *set = &img->blocks;

		status = hwt_profile_image_add(dst, img->pub.path, img->pub.build_id,
					       img->pub.build_id_size, img->pub.flags);
		if (status < 0)
			break;
		map[i] = status;
		dst->images[map[i]]->pub.undecoded += img->pub.undecoded;
		for (size_t k = 0; k < set->count && status >= 0; k++)
			status = hwt_profile_add_block(dst, (size_t)map[i], set->items[k].begin,
						       set->items[k].end, set->items[k].insns,
						       set->items[k].count);
	}
	for (size_t k = 0; k < src->edges.count && status >= 0; k++) {
		struct hwt_profile_edge e = src->edges.items[k];

		e.from_image = (uint32_t)map[e.from_image];
		e.to_image = (uint32_t)map[e.to_image];
		status = hwt_profile_add_edge(dst, &e);
	}
	free(map);
	return status < 0 ? status : 0;
}

uint64_t hwt_profile_total_insns(const struct hwt_profile *profile)
{
	uint64_t total = 0;

	if (!profile)
		return 0;
	for (size_t i = 0; i < profile->image_count; i++) {
		const struct hwt_block_set *set = &profile->images[i]->blocks;

		for (size_t k = 0; k < set->count; k++)
			total += set->items[k].count * set->items[k].insns;
	}
	return total;
}
