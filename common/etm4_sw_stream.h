/*
 * One thread's ETMv4 stream as a software trace unit writes it: what an
 * ETMv4 trace unit filtered to EL0 (user space) of one thread writes, into
 * a buffer the unit owns and drains (the unformatted trace of a TRBE).
 * The ETMv4 counterpart of sw_stream.h, with the same calls, so that a
 * unit drives either the same way. Libc-free.
 *
 * What the unit's events become:
 * - start: A-Sync, Trace Info, Timestamp (the sideband clock);
 * - the thread runs user code again (enable): Trace On, then Address with
 *   Context (EL0, AArch64, non-secure, CONTEXTIDR = the thread's ID, as
 *   Linux sets it), as a trace unit whose EL0 filter becomes active again;
 * - a system call (disable): Exception of type Call with its preferred
 *   return address, the instruction after the SVC; the kernel is not traced;
 * - an asynchronous event (signal delivery, death): Exception of type IRQ
 *   with the address of the first instruction not executed;
 * - branches: an atom each (E taken, N not), and after an indirect branch
 *   or a return the target's address;
 * - the sideband clock moved: Timestamp with the new value;
 * - every sync_period bytes: A-Sync, Trace Info, Timestamp and, while
 *   tracing, Address with Context where the thread is;
 * - bytes dropped: Overflow, then a full sync as above (decoders wait for
 *   an A-Sync after an Overflow).
 */
#ifndef HWT_ETM4_SW_STREAM_H
#define HWT_ETM4_SW_STREAM_H

#include "etm4_encoder.h"
#include "hwt_types.h"
#include "insn.h"

struct hwt_etm4_sw_stream;

/* How the unit writes the stream out: sw_stream.h's hwt_sw_stream_ops, for ETMv4. */
struct hwt_etm4_sw_stream_ops {
	/* Appends len bytes of packets to the thread's stream: 1 when all were written. */
	int (*write)(struct hwt_etm4_sw_stream *s, const uint8_t *buf, size_t len);
	/* Records that len bytes could not be written (a LOST record). */
	void (*lost)(struct hwt_etm4_sw_stream *s, size_t len);
};

struct hwt_etm4_sw_stream {
	struct hwt_etm4_encoder enc;
	const struct hwt_etm4_sw_stream_ops *ops;
	struct hwt_etm4_context ctx;  /* of the thread, in every Address with Context */
	uint64_t time;        /* sideband clock last written as Timestamp */
	uint64_t sync_period; /* bytes between two syncs */
	uint64_t sync_due;    /* bytes_out + enc.pos at which the next sync is due */
	uint64_t bytes_out;   /* bytes written out */
	int enabled;          /* the thread runs traced code */
	int lost;             /* bytes were dropped: Overflow next */
};

/* Starts the stream of thread tid in buf: sync, Timestamp time; tracing is off. */
void hwt_etm4_sw_stream_start(struct hwt_etm4_sw_stream *s, uint8_t *buf, size_t size,
			      uint64_t time, uint64_t sync_period, uint32_t tid,
			      const struct hwt_etm4_sw_stream_ops *ops);

/* Writes the buffer out (ops), or records its loss: Overflow follows. */
void hwt_etm4_sw_stream_drain(struct hwt_etm4_sw_stream *s);

/* Makes sure one more encoder call fits. */
static inline void hwt_etm4_sw_stream_reserve(struct hwt_etm4_sw_stream *s)
{
	if (hwt_etm4_encoder_space(&s->enc) < HWT_ETM4_MAX_WRITE)
		hwt_etm4_sw_stream_drain(s);
}

/* Timestamp when the clock moved to now; Overflow and a sync after dropped bytes. */
void hwt_etm4_sw_stream_sync_slow(struct hwt_etm4_sw_stream *s, uint64_t now, uint64_t ip);
static inline void hwt_etm4_sw_stream_sync(struct hwt_etm4_sw_stream *s, uint64_t now, uint64_t ip)
{
	if (s->time != now || s->lost)
		hwt_etm4_sw_stream_sync_slow(s, now, ip);
}

/* Tracing starts at ip: Trace On, Address with Context. */
void hwt_etm4_sw_stream_enable(struct hwt_etm4_sw_stream *s, uint64_t ip, uint64_t now);
/* A system call: Exception (Call) returning to ret; 0 when not known (nothing written). */
void hwt_etm4_sw_stream_disable(struct hwt_etm4_sw_stream *s, uint64_t ret);
/* An asynchronous event before the instruction at ip: Exception (IRQ). */
void hwt_etm4_sw_stream_interrupt(struct hwt_etm4_sw_stream *s, uint64_t ip, uint64_t now);

/* A sync point when sync_period bytes went by since the last; ip: where the thread is. */
void hwt_etm4_sw_stream_sync_point(struct hwt_etm4_sw_stream *s, uint64_t ip);
static inline void hwt_etm4_sw_stream_sync_if_due(struct hwt_etm4_sw_stream *s, uint64_t ip)
{
	if (s->bytes_out + s->enc.pos >= s->sync_due)
		hwt_etm4_sw_stream_sync_point(s, ip);
}

/*
 * The packets of a branch of kind (enum hwt_insn_kind) that went to
 * target: an atom for every branch (E unless a conditional one fell through
 * to fallthrough), then the address of an indirect branch's or a return's
 * target. Nothing for other instructions.
 */
static inline void hwt_etm4_sw_stream_branch(struct hwt_etm4_sw_stream *s, unsigned kind,
					     uint64_t target, uint64_t fallthrough)
{
	switch (kind) {
	case HWT_INSN_COND:
		hwt_etm4_sw_stream_reserve(s);
		hwt_etm4_atom(&s->enc, target != fallthrough);
		break;
	case HWT_INSN_JUMP:
	case HWT_INSN_CALL:
		hwt_etm4_sw_stream_reserve(s);
		hwt_etm4_atom(&s->enc, 1);
		break;
	case HWT_INSN_JUMP_INDIRECT:
	case HWT_INSN_CALL_INDIRECT:
	case HWT_INSN_RETURN:
		hwt_etm4_sw_stream_reserve(s);
		hwt_etm4_atom(&s->enc, 1);
		hwt_etm4_sw_stream_reserve(s);
		hwt_etm4_address(&s->enc, target);
		break;
	default:
		break;
	}
}

/*
 * A branch of kind to code the trace unit does not trace: its atom (an
 * indirect branch's target address is not traced), then tracing is off.
 */
void hwt_etm4_sw_stream_leave(struct hwt_etm4_sw_stream *s, unsigned kind, uint64_t target,
			      uint64_t fallthrough);

/* Writes pending atoms and drains the buffer (the stream may end here). */
void hwt_etm4_sw_stream_flush(struct hwt_etm4_sw_stream *s);

#endif /* HWT_ETM4_SW_STREAM_H */
