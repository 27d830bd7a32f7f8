/*
 * One stream: libipt's block decoder over the PT packets of one thread, in
 * the address space of its process image as it was at each point in time,
 * handed to a consumer in execution order (hwt_flow.h): the profile
 * accumulator (flow_profile.c) unless the options name another.
 *
 * A libipt block may run through direct jumps and calls (libipt follows
 * them); it always ends at a conditional branch, an indirect branch, a
 * return or a far transfer. Walking it with the classifier splits it into
 * straight-line blocks joined by jump and call steps. That walk is done
 * once per distinct libipt block and address space (a chain, kept in a
 * table keyed by {first instruction, instruction count}), so the per-block
 * cost of the hot loop is one probe and a few stores.
 *
 * What every producer does alike (epochs, events, errors, stats) is the
 * flow producer's (flow_producer.c); this file keeps what is libipt's.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "flow_producer.h"
#include "x86_insn.h"

/* A libipt block of the current address space, split into flow blocks. */
struct chain {
	uint64_t ip;                         /* first instruction; key */
	uint64_t target;                     /* last instruction's direct target, 0: none */
	const struct hwt_flow_block *blocks; /* NULL: empty slot */
	uint32_t ninsn;                      /* key */
	uint32_t count;
};

struct stream_ctx {
	struct hwt_flow_producer p;  /* the flow, its epoch, what went wrong */
	struct pt_block_decoder *dec;
	/* The trace libipt reads: mapped, or its user-mode part (kernel_cut.c). */
	uint8_t *buf;
	size_t size;
	int cut;
	uint64_t last_sync;          /* offset of the last PSB, UINT64_MAX: none yet */
	int synced;                  /* a PSB was found */
	uint64_t end_offset;         /* where the trace ended */
	/* Chains of the current epoch. */
	struct chain *chains;
	size_t mask;
	struct hwt_slot_list used;     /* slots of chains */
	struct hwt_flow_block *split;  /* a chain being walked */
	size_t split_capacity;
	uint64_t last_target;        /* of p.last's last instruction */
	/* An interrupt seen as tracing off at async_at (FUP, TIP.PGD): the
	   block before it, kept for when tracing comes back on there. */
	const struct hwt_flow_block *async_last;
	uint64_t async_target, async_at;
};

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

/* ----- Handing out ------------------------------------------------------ */

/* How a block at ip is entered from prev, whose last instruction has target. */
static uint32_t entry_kind(const struct hwt_flow_block *prev, uint64_t target, uint64_t ip)
{
	uint32_t kind = hwt_flow_exit_kind(prev->exit);

	if (kind != hwt_flow_kind_count)
		return kind;
	if (prev->exit == hwt_flow_exit_cond) {
		if (ip == prev->vnext)
			return hwt_flow_cond_not_taken;
		return ip == target ? hwt_flow_cond_taken : hwt_flow_far;
	}
	/* Cut short (length limit, section end), or an asynchronous event. */
	return ip == prev->vnext ? hwt_flow_next : hwt_flow_far;
}

static inline void emit_chain(struct stream_ctx *s, const struct chain *c)
{
	for (uint32_t i = 0; i < c->count; i++) {
		const struct hwt_flow_block *b = &c->blocks[i];
		uint32_t kind;

		if (i)
			kind = c->blocks[i - 1].exit == hwt_flow_exit_call ? hwt_flow_call
									   : hwt_flow_jump;
		else if (s->p.last)
			kind = entry_kind(s->p.last, s->last_target, b->vaddr);
		else
			kind = s->p.started ? s->p.next_kind : hwt_flow_start;
		hwt_flow_out_step(&s->p.out, b, kind);
	}
	s->p.started = 1;
	s->p.last = &c->blocks[c->count - 1];
	s->last_target = c->target;
}

/* ----- Chains ----------------------------------------------------------- */

static size_t chain_slot(uint64_t ip, uint32_t ninsn, size_t mask)
{
	uint64_t h = ip * 0x9e3779b97f4a7c15ull ^ ninsn;

	h ^= h >> 29;
	return (size_t)h & mask;
}

static int chains_grow(struct stream_ctx *s)
{
	size_t size = s->mask ? (s->mask + 1) * 2 : 4096;
	struct chain *table = hwt_table_calloc(size, sizeof(*table));

	if (!table)
		return -1;
	for (size_t k = 0; k < s->used.count; k++) {
		struct chain *c = &s->chains[s->used.items[k]];
		size_t i;

		for (i = chain_slot(c->ip, c->ninsn, size - 1); table[i].blocks; i = (i + 1) & (size - 1))
			;
		table[i] = *c;
		s->used.items[k] = i;
	}
	free(s->chains);
	s->chains = table;
	s->mask = size - 1;
	return 0;
}

