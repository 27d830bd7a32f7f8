/*
 * The edge decoder: one Intel PT stream over cached control flow
 * (edge_int.h says how), committed to the decoder's edge pool or, when
 * it cannot be decoded exactly as libipt would, handed to libipt.
 */
#include <stdlib.h>
#include <string.h>

#include "edge_int.h"

/* A walk of stream, in space, by d; its reader is set apart (edge_reader_init). */
void edge_ctx_init(struct edge_ctx *c, struct hwt_decoder *d,
		   const struct hwt_bundle_stream *stream, struct hwt_space *space)
{
	memset(c, 0, sizeof(*c));
	c->d = d;
	c->stream = stream;
	edge_address_init(&c->as, space);
}

/* Frees what c holds, what its stream counted in layouts taken back first. */
void edge_ctx_fini(struct edge_ctx *c)
{
	edge_layout_release(c);
	edge_address_fini(&c->as);
	edge_counted_fini(&c->out);
}

/*
 * Decodes the stream into c without side effects. 0: decoded, 1: libipt
 * must, -hbe_nomem. A whole stream walks in the tables of its layouts.
 */
int edge_run(struct edge_ctx *c)
{
	int status;

	if (edge_counted_init(&c->out) < 0)
		return -hbe_nomem;
	if (c->part.split ? edge_tables_alloc(c) < 0 : edge_epoch_tables(c) < 0)
		return -hbe_nomem;
	status = edge_walk(c);
	if (c->nomem)
		status = -hbe_nomem;
	else if (status == STOPPED)
		return STOPPED; /* the first part of a split stream: edge_run_split */
	else if (status < 0)
		status = 1;
	else if (edge_epoch_close(c) < 0)
		c->nomem = 1;
	if (c->nomem)
		status = -hbe_nomem;
	if (status != 0) {
		edge_layout_release(c);
		if (c->nomem)
			status = -hbe_nomem;
	}
	edge_layout_detach(c);
	return status;
}

/*
 * Adds what edge_run found to d as pt_decode would have: the counts in
 * the layouts stay there (layout_drain) and those in c->out.done go into d's
 * edge pool (pooled); else all go into d's profile now.
 */
int edge_commit(struct edge_ctx *c, size_t size, int pooled)
{
	struct hwt_decoder *d = c->d;
	int taken = pooled ? 0 : edge_touched_take(c); /* first: it adds to c->out.done */
	struct hwt_pt_block_count **counts = calloc(c->out.done_count + 1, sizeof(*counts));
	size_t *sizes = calloc(c->out.done_count + 1, sizeof(*sizes));
	size_t *epochs = calloc(c->out.done_count + 1, sizeof(*epochs));
	int status = -hbe_nomem;

	d->stats.streams++;
	d->stats.trace_bytes += size;
	d->stats.blocks += c->out.blocks;
	d->stats.insns += c->out.insns;
	d->stats.overflows += c->out.overflows;
	d->stats.edge_streams++;
	for (uint64_t k = 0; k < c->out.overflows; k++)
		hwt_decode_diag(d, hwt_diag_stream, c->stream->path, -1,
				    "trace overflow: the trace unit dropped trace, counts are low");
	if (c->ws.enabled && !d->shared->trace_cap)
		hwt_decode_diag(d, hwt_diag_stream, c->stream->path, (int64_t)size,
				    "the trace ends at offset 0x%zx while tracing was enabled: "
				    "the stream was cut (recorder killed?) or the thread was killed",
				    size);
	if (counts && sizes && epochs) {
		for (size_t k = 0; k < c->out.done_count; k++) {
			counts[k] = c->out.done[k].items;
			sizes[k] = c->out.done[k].count;
			epochs[k] = c->out.done[k].epoch;
		}
		status = pooled ? hwt_edge_pool_add(d, c->as.space, counts, sizes, epochs,
						    c->out.done_count, c->out.crossings, c->out.crossing_count)
				: hwt_pt_counts_add(d, c->stream, c->as.space, counts, sizes, epochs,
						    c->out.done_count, c->out.crossings, c->out.crossing_count);
	}
	free(counts);
	free(sizes);
	free(epochs);
	if (taken < 0)
		status = -hbe_nomem;
	c->as.touched_count = 0; /* its counts are the layouts' now */
	d->done_bytes += size;
	hwt_decode_progress(d, d->done_bytes);
	if (status < 0)
		d->nomem = 1;
	return status;
}

/* Decodes with edge_run; 1 when libipt must (nothing done), else as decode_stream. */
static int edge_try(struct hwt_decoder *d, const struct hwt_bundle_stream *stream,
		    struct hwt_space *space, struct edge_ctx *c, size_t *size)
{
	uint8_t *buf;
	size_t segment;
	unsigned parts;
	int status;

	edge_ctx_init(c, d, stream, space);
	if (d->shared->pt_async_resume)
		return 1; /* kernel-mode trace cut out: libipt decodes the user part (stream.c) */
	buf = hwt_stream_bytes(d, stream, size);
	if (!buf)
		return 1; /* libipt reports it */
	edge_reader_init(&c->rd, buf, *size, buf);
	parts = d->split > 1 ? d->split : 1;
	segment = d->shared->options && d->shared->options->segment_bytes ? d->shared->options->segment_bytes
							   : SEGMENT_BYTES;
	if (parts > *size / segment)
		parts = (unsigned)(*size / segment);
	if (parts > MAX_PARTS)
		parts = MAX_PARTS;
	/* A file shorter than its mapping is found when an epoch is first
	   used (hwt_epoch_check_files), which the parts cannot do in order. */
	if (parts > 1 && !hwt_space_short_files(space))
		status = edge_run_split(c, parts, segment);
	else
		status = edge_run(c);
	hwt_stream_bytes_done(d, buf, *size);
	return status;
}

static int edge_decode(struct hwt_decoder *d, const struct hwt_bundle_stream *stream,
		       struct hwt_space *space)
{
	struct edge_ctx c;
	size_t size = 0;
	int status = edge_try(d, stream, space, &c, &size);

	if (status == 0)
		status = d->shared->options && d->shared->options->decoder == hwt_decoder_check
				 ? edge_check(d, stream, space, &c, size)
				 : edge_commit(&c, size, 1);
	else if (status == 1) {
		d->stats.edge_fallbacks++;
		status = hwt_pt_decoder.decode_stream(d, stream, space);
	} else {
		d->nomem = 1;
	}
	edge_ctx_fini(&c);
	return status;
}

const struct hwt_trace_decoder hwt_edge_decoder = {
	.name = "intel-pt",
	.decode_stream = edge_decode,
};
