/*
 * The edge decoder's runs of TNT bits, memoised with the counts they add
 * (struct hwt_edge_runs, edge_int.h). The look-up the walk makes is
 * edge_run_from (edge_int.h).
 */
#include <stdlib.h>

#include "edge_int.h"

/* Adds the hits of rc's run r to its counts. */
static void run_add(struct hwt_edge_runs *rc, struct run *r)
{
	uint64_t *const *counts = rc->counts[r - rc->runs].counts;

	for (uint32_t k = 0; k < r->enters; k++)
		*counts[k] += r->hits;
	r->hits = 0;
}

/* Adds the hits of the runs of t's cache to their counts, before counts
   are read (those of t, and of the other tables sharing the cache). */
void edge_runs_flush(struct edge_tables *t)
{
	struct hwt_edge_runs *rc = t->runs;

	if (!rc)
		return;
	for (uint32_t k = 0; k < rc->hit_count; k++)
		run_add(rc, &rc->runs[rc->hit[k]]);
	rc->hit_count = 0;
}

/* No run of t's cache is used again: t's nodes are about to be forgotten or freed. */
void edge_runs_forget(struct edge_tables *t)
{
	struct hwt_edge_runs *rc = t->runs;

	if (!rc)
		return;
	edge_runs_flush(t);
	if (++rc->generation == 0) { /* wrapped: old entries would match */
		for (uint32_t k = 0; k <= rc->mask; k++)
			rc->runs[k].from = NULL;
		rc->generation = 1;
	}
}

/* Makes the run of key from `from` in slot r. */
struct run *__attribute__((noinline)) edge_run_build(struct edge_ctx *c, struct run *r,
						       struct node *from, uint32_t key)
{
	unsigned bits = key & ((1u << RUN_BITS) - 1), len = key >> RUN_BITS;
	struct hwt_edge_runs *rc = c->as.t.runs;
	uint64_t **counts = rc->counts[r - rc->runs].counts;
	struct node *n = from;

	if (r->hits)
		run_add(rc, r); /* (its slot stays listed: edge_runs_flush adds none) */
	r->from = NULL; /* until it is whole */
	r->enters = 0;
	for (unsigned k = len; k-- > 0;) {
		unsigned slot = bits >> k & 1u;

		if (n->kind != node_cond)
			return NULL;
		r->tail = 0;
		for (;;) {
			struct node *to = n->succ[slot];

			if (!to && !(to = n->succ[slot] = edge_node_at(c, n->succ_ip[slot])))
				return NULL;
			if (r->enters == RUN_MAX_ENTERS)
				return NULL;
			counts[r->enters++] = &n->count[slot];
			r->last_prev = n->end;
			n = to;
			if (n->kind != node_fixed)
				break;
			slot = 0;
			r->tail++;
		}
	}
	r->last_count = counts[r->enters - 1]; /* len >= 1: one at least */
	r->to = n;
	r->from = from;
	r->key = key;
	r->generation = rc->generation;
	return r;
}

void edge_run_cache_free(struct hwt_edge_runs *rc)
{
	if (rc) {
		free(rc->mem);
		free(rc->hit);
	}
	free(rc);
}

/* An empty run cache of slots runs (a power of 2), or NULL. A decoder
   thread's fills one huge page: 2 MiB of runs and their counts. */
struct hwt_edge_runs *edge_run_cache_alloc(uint32_t slots)
{
	struct hwt_edge_runs *rc = calloc(1, sizeof(*rc));

	if (!rc)
		return NULL;
	rc->mem = hwt_table_calloc_huge(slots * (sizeof(*rc->runs) + sizeof(*rc->counts)));
	rc->hit = hwt_table_calloc(slots, sizeof(*rc->hit));
	if (!rc->mem || !rc->hit) {
		edge_run_cache_free(rc);
		return NULL;
	}
	rc->runs = rc->mem;
	rc->counts = (struct run_counts *)(rc->runs + slots);
	rc->mask = slots - 1;
	return rc;
}

void hwt_edge_runs_free(struct hwt_decoder *d)
{
	edge_run_cache_free(d->edge_runs);
	d->edge_runs = NULL;
}