/* Forgets the chains (of the epoch that ended). */
static void chains_clear(struct stream_ctx *s)
{
	for (size_t k = 0; k < s->used.count; k++)
		s->chains[s->used.items[k]].blocks = NULL;
	s->used.count = 0;
}

static struct hwt_flow_block *split_next(struct stream_ctx *s, size_t n)
{
	if (n >= s->split_capacity) {
		size_t capacity = s->split_capacity ? 2 * s->split_capacity : 16;
		void *p = realloc(s->split, capacity * sizeof(*s->split));

		if (!p)
			return NULL;
		s->split = p;
		s->split_capacity = capacity;
	}
	return &s->split[n];
}

static void bad_block(struct stream_ctx *s, uint64_t ip, uint32_t ninsn, uint64_t at,
		      const char *what)
{
	hwt_flow_producer_bad_block(&s->p, "block at 0x%" PRIx64 " (%" PRIu32 " instructions): "
				    "%s at 0x%" PRIx64, ip, ninsn, what, at);
}

static uint32_t exit_class(const struct hwt_x86_insn *insn)
{
	return insn->branch <= HWT_X86_FAR ? insn->branch : hwt_flow_exit_other;
}

/* The exit of a block that was not walked: its last instruction, as read. */
static void set_exit(const struct hwt_epoch *epoch, struct hwt_flow_block *b, uint64_t *target)
{
	const struct hwt_mapping *m = hwt_epoch_find(epoch, b->vend);
	struct hwt_x86_insn insn;
	int len = m ? decode_at(m, b->vend, &insn) : -1;

	*target = 0;
	b->vnext = b->vend + 1;
	b->exit = hwt_flow_exit_unknown;
	if (len < 0)
		return;
	b->vnext = b->vend + (uint64_t)len;
	b->exit = exit_class(&insn);
	if (insn.flags & HWT_X86_HAS_TARGET)
		*target = hwt_x86_insn_target(&insn, b->vend);
}

/* A block that does not decode as libipt says; the trace unit's own code
   is decoded through and never reported, whatever it holds. */
static void walk_bad(struct stream_ctx *s, int unit, uint64_t ip, uint32_t ninsn, uint64_t at,
		     const char *what)
{
	if (!unit)
		bad_block(s, ip, ninsn, at, what);
}

static uint32_t unit_flag(const struct hwt_mapping *m)
{
	return m->file->trace_unit ? HWT_FLOW_BLOCK_TRACE_UNIT : 0;
}

/* s->split[n]: run instructions of m from begin to the one at end (len bytes). */
static int put_block(struct stream_ctx *s, size_t n, const struct hwt_mapping *m, uint64_t begin,
		     uint64_t end, int len, uint32_t run, const struct hwt_x86_insn *last)
{
	struct hwt_flow_block *b = split_next(s, n);

	if (!b)
		return -1;
	*b = (struct hwt_flow_block){ begin, end, end + (uint64_t)len, file_offset(m, begin),
				      file_offset(m, end), m->file->image, run, unit_flag(m),
				      exit_class(last), 0 };
	return 0;
}

/*
 * Splits the libipt block {ip, ninsn, end} into s->split. Returns the
 * number of blocks, or 0 when the code does not match (one unreadable
 * block then); -1 when out of memory. *target: the last instruction's.
 * *one_mapping: whether it read the mapping at ip only.
 */
