/*
 * One stream: libipt's block decoder over the PT packets of one thread, in
 * the address space of its process image as it was at each point in time.
 *
 * The hot loop only counts: each block is counted in a table keyed by
 * {the previous block's last instruction, the block's first instruction,
 * its instruction count} (virtual addresses). The table is turned into
 * profile counts (file offsets, edges classified by the x86 classifier)
 * when the address space changes and at the end of the stream, so the
 * per-block cost is one hash probe.
 *
 * A libipt block may run through direct jumps and calls (libipt follows
 * them); it always ends at a conditional branch, an indirect branch, a
 * return or a far transfer. Walking it again with the classifier splits it
 * into straight-line runs joined by jump and call edges.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "decode_int.h"
#include "x86_insn.h"

/* Errors of one stream listed one by one; the rest are summed up. */
#define MAX_ERROR_MESSAGES 5

struct acc_entry {
	uint64_t prev;    /* last instruction of the block before, 0: none */
	uint64_t ip;      /* first instruction */
	uint64_t end;     /* last instruction */
	uint32_t ninsn;   /* 0: empty slot */
	uint32_t reserved;
	uint64_t count;
};

/* The last block, held back in case the next one continues it. */
struct held_block {
	uint64_t prev, ip, end;
	uint32_t ninsn;           /* 0: none held */
	int isid;
	enum pt_insn_class iclass;
};

struct stream_ctx {
	struct hwt_decoder *d;
	const struct hwt_bundle_stream *stream;
	struct hwt_space *space;
	size_t epoch;
	uint64_t next_time;          /* of epoch + 1, UINT64_MAX when none */
	struct acc_entry *table;
	size_t mask, used;
	struct held_block held;
	/* A transition that crossed an address space change. */
	int pending;
	uint64_t pending_prev;
	size_t pending_epoch;
	/* What went wrong. */
	uint64_t errors, error_bytes, error_messages;
	uint64_t bad_blocks;
	char bad_example[160];
	int nomem;
};

/* ----- Counting --------------------------------------------------------- */

static size_t acc_slot(uint64_t prev, uint64_t ip, uint32_t ninsn, size_t mask)
{
	uint64_t h = ip * 0x9e3779b97f4a7c15ull ^ prev * 0xc2b2ae3d27d4eb4full ^ ninsn;

	h ^= h >> 29;
	return (size_t)h & mask;
}

static int acc_grow(struct stream_ctx *s)
{
	size_t size = s->mask ? (s->mask + 1) * 2 : 4096;
	struct acc_entry *table = calloc(size, sizeof(*table));

	if (!table)
		return -1;
	for (size_t k = 0; s->table && k <= s->mask; k++) {
		struct acc_entry *e = &s->table[k];
		size_t i;

		if (!e->ninsn)
			continue;
		for (i = acc_slot(e->prev, e->ip, e->ninsn, size - 1); table[i].ninsn;
		     i = (i + 1) & (size - 1))
			;
		table[i] = *e;
	}
	free(s->table);
	s->table = table;
	s->mask = size - 1;
	return 0;
}

static inline void acc_add_count(struct stream_ctx *s, uint64_t prev, uint64_t ip, uint64_t end,
				 uint32_t ninsn, uint64_t count)
{
	size_t i = acc_slot(prev, ip, ninsn, s->mask);

	for (;;) {
		struct acc_entry *e = &s->table[i];

		if (e->ip == ip && e->prev == prev && e->ninsn == ninsn) {
			e->count += count;
			return;
		}
		if (!e->ninsn)
			break;
		i = (i + 1) & s->mask;
	}
	s->table[i] = (struct acc_entry){ prev, ip, end, ninsn, 0, count };
	if (++s->used * 2 > s->mask && acc_grow(s) < 0)
		s->nomem = 1;
}

static void held_flush(struct stream_ctx *s)
{
	if (s->held.ninsn)
		acc_add_count(s, s->held.prev, s->held.ip, s->held.end, s->held.ninsn, 1);
	s->held.ninsn = 0;
}

/* ----- Turning counts into profile entries ------------------------------ */

static uint64_t file_offset(const struct hwt_mapping *m, uint64_t ip)
{
	return ip - m->start + m->pgoff;
}

