/*
 * The address space a walk is in (struct edge_address), and the tables of
 * address space layouts that the edge decoder keeps across streams.
 */
#include <stdlib.h>
#include <string.h>

#include "edge_int.h"

/* a in space's first epoch, with no tables yet (edge_epoch_tables). */
void edge_address_init(struct edge_address *a, struct hwt_space *space)
{
	memset(a, 0, sizeof(*a));
	a->space = space;
	a->next_time = space->count > 1 ? space->epochs[1].time : UINT64_MAX;
}

/* Frees a's tables (detached from their layout first: edge_layout_detach). */
void edge_address_fini(struct edge_address *a)
{
	edge_tables_free(&a->t);
	free(a->touched);
	a->touched = NULL;
}

/*
 * The tables of an address space layout (the same files mapped at the
 * same places) outlive the stream that made them: the next process of a
 * suite finds its blocks, their successors, its jumps and its runs of TNT
 * bits where the last one left them, and adds its counts to theirs. The
 * counts of every stream walked there sum in them, and go to the edge
 * pool (edge_pool.c) when the layout is dropped or the decoder flushed:
 * nothing is taken out stream by stream. A stream whose counts must leave
 * them (it goes to libipt; a layout it walked in is about to be dropped)
 * is walked again in tables of its own up to where it is, which counts
 * the same again, and those counts are subtracted (edge_take_counts_back):
 * rare, and then the stream goes on in tables of its own. The decoder
 * keeps the MAX_LAYOUTS used last; only a whole stream on the decoder's
 * thread uses them (the parts of a split stream have tables of their
 * own). In check mode each stream's counts are taken out at its end, to
 * be compared with libipt's (edge_touched_take).
 */
struct hwt_edge_layouts {
	struct edge_layout items[MAX_LAYOUTS];
	uint64_t clock;
	struct hwt_profile *profile; /* the counts' */
};

/* Hands l's counts to the edge pool, for the profile they are of. */
static int layout_drain(struct hwt_decoder *d, struct edge_layout *l)
{
	struct hwt_profile *profile = d->profile;
	struct hwt_space space = { .epochs = &l->epoch, .count = 1 };
	struct take w = { 0 };
	size_t zero = 0;
	int status;

	if (!l->counted)
		return 0;
	l->counted = 0;
	w.items = malloc((edge_tables_counted(&l->t) + 1) * sizeof(*w.items));
	edge_tables_take(&l->t, &w);
	d->stats.blocks += w.blocks;
	d->stats.insns += w.insns;
	if (!w.items)
		return -hbe_nomem;
	d->profile = d->edge_layouts->profile;
	status = hwt_edge_pool_add(d, &space, &w.items, &w.n, &zero, 1, NULL, 0);
	d->profile = profile;
	free(w.items);
	return status;
}

static void layout_free(struct edge_layout *l)
{
	edge_tables_free(&l->t);
	free(l->epoch.maps);
	memset(l, 0, sizeof(*l));
}

/* How many layouts d keeps (its options'). */
static size_t layouts_kept(const struct hwt_decoder *d)
{
	unsigned n = d->shared->options ? d->shared->options->keep_layouts : 0;

	return n && n < MAX_LAYOUTS ? n : MAX_LAYOUTS;
}

/* The layout c's stream walked epoch in, or NULL. */
struct edge_layout *edge_touched_layout(const struct edge_ctx *c, size_t epoch)
{
	for (size_t k = 0; k < c->as.touched_count; k++)
		if (c->as.touched[k].epoch == epoch)
			return c->as.touched[k].layout;
	return NULL;
}

static int layout_touched(const struct edge_ctx *c, const struct edge_layout *l)
{
	for (size_t k = 0; k < c->as.touched_count; k++)
		if (c->as.touched[k].layout == l)
			return 1;
	return 0;
}

/*
 * Gives c the tables of its epoch's layout, new or kept: 0; 1 when c is
 * to walk in tables of its own, since the layout to drop holds counts of
 * c's stream (taken back); -1 when out of memory.
 */