static long walk(struct stream_ctx *s, const struct hwt_epoch *epoch, uint64_t ip, uint32_t ninsn,
		 uint64_t end, uint64_t *target, int *one_mapping)
{
	const struct hwt_mapping *m = hwt_epoch_find(epoch, ip);
	uint64_t begin = ip;
	uint32_t run = 0;
	long n = 0;

	int unit = m && m->file->trace_unit;

	*target = 0;
	*one_mapping = 1;
	if (!m || m->file->state != hwt_file_ok) {
		bad_block(s, ip, ninsn, ip, "no readable mapping");
		return 0;
	}
	for (uint32_t k = 0; k < ninsn; k++) {
		struct hwt_x86_insn insn;
		int len;

		if (ip < m->start || ip >= m->end) {
			walk_bad(s, unit, begin, ninsn, ip, "leaves its mapping");
			return 0;
		}
		len = decode_at(m, ip, &insn);
		if (len < 0) {
			walk_bad(s, unit, begin, ninsn, ip, "undecodable instruction");
			return 0;
		}
		run++;
		if (k + 1 == ninsn) {
			if (ip != end) {
				walk_bad(s, unit, begin, ninsn, ip, "ends elsewhere than libipt says");
				return 0;
			}
			if (put_block(s, (size_t)n, m, begin, ip, len, run, &insn) < 0)
				return -1;
			if (insn.flags & HWT_X86_HAS_TARGET)
				*target = hwt_x86_insn_target(&insn, ip);
			return n + 1;
		}
		if ((insn.branch == HWT_X86_JUMP || insn.branch == HWT_X86_CALL) &&
		    (insn.flags & HWT_X86_HAS_TARGET)) {
			uint64_t to = hwt_x86_insn_target(&insn, ip);
			const struct hwt_mapping *tm = hwt_epoch_find(epoch, to);

			/* Code of the trace unit calls its own, never the program's. */
			if (!tm || tm->file->state != hwt_file_ok ||
			    tm->file->trace_unit != m->file->trace_unit) {
				walk_bad(s, unit, begin, ninsn, ip, "direct branch out of readable code");
				return 0;
			}
			if (put_block(s, (size_t)n, m, begin, ip, len, run, &insn) < 0)
				return -1;
			n++;
			if (tm != m)
				*one_mapping = 0;
			m = tm;
			begin = ip = to;
			run = 0;
			continue;
		}
		if (insn.branch != HWT_X86_OTHER) {
			walk_bad(s, unit, begin, ninsn, ip, "branch inside a block");
			return 0;
		}
		ip += (uint64_t)len;
	}
	return 0; /* ninsn == 0: not handed here */
}

/* A chain as walk() splits it in one mapping, its addresses relative to the
   mapping's bias (code_cache.c): the same in every process that maps it. */
struct chain_shape {
	uint64_t target;          /* relative; when has_target */
	uint32_t has_target, count;
	struct hwt_flow_block blocks[];
};

/* walk() through the decoder's code cache; as walk() returns. */
static long walk_cached(struct stream_ctx *s, const struct hwt_epoch *epoch,
			const struct hwt_mapping *m, uint64_t ip, uint32_t ninsn, uint64_t end,
			uint64_t *target)
{
	struct hwt_code_key key;
	const struct chain_shape *shape;
	struct chain_shape *added;
	uint64_t bias;
	int one_mapping;
	long n;

	if (!m || m->file->state != hwt_file_ok)
		return walk(s, epoch, ip, ninsn, end, target, &one_mapping);
	bias = hwt_code_bias(m);
	key = hwt_code_key(m, ip, hwt_code_chain, ninsn);
	shape = hwt_code_find(s->p.d, &key);
	if (shape && shape->blocks[shape->count - 1].vend + bias == end) {
		if (!split_next(s, shape->count - 1))
			return -1;
		for (uint32_t k = 0; k < shape->count; k++) {
			struct hwt_flow_block *b = &s->split[k];

			*b = shape->blocks[k];
			b->vaddr += bias;
			b->vend += bias;
			b->vnext += bias;
		}
		*target = shape->has_target ? shape->target + bias : 0;
		return shape->count;
	}
	n = walk(s, epoch, ip, ninsn, end, target, &one_mapping);
	if (n <= 0 || !one_mapping)
		return n; /* what does not match is reported each time */
	added = hwt_code_add(s->p.d, &key, sizeof(*added) + (size_t)n * sizeof(added->blocks[0]));
	if (!added)
		return n;
	added->target = *target - bias;
	added->has_target = *target != 0;
	added->count = (uint32_t)n;
	for (long k = 0; k < n; k++) {
		struct hwt_flow_block *b = &added->blocks[k];

		*b = s->split[k];
		b->vaddr -= bias;
		b->vend -= bias;
		b->vnext -= bias;
	}
	return n;
}