/* Decodes the instruction at ip of mapping m. Returns its length or < 0. */
static int decode_at(const struct hwt_mapping *m, uint64_t ip, struct hwt_x86_insn *insn)
{
	const struct hwt_file *f = m->file;
	uint64_t off = file_offset(m, ip);
	uint64_t avail;

	if (f->state != hwt_file_ok || off >= f->elf.size)
		return -1;
	avail = f->elf.size - off;
	if (avail > m->end - ip)
		avail = m->end - ip;
	return hwt_x86_insn_decode(f->elf.data + off, (size_t)avail, insn);
}

static void bad_block(struct stream_ctx *s, uint64_t ip, uint32_t ninsn, uint64_t at,
		      const char *what)
{
	if (!s->bad_blocks++)
		snprintf(s->bad_example, sizeof(s->bad_example),
			 "block at 0x%" PRIx64 " (%" PRIu32 " instructions): %s at 0x%" PRIx64,
			 ip, ninsn, what, at);
}

static void add_edge(struct stream_ctx *s, const struct hwt_mapping *from, uint64_t from_ip,
		     const struct hwt_mapping *to, uint64_t to_ip, uint32_t kind, uint64_t count)
{
	struct hwt_profile_edge e;

	if (from->file->trace_unit || to->file->trace_unit || from->file->image < 0 ||
	    to->file->image < 0)
		return;
	e.from_image = (uint32_t)from->file->image;
	e.to_image = (uint32_t)to->file->image;
	e.from = file_offset(from, from_ip);
	e.to = file_offset(to, to_ip);
	e.kind = kind;
	e.count = count;
	if (hwt_profile_add_edge(s->d->profile, &e) == -hpe_nomem)
		s->nomem = 1;
}

/*
 * Adds a libipt block (ip, ninsn instructions, last at end) that ran count
 * times: its straight-line runs and the direct jumps and calls between them.
 */
static void walk_block(struct stream_ctx *s, const struct hwt_epoch *epoch, uint64_t ip,
		       uint32_t ninsn, uint64_t end, uint64_t count)
{
	const struct hwt_mapping *m = hwt_epoch_find(epoch, ip);
	uint64_t begin = ip;
	uint32_t run = 0;

	if (!m || m->file->state != hwt_file_ok) {
		bad_block(s, ip, ninsn, ip, "no readable mapping");
		return;
	}
	if (m->file->trace_unit)
		return; /* decoded through, never reported */
	for (uint32_t k = 0; k < ninsn; k++) {
		struct hwt_x86_insn insn;
		int len;

		if (ip < m->start || ip >= m->end) {
			bad_block(s, begin, ninsn, ip, "leaves its mapping");
			return;
		}
		len = decode_at(m, ip, &insn);
		if (len < 0) {
			bad_block(s, begin, ninsn, ip, "undecodable instruction");
			return;
		}
		run++;
		if (k + 1 == ninsn) {
			if (ip != end) {
				bad_block(s, begin, ninsn, ip, "ends elsewhere than libipt says");
				return;
			}
			break;
		}
		if ((insn.branch == HWT_X86_JUMP || insn.branch == HWT_X86_CALL) &&
		    (insn.flags & HWT_X86_HAS_TARGET)) {
			uint64_t target = hwt_x86_insn_target(&insn, ip);
			const struct hwt_mapping *tm = hwt_epoch_find(epoch, target);

			if (!tm || tm->file->state != hwt_file_ok || tm->file->trace_unit) {
				bad_block(s, begin, ninsn, ip, "direct branch out of readable code");
				return;
			}
			if (hwt_profile_add_block(s->d->profile, (size_t)m->file->image,
						  file_offset(m, begin), file_offset(m, ip), run,
						  count) == -hpe_nomem)
				s->nomem = 1;
			add_edge(s, m, ip, tm, target,
				 insn.branch == HWT_X86_JUMP ? hwt_edge_jump : hwt_edge_call, count);
			m = tm;
			begin = ip = target;
			run = 0;
			continue;
		}
		if (insn.branch != HWT_X86_OTHER) {
			bad_block(s, begin, ninsn, ip, "branch inside a block");
			return;
		}
		ip += (uint64_t)len;
	}
	if (run && hwt_profile_add_block(s->d->profile, (size_t)m->file->image,
					 file_offset(m, begin), file_offset(m, ip), run,
					 count) == -hpe_nomem)
		s->nomem = 1;
}

