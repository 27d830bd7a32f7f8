/*
 * One thread's Intel PT stream as a software trace unit writes it: the
 * packet encoder, PacketEn, the sideband time last written as TSC, a PSB+
 * every psb_period bytes, and OVF after trace that could not be written.
 * The unit owns the buffer and says how to write it out and how to record
 * that bytes were lost (ops). Shared by the Valgrind tool and the QEMU
 * plugin, so libc-free.
 */
#ifndef HWT_SW_STREAM_H
#define HWT_SW_STREAM_H

#include "hwt_types.h"
#include "pt_encoder.h"
#include "x86_insn.h"

struct hwt_sw_stream;

struct hwt_sw_stream_ops {
	/* Appends len bytes of packets to the thread's stream: 1 when all were written. */
	int (*write)(struct hwt_sw_stream *s, const uint8_t *buf, size_t len);
	/* Records that len bytes could not be written (a LOST record). */
	void (*lost)(struct hwt_sw_stream *s, size_t len);
};

struct hwt_sw_stream {
	struct hwt_pt_encoder enc;
	const struct hwt_sw_stream_ops *ops;
	uint64_t time;        /* sideband clock last written as TSC */
	uint64_t psb_period;  /* bytes of packets between two PSB+ */
	uint64_t psb_due;     /* bytes_out + enc.pos at which the next PSB+ is due */
	uint64_t bytes_out;   /* bytes written out */
	int enabled;          /* PacketEn: the thread runs traced code */
	int lost;             /* bytes were dropped: OVF next */
};

/* Starts a stream in buf with PSB+ (tracing disabled), so that a decoder can synchronise. */
void hwt_sw_stream_start(struct hwt_sw_stream *s, uint8_t *buf, size_t size, uint64_t time,
			 uint64_t psb_period, const struct hwt_sw_stream_ops *ops);

/*
 * Writes out the buffered packets and empties the buffer. When the write
 * fails, the bytes are dropped and recorded as lost (unless the drop
 * before is not marked yet), and the next sync marks the gap with OVF.
 */
void hwt_sw_stream_drain(struct hwt_sw_stream *s);

/* Makes sure one more encoder call fits. */
static inline void hwt_sw_stream_reserve(struct hwt_sw_stream *s)
{
	if (hwt_pt_encoder_space(&s->enc) < HWT_PT_MAX_WRITE)
		hwt_sw_stream_drain(s);
}

/*
 * What must precede anything else written now: TSC when the sideband clock
 * moved to now since the last one (after the branches before it), OVF
 * after dropped bytes, then (SDM) FUP ip when tracing is enabled.
 */
void hwt_sw_stream_sync_slow(struct hwt_sw_stream *s, uint64_t now, uint64_t ip);
static inline void hwt_sw_stream_sync(struct hwt_sw_stream *s, uint64_t now, uint64_t ip)
{
	if (s->time != now || s->lost)
		hwt_sw_stream_sync_slow(s, now, ip);
}

/* Tracing starts at ip (TIP.PGE), after what sync writes. */
void hwt_sw_stream_enable(struct hwt_sw_stream *s, uint64_t ip, uint64_t now);
/* Tracing stops: the thread leaves user mode (TIP.PGD, IP suppressed). */
void hwt_sw_stream_disable(struct hwt_sw_stream *s);
/* An asynchronous event at ip (signal, death): FUP ip, TIP.PGD. */
void hwt_sw_stream_interrupt(struct hwt_sw_stream *s, uint64_t ip, uint64_t now);

/* A PSB+ when psb_period bytes went by since the last; ip: where the thread is. */
static inline void hwt_sw_stream_psb_if_due(struct hwt_sw_stream *s, uint64_t ip)
{
	if (s->bytes_out + s->enc.pos >= s->psb_due) {
		hwt_sw_stream_reserve(s);
		hwt_pt_psb_plus(&s->enc, s->enabled, ip, 1, s->time);
		s->psb_due = s->bytes_out + s->enc.pos + s->psb_period;
	}
}

/*
 * The packet of a near branch of kind branch (enum hwt_x86_branch) that
 * went to target: a TNT bit for a conditional one (taken: target is not
 * fall_through), TIP for an indirect one or a return (return compression
 * off), nothing for the others.
 */
static inline void hwt_sw_stream_branch(struct hwt_sw_stream *s, unsigned branch,
					uint64_t target, uint64_t fall_through)
{
	hwt_sw_stream_reserve(s);
	switch (branch) {
	case HWT_X86_COND:
		hwt_pt_tnt(&s->enc, target != fall_through);
		break;
	case HWT_X86_JUMP_INDIRECT:
	case HWT_X86_CALL_INDIRECT:
	case HWT_X86_RETURN:
		hwt_pt_tip(&s->enc, target);
		break;
	default:
		break;
	}
}

/* Writes pending TNT bits and drains the buffer (the stream may end here). */
void hwt_sw_stream_flush(struct hwt_sw_stream *s);

#endif /* HWT_SW_STREAM_H */