/* The chain of a libipt block in the current epoch (made on first sight), or NULL. */
static const struct chain *chain_of(struct stream_ctx *s, uint64_t ip, uint32_t ninsn,
				    uint64_t end)
{
	const struct hwt_epoch *epoch = &s->p.space->epochs[s->p.epoch];
	size_t i = chain_slot(ip, ninsn, s->mask);
	const struct hwt_mapping *m;
	struct hwt_flow_block *blocks;
	struct chain *c;
	uint64_t target = 0;
	long n;

	for (;; i = (i + 1) & s->mask) {
		c = &s->chains[i];
		if (!c->blocks)
			break;
		if (c->ip == ip && c->ninsn == ninsn)
			return c;
	}
	if (!split_next(s, 0))
		return NULL;
	m = hwt_epoch_find(epoch, ip);
	n = walk_cached(s, epoch, m, ip, ninsn, end, &target);
	if (n < 0)
		return NULL;
	if (n == 0) {
		/* Trace unit code is decoded through whatever it holds. */
		int unit = m && m->file->state == hwt_file_ok && m->file->trace_unit;

		n = 1;
		s->split[0] = (struct hwt_flow_block){ ip, end, 0,
						       unit ? file_offset(m, ip) : 0,
						       unit ? file_offset(m, end) : 0,
						       unit ? m->file->image : -1, ninsn,
						       unit ? HWT_FLOW_BLOCK_TRACE_UNIT
							    : HWT_FLOW_BLOCK_UNREADABLE,
						       0, 0 };
		set_exit(epoch, &s->split[0], &target);
	}
	blocks = hwt_flow_out_blocks(&s->p.out, (size_t)n);
	if (!blocks)
		return NULL;
	memcpy(blocks, s->split, (size_t)n * sizeof(*blocks));
	for (long k = 0; k < n; k++)
		blocks[k].id = s->p.out.block_count++;
	if (hwt_slot_list_add(&s->used, (size_t)(c - s->chains)) < 0)
		return NULL;
	*c = (struct chain){ ip, target, blocks, ninsn, (uint32_t)n };
	if (s->used.count * 2 > s->mask) {
		if (chains_grow(s) < 0)
			return NULL;
		/* c moved; find it again (it is there now). */
		return chain_of(s, ip, ninsn, end);
	}
	return c;
}

/* ----- Address space changes -------------------------------------------- */

/* libipt reads the code of the current epoch. */
static int set_image(struct stream_ctx *s)
{
	struct pt_image *image = hwt_epoch_image(s->p.d, &s->p.space->epochs[s->p.epoch]);

	return image && pt_blk_set_image(s->dec, image) >= 0 ? 0 : -1;
}

/* Applies the records up to time: the chains of the old epoch are forgotten. */
static int advance_epoch(struct stream_ctx *s, uint64_t time)
{
	if (!hwt_flow_producer_epoch(&s->p, time))
		return 0;
	chains_clear(s);
	return set_image(s);
}

/* ----- Errors ----------------------------------------------------------- */

/* Where decoding stopped: the file to blame, or NULL. */
static struct hwt_file *blame(struct stream_ctx *s, uint64_t ip)
{
	const struct hwt_mapping *m;

	if (!ip)
		return NULL;
	m = hwt_epoch_find(&s->p.space->epochs[s->p.epoch], ip);
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
	m = hwt_epoch_find(&s->p.space->epochs[s->p.epoch], b->end_ip);
	if (!m)
		return 0;
	len = decode_at(m, b->end_ip, &insn);
	return len > 0 && insn.branch == HWT_X86_OTHER ? b->end_ip + (uint64_t)len : 0;
}

static void describe_ip(struct stream_ctx *s, uint64_t ip, char *out, size_t size)
{
	const struct hwt_mapping *m = ip ? hwt_epoch_find(&s->p.space->epochs[s->p.epoch], ip) : NULL;

	if (!ip)
		snprintf(out, size, "ip unknown");
	else if (!m)
		snprintf(out, size, "ip 0x%" PRIx64 ", no mapping there", ip);
	else
		snprintf(out, size, "ip 0x%" PRIx64 " in %s+0x%" PRIx64, ip,
			 m->file->path[0] ? m->file->path : "anonymous code", file_offset(m, ip));
}

/* ----- The loop --------------------------------------------------------- */

/* Says the pending error once decoding resumed at resumed (or the stream ended). */
static void error_resolved(struct stream_ctx *s, uint64_t resumed, int at_end)
{
	const struct hwt_flow_error *err = &s->p.err;
	struct hwt_decoder *d = s->p.d;
	const char *path = s->p.stream->path;
	char where[256], owner[300];
	int resolved = hwt_flow_producer_resolve(&s->p, resumed);

	if (resolved == hwt_flow_resolved_none)
		return;
	s->async_last = NULL;
	if (resolved != hwt_flow_resolved_say)
		return;
	hwt_stream_owner(s->p.stream, s->p.space, owner, sizeof(owner));
	if (err->status == -pte_eos) {
		hwt_decode_diag(d, hwt_diag_stream, path, (int64_t)err->offset,
				"the stream ends inside a packet at offset 0x%" PRIx64
				" (%" PRIu64 " bytes not decoded): cut while recording?"
				" %" PRIu64 " trace bytes of %s lost",
				err->offset, err->skipped, err->skipped, owner);
		return;
	}
	if (err->status == -pte_nosync) {
		/* Streams start with a PSB: what comes before the first is not trace. */
		hwt_decode_diag(d, hwt_diag_stream, path, (int64_t)err->offset,
				"%s: %" PRIu64 " trace bytes of %s lost",
				at_end ? "no PSB in the whole stream (not Intel PT trace?)"
				       : "the stream does not start with a PSB",
				err->skipped, owner);
		return;
	}
	describe_ip(s, err->ip, where, sizeof(where));
	hwt_decode_diag(d, hwt_diag_stream, path, (int64_t)err->offset,
			"decode error at offset 0x%" PRIx64 " (%s): %s; %s %" PRIu64
			" trace bytes skipped: trace of %s lost",
			err->offset, where, pt_errstr(pt_errcode(err->status)),
			at_end ? "no PSB after it," : "resynced at the next PSB,", err->skipped,
			owner);
}

