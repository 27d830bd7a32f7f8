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
 * block is turned once, by one worker. A worker's pool keeps its counts
 * in those parts from the start (hwt_decoder.pool_parts): a worker keeps
 * its own part's table and adds the other pools' tables of that part to
 * it, instead of reading every pool whole into a new table.
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

/* Counts of one part of a pool. */
struct pool_table {
	struct pooled *slots;        /* open addressing, at most half full */
	size_t mask, used;
};

struct hwt_edge_pool {
	struct hwt_profile *profile; /* the one counted for */
	struct pool_table *tables;   /* by count_part, parts of them */
	unsigned parts;
	size_t used;                 /* counts in all tables */
	struct layout *layouts;
	size_t layout_count, layout_capacity;
	struct hwt_pt_crossing *crossings; /* epochs are layouts */
	size_t crossing_count, crossing_capacity;
};

/* Which of parts parts the count c is in: by its block, so that the same
   block of every pool is in the same part. */
static unsigned count_part(const struct hwt_pt_block_count *c, unsigned parts)
{
	uint64_t h = c->ip * 0x9e3779b97f4a7c15ull;

	return (unsigned)((h ^ h >> 32) % parts);
}

/* An empty pool for profile, its counts in parts tables. */
static struct hwt_edge_pool *pool_alloc(struct hwt_profile *profile, unsigned parts)
{
	struct hwt_edge_pool *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->parts = parts ? parts : 1;
	p->tables = calloc(p->parts, sizeof(*p->tables));
	if (!p->tables) {
		free(p);
		return NULL;
	}
	p->profile = profile;
	return p;
}

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

/* A pool's tables start with this many slots in all. */
#define POOL_SLOTS 16384u

static int slots_grow(struct pool_table *t, unsigned parts)
{
	size_t size = t->slots ? 2 * (t->mask + 1) : POOL_SLOTS;
	struct pooled *slots;

	while (!t->slots && size > 1024 && size * parts > POOL_SLOTS)
		size /= 2; /* a power of two */
	slots = hwt_table_calloc(size, sizeof(*slots));

	if (!slots)
		return -1;
	for (size_t k = 0; t->slots && k <= t->mask; k++) {
		const struct pooled *e = &t->slots[k];
		size_t i;

		if (!e->c.ninsn)
			continue;
		for (i = pooled_slot(&e->c, e->layout, size - 1); slots[i].c.ninsn;
		     i = (i + 1) & (size - 1))
			;
		slots[i] = *e;
	}
	free(t->slots);
	t->slots = slots;
	t->mask = size - 1;
	return 0;
}

/* Adds c (of layout) to table t of pool p. */
static int table_count(struct hwt_edge_pool *p, struct pool_table *t,
		       const struct hwt_pt_block_count *c, uint32_t layout)
{
	size_t i;

	if ((t->used + 1) * 2 > t->mask && slots_grow(t, p->parts) < 0)
		return -1;
	for (i = pooled_slot(c, layout, t->mask); t->slots[i].c.ninsn; i = (i + 1) & t->mask) {
		struct pooled *e = &t->slots[i];

		if (e->c.ip == c->ip && e->c.prev == c->prev && e->c.ninsn == c->ninsn &&
		    e->layout == layout && e->c.end == c->end) {
			e->c.count += c->count;
			return 0;
		}
	}
	t->slots[i] = (struct pooled){ *c, layout };
	t->used++;
	p->used++;
	return 0;
}

static int pool_count(struct hwt_edge_pool *p, const struct hwt_pt_block_count *c, uint32_t layout)
{
	return table_count(p, &p->tables[p->parts > 1 ? count_part(c, p->parts) : 0], c, layout);
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
	if (!p && !(p = d->edge_pool = pool_alloc(d->profile, d->pool_parts)))
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
	for (unsigned k = 0; k < p->parts; k++) {
		free(p->tables[k].slots);
		p->tables[k] = (struct pool_table){ 0 };
	}
	p->used = 0;
}

