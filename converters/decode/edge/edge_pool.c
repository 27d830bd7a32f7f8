/*
 * The edge decoder's counts, summed over streams before they go into the
 * profile. Turning a count into profile blocks and edges (stream.c's
 * hwt_pt_counts_add) reads the code and several tables for each distinct
 * block of a stream; a suite of short processes has the same few thousand
 * blocks of ld.so and libc start-up in every process, so its counts are
 * summed first, by address space layout (the same files mapped at the same
 * places), and turned into profile counts once per layout.
 *
 * The result is the same: a count adds to the profile what it adds once
 * per stream, and the blocks the edge decoder counts always match the code
 * (it found them there), so there are no per-stream diagnostics to lose. A
 * file found replaced later changes what its counts add: space.c flushes
 * the pool before it marks one. The pool is flushed into the profile it
 * was filled for (hwt_edge_flush, with the counts of the layouts the edge
 * decoder keeps) before the profile is read: at the end of the decode, or
 * of a worker's once its thread has ended (decode.c).
 *
 * The workers of a parallel decode each keep a pool, and each has the
 * layouts that all processes share (ld.so and libc before the program's
 * own code is mapped), so their pools hold the same blocks: at their end
 * each worker takes one part of every pool, by block address
 * (hwt_edge_pool_part), and turns that into profile counts, so that a
 * block is turned once, by one worker.
 */
#include <stdlib.h>
#include <string.h>

#include "decode_int.h"

/* Past this many distinct counts, the pool is flushed (memory stays bounded). */
#define MAX_COUNTS ((size_t)1 << 20)

struct pooled {
	struct hwt_pt_block_count c; /* ninsn 0: an empty slot */
	uint32_t layout;
};

/* An address space layout: an epoch's mappings, copied. */
struct layout {
	struct hwt_epoch epoch;      /* maps and count; no time, no pt_image */
	uint64_t hash;
};

struct hwt_edge_pool {
	struct hwt_profile *profile; /* the one counted for */
	struct pooled *slots;        /* open addressing, at most half full */
	size_t mask, used;
	struct layout *layouts;
	size_t layout_count, layout_capacity;
	struct hwt_pt_crossing *crossings; /* epochs are layouts */
	size_t crossing_count, crossing_capacity;
};

/* The index of e's layout, added when new; -1 when out of memory. A
   stream has a few epochs and a pool a few layouts, so a scan does. */
static long layout_of(struct hwt_edge_pool *p, const struct hwt_epoch *e)
{
	uint64_t hash = hwt_epoch_layout_hash(e);
	struct layout *l;
	void *q;

	for (size_t k = p->layout_count; k-- > 0;)
		if (p->layouts[k].hash == hash && hwt_epoch_layout_same(&p->layouts[k].epoch, e))
			return (long)k;
	q = hwt_grow_array(p->layouts, &p->layout_capacity, p->layout_count + 1,
			   sizeof(*p->layouts));
	if (!q)
		return -1;
	p->layouts = q;
	l = &p->layouts[p->layout_count];
	memset(l, 0, sizeof(*l));
	l->hash = hash;
	l->epoch.count = e->count;
	l->epoch.maps = malloc((e->count + 1) * sizeof(*e->maps));
	if (!l->epoch.maps)
		return -1;
	memcpy(l->epoch.maps, e->maps, e->count * sizeof(*e->maps));
	return (long)p->layout_count++;
}

static size_t pooled_slot(const struct hwt_pt_block_count *c, uint32_t layout, size_t mask)
{
	uint64_t h = c->ip * 0x9e3779b97f4a7c15ull ^ c->prev * 0xc2b2ae3d27d4eb4full ^
		     ((uint64_t)layout << 32 | c->ninsn) * 0x165667b19e3779f9ull;

	return (size_t)(h ^ h >> 29) & mask;
}

