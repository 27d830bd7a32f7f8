/*
 * What a walk of the edge decoder found, out of its tables (struct
 * edge_counted): the counts of blocks cut short by an event, the counts
 * of each finished epoch, and the address space crossings.
 */
#include <stdlib.h>

#include "edge_int.h"

/* o, zeroed, with room for the counts of blocks cut short; -1 when out of memory. */
int edge_counted_init(struct edge_counted *o)
{
	return edge_table_grow(&o->table);
}

void edge_counted_fini(struct edge_counted *o)
{
	free(o->table.items);
	free(o->table.used.items);
	for (size_t k = 0; k < o->done_count; k++)
		free(o->done[k].items);
	free(o->done);
	free(o->crossings);
}

static size_t count_slot(uint64_t prev, uint64_t ip, uint32_t ninsn, size_t mask)
{
	uint64_t h = ip * 0x9e3779b97f4a7c15ull ^ prev * 0xc2b2ae3d27d4eb4full ^ ninsn;

	h ^= h >> 29;
	return (size_t)h & mask;
}

int edge_table_grow(struct count_table *t)
{
	size_t size = t->mask ? (t->mask + 1) * 2 : 1024;
	struct hwt_pt_block_count *items = hwt_table_calloc(size, sizeof(*items));

	if (!items)
		return -1;
	for (size_t k = 0; k < t->used.count; k++) {
		const struct hwt_pt_block_count *e = &t->items[t->used.items[k]];
		size_t i;

		for (i = count_slot(e->prev, e->ip, e->ninsn, size - 1); items[i].ninsn;
		     i = (i + 1) & (size - 1))
			;
		items[i] = *e;
		t->used.items[k] = i;
	}
	free(t->items);
	t->items = items;
	t->mask = size - 1;
	return 0;
}

/* The slot of {prev, block}, made when new; SIZE_MAX when out of memory. */
size_t edge_table_slot(struct edge_ctx *c, uint64_t prev, uint64_t ip, uint64_t end,
		       uint32_t ninsn)
{
	struct count_table *t = &c->out.table;
	size_t i;

	if ((t->used.count + 1) * 2 > t->mask && edge_table_grow(t) < 0) {
		c->nomem = 1;
		return SIZE_MAX;
	}
	for (i = count_slot(prev, ip, ninsn, t->mask);; i = (i + 1) & t->mask) {
		struct hwt_pt_block_count *e = &t->items[i];

		if (!e->ninsn)
			break;
		if (e->ip == ip && e->prev == prev && e->ninsn == ninsn)
			return i;
	}
	if (hwt_slot_list_add(&t->used, i) < 0) {
		c->nomem = 1;
		return SIZE_MAX;
	}
	t->items[i] = (struct hwt_pt_block_count){ prev, ip, end, ninsn, 0, 0 };
	return i;
}

/* Room for one more entry of o->done; -1 when out of memory. */
int edge_done_reserve(struct edge_counted *o)
{
	if (o->done_count == o->done_capacity) {
		size_t capacity = o->done_capacity ? 2 * o->done_capacity : 4;
		void *p = realloc(o->done, capacity * sizeof(*o->done));

		if (!p)
			return -1;
		o->done = p;
		o->done_capacity = capacity;
	}
	return 0;
}

/* A new entry of o->done for epoch with room for cap counts, or NULL. */
static struct epoch_counts *done_add(struct edge_counted *o, size_t epoch, size_t cap)
{
	struct epoch_counts *e;

	if (edge_done_reserve(o) < 0)
		return NULL;
	e = &o->done[o->done_count];
	e->epoch = epoch;
	e->count = 0;
	e->items = malloc((cap ? cap : 1) * sizeof(*e->items));
	if (!e->items)
		return NULL;
	o->done_count++;
	return e;
}

/* Takes the counts of t into a new entry of c->out.done for epoch; -1 when
   out of memory (they are zeroed all the same). */
int edge_done_take(struct edge_ctx *c, size_t epoch, struct edge_tables *t)
{
	struct epoch_counts *e = done_add(&c->out, epoch, edge_tables_counted(t));
	struct take w = { .items = e ? e->items : NULL };

	edge_tables_take(t, &w);
	if (e)
		e->count = w.n;
	c->out.blocks += w.blocks;
	c->out.insns += w.insns;
	return e ? 0 : -1;
}

/* Moves the counts of blocks cut short into w, in the order they were first counted. */
void edge_cut_short_take(struct edge_counted *o, struct take *w)
{
	struct count_table *t = &o->table;

	for (size_t k = 0; k < t->used.count; k++) {
		struct hwt_pt_block_count *x = &t->items[t->used.items[k]];

		if (x->count) {
			if (w->items)
				w->items[w->n++] = *x;
			w->blocks += x->count;
			w->insns += x->count * x->ninsn;
		}
		x->ninsn = 0;
	}
	t->used.count = 0;
}

/*
 * Moves the counts of the current epoch into c->out.done: those of blocks cut
 * short, and those of the stream's own tables, which then forget their
 * nodes. A layout's tables keep theirs (layout_drain). Counts are zeroed
 * also when out of memory (-1), so that none stays for the next stream.
 */
int edge_epoch_close(struct edge_ctx *c)
{
	size_t cap;
	struct epoch_counts *e;
	struct take w = { 0 };

	if (c->again.of)
		return edge_epoch_counts_back(c);
	cap = c->out.table.used.count + (c->as.layout ? 0 : edge_tables_counted(&c->as.t));
	e = done_add(&c->out, c->as.epoch, cap);
	w.items = e ? e->items : NULL;
	edge_cut_short_take(&c->out, &w);
	if (!c->as.layout) {
		edge_tables_take(&c->as.t, &w);
		edge_tables_forget(&c->as.t);
	}
	if (e)
		e->count = w.n;
	c->out.blocks += w.blocks;
	c->out.insns += w.insns;
	return e ? 0 : -1;
}

/* Room for n more crossings in o; -1 when out of memory. */
int edge_crossing_reserve(struct edge_counted *o, size_t n)
{
	size_t capacity = o->crossing_capacity ? o->crossing_capacity : 8;
	void *p;

	if (o->crossing_count + n <= o->crossing_capacity)
		return 0;
	while (capacity < o->crossing_count + n)
		capacity *= 2;
	p = realloc(o->crossings, capacity * sizeof(*o->crossings));
	if (!p)
		return -1;
	o->crossings = p;
	o->crossing_capacity = capacity;
	return 0;
}
