/*
 * The edge decoder's walk of a stream's packets over its nodes, as
 * libipt's loop would decode them (edge_int.h). The hot path: the
 * functions it calls on each packet are inline, here or in edge_int.h and
 * edge_packet.h.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>

#include "edge_int.h"

/* Applies the records up to the time the last packets said, at a block boundary. */
static int boundary_time(struct edge_ctx *c, uint64_t *prev)
{
	size_t e = c->as.epoch;

	if (c->rd.time < c->as.next_time)
		return 0;
	while (e + 1 < c->as.space->count && c->as.space->epochs[e + 1].time <= c->rd.time)
		e++;
	if (e == c->as.epoch)
		return 0;
	if (edge_epoch_close(c) < 0) {
		c->nomem = 1;
		return GIVE_UP;
	}
	edge_layout_detach(c);
	if (*prev) {
		c->ws.crossing_pending = 1;
		c->ws.crossing_prev = *prev;
		c->ws.crossing_epoch = c->as.epoch;
		*prev = 0;
	}
	c->as.epoch = e;
	c->as.next_time = e + 1 < c->as.space->count ? c->as.space->epochs[e + 1].time : UINT64_MAX;
	if (c->again.of && e >= c->again.upto) {
		c->again.at_upto = 1;
		return GIVE_UP;
	}
	/* A split stream has no files shorter than a mapping (edge_split). */
	if (!c->part.split && edge_epoch_tables(c) < 0) {
		c->nomem = 1;
		return GIVE_UP;
	}
	return 0;
}

/* The first block after an address space change: pairs it with the last before. */
static int __attribute__((noinline)) cross(struct edge_ctx *c, const struct node *n)
{
	struct hwt_pt_crossing *x;

	if (edge_crossing_reserve(&c->out, 1) < 0) {
		c->nomem = 1;
		return GIVE_UP;
	}
	x = &c->out.crossings[c->out.crossing_count++];
	*x = (struct hwt_pt_crossing){ c->ws.crossing_epoch, c->as.epoch, c->ws.crossing_prev, n->ip };
	c->ws.crossing_pending = 0;
	/* Taking this block back would leave the crossing unpaired. */
	c->ws.since_packet = 2;
	return 0;
}

/* Counts the block n after prev (0: none) in *counter. */
static inline int enter(struct edge_ctx *c, uint64_t *counter, uint64_t prev, struct node *n)
{
	(*counter)++;
	c->ws.undo = counter;
	c->ws.undo_prev = prev;
	c->ws.undo_node = n;
	c->ws.since_packet++;
	if (__builtin_expect(c->ws.crossing_pending, 0))
		return cross(c, n);
	return 0;
}

/* Starts at ip after no block (enable, resync, async branch, overflow). */
static struct node *start_at(struct edge_ctx *c, uint64_t ip)
{
	struct node *n = edge_node_at(c, ip);

	if (!n || enter(c, &n->first, 0, n) < 0)
		return NULL;
	return n;
}

/*
 * At the block boundary after cur's branch to ip: a record due applies
 * here, and then ip's block starts the new epoch after no block (1, *cur
 * is it). 0: the walk enters ip's block after cur; GIVE_UP.
 */
static inline int after_branch(struct edge_ctx *c, struct node **cur, uint64_t ip)
{
	uint64_t prev = (*cur)->end;

	if (c->rd.time >= c->as.next_time && boundary_time(c, &prev) < 0)
		return GIVE_UP;
	if (prev)
		return 0;
	return (*cur = start_at(c, ip)) ? 1 : GIVE_UP;
}

/* Takes back the block entered last (an event came before it ran). */
static int take_back(struct edge_ctx *c)
{
	if (c->ws.since_packet != 1)
		return GIVE_UP;
	if (!c->ws.undo)
		return GIVE_UP; /* entered in the part before (edge_split) */
	(*c->ws.undo)--;
	c->ws.since_packet = 0;
	return 0;
}