/* An error where libipt stopped decoding (the ip it names, 0: none). */
static void error_here(struct stream_ctx *s, int status, uint64_t ip)
{
	uint64_t offset = 0;

	pt_blk_get_offset(s->dec, &offset);
	hwt_flow_producer_error_at(&s->p, offset, status, ip, blame(s, ip));
}

/* Hands the libipt events pending before the next block to the consumer. */
static int take_events(struct stream_ctx *s, int status)
{
	struct hwt_flow_producer *p = &s->p;

	while (status & pts_event_pending) {
		struct hwt_flow_event fe = { 0 };
		struct pt_event ev;
		int kind;

		status = pt_blk_event(s->dec, &ev, sizeof(ev));
		if (status < 0)
			break;
		fe.offset = 0;
		switch (ev.type) {
		case ptev_enabled:
			kind = p->started ? hwt_flow_resume_on(&p->resume, ev.variant.enabled.ip)
					  : hwt_flow_start;
			if (kind < 0)
				p->nomem = 1;
			fe.type = hwt_flow_ev_enabled;
			fe.ip = ev.variant.enabled.ip;
			p->enabled = 1;
			hwt_flow_producer_break(p, &fe, kind < 0 ? hwt_flow_enabled : (uint32_t)kind);
			if (s->async_last && fe.ip == s->async_at) {
				/* Back where an interrupt struck (its handler not traced:
				   kernel code): the flow goes on as if it had not. */
				p->last = s->async_last;
				s->last_target = s->async_target;
			}
			s->async_last = NULL;
			break;
		case ptev_disabled:
			s->async_last = NULL;
			/* After a system call, the trace comes back after it. */
			fe.type = hwt_flow_ev_disabled;
			if (p->last && p->last->exit == hwt_flow_exit_far)
				fe.ip = p->last->vnext;
			hwt_flow_resume_off(&p->resume, fe.ip);
			p->enabled = 0;
			hwt_flow_producer_break(p, &fe, hwt_flow_enabled);
			break;
		case ptev_async_disabled:
			/* Only where kernel trace was cut out (here or at the
			   import) is an asynchronous stop a kernel excursion whose
			   return resumes the block; elsewhere (a context switch of a
			   CPU-mode stream) the block ends there, as the edge decoder
			   ends it. */
			if (p->d->shared->pt_async_resume) {
				s->async_last = p->last;
				s->async_target = s->last_target;
				s->async_at = ev.variant.async_disabled.at;
			}
			fe.type = hwt_flow_ev_disabled;
			fe.flags = HWT_FLOW_EV_ASYNC;
			fe.ip = ev.variant.async_disabled.at;
			hwt_flow_resume_off(&p->resume, fe.ip);
			p->enabled = 0;
			hwt_flow_producer_break(p, &fe, hwt_flow_enabled);
			break;
		case ptev_async_branch:
			/* An interrupt with the trace on: off at from, on at the next block. */
			fe.type = hwt_flow_ev_disabled;
			fe.flags = HWT_FLOW_EV_ASYNC;
			fe.ip = ev.variant.async_branch.from;
			hwt_flow_resume_off(&p->resume, fe.ip);
			hwt_flow_producer_break(p, &fe, hwt_flow_enabled);
			kind = hwt_flow_resume_on(&p->resume, ev.variant.async_branch.to);
			if (kind < 0)
				p->nomem = 1;
			fe.type = hwt_flow_ev_enabled;
			fe.flags = 0;
			fe.ip = ev.variant.async_branch.to;
			hwt_flow_producer_break(p, &fe, kind < 0 ? hwt_flow_enabled : (uint32_t)kind);
			break;
		case ptev_overflow:
			s->async_last = NULL;
			hwt_flow_producer_overflow(p, -1);
			fe.type = hwt_flow_ev_overflow;
			fe.ip = ev.ip_suppressed ? 0 : ev.variant.overflow.ip;
			pt_blk_get_offset(s->dec, &fe.offset);
			hwt_flow_resume_reset(&p->resume);
			hwt_flow_producer_break(p, &fe, hwt_flow_start);
			break;
		default:
			break;
		}
	}
	return status;
}