static int slots_grow(struct hwt_edge_pool *p)
{
	size_t size = p->slots ? 2 * (p->mask + 1) : 16384;
	struct pooled *slots = hwt_table_calloc(size, sizeof(*slots));

	if (!slots)
		return -1;
	for (size_t k = 0; p->slots && k <= p->mask; k++) {
		const struct pooled *e = &p->slots[k];
		size_t i;

		if (!e->c.ninsn)
			continue;
		for (i = pooled_slot(&e->c, e->layout, size - 1); slots[i].c.ninsn;
		     i = (i + 1) & (size - 1))
			;
		slots[i] = *e;
	}
	free(p->slots);
	p->slots = slots;
	p->mask = size - 1;
	return 0;
}

static int pool_count(struct hwt_edge_pool *p, const struct hwt_pt_block_count *c, uint32_t layout)
{
	size_t i;

	if ((p->used + 1) * 2 > p->mask && slots_grow(p) < 0)
		return -1;
	for (i = pooled_slot(c, layout, p->mask); p->slots[i].c.ninsn; i = (i + 1) & p->mask) {
		struct pooled *e = &p->slots[i];

		if (e->c.ip == c->ip && e->c.prev == c->prev && e->c.ninsn == c->ninsn &&
		    e->layout == layout && e->c.end == c->end) {
			e->c.count += c->count;
			return 0;
		}
	}
	p->slots[i] = (struct pooled){ *c, layout };
	p->used++;
	return 0;
}

static int pool_crossing(struct hwt_edge_pool *p, const struct hwt_pt_crossing *x, long from,
			 long to)
{
	void *q = hwt_grow_array(p->crossings, &p->crossing_capacity, p->crossing_count + 1,
				 sizeof(*p->crossings));

	if (!q)
		return -1;
	p->crossings = q;
	p->crossings[p->crossing_count++] =
		(struct hwt_pt_crossing){ (size_t)from, (size_t)to, x->prev, x->ip };
	return 0;
}

int hwt_edge_pool_add(struct hwt_decoder *d, struct hwt_space *space,
		      struct hwt_pt_block_count *const *counts, const size_t *sizes,
		      const size_t *epochs, size_t n, const struct hwt_pt_crossing *crossings,
		      size_t ncrossings)
{
	struct hwt_edge_pool *p = d->edge_pool;
	size_t more = ncrossings;

	for (size_t k = 0; k < n; k++)
		more += sizes[k];
	if (p && (p->profile != d->profile || p->used + more > MAX_COUNTS) &&
	    hwt_edge_pool_flush(d) < 0)
		return -hbe_nomem;
	if (!p && !(p = d->edge_pool = calloc(1, sizeof(*p))))
		return -hbe_nomem;
	p->profile = d->profile;
	for (size_t k = 0; k < n; k++) {
		long layout = layout_of(p, &space->epochs[epochs[k]]);

		if (layout < 0)
			return -hbe_nomem;
		for (size_t i = 0; i < sizes[k]; i++)
			if (pool_count(p, &counts[k][i], (uint32_t)layout) < 0)
				return -hbe_nomem;
	}
	for (size_t k = 0; k < ncrossings; k++) {
		long from = layout_of(p, &space->epochs[crossings[k].from_epoch]);
		long to = layout_of(p, &space->epochs[crossings[k].to_epoch]);

		if (from < 0 || to < 0 || pool_crossing(p, &crossings[k], from, to) < 0)
			return -hbe_nomem;
	}
	return 0;
}

static void pool_empty(struct hwt_edge_pool *p)
{
	for (size_t k = 0; k < p->layout_count; k++)
		free(p->layouts[k].epoch.maps);
	p->layout_count = 0;
	p->crossing_count = 0;
	free(p->slots);
	p->slots = NULL;
	p->mask = p->used = 0;
}

static void pool_free(struct hwt_edge_pool *p)
{
	if (!p)
		return;
	pool_empty(p);
	free(p->layouts);
	free(p->crossings);
	free(p);
}

/* Which of parts parts the count c is in: by its block, so that the same
   block of every pool is in the same part. */
