// SPDX-License-Identifier: GPL-2.0
/*
 * A thread's buffers written as rings (hwt_sw_int.h). The collector copies
 * [read, offset) out and says so with HWT_IOC_BUFREAD. When the unread
 * bytes fill the ring, the thread pauses (the default: nothing is lost)
 * until the collector makes room, or, with HWT_SW_WRAP, the ring is
 * written over and a LOST record says how much went unread. Packets are
 * written in place, never across the ring's end: a tail too short for the
 * longest write is filled with PAD packets (a 0 byte each).
 */
#include <linux/string.h>

#include "hwt_sw_int.h"

void hwt_sw_ring_init(struct hwt_sw_ring *r, struct hwt_buffer *buf, bool wrap)
{
	r->buf = buf;
	r->notified = buf ? buf->offset : 0;
	r->lost_read = ~0ull;	/* no LOST record yet, whatever the read pointer */
	r->wrap = wrap;
}

u64 hwt_sw_ring_room(const struct hwt_sw_ring *r)
{
	const struct hwt_buffer *b = r->buf;

	if (r->wrap)
		return b->size;
	return b->size - (b->offset - READ_ONCE(b->read));
}

void hwt_sw_ring_commit(struct hwt_sw_ring *r, struct hwt_context *ctx, u64 n)
{
	struct hwt_buffer *b = r->buf;
	u64 off = b->offset + n, read;

	if (!n)
		return;
	if ((b->offset % b->size) + n >= b->size)
		WRITE_ONCE(b->wraps, b->wraps + 1);
	WRITE_ONCE(b->offset, off);
	read = READ_ONCE(b->read);
	if (r->wrap && off - read > b->size && read != r->lost_read) {
		/* Once per read of the collector: it knows the rest itself. */
		r->lost_read = read;
		hwt_buffer_lost(ctx, off - b->size - read);
	}
	/* A BUFFER record each quarter ring, so that the collector drains in time. */
	if (off - r->notified >= b->size / 4) {
		r->notified = off;
		hwt_buffer_full(ctx, b);
	}
}

/* Points the encoder at @need or more contiguous bytes of room; false if there are none. */
static bool hwt_sw_ring_place(struct hwt_sw_thread *ts, u64 need)
{
	struct hwt_sw_ring *r = &ts->pt;
	struct hwt_buffer *b = r->buf;
	u64 pos = b->offset % b->size, contig = b->size - pos, room = hwt_sw_ring_room(r);

	if (contig < need && room >= contig + need) {
		memset(b->base + pos, 0, contig);	/* PAD packets to the end */
		hwt_sw_ring_commit(r, ts->sc->ctx, contig);
		ts->st.bytes_out += contig;
		room -= contig;
		pos = 0;
		contig = b->size;
	}
	if (room < need || contig < need)
		return false;
	ts->st.enc.buf = b->base + pos;
	ts->st.enc.size = min(contig, room);
	ts->st.enc.pos = 0;
	return true;
}

bool hwt_sw_ring_window(struct hwt_sw_thread *ts)
{
	if (hwt_sw_ring_place(ts, HWT_PT_MAX_WRITE))
		return true;
	/* Full: this step's packets wait in the spill area, the thread for room. */
	ts->st.enc.buf = ts->spill;
	ts->st.enc.size = sizeof(ts->spill);
	ts->st.enc.pos = 0;
	ts->spilling = true;
	hwt_buffer_full(ts->sc->ctx, ts->pt.buf);
	hwt_thread_request_work(ts->thr);
	return false;
}

/*
 * The stream's write (common/sw_stream.h): the packets are in the ring's
 * window already; commit them and open the next window. From the spill
 * area, full as well, they are lost (counted here, where every drop is
 * seen; the stream writes OVF next).
 */
static int hwt_sw_ring_write(struct hwt_sw_stream *s, const uint8_t *buf, size_t n)
{
	struct hwt_sw_thread *ts = container_of(s, struct hwt_sw_thread, st);

	if (ts->spilling) {
		ts->lost_bytes += n;
		return 0;
	}
	hwt_sw_ring_commit(&ts->pt, ts->sc->ctx, n);
	hwt_sw_ring_window(ts);
	return 1;
}

/* The loss goes to the thread's LOST record with lost_bytes (hwt_sw_ring_write). */
static void hwt_sw_ring_lost(struct hwt_sw_stream *s, size_t n)
{
}

const struct hwt_sw_stream_ops hwt_sw_ring_ops = {
	.write = hwt_sw_ring_write,
	.lost = hwt_sw_ring_lost,
};

static bool hwt_sw_ring_block_put(struct hwt_sw_thread *ts, const struct hwt_sw_block *e)
{
	struct hwt_sw_ring *r = &ts->blk;
	struct hwt_buffer *b = r->buf;

	/* The ring is a page multiple: an entry never straddles its end. */
	if (hwt_sw_ring_room(r) < sizeof(*e))
		return false;
	memcpy(b->base + b->offset % b->size, e, sizeof(*e));
	hwt_sw_ring_commit(r, ts->sc->ctx, sizeof(*e));
	return true;
}

void hwt_sw_ring_block_close(struct hwt_sw_thread *ts)
{
	if (!ts->blk.buf || !ts->blk_cur.insns)
		return;
	if (ts->blk_nwait || !hwt_sw_ring_block_put(ts, &ts->blk_cur)) {
		if (ts->blk_nwait == HWT_SW_BLK_PENDING) {
			ts->lost_bytes += sizeof(ts->blk_cur);
		} else {
			if (!ts->blk_nwait)
				hwt_thread_request_work(ts->thr);
			ts->blk_wait[ts->blk_nwait++] = ts->blk_cur;
		}
	}
	ts->blk_cur.insns = 0;
}

bool hwt_sw_ring_has_room(void *arg)
{
	struct hwt_sw_thread *ts = arg;

	if (ts->blk_nwait && hwt_sw_ring_room(&ts->blk) < ts->blk_nwait * sizeof(struct hwt_sw_block))
		return false;
	/* The spill goes in one piece, with room for the next write after it. */
	return !ts->spilling || hwt_sw_ring_room(&ts->pt) >= 2 * sizeof(ts->spill) + HWT_PT_MAX_WRITE;
}

void hwt_sw_ring_unspill(struct hwt_sw_thread *ts)
{
	u32 i;

	for (i = 0; i < ts->blk_nwait; i++)
		hwt_sw_ring_block_put(ts, &ts->blk_wait[i]);
	ts->blk_nwait = 0;
	if (ts->spilling) {
		size_t n = ts->st.enc.pos;

		ts->spilling = false;
		if (!hwt_sw_ring_place(ts, n + HWT_PT_MAX_WRITE)) {
			ts->lost_bytes += n;	/* not after has_room() */
			ts->st.lost = 1;
			hwt_sw_ring_window(ts);
			return;
		}
		memcpy(ts->st.enc.buf, ts->spill, n);
		ts->st.enc.pos = n;
	}
}
