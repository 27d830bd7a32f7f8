/*
 * Taking back what a stream counted in the layouts kept across streams
 * (edge_layout.c): the stream is walked again in tables of its own, and
 * what that walk counts is subtracted from the layouts.
 */
#include "edge_int.h"

/*
 * The close of an epoch in a walk again (edge_take_counts_back): its counts out of
 * the layout the first walk walked the epoch in, and into the first
 * walk's c->out.done if it keeps them. Blocks cut short the first walk has.
 */
int edge_epoch_counts_back(struct edge_ctx *c)
{
	struct edge_ctx *first = c->again.of;
	struct edge_layout *l = edge_touched_layout(first, c->as.epoch);
	struct take none = { 0 };
	int status = 0;

	edge_cut_short_take(&c->out, &none);
	if (l && edge_tables_subtract(&l->t, &c->as.t) < 0)
		status = -1;
	if (l && c->again.keep_taken && edge_done_take(first, c->as.epoch, &c->as.t) < 0)
		status = -1;
	edge_tables_forget(&c->as.t);
	return status;
}

/*
 * Takes what c's stream counted in the layouts kept back out of them:
 * walks the stream again from its start in tables of its own, up to where
 * c is (the start of epoch upto, or where c gave up: SIZE_MAX), which
 * counts the same, and subtracts each epoch's counts from the layout c
 * walked the epoch in; keep: they go into c->out.done, as if c had walked in
 * tables of its own. Then c goes on in tables of its own. -1 when out of
 * memory, or when the walk again does not end where c is (a bug: the
 * decode is then marked incomplete).
 */
int edge_take_counts_back(struct edge_ctx *c, size_t upto, int keep)
{
	struct edge_ctx redo;
	int status, ended;

	c->as.own_tables = 1;
	if (!c->as.touched_count)
		return 0;
	edge_ctx_init(&redo, c->d, c->stream, c->as.space);
	edge_reader_init(&redo.rd, c->rd.buf, (size_t)(c->rd.end - c->rd.buf), c->rd.buf);
	redo.as.own_tables = 1;
	redo.again = (struct edge_again){ .of = c, .upto = upto, .keep_taken = keep };
	c->d->stats.edge_taken_back++;
	if (edge_counted_init(&redo.out) < 0 || edge_epoch_tables(&redo) < 0) {
		status = -1;
	} else {
		status = edge_walk(&redo);
		ended = redo.again.at_upto ? 1 : status == GIVE_UP;
		if (redo.nomem || !ended || redo.rd.pos != c->rd.pos ||
		    (!redo.again.at_upto && edge_epoch_close(&redo) < 0))
			status = -1;
		else
			status = 0;
	}
	if (status < 0)
		c->nomem = c->d->nomem = 1; /* the layouts hold counts libipt counts again */
	if (status < 0 && !redo.nomem)
		hwt_decode_diag(c->d, hwt_diag_stream, c->stream->path, -1,
				"internal error: the edge decoder could not take back the counts "
				"of this stream (walked again to offset 0x%zx, it gave up at 0x%zx)",
				(size_t)(redo.rd.pos - redo.rd.buf), (size_t)(c->rd.pos - c->rd.buf));
	c->as.touched_count = 0;
	edge_ctx_fini(&redo);
	return status;
}