/* Adds the transition from the instruction at prev to ip (the next block). */
static void transition(struct stream_ctx *s, const struct hwt_epoch *from_epoch, uint64_t prev,
		       const struct hwt_epoch *to_epoch, uint64_t ip, uint64_t count)
{
	const struct hwt_mapping *from = hwt_epoch_find(from_epoch, prev);
	const struct hwt_mapping *to = hwt_epoch_find(to_epoch, ip);
	struct hwt_x86_insn insn;
	uint64_t next;
	uint32_t kind;
	int len;

	if (!from || !to || from->file->state != hwt_file_ok || to->file->state != hwt_file_ok)
		return;
	len = decode_at(from, prev, &insn);
	if (len < 0)
		return;
	next = prev + (uint64_t)len;
	switch (insn.branch) {
	case HWT_X86_COND:
		if (ip == next)
			kind = hwt_edge_cond_not_taken;
		else if (ip == hwt_x86_insn_target(&insn, prev))
			kind = hwt_edge_cond_taken;
		else
			kind = hwt_edge_far; /* went elsewhere: an asynchronous event */
		break;
	case HWT_X86_JUMP:
		kind = hwt_edge_jump;
		break;
	case HWT_X86_CALL:
		kind = hwt_edge_call;
		break;
	case HWT_X86_JUMP_INDIRECT:
		kind = hwt_edge_indirect_jump;
		break;
	case HWT_X86_CALL_INDIRECT:
		kind = hwt_edge_indirect_call;
		break;
	case HWT_X86_RETURN:
		kind = hwt_edge_return;
		break;
	case HWT_X86_FAR:
		kind = hwt_edge_far;
		break;
	default:
		if (ip == next)
			return; /* a block cut short (length limit, section end): no transfer */
		kind = hwt_edge_far;
		break;
	}
	add_edge(s, from, prev, to, ip, kind, count);
}

/*
 * Whether block b continues the held block: libipt ended that one before
 * a transfer that needs trace (while filling its block cache it ends
 * blocks at code it has cached, after direct calls and backward jumps; it
 * may end one where a PSB+ binds), in the same section, with nothing
 * between them (prev is the held block's end). The two are counted as the
 * one block libipt decodes there once its cache holds the code, so that
 * counts do not depend on what libipt had cached.
 */
static int continues(struct stream_ctx *s, uint64_t prev, const struct pt_block *b)
{
	const struct held_block *h = &s->held;
	const struct hwt_mapping *m;
	struct hwt_x86_insn insn;
	int len;

	if (!h->ninsn || !prev || prev != h->end || b->isid != h->isid)
		return 0;
	switch (h->iclass) {
	case ptic_cond_jump:
	case ptic_return:
	case ptic_far_call:
	case ptic_far_return:
	case ptic_far_jump:
		return 0;
	default:
		break;
	}
	m = hwt_epoch_find(&s->space->epochs[s->epoch], h->end);
	if (!m || (len = decode_at(m, h->end, &insn)) < 0)
		return 0;
	if (insn.branch == HWT_X86_OTHER)
		return b->ip == h->end + (uint64_t)len;
	if ((insn.branch == HWT_X86_JUMP || insn.branch == HWT_X86_CALL) &&
	    (insn.flags & HWT_X86_HAS_TARGET))
		return b->ip == hwt_x86_insn_target(&insn, h->end);
	return 0;
}

/* Counts block b after prev (held back until the next block is known). */
static void block_add(struct stream_ctx *s, uint64_t prev, const struct pt_block *b)
{
	struct held_block *h = &s->held;

	if (continues(s, prev, b)) {
		h->end = b->end_ip;
		h->ninsn += b->ninsn;
		h->iclass = b->iclass;
		return;
	}
	held_flush(s);
	*h = (struct held_block){ prev, b->ip, b->end_ip, b->ninsn, b->isid, b->iclass };
}

static int acc_cmp(const void *pa, const void *pb)
{
	const struct acc_entry *a = pa, *b = pb;

	if (a->ip != b->ip)
		return a->ip < b->ip ? -1 : 1;
	if (a->ninsn != b->ninsn)
		return a->ninsn < b->ninsn ? -1 : 1;
	if (a->prev != b->prev)
		return a->prev < b->prev ? -1 : 1;
	return 0;
}