/* The steps of pt_decode. */

/*
 * The stream's trace as libipt is to read it into s->buf: mapped, or its
 * user-mode part when it holds kernel-mode trace too (s->cut). 1 when
 * there is some, 0 when it cannot be read, -hbe_nomem.
 */
static int pt_open(struct stream_ctx *s)
{
	struct hwt_decoder *d = s->p.d;
	uint8_t *user;
	size_t user_size;
	uint64_t kernel_bytes;

	s->buf = hwt_flow_producer_map(&s->p, &s->size);
	if (!s->buf)
		return 0;
	if (!d->shared->pt_kernel)
		return 1;
	/* Kernel-mode trace too: decoded is its user-mode part. */
	if (hwt_kernel_cut(s->buf, s->size, &user, &user_size, &kernel_bytes) < 0)
		return -hbe_nomem;
	munmap(s->buf, s->size);
	d->stats.kernel_bytes += kernel_bytes;
	s->buf = user;
	s->size = user_size;
	s->cut = 1;
	return 1;
}

/* libipt's decoder over the trace, in epoch 0, and the consumer begun. 0 or -1. */
static int pt_start(struct stream_ctx *s)
{
	struct pt_config config = s->p.d->shared->pt;

	config.begin = s->buf;
	config.end = s->buf + s->size;
	s->dec = pt_blk_alloc_decoder(&config);
	if (!s->dec || chains_grow(s) < 0 || set_image(s) < 0)
		return -1;
	return hwt_flow_producer_begin(&s->p);
}

/*
 * The next PSB whose PSB+ decodes, the bytes before it an error: its
 * status (>= 0), or < 0 when there is none up to the end of the stream.
 */
static int pt_sync(struct stream_ctx *s)
{
	for (;;) {
		int status = pt_blk_sync_forward(s->dec);
		uint64_t off = 0;

		if (status >= 0) {
			pt_blk_get_sync_offset(s->dec, &s->last_sync);
			/* Streams start with a PSB: bytes before the first are lost. */
			if (!s->synced && s->last_sync)
				hwt_flow_producer_error_at(&s->p, 0, -pte_nosync, 0, NULL);
			s->synced = 1;
			return status;
		}
		if (status == -pte_eos) {
			/* No PSB at all: the whole stream is lost, said as such. */
			if (!s->synced)
				hwt_flow_producer_error_at(&s->p, 0, -pte_nosync, 0, NULL);
			return status;
		}
		/* A PSB whose PSB+ does not decode: look for the next one. */
		pt_blk_get_sync_offset(s->dec, &off);
		if (off == s->last_sync)
			return status;
		s->last_sync = off;
		hwt_flow_producer_error_at(&s->p, s->synced ? off : 0, status, 0, NULL);
		s->synced = 1;
	}
}

/*
 * Hands out the blocks and events from a PSB (status: its sync's) to an
 * error or the end of the stream; the last status. s->p.nomem when out of
 * memory.
 */
static int pt_blocks(struct stream_ctx *s, int status)
{
	struct hwt_flow_producer *p = &s->p;
	int want_time = p->out.want_time;

	p->enabled = !(status & pts_ip_suppressed);
	p->last = NULL;
	s->async_last = NULL;
	p->next_kind = hwt_flow_start;
	for (;;) {
		struct pt_block block;

		status = take_events(s, status);
		/* An event that does not decode (damage: an enable while
		   enabled, a bad packet behind it) loses the trace up to the
		   next PSB, as a block error does. */
		if (status < 0 && status != -pte_eos)
			error_here(s, status, 0);
		if (status < 0 || (status & pts_eos))
			return status;
		if (p->next_time != UINT64_MAX || want_time) {
			uint64_t tsc = 0;
			uint32_t lost_mtc, lost_cyc;

			if (pt_blk_time(s->dec, &tsc, &lost_mtc, &lost_cyc) >= 0) {
				if (tsc >= p->next_time && advance_epoch(s, tsc) < 0) {
					p->nomem = 1;
					return status;
				}
				if (want_time)
					hwt_flow_producer_time(p, tsc);
			}
		}
		block.ip = 0;
		block.ninsn = 0;
		status = pt_blk_next(s->dec, &block, sizeof(block));
		if (block.ninsn) {
			const struct chain *c = chain_of(s, block.ip, block.ninsn, block.end_ip);

			if (!c) {
				p->nomem = 1;
				return status;
			}
			emit_chain(s, c);
			p->insns += block.ninsn;
			if (!(++p->blocks & 0xffff)) {
				uint64_t off = 0;

				pt_blk_get_offset(s->dec, &off);
				hwt_decode_progress(p->d, p->d->done_bytes + off);
				if (p->nomem)
					return status;
			}
		}
		if (status < 0) {
			if (status != -pte_eos)
				error_here(s, status,
					   status == -pte_nomap ? error_ip(s, &block) : 0);
			return status;
		}
	}
}

