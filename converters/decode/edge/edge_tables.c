/*
 * The edge decoder's tables (struct edge_tables): made, emptied, freed,
 * and their counts taken out or subtracted.
 */
#include <stdlib.h>
#include <string.h>

#include "edge_int.h"

static void take_count(struct take *w, uint64_t prev, const struct node *to, uint64_t *count)
{
	if (w->items)
		w->items[w->n++] = (struct hwt_pt_block_count){ prev, to->ip, to->end, to->ninsn, 0,
							       *count };
	w->blocks += *count;
	w->insns += *count * to->ninsn;
	*count = 0;
}

/* The counts of t's nodes and jumps: room for edge_tables_take. */
size_t edge_tables_counted(struct edge_tables *t)
{
	size_t n = t->jumps.used.count;

	edge_runs_flush(t);
	for (size_t k = 0; k < t->chunk_count; k++)
		for (size_t j = 0; j < chunk_nodes(t, k); j++) {
			const struct node *x = &t->chunks[k][j];

			n += (x->first != 0) + (x->count[0] != 0) + (x->count[1] != 0);
		}
	return n;
}

/* Takes out the counts of t's nodes and jumps into w. */
void edge_tables_take(struct edge_tables *t, struct take *w)
{
	edge_runs_flush(t);
	for (size_t k = 0; k < t->jumps.used.count; k++) {
		struct jump *j = &t->jumps.items[t->jumps.used.items[k]];

		if (j->count)
			take_count(w, j->from->end, j->to, &j->count);
	}
	for (size_t k = 0; k < t->chunk_count; k++)
		for (size_t j = 0; j < chunk_nodes(t, k); j++) {
			struct node *x = &t->chunks[k][j];

			if (x->first)
				take_count(w, 0, x, &x->first);
			for (int s = 0; s < 2; s++)
				if (x->count[s])
					take_count(w, x->end, x->succ[s], &x->count[s]);
		}
}

/* Empties the stream's own tables (their counts taken out). */
void edge_tables_forget(struct edge_tables *t)
{
	edge_runs_forget(t); /* (no run may hold hits for nodes forgotten, nor match them) */
	for (size_t k = 0; k < t->chunk_count; k++)
		for (size_t j = 0; j < chunk_nodes(t, k); j++)
			t->nodes[node_hash(t->chunks[k][j].ip, t->node_mask)] = NULL;
	t->chunk_cur = t->chunk_used = 0;
	t->node_count = 0;
	for (size_t k = 0; k < t->jumps.used.count; k++)
		t->jumps.items[t->jumps.used.items[k]].from = NULL;
	t->jumps.used.count = 0;
}

/*
 * Subtracts the counts in own, a walk again's tables, from t's, where the
 * first walk counted them: the same blocks (by their first instruction)
 * and the same successors. -1 when one is not there.
 */
int edge_tables_subtract(struct edge_tables *t, struct edge_tables *own)
{
	edge_runs_flush(own);
	for (size_t k = 0; k < own->jumps.used.count; k++) {
		const struct jump *j = &own->jumps.items[own->jumps.used.items[k]];
		const struct node *from;
		struct jump *to;

		if (!j->count)
			continue;
		if (!(from = edge_node_find(t, j->from->ip)) || !(to = edge_jump_find(t, from, j->ip)))
			return -1;
		to->count -= j->count;
	}
	for (size_t k = 0; k < own->chunk_count; k++)
		for (size_t j = 0; j < chunk_nodes(own, k); j++) {
			const struct node *x = &own->chunks[k][j];
			struct node *y;

			if (!x->first && !x->count[0] && !x->count[1])
				continue;
			if (!(y = edge_node_find(t, x->ip)))
				return -1;
			y->first -= x->first;
			y->count[0] -= x->count[0];
			y->count[1] -= x->count[1];
		}
	return 0;
}

/* Empty tables in c->as.t, with the run cache of c's thread: the decoder's
   (made on first use) on its thread, else one of their own. */
int edge_tables_alloc(struct edge_ctx *c)
{
	if (edge_nodes_grow(&c->as.t) < 0 || edge_jumps_grow(&c->as.t.jumps) < 0)
		return -1;
	if (!edge_on_decoder_thread(c)) {
		c->as.t.runs = edge_run_cache_alloc(PART_RUN_SLOTS);
		c->as.t.own_runs = 1;
		return c->as.t.runs ? 0 : -1;
	}
	if (!c->d->edge_runs && !(c->d->edge_runs = edge_run_cache_alloc(RUN_SLOTS)))
		return -1;
	c->as.t.runs = c->d->edge_runs;
	return 0;
}

void edge_tables_free(struct edge_tables *t)
{
	if (t->own_runs)
		edge_run_cache_free(t->runs);
	else
		edge_runs_forget(t);
	for (size_t k = 0; k < t->chunk_count; k++)
		free(t->chunks[k]);
	free(t->chunks);
	free(t->nodes);
	free(t->jumps.items);
	free(t->jumps.used.items);
	memset(t, 0, sizeof(*t));
}