/* Moves the counts of the table (in the current epoch) into the profile. */
static void flush(struct stream_ctx *s)
{
	const struct hwt_epoch *epoch = &s->space->epochs[s->epoch];
	size_t n = 0;

	held_flush(s);
	if (!s->used)
		return;
	/* Compact the used slots to the front and sort them by block. */
	for (size_t k = 0; k <= s->mask; k++)
		if (s->table[k].ninsn)
			s->table[n++] = s->table[k];
	qsort(s->table, n, sizeof(*s->table), acc_cmp);
	for (size_t k = 0; k < n;) {
		size_t j = k;
		uint64_t total = 0;

		while (j < n && s->table[j].ip == s->table[k].ip &&
		       s->table[j].ninsn == s->table[k].ninsn)
			total += s->table[j++].count;
		walk_block(s, epoch, s->table[k].ip, s->table[k].ninsn, s->table[k].end, total);
		for (; k < j; k++)
			if (s->table[k].prev)
				transition(s, epoch, s->table[k].prev, epoch, s->table[k].ip,
					   s->table[k].count);
	}
	memset(s->table, 0, (s->mask + 1) * sizeof(*s->table));
	s->used = 0;
}

static void report_bad_blocks(struct stream_ctx *s)
{
	if (s->bad_blocks)
		hwt_decode_diag(s->d, hwt_diag_stream, s->stream->path, -1,
				    "%" PRIu64 " decoded blocks do not match the code in the "
				    "image files and were not counted, e.g. %s",
				    s->bad_blocks, s->bad_example);
}

/* ----- Address space changes -------------------------------------------- */

static int set_epoch(struct stream_ctx *s, struct pt_block_decoder *dec, size_t epoch)
{
	struct pt_image *image = hwt_epoch_image(s->d, &s->space->epochs[epoch]);

	if (!image)
		return -1;
	s->epoch = epoch;
	s->next_time = epoch + 1 < s->space->count ? s->space->epochs[epoch + 1].time : UINT64_MAX;
	return pt_blk_set_image(dec, image) < 0 ? -1 : 0;
}

/* Applies the records up to time: flushes the counts of the old epoch. */
static int advance_epoch(struct stream_ctx *s, struct pt_block_decoder *dec, uint64_t time,
			 uint64_t *prev)
{
	size_t e = s->epoch;

	while (e + 1 < s->space->count && s->space->epochs[e + 1].time <= time)
		e++;
	if (e == s->epoch)
		return 0;
	flush(s);
	if (*prev) {
		s->pending = 1;
		s->pending_prev = *prev;
		s->pending_epoch = s->epoch;
		*prev = 0;
	}
	return set_epoch(s, dec, e);
}

/* ----- Errors ----------------------------------------------------------- */

/* Where decoding stopped: the file to blame, or NULL. */
static struct hwt_file *blame(struct stream_ctx *s, uint64_t ip)
{
	const struct hwt_mapping *m;

	if (!ip)
		return NULL;
	m = hwt_epoch_find(&s->space->epochs[s->epoch], ip);
	if (!m || m->file->state == hwt_file_ok)
		return NULL;
	return m->file;
}

/* The address the decoder failed at, when the error says so. */
static uint64_t error_ip(struct stream_ctx *s, const struct pt_block *b)
{
	const struct hwt_mapping *m;
	struct hwt_x86_insn insn;
	int len;

	if (!b->ninsn)
		return b->ip;
	m = hwt_epoch_find(&s->space->epochs[s->epoch], b->end_ip);
	if (!m)
		return 0;
	len = decode_at(m, b->end_ip, &insn);
	return len > 0 && insn.branch == HWT_X86_OTHER ? b->end_ip + (uint64_t)len : 0;
}

static void describe_ip(struct stream_ctx *s, uint64_t ip, char *out, size_t size)
{
	const struct hwt_mapping *m = ip ? hwt_epoch_find(&s->space->epochs[s->epoch], ip) : NULL;

	if (!ip)
		snprintf(out, size, "ip unknown");
	else if (!m)
		snprintf(out, size, "ip 0x%" PRIx64 ", no mapping there", ip);
	else
		snprintf(out, size, "ip 0x%" PRIx64 " in %s+0x%" PRIx64, ip,
			 m->file->path[0] ? m->file->path : "anonymous code", file_offset(m, ip));
}

/* ----- The loop --------------------------------------------------------- */

struct error_state {
	int pending;
	int status;
	uint64_t offset;
	uint64_t ip;
	struct hwt_file *file;
};

