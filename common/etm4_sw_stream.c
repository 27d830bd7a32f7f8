/* A software trace unit's ETMv4 stream (etm4_sw_stream.h). */
#include "etm4_sw_stream.h"

/* A-Sync, Trace Info, Timestamp; and where the thread is while it is traced. */
static void full_sync(struct hwt_etm4_sw_stream *s, uint64_t ip)
{
	hwt_etm4_sw_stream_reserve(s);
	hwt_etm4_sync(&s->enc);
	hwt_etm4_sw_stream_reserve(s);
	hwt_etm4_timestamp(&s->enc, s->time);
	if (s->enabled) {
		hwt_etm4_sw_stream_reserve(s);
		hwt_etm4_address_context(&s->enc, ip, &s->ctx);
	}
}

void hwt_etm4_sw_stream_drain(struct hwt_etm4_sw_stream *s)
{
	size_t n = s->enc.pos;

	if (s->ops->write(s, s->enc.buf, n)) {
		s->bytes_out += n;
	} else if (!s->lost) {
		s->lost = 1;
		s->ops->lost(s, n);
	}
	hwt_etm4_encoder_reset_buffer(&s->enc);
}

void hwt_etm4_sw_stream_start(struct hwt_etm4_sw_stream *s, uint8_t *buf, size_t size,
			      uint64_t time, uint64_t sync_period, uint32_t tid,
			      const struct hwt_etm4_sw_stream_ops *ops)
{
	hwt_etm4_encoder_init(&s->enc, buf, size);
	s->ops = ops;
	s->ctx.el = 0;
	s->ctx.sf = 1;
	s->ctx.ns = 1;
	s->ctx.flags = HWT_ETM4_CTX_CID;
	s->ctx.cid = tid;
	s->ctx.vmid = 0;
	s->time = time;
	s->sync_period = sync_period;
	s->bytes_out = 0;
	s->enabled = 0;
	s->lost = 0;
	full_sync(s, 0);
	s->sync_due = sync_period;
}

void hwt_etm4_sw_stream_sync_slow(struct hwt_etm4_sw_stream *s, uint64_t now, uint64_t ip)
{
	if (s->lost) {
		/* Decoders drop everything up to the next A-Sync after an Overflow. */
		s->lost = 0;
		s->time = now;
		hwt_etm4_sw_stream_reserve(s);
		hwt_etm4_overflow(&s->enc);
		full_sync(s, ip);
		return;
	}
	/* The sideband moved on: place this thread in time, after the branches before. */
	s->time = now;
	hwt_etm4_sw_stream_reserve(s);
	hwt_etm4_timestamp(&s->enc, now);
}

void hwt_etm4_sw_stream_enable(struct hwt_etm4_sw_stream *s, uint64_t ip, uint64_t now)
{
	hwt_etm4_sw_stream_sync(s, now, ip);
	hwt_etm4_sw_stream_reserve(s);
	hwt_etm4_trace_on(&s->enc);
	hwt_etm4_sw_stream_reserve(s);
	hwt_etm4_address_context(&s->enc, ip, &s->ctx);
	s->enabled = 1;
}

void hwt_etm4_sw_stream_disable(struct hwt_etm4_sw_stream *s, uint64_t ret)
{
	if (s->enabled && ret) {
		hwt_etm4_sw_stream_reserve(s);
		hwt_etm4_exception(&s->enc, HWT_ETM4_EXC_CALL, ret);
	}
	s->enabled = 0;
}

void hwt_etm4_sw_stream_interrupt(struct hwt_etm4_sw_stream *s, uint64_t ip, uint64_t now)
{
	hwt_etm4_sw_stream_sync(s, now, ip);
	if (s->enabled) {
		hwt_etm4_sw_stream_reserve(s);
		hwt_etm4_exception(&s->enc, HWT_ETM4_EXC_IRQ, ip);
	}
	s->enabled = 0;
}

void hwt_etm4_sw_stream_leave(struct hwt_etm4_sw_stream *s, unsigned kind, uint64_t target,
			      uint64_t fallthrough)
{
	if (kind != HWT_INSN_OTHER && kind != HWT_INSN_FAR) {
		hwt_etm4_sw_stream_reserve(s);
		hwt_etm4_atom(&s->enc, kind != HWT_INSN_COND || target != fallthrough);
	}
	s->enabled = 0;
}

void hwt_etm4_sw_stream_sync_point(struct hwt_etm4_sw_stream *s, uint64_t ip)
{
	full_sync(s, ip);
	s->sync_due = s->bytes_out + s->enc.pos + s->sync_period;
}

void hwt_etm4_sw_stream_flush(struct hwt_etm4_sw_stream *s)
{
	hwt_etm4_sw_stream_reserve(s);
	hwt_etm4_flush_atoms(&s->enc);
	if (s->enc.pos)
		hwt_etm4_sw_stream_drain(s);
}
