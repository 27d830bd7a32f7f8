/*
 * The profile accumulator: a consumer of the control flow (hwt_flow.h)
 * that adds what a stream ran to a profile (blocks and edges, profile.h).
 *
 * The hot path only counts: each run is counted in a table keyed by
 * {the block before (when it continues from it), the run's first and last
 * blocks, the kind}. A run is a block and those that follow it by
 * hwt_flow_next, with no branch between them: libipt cuts a block short
 * where its block cache ends (and at other places that depend on what it
 * decoded before), and the profile counts such a run as the one block
 * libipt decodes there once its cache holds the code, so that counts do
 * not depend on libipt's cache (and equal the edge decoder's, edge/).
 * Blocks are the producer's, stable for the stream, so the key is four
 * words and the cost one probe. At the end of the stream the table becomes
 * profile counts: a block per distinct run, an edge per transfer between
 * two reported runs.
 */
#include <stdlib.h>
#include <string.h>

#include "decode_int.h"

struct entry {
	const struct hwt_flow_block *prev;  /* last of the run before; NULL: none (after
	                                       an event) */
	const struct hwt_flow_block *block; /* first of the run; NULL: empty slot */
	const struct hwt_flow_block *last;  /* last of the run */
	uint32_t kind;                      /* how block was entered */
	uint32_t insns;                     /* of the run */
	uint64_t count;
};

struct flow_profile {
	struct hwt_profile *profile;
	struct entry *table;
	size_t mask, used;
	struct entry run;                   /* the run being stepped; block NULL: none */
	int nomem;
};

static size_t slot(const struct entry *e, size_t mask)
{
	uint64_t h = (uint64_t)(uintptr_t)e->block * 0x9e3779b97f4a7c15ull ^
		     (uint64_t)(uintptr_t)e->prev * 0xc2b2ae3d27d4eb4full ^
		     (uint64_t)(uintptr_t)e->last * 0x165667b19e3779f9ull ^ e->kind;

	h ^= h >> 29;
	return (size_t)h & mask;
}

static int grow(struct flow_profile *p)
{
	size_t size = p->mask ? (p->mask + 1) * 2 : 4096;
	struct entry *table = calloc(size, sizeof(*table));

	if (!table)
		return -1;
	for (size_t k = 0; p->table && k <= p->mask; k++) {
		struct entry *e = &p->table[k];
		size_t i;

		if (!e->block)
			continue;
		for (i = slot(e, size - 1); table[i].block;
		     i = (i + 1) & (size - 1))
			;
		table[i] = *e;
	}
	free(p->table);
	p->table = table;
	p->mask = size - 1;
	return 0;
}

static void *profile_begin(void *consumer, const struct hwt_flow_stream *stream)
{
	struct flow_profile *p = calloc(1, sizeof(*p));

	(void)stream;
	if (!p)
		return NULL;
	p->profile = consumer;
	if (grow(p) < 0) {
		free(p);
		return NULL;
	}
	return p;
}

/* Adds the run to the table. */
static void count_run(struct flow_profile *p, const struct entry *run)
{
	for (size_t i = slot(run, p->mask);; i = (i + 1) & p->mask) {
		struct entry *e = &p->table[i];

		if (e->block == run->block && e->last == run->last && e->prev == run->prev &&
		    e->kind == run->kind) {
			e->count++;
			return;
		}
		if (!e->block) {
			*e = *run;
			e->count = 1;
			if (++p->used * 2 > p->mask && grow(p) < 0)
				p->nomem = 1;
			return;
		}
	}
}

/* Whether block, entered by kind, goes on with the run ending at last. */
static int joins(const struct hwt_flow_block *last, const struct hwt_flow_block *block,
		 uint32_t kind)
{
	return kind == hwt_flow_next && last->exit == hwt_flow_exit_other &&
	       block->vaddr == last->vnext && block->image == last->image &&
	       block->flags == last->flags;
}

static void profile_steps(void *context, const struct hwt_flow_step *steps, size_t count)
{
	struct flow_profile *p = context;
	struct entry *run = &p->run;

	for (size_t k = 0; k < count && !p->nomem; k++) {
		const struct hwt_flow_block *block = steps[k].block;
		uint32_t kind = steps[k].kind;

		if (run->block && joins(run->last, block, kind)) {
			run->last = block;
			run->insns += block->insns;
			continue;
		}
		if (run->block)
			count_run(p, run);
		run->prev = kind < hwt_flow_start ? run->last : NULL;
		run->block = run->last = block;
		run->kind = kind;
		run->insns = block->insns;
	}
}

static void profile_event(void *context, const struct hwt_flow_event *event)
{
	(void)context;
	(void)event;
}

int hwt_flow_edge_kind(uint64_t kind)
{
	switch (kind) {
	case hwt_flow_cond_taken: return hwt_edge_cond_taken;
	case hwt_flow_cond_not_taken: return hwt_edge_cond_not_taken;
	case hwt_flow_jump: return hwt_edge_jump;
	case hwt_flow_call: return hwt_edge_call;
	case hwt_flow_return: return hwt_edge_return;
	case hwt_flow_indirect_jump: return hwt_edge_indirect_jump;
	case hwt_flow_indirect_call: return hwt_edge_indirect_call;
	case hwt_flow_far: return hwt_edge_far;
	default: return -1;
	}
}

static int entry_cmp(const void *pa, const void *pb)
{
	const struct entry *a = pa, *b = pb;

	if (a->block != b->block)
		return (uintptr_t)a->block < (uintptr_t)b->block ? -1 : 1;
	if (a->last != b->last)
		return (uintptr_t)a->last < (uintptr_t)b->last ? -1 : 1;
	return 0;
}

static int profile_end(void *context)
{
	struct flow_profile *p = context;
	struct hwt_profile *profile = p->profile;
	size_t n = 0;
	int nomem;

	if (p->run.block && !p->nomem)
		count_run(p, &p->run);
	nomem = p->nomem;

	for (size_t k = 0; k <= p->mask; k++)
		if (p->table[k].block)
			p->table[n++] = p->table[k];
	qsort(p->table, n, sizeof(*p->table), entry_cmp);
	for (size_t k = 0; k < n;) {
		const struct entry *run = &p->table[k];
		const struct hwt_flow_block *b = run->block;
		uint64_t total = 0;
		size_t j;

		for (j = k; j < n && p->table[j].block == b && p->table[j].last == run->last; j++)
			total += p->table[j].count;
		if (flow_block_reported(b) &&
		    hwt_profile_add_block(profile, (size_t)b->image, b->offset,
					  run->last->end_offset, run->insns, total) == -hpe_nomem)
			nomem = 1;
		for (; k < j; k++) {
			const struct entry *e = &p->table[k];
			struct hwt_profile_edge edge;
			int kind = hwt_flow_edge_kind(e->kind);

			if (kind < 0 || !flow_block_reported(e->prev) || !flow_block_reported(b))
				continue;
			edge.from_image = (uint32_t)e->prev->image;
			edge.to_image = (uint32_t)b->image;
			edge.from = e->prev->end_offset;
			edge.to = b->offset;
			edge.kind = (uint32_t)kind;
			edge.count = e->count;
			if (hwt_profile_add_edge(profile, &edge) == -hpe_nomem)
				nomem = 1;
		}
	}
	free(p->table);
	free(p);
	return nomem ? -1 : 0;
}

const struct hwt_flow_consumer hwt_flow_profile_consumer = {
	.begin = profile_begin,
	.steps = profile_steps,
	.event = profile_event,
	.end = profile_end,
};