static void pool_free(struct hwt_edge_pool *p)
{
	if (!p)
		return;
	pool_empty(p);
	free(p->layouts);
	free(p->crossings);
	free(p->tables);
	free(p);
}

/* The index in to of from's layout k, found once per layout (map[k], -1: not yet). */
static long layout_mapped(struct hwt_edge_pool *to, const struct hwt_edge_pool *from, long *map,
			  size_t k)
{
	if (map[k] < 0)
		map[k] = layout_of(to, &from->layouts[k].epoch);
	return map[k];
}

/* Adds the counts of table t of pool from that are in part of n to pool to. */
static int part_add(struct hwt_edge_pool *to, const struct hwt_edge_pool *from,
		    const struct pool_table *t, long *map, unsigned n, unsigned part)
{
	for (size_t i = 0; t->slots && i <= t->mask; i++) {
		const struct pooled *e = &t->slots[i];
		long layout;

		if (!e->c.ninsn || (from->parts != n && count_part(&e->c, n) != part))
			continue;
		layout = layout_mapped(to, from, map, e->layout);
		if (layout < 0 || pool_count(to, &e->c, (uint32_t)layout) < 0)
			return -1;
	}
	return 0;
}

struct hwt_edge_pool *hwt_edge_pool_part(struct hwt_decoder *d, const struct hwt_decoder *workers,
					 unsigned n, unsigned part)
{
	struct hwt_edge_pool *own = d->edge_pool, *to = pool_alloc(d->profile, 1);
	int moved = own && own->parts == n;
	long *map = NULL;

	if (!to)
		return NULL;
	/* Its own table of the part, with its layouts (their indexes kept):
	   the other workers read only their parts' tables of this pool. */
	if (moved) {
		for (size_t k = 0; k < own->layout_count; k++)
			if (layout_of(to, &own->layouts[k].epoch) != (long)k)
				goto nomem;
		to->tables[0] = own->tables[part];
		to->used = own->tables[part].used;
		own->tables[part] = (struct pool_table){ 0 };
	}
	for (unsigned k = 0; k < n; k++) {
		const struct hwt_edge_pool *from = workers[k].edge_pool;

		if (!from)
			continue;
		free(map);
		map = malloc((from->layout_count + 1) * sizeof(*map));
		if (!map)
			goto nomem;
		for (size_t i = 0; i < from->layout_count; i++)
			map[i] = from == own && moved ? (long)i : -1;
		if (from == own && moved) {
			/* its table of the part is to's */
		} else if (from->parts == n) {
			if (part_add(to, from, &from->tables[part], map, n, part) < 0)
				goto nomem;
		} else {
			for (unsigned t = 0; t < from->parts; t++)
				if (part_add(to, from, &from->tables[t], map, n, part) < 0)
					goto nomem;
		}
		for (size_t i = 0; k == part && i < from->crossing_count; i++) {
			const struct hwt_pt_crossing *x = &from->crossings[i];
			long a = layout_mapped(to, from, map, x->from_epoch);
			long b = layout_mapped(to, from, map, x->to_epoch);

			if (a < 0 || b < 0 || pool_crossing(to, x, a, b) < 0)
				goto nomem;
		}
	}
	free(map);
	return to;
nomem:
	free(map);
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
	for (unsigned t = 0; t < p->parts; t++)
		for (size_t k = 0; p->tables[t].slots && k <= p->tables[t].mask; k++)
			if (p->tables[t].slots[k].c.ninsn)
				sizes[p->tables[t].slots[k].layout]++;
	for (size_t k = 0; k < nl; k++) {
		counts[k] = items + n;
		epochs[k] = k;
		n += sizes[k];
		spaces[k] = p->layouts[k].epoch;
	}
	for (unsigned t = 0; t < p->parts; t++)
		for (size_t k = 0; p->tables[t].slots && k <= p->tables[t].mask; k++) {
			const struct pooled *e = &p->tables[t].slots[k];

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