/* Where the blocks from a PSB ended (status: pt_blocks'): a packet cut
   by the end of the stream is an error, the end of the trace is not. */
static void pt_blocks_end(struct stream_ctx *s, int status)
{
	if (status != -pte_eos && (status < 0 || !(status & pts_eos)))
		return;
	pt_blk_get_offset(s->dec, &s->end_offset);
	if (status == -pte_eos && s->end_offset < s->size)
		hwt_flow_producer_error_at(&s->p, s->end_offset, -pte_eos, 0, NULL);
}

/* Decodes the trace from PSB to PSB to its end. */
static void pt_walk(struct stream_ctx *s)
{
	int status;

	while ((status = pt_sync(s)) >= 0) {
		error_resolved(s, s->last_sync, 0);
		status = pt_blocks(s, status);
		if (s->p.nomem)
			return;
		pt_blocks_end(s, status);
	}
	error_resolved(s, s->size, 1);
	hwt_flow_producer_cut(&s->p, s->end_offset, "tracing was enabled");
}

static void stream_ctx_free(struct stream_ctx *s)
{
	pt_blk_free_decoder(s->dec);
	free(s->chains);
	free(s->used.items);
	free(s->split);
	if (s->cut)
		free(s->buf);
	else if (s->buf)
		munmap(s->buf, s->size);
	hwt_flow_producer_fini(&s->p);
}

static int pt_decode(struct hwt_decoder *d, const struct hwt_bundle_stream *stream,
		     struct hwt_space *space)
{
	/* Large (the batch): on the heap. */
	struct stream_ctx *s = calloc(1, sizeof(*s));
	int status;

	if (!s) {
		d->nomem = 1;
		return -hbe_nomem;
	}
	hwt_flow_producer_init(&s->p, d, stream, space);
	s->last_sync = UINT64_MAX;
	status = pt_open(s);
	if (status > 0) {
		if (pt_start(s) < 0)
			s->p.nomem = 1;
		else
			pt_walk(s);
		status = hwt_flow_producer_end(&s->p, "blocks");
	} else if (status < 0) {
		d->nomem = 1;
	}
	stream_ctx_free(s);
	free(s);
	return status;
}

/* ----- Counts of the edge decoder (edge/) ------------------------------- */

/*
 * The last flow block of a libipt block that ends at the instruction at
 * end in epoch, as far as an edge from it needs: its image, offset, exit
 * and target. 0, or -1 when it is not reported (flow_profile.c).
 */
static int counted_from(struct hwt_decoder *d, const struct hwt_epoch *epoch, uint64_t end,
			struct hwt_flow_block *b, uint64_t *target)
{
	const struct hwt_mapping *m = hwt_epoch_find(epoch, end);
	struct hwt_code_key key;
	const struct chain_shape *shape;
	struct chain_shape *added;
	uint64_t bias;

	if (!m || m->file->state != hwt_file_ok || m->file->trace_unit || m->file->image < 0)
		return -1;
	bias = hwt_code_bias(m);
	key = hwt_code_key(m, end, hwt_code_exit, 0);
	if ((shape = hwt_code_find(d, &key))) {
		*b = shape->blocks[0];
		b->vend += bias;
		b->vnext += bias;
		*target = shape->has_target ? shape->target + bias : 0;
		return 0;
	}
	memset(b, 0, sizeof(*b));
	b->vend = end;
	b->end_offset = file_offset(m, end);
	b->image = m->file->image;
	set_exit(epoch, b, target);
	if (b->exit == hwt_flow_exit_unknown)
		return -1;
	if ((added = hwt_code_add(d, &key, sizeof(*added) + sizeof(added->blocks[0])))) {
		/* a chain of one block: its last instruction only */
		added->target = *target - bias;
		added->has_target = *target != 0;
		added->count = 1;
		added->blocks[0] = *b;
		added->blocks[0].vend -= bias;
		added->blocks[0].vnext -= bias;
	}
	return 0;
}