static int layout_attach(struct edge_ctx *c)
{
	const struct hwt_epoch *e = &c->as.space->epochs[c->as.epoch];
	struct hwt_edge_layouts *ls = c->d->edge_layouts;
	uint64_t hash = hwt_epoch_layout_hash(e);
	size_t kept = layouts_kept(c->d);
	struct edge_layout *l = NULL;
	void *p;

	if (!ls && !(ls = c->d->edge_layouts = calloc(1, sizeof(*ls))))
		return -1;
	if (ls->profile != c->d->profile) {
		if (hwt_edge_flush(c->d) < 0)
			return -1;
		ls->profile = c->d->profile;
	}
	for (size_t k = 0; k < kept && !l; k++)
		if (ls->items[k].epoch.maps && ls->items[k].hash == hash &&
		    hwt_epoch_layout_same(&ls->items[k].epoch, e))
			l = &ls->items[k];
	if (!l) {
		l = &ls->items[0];
		for (size_t k = 1; k < kept && l->epoch.maps; k++)
			if (!ls->items[k].epoch.maps || ls->items[k].used < l->used)
				l = &ls->items[k];
		if (l->epoch.maps && layout_touched(c, l))
			return edge_take_counts_back(c, c->as.epoch, 1) < 0 ? -1 : 1;
		if (layout_drain(c->d, l) < 0)
			return -1;
		layout_free(l);
		memset(&c->as.t, 0, sizeof(c->as.t));
		l->epoch.maps = malloc((e->count + 1) * sizeof(*e->maps));
		if (!l->epoch.maps || edge_tables_alloc(c) < 0) {
			edge_tables_free(&c->as.t);
			layout_free(l);
			return -1;
		}
		memcpy(l->epoch.maps, e->maps, e->count * sizeof(*e->maps));
		l->epoch.count = e->count;
		l->hash = hash;
		l->t = c->as.t;
	}
	p = hwt_grow_array(c->as.touched, &c->as.touched_capacity, c->as.touched_count + 1,
			   sizeof(*c->as.touched));
	if (!p)
		return -1;
	c->as.touched = p;
	c->as.touched[c->as.touched_count++] = (struct touched){ l, c->as.epoch };
	c->as.t = l->t;
	c->as.layout = l;
	l->counted = 1;
	l->used = ++ls->clock;
	return 0;
}

/* Hands c's tables back to their layout. */
void edge_layout_detach(struct edge_ctx *c)
{
	if (!c->as.layout)
		return;
	c->as.layout->t = c->as.t;
	c->as.layout = NULL;
	memset(&c->as.t, 0, sizeof(c->as.t));
}

/*
 * Tables for c's epoch, its files checked first as libipt's loop checks
 * them. Finding one shorter than its mapping drops the layouts kept:
 * what the stream counted in them is taken back first, and it goes on in
 * tables of its own. -1: out of memory.
 */
int edge_epoch_tables(struct edge_ctx *c)
{
	const struct hwt_epoch *e = &c->as.space->epochs[c->as.epoch];

	if (c->as.touched_count && hwt_epoch_short_files(e) &&
	    edge_take_counts_back(c, c->as.epoch, 1) < 0)
		return -1;
	hwt_epoch_check_files(c->d, e);
	if (!c->as.own_tables) {
		int status = layout_attach(c);

		if (status <= 0)
			return status;
	}
	return c->as.t.runs ? 0 : edge_tables_alloc(c);
}

/* What a stream given up counted, out of its layouts; c detached. */
void edge_layout_release(struct edge_ctx *c)
{
	edge_layout_detach(c);
	if (!c->nomem && !c->d->nomem) /* (else the profile is incomplete anyway) */
		(void)edge_take_counts_back(c, SIZE_MAX, 0); /* sets c->nomem when it fails */
	c->as.touched_count = 0;
}

int hwt_edge_drain(struct hwt_decoder *d)
{
	struct hwt_edge_layouts *ls = d->edge_layouts;
	int status = 0;

	for (size_t k = 0; ls && k < MAX_LAYOUTS; k++)
		if (ls->items[k].epoch.maps && layout_drain(d, &ls->items[k]) < 0)
			status = -hbe_nomem;
	if (status < 0)
		d->nomem = 1;
	return status;
}

int hwt_edge_flush(struct hwt_decoder *d)
{
	int status = hwt_edge_drain(d);

	if (hwt_edge_pool_flush(d) < 0)
		status = -hbe_nomem;
	return status;
}

void hwt_edge_layouts_free(struct hwt_decoder *d)
{
	struct hwt_edge_layouts *ls = d->edge_layouts;

	if (!ls)
		return;
	for (size_t k = 0; k < MAX_LAYOUTS; k++)
		layout_free(&ls->items[k]);
	free(ls);
	d->edge_layouts = NULL;
}

/*
 * Check mode's stream in layouts: their counts, the stream's alone (each
 * stream's are taken out so), into c->out.done. -1 when out of memory.
 */
int edge_touched_take(struct edge_ctx *c)
{
	int status = 0;

	for (size_t k = 0; k < c->as.touched_count; k++)
		if (edge_done_take(c, c->as.touched[k].epoch, &c->as.touched[k].layout->t) < 0)
			status = -1;
	c->as.touched_count = 0;
	return status;
}