/* Accounts the bytes from an error to where decoding resumed (or the end). */
static void error_resolved(struct stream_ctx *s, struct error_state *err, uint64_t resumed,
			   int at_end)
{
	uint64_t skipped = resumed > err->offset ? resumed - err->offset : 0;
	char where[256];

	if (!err->pending)
		return;
	err->pending = 0;
	s->errors++;
	s->error_bytes += skipped;
	s->d->stats.errors++;
	s->d->stats.error_bytes += skipped;
	if (err->file) {
		hwt_file_failed(s->d, err->file, s->stream, skipped);
		return; /* reported once per file at the end */
	}
	if (s->error_messages++ >= MAX_ERROR_MESSAGES)
		return;
	if (err->status == -pte_eos) {
		hwt_decode_diag(s->d, hwt_diag_stream, s->stream->path,
				    (int64_t)err->offset,
				    "the stream ends inside a packet at offset 0x%" PRIx64
				    " (%" PRIu64 " bytes not decoded): cut while recording?",
				    err->offset, skipped);
		return;
	}
	describe_ip(s, err->ip, where, sizeof(where));
	hwt_decode_diag(s->d, hwt_diag_stream, s->stream->path, (int64_t)err->offset,
			    "decode error at offset 0x%" PRIx64 " (%s): %s; %s %" PRIu64
			    " trace bytes skipped",
			    err->offset, where,
			    pt_errstr(pt_errcode(err->status)),
			    at_end ? "no PSB after it," : "resynced at the next PSB,", skipped);
}

static int pt_decode(struct hwt_decoder *d, const struct hwt_bundle_stream *stream,
		     struct hwt_space *space)
{
	struct stream_ctx s = { 0 };
	struct error_state err = { 0 };
	struct pt_block_decoder *dec = NULL;
	struct pt_config config;
	uint64_t last_sync = UINT64_MAX, end_offset = 0, prev = 0;
	uint64_t blocks = 0, insns = 0;
	size_t size;
	uint8_t *buf;
	int status, enabled = 0;

	s.d = d;
	s.stream = stream;
	s.space = space;
	buf = hwt_stream_map(stream->path, &size);
	if (!buf) {
		if (stream->size)
			hwt_decode_diag(d, hwt_diag_stream, stream->path, -1,
					    "cannot read the stream: %s", strerror(errno));
		return 0;
	}
	d->stats.streams++;
	d->stats.trace_bytes += size;
	config = d->pt;
	config.begin = buf;
	config.end = buf + size;
	dec = pt_blk_alloc_decoder(&config);
	if (!dec || acc_grow(&s) < 0 || set_epoch(&s, dec, 0) < 0) {
		s.nomem = 1;
		goto out;
	}