/* The edge into the flow block first (at ip) from the libipt block ending at prev. */
static int count_entry(struct hwt_decoder *d, const struct hwt_epoch *from, uint64_t prev,
		       const struct hwt_flow_block *first, uint64_t count)
{
	struct hwt_flow_block p;
	struct hwt_profile_edge edge;
	uint64_t target;
	int kind;

	if (!prev || counted_from(d, from, prev, &p, &target) < 0 || !flow_block_reported(first))
		return 0;
	kind = hwt_flow_edge_kind(entry_kind(&p, target, first->vaddr));
	if (kind < 0)
		return 0;
	edge = (struct hwt_profile_edge){ .from_image = (uint32_t)p.image,
					  .to_image = (uint32_t)first->image,
					  .from = p.end_offset,
					  .to = first->offset,
					  .kind = (uint32_t)kind,
					  .count = count };
	return hwt_profile_add_edge(d->profile, &edge) == -hpe_nomem ? -1 : 0;
}

/*
 * The libipt block c split as pt_decode splits it (its chain in the
 * current epoch; *first: the chain's first block), counted c->count
 * times with the jump and call edges inside it. -1 when out of memory.
 */
static int count_chain(struct stream_ctx *s, const struct hwt_pt_block_count *c,
		       const struct hwt_flow_block **first)
{
	const struct chain *ch = chain_of(s, c->ip, c->ninsn, c->end);

	if (!ch)
		return -1;
	*first = &ch->blocks[0];
	for (uint32_t k = 0; k < ch->count; k++) {
		const struct hwt_flow_block *b = &ch->blocks[k];
		struct hwt_profile_edge edge;

		if (!flow_block_reported(b))
			continue;
		if (hwt_profile_add_block(s->p.d->profile, (size_t)b->image, b->offset, b->end_offset,
					  b->insns, c->count) == -hpe_nomem)
			return -1;
		if (!k || !flow_block_reported(b - 1))
			continue;
		edge = (struct hwt_profile_edge){ .from_image = (uint32_t)b[-1].image,
						  .to_image = (uint32_t)b->image,
						  .from = b[-1].end_offset,
						  .to = b->offset,
						  .kind = b[-1].exit == hwt_flow_exit_call ? hwt_edge_call
											   : hwt_edge_jump,
						  .count = c->count };
		if (hwt_profile_add_edge(s->p.d->profile, &edge) == -hpe_nomem)
			return -1;
	}
	return 0;
}

int hwt_pt_counts_add(struct hwt_decoder *d, const struct hwt_bundle_stream *stream,
		      struct hwt_space *space, struct hwt_pt_block_count *const *counts,
		      const size_t *sizes, const size_t *epochs, size_t n,
		      const struct hwt_pt_crossing *crossings, size_t ncrossings)
{
	struct stream_ctx s = { 0 };
	int status;

	hwt_flow_producer_init(&s.p, d, stream, space);
	status = chains_grow(&s);
	for (size_t k = 0; k < n && !status; k++) {
		/* Chains are of one epoch. */
		chains_clear(&s);
		s.p.epoch = epochs[k];
		for (size_t i = 0; i < sizes[k] && !status; i++) {
			const struct hwt_pt_block_count *c = &counts[k][i];
			const struct hwt_flow_block *first;

			status = count_chain(&s, c, &first);
			if (!status)
				status = count_entry(d, &space->epochs[s.p.epoch], c->prev, first,
						     c->count);
		}
	}
	for (size_t k = 0; k < ncrossings && !status; k++) {
		const struct hwt_pt_crossing *x = &crossings[k];
		const struct hwt_mapping *m = hwt_epoch_find(&space->epochs[x->to_epoch], x->ip);
		struct hwt_flow_block first;

		if (!m || m->file->state != hwt_file_ok)
			continue;
		first = (struct hwt_flow_block){ .vaddr = x->ip, .offset = file_offset(m, x->ip),
						 .image = m->file->image, .flags = unit_flag(m) };
		status = count_entry(d, &space->epochs[x->from_epoch], x->prev, &first, 1);
	}
	hwt_flow_producer_report_bad(&s.p, "blocks");
	(void)hwt_flow_out_end(&s.p.out); /* no consumer begun: frees the blocks */
	stream_ctx_free(&s);
	return status < 0 ? -hbe_nomem : 0;
}

const struct hwt_trace_decoder hwt_pt_decoder = {
	.name = "intel-pt",
	.decode_stream = pt_decode,
};
