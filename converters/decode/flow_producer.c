/*
 * The plumbing every producer of the control flow shares (flow_producer.h):
 * the epochs of the address space, time and error events, the accounting
 * of errors and of blocks that do not match the code, the stream's stats
 * and the diagnostics that sum it up.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "flow_producer.h"

void hwt_flow_producer_init(struct hwt_flow_producer *p, struct hwt_decoder *d,
			    const struct hwt_bundle_stream *stream, struct hwt_space *space)
{
	memset(p, 0, sizeof(*p));
	p->d = d;
	p->stream = stream;
	p->space = space;
	p->next_time = space->count > 1 ? space->epochs[1].time : UINT64_MAX;
	p->last_time = UINT64_MAX;
}

void hwt_flow_producer_fini(struct hwt_flow_producer *p)
{
	hwt_flow_resume_fini(&p->resume);
}

uint8_t *hwt_flow_producer_map(struct hwt_flow_producer *p, size_t *size)
{
	uint8_t *bytes = hwt_stream_map(p->stream->path, size);

	if (!bytes) {
		if (p->stream->size)
			hwt_decode_diag(p->d, hwt_diag_stream, p->stream->path, -1,
					"cannot read the stream: %s", strerror(errno));
		return NULL;
	}
	p->bytes = *size;
	p->d->stats.streams++;
	p->d->stats.trace_bytes += *size;
	return bytes;
}

int hwt_flow_producer_begin(struct hwt_flow_producer *p)
{
	return hwt_flow_out_begin(&p->out, p->d, p->stream, p->space);
}

void hwt_flow_producer_report_bad(struct hwt_flow_producer *p, const char *blocks_noun)
{
	if (p->bad_blocks)
		hwt_decode_diag(p->d, hwt_diag_stream, p->stream ? p->stream->path : NULL, -1,
				"%" PRIu64 " decoded %s do not match the code in the image files "
				"and were not counted, e.g. %s",
				p->bad_blocks, blocks_noun, p->bad_example);
}

int hwt_flow_producer_end(struct hwt_flow_producer *p, const char *blocks_noun)
{
	struct hwt_decoder *d = p->d;

	if (hwt_flow_out_end(&p->out) < 0)
		p->nomem = 1;
	if (p->nomem)
		d->nomem = 1;
	d->stats.blocks += p->blocks;
	d->stats.insns += p->insns;
	if (p->error_messages > HWT_FLOW_ERROR_MESSAGES)
		hwt_decode_diag(d, hwt_diag_stream, p->stream->path, -1,
				"%" PRIu64 " more decode errors not listed (%" PRIu64
				" decode errors in all, %" PRIu64 " trace bytes skipped)",
				p->error_messages - HWT_FLOW_ERROR_MESSAGES, p->errors,
				p->error_bytes);
	hwt_flow_producer_report_bad(p, blocks_noun);
	d->done_bytes += p->bytes;
	hwt_decode_progress(d, d->done_bytes);
	return p->nomem ? -hbe_nomem : 0;
}

int hwt_flow_producer_epoch(struct hwt_flow_producer *p, uint64_t time)
{
	const struct hwt_space *space = p->space;
	struct hwt_flow_event ev = { .type = hwt_flow_ev_space };
	size_t e = p->epoch;

	while (e + 1 < space->count && space->epochs[e + 1].time <= time)
		e++;
	if (e == p->epoch)
		return 0;
	ev.time = space->epochs[e].time;
	hwt_flow_out_event(&p->out, &ev);
	p->epoch = e;
	p->next_time = e + 1 < space->count ? space->epochs[e + 1].time : UINT64_MAX;
	return 1;
}

int hwt_flow_producer_error_at(struct hwt_flow_producer *p, uint64_t offset, int status,
			       uint64_t ip, struct hwt_file *file)
{
	if (p->err.pending)
		return 0;
	p->err = (struct hwt_flow_error){ .pending = 1, .status = status, .offset = offset,
					  .ip = ip, .file = file };
	return 1;
}

int hwt_flow_producer_resolve_pending(struct hwt_flow_producer *p, uint64_t resumed)
{
	struct hwt_flow_error *err = &p->err;
	struct hwt_flow_event ev = { .type = hwt_flow_ev_error };
	uint64_t skipped = resumed > err->offset ? resumed - err->offset : 0;

	err->pending = 0;
	err->skipped = skipped;
	ev.ip = err->ip;
	ev.offset = err->offset;
	ev.bytes = skipped;
	ev.status = err->status;
	hwt_flow_producer_break(p, &ev, hwt_flow_start);
	hwt_flow_resume_reset(&p->resume);
	hwt_flow_producer_count_error(p, skipped);
	if (err->file) {
		hwt_file_failed(p->d, err->file, p->stream, skipped);
		return hwt_flow_resolved_counted; /* said once per file at the end */
	}
	if (p->error_messages++ >= HWT_FLOW_ERROR_MESSAGES)
		return hwt_flow_resolved_counted; /* summed up at the end */
	return hwt_flow_resolved_say;
}

void hwt_flow_producer_count_error(struct hwt_flow_producer *p, uint64_t bytes)
{
	p->errors++;
	p->error_bytes += bytes;
	p->d->stats.errors++;
	p->d->stats.error_bytes += bytes;
}

void hwt_flow_producer_bad_block(struct hwt_flow_producer *p, const char *fmt, ...)
{
	va_list ap;

	if (p->bad_blocks++)
		return;
	va_start(ap, fmt);
	vsnprintf(p->bad_example, sizeof(p->bad_example), fmt, ap);
	va_end(ap);
}

void hwt_flow_producer_overflow(struct hwt_flow_producer *p, int64_t offset)
{
	p->d->stats.overflows++;
	hwt_decode_diag(p->d, hwt_diag_stream, p->stream->path, offset,
			"trace overflow: the trace unit dropped trace, counts are low");
}

void hwt_flow_producer_cut(struct hwt_flow_producer *p, uint64_t offset, const char *what)
{
	if (p->enabled && !p->errors && !p->d->shared->trace_cap)
		hwt_decode_diag(p->d, hwt_diag_stream, p->stream->path, (int64_t)offset,
				"the trace ends at offset 0x%" PRIx64 " while %s: the stream was "
				"cut (recorder killed?) or the thread was killed", offset, what);
}
