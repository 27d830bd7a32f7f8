/*
 * What every producer of the control flow (stream.c for libipt,
 * etm_stream.c for OpenCSD) does the same way on its side of hwt_flow.h:
 * choose the consumer (the options' or the profile accumulator), describe
 * the stream to it, hand it steps in batches and events between them, and
 * keep the stream's blocks where they stay until its end.
 */
#include <stdlib.h>
#include <string.h>

#include "decode_int.h"

/* Blocks per chunk of the block store. */
#define CHUNK_BLOCKS 1024

/* Blocks of a stream, never moved or freed before the stream's end. */
struct hwt_flow_chunk {
	struct hwt_flow_chunk *next;
	size_t used, size;
	struct hwt_flow_block blocks[];
};

int hwt_flow_out_begin(struct hwt_flow_out *o, struct hwt_decoder *d,
		       const struct hwt_bundle_stream *stream, const struct hwt_space *space)
{
	const struct hwt_flow_consumer *consumer =
		d->shared->options ? d->shared->options->flow : NULL;

	if (!consumer) {
		o->counting = hwt_flow_profile_consumer;
		o->counting.consumer = d->profile;
		consumer = &o->counting;
	}
	o->consumer = consumer;
	/* A clock that only orders records (sequence) is no time. */
	o->want_time = (consumer->flags & HWT_FLOW_WANT_TIME) &&
		       d->shared->clock == hwt_flow_clock_tsc;
	memset(&o->info, 0, sizeof(o->info));
	o->info.stream = stream;
	o->info.image = stream->image >= 0
				? hwt_bundle_image_at(d->shared->bundle, (size_t)stream->image)
				: NULL;
	o->info.command = space->command ? space->command : "";
	o->info.profile = d->profile;
	o->info.clock = d->shared->clock;
	o->context = consumer->begin(consumer->consumer, &o->info);
	return o->context ? 0 : -1;
}

void hwt_flow_out_flush(struct hwt_flow_out *o)
{
	if (o->batched)
		o->consumer->steps(o->context, o->batch, o->batched);
	o->batched = 0;
}

void hwt_flow_out_event(struct hwt_flow_out *o, const struct hwt_flow_event *ev)
{
	hwt_flow_out_flush(o);
	o->consumer->event(o->context, ev);
}

struct hwt_flow_block *hwt_flow_out_blocks(struct hwt_flow_out *o, size_t n)
{
	struct hwt_flow_chunk *c = o->chunks;

	if (!c || c->size - c->used < n) {
		size_t size = n > CHUNK_BLOCKS ? n : CHUNK_BLOCKS;

		c = malloc(sizeof(*c) + size * sizeof(c->blocks[0]));
		if (!c)
			return NULL;
		c->next = o->chunks;
		c->used = 0;
		c->size = size;
		o->chunks = c;
	}
	c->used += n;
	return &c->blocks[c->used - n];
}

int hwt_flow_out_end(struct hwt_flow_out *o)
{
	int status = 0;

	if (o->context) {
		hwt_flow_out_flush(o);
		status = o->consumer->end(o->context);
		o->context = NULL;
	}
	while (o->chunks) {
		struct hwt_flow_chunk *next = o->chunks->next;

		free(o->chunks);
		o->chunks = next;
	}
	return status;
}