/* The block entered last ran only up to the instruction before ip. */
static int cut_before(struct edge_ctx *c, uint64_t ip)
{
	struct node part, *n = c->ws.undo_node;
	uint64_t prev = c->ws.undo_prev;
	const struct hwt_mapping *m;
	size_t slot;

	if (take_back(c) < 0)
		return GIVE_UP;
	if (ip == n->ip)
		return 0;
	m = hwt_epoch_find(&c->as.space->epochs[c->as.epoch], n->ip);
	if (edge_follow(m, n->ip, ip, &part) != 1)
		return GIVE_UP;
	slot = edge_table_slot(c, prev, part.ip, part.end, part.ninsn);
	if (slot == SIZE_MAX)
		return GIVE_UP;
	c->out.table.items[slot].count++;
	return 0;
}

/* Trace read so far goes back to the page cache (memory is bounded by
   code, not trace), and the decode shows progress. */
#define RELEASE_BYTES (16u << 20)

static void __attribute__((noinline)) release(struct edge_ctx *c)
{
	size_t done = (size_t)(c->rd.pos - c->rd.buf) & ~(size_t)(RELEASE_BYTES - 1);
	size_t bytes;

	if (c->rd.buf + done <= c->rd.released)
		return;
	bytes = (size_t)(c->rd.buf + done - c->rd.released);
	(void)madvise((void *)(uintptr_t)c->rd.released, bytes, MADV_DONTNEED);
	c->rd.released = c->rd.buf + done;
	if (c->part.split)
		edge_split_progress(c, bytes);
	else if (!c->again.of)
		hwt_decode_progress(c->d, c->d->done_bytes + done);
}

/* After a packet that answered a query: timing packets up to the next one. */
static inline void read_ahead(struct edge_ctx *c)
{
	c->ws.since_packet = 0;
	if (__builtin_expect(c->rd.pos - c->rd.released >= RELEASE_BYTES, 0))
		release(c);
	while (c->rd.pos < c->rd.end) {
		uint8_t b = c->rd.pos[0];

		if (b == 0x19 && c->rd.end - c->rd.pos >= 8) {
			c->rd.time = load_le(c->rd.pos + 1, 7);
			c->rd.pos += 8;
		} else if (b == 0x00) {
			c->rd.pos++;
		} else {
			break;
		}
	}
}

/* Counts run r, taken. */
static inline void run_count(struct edge_ctx *c, struct run *r)
{
	if (!r->hits++) {
		/* Listed once until flushed, or again after its replacement. */
		struct hwt_edge_runs *rc = c->as.t.runs;

		if (rc->hit_count == rc->mask + 1)
			edge_runs_flush(&c->as.t);
		rc->hit[rc->hit_count++] = (uint16_t)(r - rc->runs);
	}
	c->ws.undo = r->last_count;
	c->ws.undo_prev = r->last_prev;
	c->ws.undo_node = r->to;
	c->ws.since_packet = 1 + r->tail;
}

/* Adds run r's counts as the walk would, its len bits consumed; 0 when a
   record applies at its last bit (the walk takes it). */
static inline int run_take(struct edge_ctx *c, struct run *r, unsigned len)
{
	if (len == c->rd.tnt_count) {
		/* The packet's last bits: what follows it is read first, as the
		   walk does before its last bit, and may bring a later time. */
		const uint8_t *pos = c->rd.pos;
		uint64_t time = c->rd.time;

		read_ahead(c);
		if (c->rd.time >= c->as.next_time) {
			c->rd.pos = pos;
			c->rd.time = time;
			return 0;
		}
	}
	c->rd.tnt_count -= len;
	run_count(c, r);
	return 1;
}