static unsigned count_part(const struct hwt_pt_block_count *c, unsigned parts)
{
	uint64_t h = c->ip * 0x9e3779b97f4a7c15ull;

	return (unsigned)((h ^ h >> 32) % parts);
}

struct hwt_edge_pool *hwt_edge_pool_part(struct hwt_decoder *d, const struct hwt_decoder *workers,
					 unsigned n, unsigned part)
{
	struct hwt_edge_pool *to = calloc(1, sizeof(*to));

	if (!to)
		return NULL;
	to->profile = d->profile;
	for (unsigned k = 0; k < n; k++) {
		const struct hwt_edge_pool *from = workers[k].edge_pool;

		for (size_t i = 0; from && from->slots && i <= from->mask; i++) {
			const struct pooled *e = &from->slots[i];
			long layout;

			if (!e->c.ninsn || count_part(&e->c, n) != part)
				continue;
			layout = layout_of(to, &from->layouts[e->layout].epoch);
			if (layout < 0 || pool_count(to, &e->c, (uint32_t)layout) < 0)
				goto nomem;
		}
		for (size_t i = 0; from && k == part && i < from->crossing_count; i++) {
			const struct hwt_pt_crossing *x = &from->crossings[i];
			long a = layout_of(to, &from->layouts[x->from_epoch].epoch);
			long b = layout_of(to, &from->layouts[x->to_epoch].epoch);

			if (a < 0 || b < 0 || pool_crossing(to, x, a, b) < 0)
				goto nomem;
		}
	}
	return to;
nomem:
	pool_free(to);
	return NULL;
}

int hwt_edge_pool_flush(struct hwt_decoder *d)
{
	struct hwt_edge_pool *p = d->edge_pool;
	struct hwt_profile *profile = d->profile;
	struct hwt_pt_block_count **counts = NULL, *items = NULL;
	size_t *sizes = NULL, *epochs = NULL, *epoch_items = NULL;
	struct hwt_epoch *spaces = NULL;
	struct hwt_space space = { 0 };
	int status = -hbe_nomem;
	size_t n = 0, nl;

	if (!p || (!p->used && !p->crossing_count))
		return 0;
	nl = p->layout_count;
	counts = calloc(nl + 1, sizeof(*counts));
	sizes = calloc(nl + 1, sizeof(*sizes));
	epochs = calloc(nl + 1, sizeof(*epochs));
	epoch_items = calloc(nl + 1, sizeof(*epoch_items));
	spaces = calloc(nl + 1, sizeof(*spaces));
	items = malloc((p->used + 1) * sizeof(*items));
	if (!counts || !sizes || !epochs || !epoch_items || !spaces || !items)
		goto out;
	/* The counts grouped by layout, each layout an epoch of one space. */
	for (size_t k = 0; k <= p->mask && p->slots; k++)
		if (p->slots[k].c.ninsn)
			sizes[p->slots[k].layout]++;
	for (size_t k = 0; k < nl; k++) {
		counts[k] = items + n;
		epochs[k] = k;
		n += sizes[k];
		spaces[k] = p->layouts[k].epoch;
	}
	for (size_t k = 0; k <= p->mask && p->slots; k++) {
		const struct pooled *e = &p->slots[k];

		if (e->c.ninsn)
			counts[e->layout][epoch_items[e->layout]++] = e->c;
	}
	space.epochs = spaces;
	space.count = nl;
	d->profile = p->profile;
	status = hwt_pt_counts_add(d, NULL, &space, counts, sizes, epochs, nl, p->crossings,
				   p->crossing_count);
	d->profile = profile;
out:
	pool_empty(p);
	free(counts);
	free(sizes);
	free(epochs);
	free(epoch_items);
	free(spaces);
	free(items);
	if (status < 0)
		d->nomem = 1;
	return status;
}

void hwt_edge_pool_free(struct hwt_decoder *d)
{
	pool_free(d->edge_pool);
	d->edge_pool = NULL;
}
