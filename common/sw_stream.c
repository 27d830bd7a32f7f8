/* A software trace unit's PT stream (sw_stream.h). */
#include "sw_stream.h"

void hwt_sw_stream_start(struct hwt_sw_stream *s, uint8_t *buf, size_t size, uint64_t time,
			 uint64_t psb_period, const struct hwt_sw_stream_ops *ops)
{
	hwt_pt_encoder_init(&s->enc, buf, size);
	s->ops = ops;
	s->time = time;
	s->psb_period = psb_period;
	s->bytes_out = 0;
	s->enabled = 0;
	s->lost = 0;
	hwt_pt_psb_plus(&s->enc, 0, 0, 1, time);
	s->psb_due = psb_period;
}

void hwt_sw_stream_drain(struct hwt_sw_stream *s)
{
	size_t n = s->enc.pos;

	if (s->ops->write(s, s->enc.buf, n)) {
		s->bytes_out += n;
	} else if (!s->lost) {
		s->lost = 1;
		s->ops->lost(s, n);
	}
	hwt_pt_encoder_reset_buffer(&s->enc);
}

void hwt_sw_stream_sync_slow(struct hwt_sw_stream *s, uint64_t now, uint64_t ip)
{
	if (s->time != now) {
		/* The sideband moved on (mmap, munmap...): place this thread in
		   time, after the branches that came before. */
		hwt_sw_stream_reserve(s);
		hwt_pt_flush_tnt(&s->enc);
		hwt_sw_stream_reserve(s);
		s->time = now;
		hwt_pt_tsc(&s->enc, now);
	}
	if (s->lost) {
		hwt_sw_stream_reserve(s);
		hwt_pt_ovf(&s->enc);
		if (s->enabled) {
			hwt_sw_stream_reserve(s);
			hwt_pt_fup(&s->enc, ip);
		}
		s->lost = 0;
	}
}

void hwt_sw_stream_enable(struct hwt_sw_stream *s, uint64_t ip, uint64_t now)
{
	hwt_sw_stream_sync(s, now, ip);
	hwt_sw_stream_reserve(s);
	hwt_pt_tip_pge(&s->enc, ip);
	s->enabled = 1;
}

void hwt_sw_stream_disable(struct hwt_sw_stream *s)
{
	hwt_sw_stream_reserve(s);
	hwt_pt_tip_pgd(&s->enc, 0, 1);
	s->enabled = 0;
}

void hwt_sw_stream_interrupt(struct hwt_sw_stream *s, uint64_t ip, uint64_t now)
{
	hwt_sw_stream_sync(s, now, ip);
	hwt_sw_stream_reserve(s);
	hwt_pt_fup(&s->enc, ip);
	hwt_sw_stream_disable(s);
}

void hwt_sw_stream_flush(struct hwt_sw_stream *s)
{
	hwt_sw_stream_reserve(s);
	hwt_pt_flush_tnt(&s->enc);
	if (s->enc.pos)
		hwt_sw_stream_drain(s);
}