/* PSB+ after its PSB: *fup and *ip when it has a FUP. GIVE_UP on anything odd. */
static int psb_plus(struct edge_ctx *c, int *fup, uint64_t *ip)
{
	*fup = 0;
	for (;;) {
		int suppressed = 0;
		uint64_t at = 0;

		switch (next_packet(&c->rd, &at, &suppressed)) {
		case pkt_psbend:
			return 0;
		case pkt_tsc:
		case pkt_skip:
		case pkt_mode_exec:
			continue;
		case pkt_fup:
			if (suppressed || *fup)
				return GIVE_UP;
			*fup = 1;
			*ip = at;
			continue;
		default:
			return GIVE_UP;
		}
	}
}

/* Whether cur, running, reaches ip before its branch is taken: where the
   FUP of a PSB+ while tracing may bind (ip is cur's start at a block
   boundary; inside cur when the unit wrote the PSB+ mid-block). */
int edge_runs_through(const struct edge_ctx *c, const struct node *cur, uint64_t ip)
{
	struct node part;

	const struct hwt_mapping *m = hwt_epoch_find(&c->as.space->epochs[c->as.epoch], cur->ip);

	return ip == cur->ip || edge_follow(m, cur->ip, ip, &part) == 1;
}

int edge_walk(struct edge_ctx *c)
{
	struct node *cur = NULL;
	uint64_t prev = 0;
	int fup;
	uint64_t ip = 0;

	/* The stream starts with PSB+ (the software units write it so). */
	if (c->rd.end - c->rd.pos < 16 || next_packet(&c->rd, &ip, &fup) != pkt_psb)
		return GIVE_UP;
	if (psb_plus(c, &fup, &ip) < 0)
		return GIVE_UP;
	read_ahead(c);
	c->ws.enabled = c->ws.tracing = fup;
	if (boundary_time(c, &prev) < 0)
		return GIVE_UP;
	if (fup && !(cur = start_at(c, ip)))
		return GIVE_UP;
	return edge_walk_on(c, cur);
}

/*
 * A part after the first one (edge_split): from its PSB+, in the state the
 * PSB+ gives. What it cannot know (the block entered before, whose count
 * an event could take back) makes it give up; the join decodes it again.
 */
int edge_walk_part(struct edge_ctx *c)
{
	struct edge_address *a = &c->as;
	struct node *cur = NULL;
	int fup;
	uint64_t ip = 0;

	if (c->rd.end - c->rd.pos < 16 || next_packet(&c->rd, &ip, &fup) != pkt_psb ||
	    psb_plus(c, &fup, &ip) < 0)
		return GIVE_UP;
	c->ws.tracing = c->ws.enabled = fup;
	c->ws.since_packet = fup != 0;
	while (a->epoch + 1 < a->space->count && a->space->epochs[a->epoch + 1].time <= c->rd.time)
		a->epoch++;
	a->next_time = a->epoch + 1 < a->space->count ? a->space->epochs[a->epoch + 1].time
						      : UINT64_MAX;
	c->part.start = (struct edge_state){ c->rd.time, c->rd.last_ip, fup ? ip : 0, a->epoch,
					     fup, fup, 0, c->ws.since_packet };
	if (fup && !(cur = edge_node_at(c, ip)))
		return GIVE_UP;
	return edge_walk_on(c, cur);
}

/*
 * The walk's common case in a loop of its own, its state in locals: while
 * tracing with no record due, a short TNT where a conditional block runs
 * and a TIP with an IP compressed to 16 or 32 bits where an indirect branch
 * runs to a known target, neither followed by a timing packet (which may
 * bring a record's time). It stops before any other packet, which the walk
 * takes, and leaves c as the walk would.
 */
static struct node *walk_fast(struct edge_ctx *c, struct node *cur)
{
	const uint8_t *pos = c->rd.pos, *limit, *stop;
	const struct jump_table *jumps = &c->as.t.jumps;
	uint64_t last_ip = c->rd.last_ip;