	for (;;) {
		status = pt_blk_sync_forward(dec);
		if (status < 0) {
			uint64_t off = 0;

			if (status == -pte_eos)
				break;
			/* A PSB whose PSB+ does not decode: look for the next one. */
			pt_blk_get_sync_offset(dec, &off);
			if (off == last_sync)
				break;
			last_sync = off;
			if (!err.pending) {
				err.pending = 1;
				err.status = status;
				err.offset = off;
				err.ip = 0;
				err.file = NULL;
			}
			continue;
		}
		pt_blk_get_sync_offset(dec, &last_sync);
		error_resolved(&s, &err, last_sync, 0);
		enabled = !(status & pts_ip_suppressed);
		prev = 0;
		for (;;) {
			struct pt_block block;

			while (status & pts_event_pending) {
				struct pt_event ev;

				status = pt_blk_event(dec, &ev, sizeof(ev));
				if (status < 0)
					break;
				switch (ev.type) {
				case ptev_enabled:
					enabled = 1;
					prev = 0;
					break;
				case ptev_disabled:
				case ptev_async_disabled:
					enabled = 0;
					prev = 0;
					break;
				case ptev_async_branch:
					prev = 0;
					break;
				case ptev_overflow:
					d->stats.overflows++;
					prev = 0;
					hwt_decode_diag(d, hwt_diag_stream, stream->path, -1,
							    "trace overflow: the trace unit dropped trace, "
							    "counts are low");
					break;
				default:
					break;
				}
			}
			if (status < 0 || (status & pts_eos))
				break;
			if (s.next_time != UINT64_MAX) {
				uint64_t tsc = 0;
				uint32_t lost_mtc, lost_cyc;

				if (pt_blk_time(dec, &tsc, &lost_mtc, &lost_cyc) >= 0 &&
				    tsc >= s.next_time && advance_epoch(&s, dec, tsc, &prev) < 0) {
					s.nomem = 1;
					goto out;
				}
			}
			block.ip = 0;
			block.ninsn = 0;
			status = pt_blk_next(dec, &block, sizeof(block));
			if (block.ninsn) {
				block_add(&s, prev, &block);
				if (s.pending) {
					s.pending = 0;
					transition(&s, &space->epochs[s.pending_epoch], s.pending_prev,
						   &space->epochs[s.epoch], block.ip, 1);
				}
				prev = block.end_ip;
				insns += block.ninsn;
				if (!(++blocks & 0xffff)) {
					uint64_t off = 0;

					pt_blk_get_offset(dec, &off);
					hwt_decode_progress(d, d->done_bytes + off);
					if (s.nomem)
						goto out;
				}
			}
			if (status < 0) {
				if (status != -pte_eos) {
					err.pending = 1;
					err.status = status;
					err.offset = 0;
					pt_blk_get_offset(dec, &err.offset);
					err.ip = status == -pte_nomap ? error_ip(&s, &block) : 0;
					err.file = blame(&s, err.ip);
				}
				break;
			}
		}
		if (status == -pte_eos || (status >= 0 && (status & pts_eos))) {
			pt_blk_get_offset(dec, &end_offset);
			if (status == -pte_eos && !err.pending) {
				/* Not an error where the trace simply ends; a cut packet is. */
				if (end_offset < size) {
					err.pending = 1;
					err.status = -pte_eos;
					err.offset = end_offset;
					err.ip = 0;
					err.file = NULL;
				}
			}
		}
	}
	error_resolved(&s, &err, size, 1);
	if (enabled && !s.errors)
		hwt_decode_diag(d, hwt_diag_stream, stream->path, (int64_t)end_offset,
				    "the trace ends at offset 0x%" PRIx64 " while tracing was enabled: "
				    "the stream was cut (recorder killed?) or the thread was killed",
				    end_offset);
	flush(&s);
out:
	if (s.nomem)
		d->nomem = 1;
	d->stats.blocks += blocks;
	d->stats.insns += insns;
	if (s.error_messages > MAX_ERROR_MESSAGES)
		hwt_decode_diag(d, hwt_diag_stream, stream->path, -1,
				    "%" PRIu64 " more decode errors not listed (%" PRIu64
				    " decode errors in all, %" PRIu64 " trace bytes skipped)",
				    s.error_messages - MAX_ERROR_MESSAGES, s.errors,
				    s.error_bytes);
	report_bad_blocks(&s);
	pt_blk_free_decoder(dec);
	free(s.table);
	munmap(buf, size);
	d->done_bytes += size;
	hwt_decode_progress(d, d->done_bytes);
	return s.nomem ? -hbe_nomem : 0;
}

/* ----- Counts of the edge decoder (edge/) ------------------------------- */

int hwt_pt_counts_add(struct hwt_decoder *d, const struct hwt_bundle_stream *stream,
		      struct hwt_space *space, struct hwt_pt_block_count *const *counts,
		      const size_t *sizes, const size_t *epochs, size_t n,
		      const struct hwt_pt_crossing *crossings, size_t ncrossings)
{
	struct stream_ctx s = { 0 };

	s.d = d;
	s.stream = stream;
	s.space = space;
	if (acc_grow(&s) < 0)
		return -hbe_nomem;
	for (size_t k = 0; k < n && !s.nomem; k++) {
		s.epoch = epochs[k];
		for (size_t i = 0; i < sizes[k] && !s.nomem; i++) {
			const struct hwt_pt_block_count *c = &counts[k][i];
			acc_add_count(&s, c->prev, c->ip, c->end, c->ninsn, c->count);
		}
		flush(&s);
	}
	for (size_t k = 0; k < ncrossings; k++)
		transition(&s, &space->epochs[crossings[k].from_epoch], crossings[k].prev,
			   &space->epochs[crossings[k].to_epoch], crossings[k].ip, 1);
	report_bad_blocks(&s);
	free(s.table);
	return s.nomem ? -hbe_nomem : 0;
}

const struct hwt_trace_decoder hwt_pt_decoder = {
	.name = "intel-pt",
	.decode_stream = pt_decode,
};
