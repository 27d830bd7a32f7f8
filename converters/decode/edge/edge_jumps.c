/*
 * The edge decoder's jumps: where a TIP led from a node, and how often.
 * The probe the walk makes is edge_jump_to (edge_int.h).
 */
#include <stdlib.h>

#include "edge_int.h"

int edge_jumps_grow(struct jump_table *t)
{
	size_t size = t->mask ? (t->mask + 1) * 2 : 1024;
	struct jump *items = hwt_table_calloc(size, sizeof(*items));

	if (!items)
		return -1;
	for (size_t k = 0; k < t->used.count; k++) {
		size_t from = t->used.items[k], i;
		const struct jump *j = &t->items[from];

		for (i = jump_hash(j->from, j->ip, size - 1); items[i].from; i = (i + 1) & (size - 1))
			;
		items[i] = *j;
		t->used.items[k] = i;
	}
	free(t->items);
	t->items = items;
	t->mask = size - 1;
	return 0;
}

/* The jump from `from` to ip, new (its block too), at slot i, the empty
   slot edge_jump_to's probe ended at; NULL: give up. */
struct jump *edge_jump_add(struct edge_ctx *c, struct node *from, uint64_t ip, size_t i)
{
	struct jump_table *t = &c->as.t.jumps;
	struct node *to;

	if (!(to = edge_node_at(c, ip)))
		return NULL;
	if ((t->used.count + 1) * 2 > t->mask) {
		if (edge_jumps_grow(t) < 0) {
			c->nomem = 1;
			return NULL;
		}
		for (i = jump_hash(from, ip, t->mask); t->items[i].from; i = (i + 1) & t->mask)
			;
	}
	if (hwt_slot_list_add(&t->used, i) < 0) {
		c->nomem = 1;
		return NULL;
	}
	t->items[i] = (struct jump){ from, ip, to, 0 };
	return &t->items[i];
}

/* The jump from `from` to ip in t, or NULL. */
struct jump *edge_jump_find(const struct edge_tables *t, const struct node *from, uint64_t ip)
{
	for (size_t i = jump_hash(from, ip, t->jumps.mask); t->jumps.items[i].from;
	     i = (i + 1) & t->jumps.mask)
		if (t->jumps.items[i].from == from && t->jumps.items[i].ip == ip)
			return &t->jumps.items[i];
	return NULL;
}