	if (c->rd.end - pos < 16)
		return cur;
	/* Not past the next release of read trace, nor to the stop. */
	limit = c->rd.end - 8; /* room to read any packet here and the next byte */
	if (limit > c->rd.released && (size_t)(limit - c->rd.released) > RELEASE_BYTES)
		limit = c->rd.released + RELEASE_BYTES;
	stop = atomic_load_explicit(&c->part.stop, memory_order_relaxed);
	if (stop && stop < limit)
		limit = stop;
	while (pos < limit) {
		uint8_t b = pos[0];

		if (!(b & 1) && b > 0x02) { /* short TNT */
			unsigned len = 30u - (unsigned)__builtin_clz(b);
			struct run *r;

			if (cur->kind != node_cond || pos[1] == 0x19 || pos[1] == 0x00 ||
			    !(r = edge_run_from(c, cur, (b >> 1) & ((1u << len) - 1), len)))
				break;
			run_count(c, r);
			cur = r->to;
			pos++;
			continue;
		}
		if (b == 0x2d || b == 0x4d) { /* TIP, IP of 16 or 32 bits */
			unsigned n = b == 0x2d ? 2 : 4;
			uint64_t keep = b == 0x2d ? ~0xffffull : ~0xffffffffull;
			uint64_t ip = (last_ip & keep) | load_le_fast(pos + 1, n);
			struct jump *j;

			if ((cur->kind != node_indirect && cur->kind != node_far) || !cur->end ||
			    pos[1 + n] == 0x19 || pos[1 + n] == 0x00)
				break;
			j = &jumps->items[jump_hash(cur, ip, jumps->mask)];
			if (j->from != cur || j->ip != ip)
				break; /* not the first probe's: edge_jump_to */
			c->ws.since_packet = 0; /* a packet was read */
			(void)enter(c, &j->count, cur->end, j->to); /* no crossing pending */
			last_ip = ip;
			pos += 1 + n;
			cur = j->to;
			if (cur->kind == node_fixed)
				break;
			continue;
		}
		break;
	}
	c->rd.pos = pos;
	c->rd.last_ip = last_ip;
	return cur;
}

/* cur, running, leaves its mapping by a direct branch: the block there
   entered. */
static inline int walk_fixed(struct edge_ctx *c, struct node **cur)
{
	struct node *n = (*cur)->succ[0];

	if (!n && !(n = (*cur)->succ[0] = edge_node_at(c, (*cur)->succ_ip[0])))
		return GIVE_UP;
	if (enter(c, &(*cur)->count[0], (*cur)->end, n) < 0)
		return GIVE_UP;
	*cur = n;
	return 0;
}

/* cur ends in a conditional branch and TNT bits are pending: a run of them
   taken at once, where no record applies in them, else one. */
static inline int walk_tnt(struct edge_ctx *c, struct node **cur)
{
	unsigned taken;
	struct node *n;
	int status;

	if (c->rd.time < c->as.next_time && !c->ws.crossing_pending) {
		unsigned len = c->rd.tnt_count < RUN_BITS ? c->rd.tnt_count : RUN_BITS;
		unsigned bits = (unsigned)(c->rd.tnt_bits >> (c->rd.tnt_count - len)) &
				((1u << len) - 1);
		struct run *r = edge_run_from(c, *cur, bits, len);

		if (r && run_take(c, r, len)) {
			*cur = r->to;
			return 0;
		}
		if (c->nomem)
			return GIVE_UP;
	}
	taken = (unsigned)(c->rd.tnt_bits >> --c->rd.tnt_count) & 1u;
	n = (*cur)->succ[taken];
	if (!c->rd.tnt_count)
		read_ahead(c);
	else
		c->ws.since_packet = 0;
	if (!n && !(n = (*cur)->succ[taken] = edge_node_at(c, (*cur)->succ_ip[taken])))
		return GIVE_UP;
	status = after_branch(c, cur, n->ip);
	if (status)
		return status < 0 ? GIVE_UP : 0;
	if (enter(c, &(*cur)->count[taken], (*cur)->end, n) < 0)
		return GIVE_UP;
	*cur = n;
	return 0;
}

/* The end of the stream. Cut while tracing (the thread died): libipt
   drops the block it could not finish, and its loop says so. */
static int on_eos(struct edge_ctx *c)
{
	if (c->ws.tracing != c->ws.enabled || (c->ws.tracing && take_back(c) < 0))
		return GIVE_UP;
	return 0;
}

/* A TIP to ip: where cur's indirect or far branch went. */
static inline int on_tip(struct edge_ctx *c, struct node **cur, uint64_t ip, int suppressed)
{
	struct jump *j;
	int status;

	if (!c->ws.tracing || suppressed ||
	    ((*cur)->kind != node_indirect && (*cur)->kind != node_far))
		return GIVE_UP;
	read_ahead(c);
	status = after_branch(c, cur, ip);
	if (status)
		return status < 0 ? GIVE_UP : 0;
	if (!(j = edge_jump_to(c, *cur, ip)) || enter(c, &j->count, (*cur)->end, j->to) < 0)
		return GIVE_UP;
	*cur = j->to;
	return 0;
}

/* Tracing stops, after the records due. */
static int disable(struct edge_ctx *c)
{
	uint64_t prev = 0;

	read_ahead(c);
	c->ws.tracing = c->ws.enabled = 0;
	return boundary_time(c, &prev) < 0 ? GIVE_UP : 0;
}

/* Tracing resumes at ip after no block, after the records due. */
static int resume(struct edge_ctx *c, struct node **cur, uint64_t ip)
{
	uint64_t prev = 0;

	read_ahead(c);
	if (boundary_time(c, &prev) < 0 || !(*cur = start_at(c, ip)))
		return GIVE_UP;
	return 0;
}

/* TIP.PGD, bound to cur's branch: with no IP only a far one (libipt
   proceeds to a change of privilege). */
static int on_pgd(struct edge_ctx *c, const struct node *cur, int suppressed)
{
	if (!c->ws.tracing || cur->kind == node_fixed || (suppressed && cur->kind != node_far))
		return GIVE_UP;
	return disable(c);
}

/* An asynchronous event at ip: cur ran up to it. Then TIP (async
   branch) or TIP.PGD (async disable). */
static int on_fup(struct edge_ctx *c, struct node **cur, uint64_t ip, int suppressed)
{
	uint64_t to = 0;
	int nosuch = 0;
	enum pkt p;

	if (!c->ws.tracing || suppressed || cut_before(c, ip) < 0)
		return GIVE_UP;
	p = next_packet(&c->rd, &to, &nosuch);
	if (p == pkt_pgd)
		return disable(c);
	if (p != pkt_tip || nosuch)
		return GIVE_UP;
	return resume(c, cur, to);
}

/* TIP.PGE: tracing starts at ip. */
static int on_pge(struct edge_ctx *c, struct node **cur, uint64_t ip, int suppressed)
{
	if (c->ws.tracing || suppressed)
		return GIVE_UP;
	c->ws.tracing = c->ws.enabled = 1;
	return resume(c, cur, ip);
}

/* Trace was lost: what cur did is unknown (libipt ends the block before
   it). A FUP says where tracing resumed. */
static int on_ovf(struct edge_ctx *c, struct node **cur)
{
	const uint8_t *at;
	int suppressed = 0;
	uint64_t ip = 0;
	enum pkt p;

	if (c->ws.tracing && take_back(c) < 0)
		return GIVE_UP;
	c->out.overflows++;
	do {
		at = c->rd.pos;
		p = next_packet(&c->rd, &ip, &suppressed);
	} while (p == pkt_skip || p == pkt_tsc);
	if (p == pkt_fup && !suppressed) {
		c->ws.tracing = 1;
		return resume(c, cur, ip);
	}
	c->rd.pos = at;
	c->ws.tracing = 0;
	return p == pkt_pge ? 0 : GIVE_UP;
}

/* A PSB+ in the stream: STOPPED when it is at_stop, the next part's start. */
static int on_psb(struct edge_ctx *c, struct node *cur, const uint8_t *at_stop)
{
	uint64_t ip = 0;
	int fup;

	if (psb_plus(c, &fup, &ip) < 0 || fup != c->ws.tracing)
		return GIVE_UP;
	/* libipt ends the block where the FUP binds (its status update
	   events do), and flow_profile.c joins the two parts again: the
	   counts are cur's. */
	if (c->ws.tracing && (c->ws.since_packet != 1 || !edge_runs_through(c, cur, ip)))
		return GIVE_UP;
	if (c->rd.time >= c->as.next_time)
		return GIVE_UP;
	if (at_stop) {
		c->part.cur = cur;
		c->part.stopped_at = at_stop;
		return STOPPED;
	}
	atomic_store_explicit(&c->part.reached, c->rd.pos, memory_order_relaxed);
	return 0;
}

/*
 * Whether the walk is at its part's stop (edge_split.c): STOPPED when a
 * packet ran over it (the next part is decoded from here); *at_stop when
 * the PSB there, the next part's start, is next.
 */
static inline int at_stop(struct edge_ctx *c, struct node *cur, const uint8_t **at)
{
	const uint8_t *stop = atomic_load_explicit(&c->part.stop, memory_order_relaxed);

	if (__builtin_expect(stop != NULL, 0) && c->rd.pos >= stop) {
		if (c->rd.pos > stop) {
			c->part.cur = cur;
			return STOPPED;
		}
		*at = stop;
	}
	return 0;
}

/* The walk from cur, packet by packet; STOPPED at c->part.stop. */
int edge_walk_on(struct edge_ctx *c, struct node *cur)
{
	for (;;) {
		const uint8_t *stop = NULL;
		int suppressed = 0, status;
		uint64_t ip = 0;

		if (c->ws.tracing) {
			/* cur ran; its branch decides what runs next. */
			if (cur->kind == node_fixed) {
				if (walk_fixed(c, &cur) < 0)
					return GIVE_UP;
				continue;
			}
			/* (tnt_count first: after a TIP it is 0, and the kind of
			   block a TIP leads to is the traced program's choice) */
			if (c->rd.tnt_count && cur->kind == node_cond) {
				if (walk_tnt(c, &cur) < 0)
					return GIVE_UP;
				continue;
			}
		}
		if (c->rd.tnt_count)
			return GIVE_UP; /* TNT bits where no conditional branch is */
		if (c->ws.tracing && !c->ws.crossing_pending && c->rd.time < c->as.next_time) {
			cur = walk_fast(c, cur);
			if (cur->kind == node_fixed)
				continue;
		}
		if ((status = at_stop(c, cur, &stop)))
			return status;
		switch (next_packet(&c->rd, &ip, &suppressed)) {
		case pkt_skip:
		case pkt_mode_exec:
			continue;
		case pkt_tsc:
			/* While tracing, not after an answer: libipt may apply it
			   elsewhere. Else it applies where tracing resumes. */
			status = c->ws.tracing && c->rd.time >= c->as.next_time ? GIVE_UP : 0;
			break;
		case pkt_eos:
			return on_eos(c);
		case pkt_tnt:
			status = !c->ws.tracing || cur->kind != node_cond ? GIVE_UP : 0;
			break;
		case pkt_tip:
			status = on_tip(c, &cur, ip, suppressed);
			break;
		case pkt_pgd:
			status = on_pgd(c, cur, suppressed);
			break;
		case pkt_fup:
			status = on_fup(c, &cur, ip, suppressed);
			break;
		case pkt_pge:
			status = on_pge(c, &cur, ip, suppressed);
			break;
		case pkt_ovf:
			status = on_ovf(c, &cur);
			break;
		case pkt_psb:
			status = on_psb(c, cur, stop);
			break;
		default:
			return GIVE_UP;
		}
		if (status)
			return status;
	}
}
