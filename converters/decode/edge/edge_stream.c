/*
 * The edge decoder: one Intel PT stream over cached control flow.
 *
 * libipt decodes instruction by instruction; the profile needs only which
 * block followed which (stream.c counts {previous block's last
 * instruction, block} pairs). Here each block is found once per address
 * space with the x86 classifier (common/x86_insn.h) and cached as a node
 * with its terminating branch and its successors; a TNT bit moves from a
 * node to one of its two successors and adds one to that successor's
 * count, a TIP finds its target's node and count in one probe. A run of TNT
 * bits from a node is memoised with the counts it adds (struct run), and
 * the most common packets are walked in a loop of their own (walk_fast),
 * which leaves everything else to the walk. Blocks are libipt's: they run
 * through direct jumps and calls inside one mapping (libipt's section) and
 * end at a conditional, indirect or far branch, so the counts handed to
 * stream.c (hwt_pt_counts_add) give the profile that libipt's loop and
 * flow_profile.c give. It hands out no ordered flow (hwt_flow.h): a flow
 * consumer gets libipt's decoder (decode.c).
 *
 * A whole stream walks in tables kept by address space layout across the
 * streams of the decode (struct edge_layout): the processes of a suite
 * find the blocks of ld.so and libc that the ones before them found, and
 * their counts are summed there, turned into profile counts once per
 * layout (edge_pool.c). Blocks are read from the files once per decoder
 * thread (code_cache.c), so a layout met for the first time is quick too.
 *
 * The decode is done first without touching the profile. Whatever this
 * decoder does not model exactly as libipt does (a decode error, a packet
 * it does not know, a stream cut while tracing, an event where libipt's
 * binding is not certain) makes it give the stream to libipt's decoder
 * untouched, so the result is libipt's in every case; the decode stats
 * count such streams (hwt_decode_stats.edge_fallbacks).
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "decode_int.h"
#include "x86_insn.h"

/* Why a stream goes to libipt. */
#define GIVE_UP (-1)

/* Longest block followed through direct jumps: longer ones go to libipt. */
#define MAX_BLOCK_INSNS 65536u

enum node_kind {
	node_cond,      /* conditional branch: succ[0] not taken, succ[1] taken */
	node_indirect,  /* indirect branch, return or far transfer: a TIP says where */
	node_far,       /* far transfer (syscall...): TIP, or TIP.PGD with no IP */
	node_fixed,     /* leaves its mapping by a direct branch or falling through: succ[0] */
};

/* A block of libipt's, as it runs from its first instruction. */
struct node {
	uint64_t ip;               /* first instruction */
	uint64_t end;              /* last instruction (the terminating branch) */
	uint64_t succ_ip[2];
	struct node *succ[2];      /* resolved on first use */
	uint64_t count[2];         /* times succ[k] ran after this block */
	uint64_t first;            /* times it ran after no block (prev 0) */
	uint32_t ninsn;
	uint32_t kind;             /* enum node_kind */
	struct node *hash_next;
};

/* Counts not held by nodes: blocks cut short by an event. */
struct count_table {
	struct hwt_pt_block_count *items; /* open addressing; ninsn 0: empty */
	size_t mask;
	struct hwt_slot_list used; /* slots of items */
};

/* Where a TIP led from a node, and how often: one probe finds both. */
struct jump {
	const struct node *from;   /* NULL: an empty slot */
	uint64_t ip;
	struct node *to;
	uint64_t count;
};

struct jump_table {
	struct jump *items;        /* open addressing */
	size_t mask;
	struct hwt_slot_list used; /* slots of items */
};

/*
 * A run of up to RUN_BITS TNT bits from a conditional block, memoised: the
 * counts it adds (the blocks its bits and the direct jumps after them
 * enter, in order) and the block it ends in. A direct-mapped cache, so its
 * size is fixed; entries whose nodes were forgotten or freed are told by
 * their generation. Taking a run counts it, in the entry the lookup has
 * just read; its blocks' counts, scattered in memory, get its hits when
 * they are read (runs_flush) or it is replaced.
 *
 * A decoder thread keeps one cache for all the tables it walks in (its
 * layouts and a stream's own tables), since entries are keyed by node and
 * nodes of different tables differ: a cache of each layout's own made
 * 130 pages to fault in for every layout, 46% of the page faults of a -j1
 * decode of bench/decode's suite (1430 of 3130, 11 layouts). The parts of
 * a split stream on other threads each have one of their own. The
 * decoder thread's is four times the size a layout's was: with 4,096
 * slots shared by the suite's 11 layouts, -j1 took 3% longer than with
 * 4,096 for each (conflicts); with 16,384, 3% less, and -j2 7% less
 * (least wall times of 40 runs). Growing it from 1,024 slots as runs are
 * made was slower than starting at its size (the pages of each size are
 * faulted in again).
 */
#define RUN_BITS 8u
#define RUN_MAX_ENTERS 8u
#define RUN_SLOTS (1u << 14)      /* a decoder thread's */
#define PART_RUN_SLOTS (1u << 12) /* a part's on a thread of its own */

/* What a look-up and a hit read, in one cache line: the table is read at
   random, and its misses were 29% of the walk's samples on bench/decode's
   suite when an entry took two or three lines. */
struct run {
	const struct node *from;
	uint32_t key;              /* bits | length << RUN_BITS */
	uint32_t generation;
	struct node *to;
	uint64_t last_prev;        /* the prev of the last count (to take it back) */
	uint64_t hits;             /* taken since its counts were added to */
	uint64_t *last_count;      /* its counts[enters - 1] */
	uint8_t enters, tail;      /* tail: counts after the last bit's */
} __attribute__((aligned(64)));

/* The counts a run adds to, beside it: read when its hits are added. */
struct run_counts {
	uint64_t *counts[RUN_MAX_ENTERS];
};

/*
 * The runs of the tables that share it. An entry of the current generation
 * and one with hits point into nodes that are alive: before nodes are
 * forgotten or freed, the hits are added (runs_flush) and the generation
 * moves on.
 */
struct hwt_edge_runs {
	struct run *runs;          /* mask + 1 of them */
	struct run_counts *counts; /* runs[k]'s in counts[k] */
	uint16_t *hit;             /* slots of the runs with hits, mask + 1 at most */
	uint32_t hit_count;
	uint32_t generation;       /* of the valid runs */
	uint32_t mask;             /* slots - 1 */
	void *mem;                 /* runs and counts: one allocation (huge pages) */
};

/* Counts of one finished epoch, handed over at the end. */
struct epoch_counts {
	size_t epoch;
	struct hwt_pt_block_count *items;
	size_t count;
};

/* What the walk carries past a PSB+, to compare a part's start with the end
   of the part before it. */
struct edge_state {
	uint64_t time, last_ip, ip; /* ip: the block running, when tracing */
	size_t epoch;
	int tracing, enabled, crossing_pending;
	unsigned since_packet;
};

/*
 * The blocks found in an address space and the ways between them: a
 * stream's own, emptied at each address space change, or those of an
 * address space layout kept by the decoder across streams (struct
 * edge_layout), whose counts are taken out when the stream ends.
 */
struct edge_tables {
	struct node **nodes;       /* by ip */
	size_t node_mask, node_count;
	struct node **chunks;      /* node storage, kept across epochs */
	size_t chunk_count;        /* allocated */
	size_t chunk_cur, chunk_used; /* in use: chunks before chunk_cur, chunk_used of it */
	struct jump_table jumps;
	struct hwt_edge_runs *runs; /* the decoder thread's, or the tables' own */
	int own_runs;              /* runs is freed with the tables */
};

/* A layout the stream walked one of its epochs in. */
struct touched {
	struct edge_layout *layout;
	size_t epoch;
};

struct edge_ctx {
	struct hwt_decoder *d;
	const struct hwt_bundle_stream *stream;
	struct hwt_space *space;
	const uint8_t *buf, *end, *pos;
	const uint8_t *released;   /* trace before it was handed back to the kernel */
	/* packets */
	uint64_t last_ip;
	uint64_t tnt_bits;         /* pending TNT bits, oldest at bit tnt_count - 1 */
	uint32_t tnt_count;
	uint64_t time;
	/* address space */
	size_t epoch;
	uint64_t next_time;
	struct edge_tables t;      /* of the current epoch */
	struct edge_layout *layout;/* whose tables t are, NULL: the stream's own */
	int own_tables;            /* a whole stream not walked in layouts */
	struct touched *touched;   /* the layouts its counts are in */
	size_t touched_count, touched_capacity;
	/* A walk again of a stream, to take its counts back (take_counts_back). */
	struct edge_ctx *again_of; /* the first walk */
	size_t upto;               /* stops at the start of this epoch */
	int at_upto;               /* stopped there */
	int keep_taken;            /* the counts taken back go to the first walk's done */
	struct count_table table;
	struct epoch_counts *done;
	size_t done_count, done_capacity;
	struct hwt_pt_crossing *crossings;
	size_t crossing_count, crossing_capacity;
	/* What libipt's loop keeps. */
	int enabled;               /* as pt_decode's flag */
	int tracing;               /* PacketEn as the packets say */
	/* The last count added since the last packet (to take back when an
	   event ends the block before its first instruction). */
	uint64_t *undo;
	uint64_t undo_prev;
	struct node *undo_node;
	unsigned since_packet;     /* counts added since the last packet */
	int crossing_pending;      /* prev of an address space change to pair */
	uint64_t crossing_prev;
	size_t crossing_epoch;
	uint64_t overflows, blocks, insns;
	int nomem;
	/* A part of a stream split at PSBs (edge_split). */
	struct edge_split *split;  /* NULL: the whole stream, on one thread */
	/* The walk stops at the packet here or after it: moved back by other
	   threads (split_steal) while the walk runs, so read atomically. */
	_Atomic(const uint8_t *) stop;
	_Atomic(const uint8_t *) reached; /* the last PSB walked, for split_steal */
	struct node *cur;          /* where it stopped: the block running */
	const uint8_t *stopped_at; /* stopped after the PSB+ here; NULL: elsewhere */
	int part_state;            /* part_pending, _walking or _done, under edge_split.lock */
	int status;                /* a part's walk: 0, GIVE_UP or STOPPED */
	struct edge_state start;   /* a part's state after its first PSB+ */
};

#define NODES_PER_CHUNK 4096u

/* ----- Counts ------------------------------------------------------------ */

static size_t count_slot(uint64_t prev, uint64_t ip, uint32_t ninsn, size_t mask)
{
	uint64_t h = ip * 0x9e3779b97f4a7c15ull ^ prev * 0xc2b2ae3d27d4eb4full ^ ninsn;

	h ^= h >> 29;
	return (size_t)h & mask;
}

static int table_grow(struct count_table *t)
{
	size_t size = t->mask ? (t->mask + 1) * 2 : 1024;
	struct hwt_pt_block_count *items = hwt_table_calloc(size, sizeof(*items));

	if (!items)
		return -1;
	for (size_t k = 0; k < t->used.count; k++) {
		const struct hwt_pt_block_count *e = &t->items[t->used.items[k]];
		size_t i;

		for (i = count_slot(e->prev, e->ip, e->ninsn, size - 1); items[i].ninsn;
		     i = (i + 1) & (size - 1))
			;
		items[i] = *e;
		t->used.items[k] = i;
	}
	free(t->items);
	t->items = items;
	t->mask = size - 1;
	return 0;
}

/* The slot of {prev, block}, made when new; SIZE_MAX when out of memory. */
static size_t table_slot(struct edge_ctx *c, uint64_t prev, uint64_t ip, uint64_t end,
			 uint32_t ninsn)
{
	struct count_table *t = &c->table;
	size_t i;

	if ((t->used.count + 1) * 2 > t->mask && table_grow(t) < 0) {
		c->nomem = 1;
		return SIZE_MAX;
	}
	for (i = count_slot(prev, ip, ninsn, t->mask);; i = (i + 1) & t->mask) {
		struct hwt_pt_block_count *e = &t->items[i];

		if (!e->ninsn)
			break;
		if (e->ip == ip && e->prev == prev && e->ninsn == ninsn)
			return i;
	}
	if (hwt_slot_list_add(&t->used, i) < 0) {
		c->nomem = 1;
		return SIZE_MAX;
	}
	t->items[i] = (struct hwt_pt_block_count){ prev, ip, end, ninsn, 0, 0 };
	return i;
}

/* ----- Nodes ------------------------------------------------------------- */

static size_t node_hash(uint64_t ip, size_t mask)
{
	uint64_t h = ip * 0x9e3779b97f4a7c15ull;

	return (size_t)(h ^ h >> 31) & mask;
}

/* A fresh node; chunks are kept from epoch to epoch, their nodes cleared as
   they are handed out again. */
static struct node *node_alloc(struct edge_ctx *c)
{
	struct node *n;

	if (c->t.chunk_used == NODES_PER_CHUNK || !c->t.chunk_count) {
		if (c->t.chunk_count && c->t.chunk_cur + 1 < c->t.chunk_count) {
			c->t.chunk_cur++;
		} else {
			struct node **chunks = realloc(c->t.chunks,
						       (c->t.chunk_count + 1) * sizeof(*chunks));

			if (!chunks)
				return NULL;
			c->t.chunks = chunks;
			if (!(c->t.chunks[c->t.chunk_count] = malloc(NODES_PER_CHUNK * sizeof(*n))))
				return NULL;
			c->t.chunk_cur = c->t.chunk_count++;
		}
		c->t.chunk_used = 0;
	}
	n = &c->t.chunks[c->t.chunk_cur][c->t.chunk_used++];
	memset(n, 0, sizeof(*n));
	return n;
}

/* The nodes of tables t in chunk k. */
static size_t chunk_nodes(const struct edge_tables *t, size_t k)
{
	return k < t->chunk_cur ? NODES_PER_CHUNK : k == t->chunk_cur ? t->chunk_used : 0;
}

static int decode_insn(const struct hwt_mapping *m, uint64_t ip, struct hwt_x86_insn *insn)
{
	const struct hwt_file *f = m->file;
	uint64_t off = ip - m->start + m->pgoff;
	uint64_t avail;

	if (off >= f->elf.size)
		return -1;
	avail = f->elf.size - off;
	if (avail > m->end - ip)
		avail = m->end - ip;
	return hwt_x86_insn_decode(f->elf.data + off, (size_t)avail, insn);
}

/*
 * Follows the block at ip as libipt would: up to its terminating branch.
 * stop != 0: stops before the instruction at stop instead (a block cut
 * short by an event there); returns 1 when it was met. Fills *n with the
 * node (ip, end, ninsn, kind, successors). 0 done, -1 when libipt would not
 * decode it the same (no readable code, undecodable instruction). It reads
 * m (the mapping at ip) only, so its node is the same wherever m is.
 */
static int follow(const struct hwt_mapping *m, uint64_t ip, uint64_t stop, struct node *n)
{
	uint64_t at = ip;

	if (!m || m->file->state != hwt_file_ok)
		return -1;
	n->ip = ip;
	n->ninsn = 0;
	for (;;) {
		struct hwt_x86_insn insn;
		int len;

		if (stop && at == stop)
			return 1;
		if (n->ninsn >= MAX_BLOCK_INSNS)
			return -1;
		len = decode_insn(m, at, &insn);
		if (len < 0)
			return -1;
		n->ninsn++;
		n->end = at;
		switch (insn.branch) {
		case HWT_X86_OTHER:
			at += (uint64_t)len;
			if (at >= m->end) {
				n->kind = node_fixed;
				n->succ_ip[0] = at;
				return 0;
			}
			continue;
		case HWT_X86_JUMP:
		case HWT_X86_CALL: {
			uint64_t target;

			if (!(insn.flags & HWT_X86_HAS_TARGET))
				return -1;
			target = hwt_x86_insn_target(&insn, at);
			if (target < m->start || target >= m->end) {
				n->kind = node_fixed;
				n->succ_ip[0] = target;
				return 0;
			}
			at = target;
			continue;
		}
		case HWT_X86_COND:
			n->kind = node_cond;
			n->succ_ip[0] = at + (uint64_t)len;
			n->succ_ip[1] = hwt_x86_insn_target(&insn, at);
			return 0;
		case HWT_X86_FAR:
			n->kind = node_far;
			return 0;
		default:
			n->kind = node_indirect;
			return 0;
		}
	}
}

static int on_decoder_thread(const struct edge_ctx *c);

/* A node as follow() finds it, its addresses relative to its mapping's bias. */
struct node_shape {
	uint64_t end, succ_ip[2];
	uint32_t ninsn, kind;
};

/*
 * follow() for a whole block, through the decoder's code cache: a block
 * of ld.so or libc is followed once, not once in every process. A part of
 * a split stream on a thread of its own leaves the cache to the thread
 * that owns the decoder.
 */
static int node_shape(struct edge_ctx *c, uint64_t ip, struct node *n)
{
	const struct hwt_mapping *m = hwt_epoch_find(&c->space->epochs[c->epoch], ip);
	const struct node_shape *shape;
	struct node_shape *added;
	struct hwt_code_key key;
	uint64_t bias;

	if (!m || m->file->state != hwt_file_ok)
		return -1;
	if (!on_decoder_thread(c))
		return follow(m, ip, 0, n);
	bias = hwt_code_bias(m);
	key = hwt_code_key(m, ip, hwt_code_edge_node, 0);
	if ((shape = hwt_code_find(c->d, &key))) {
		n->ip = ip;
		n->end = shape->end + bias;
		n->succ_ip[0] = shape->succ_ip[0] + bias;
		n->succ_ip[1] = shape->succ_ip[1] + bias;
		n->ninsn = shape->ninsn;
		n->kind = shape->kind;
		return 0;
	}
	if (follow(m, ip, 0, n) < 0)
		return -1;
	if ((added = hwt_code_add(c->d, &key, sizeof(*added))))
		*added = (struct node_shape){ n->end - bias,
					      { n->succ_ip[0] - bias, n->succ_ip[1] - bias },
					      n->ninsn, n->kind };
	return 0;
}

static int nodes_grow(struct edge_ctx *c)
{
	size_t size = c->t.node_mask ? (c->t.node_mask + 1) * 2 : 4096;
	struct node **nodes = hwt_table_calloc(size, sizeof(*nodes));

	if (!nodes)
		return -1;
	for (size_t k = 0; c->t.nodes && k <= c->t.node_mask; k++)
		for (struct node *n = c->t.nodes[k], *next; n; n = next) {
			size_t i = node_hash(n->ip, size - 1);

			next = n->hash_next;
			n->hash_next = nodes[i];
			nodes[i] = n;
		}
	free(c->t.nodes);
	c->t.nodes = nodes;
	c->t.node_mask = size - 1;
	return 0;
}

/* The node of the block at ip, made on first use; NULL: give up. */
static struct node *node_at(struct edge_ctx *c, uint64_t ip)
{
	size_t i = node_hash(ip, c->t.node_mask);
	struct node *n;

	for (n = c->t.nodes[i]; n; n = n->hash_next)
		if (n->ip == ip)
			return n;
	if ((c->t.node_count + 1) > c->t.node_mask) {
		if (nodes_grow(c) < 0) {
			c->nomem = 1;
			return NULL;
		}
		i = node_hash(ip, c->t.node_mask);
	}
	n = node_alloc(c);
	if (!n) {
		c->nomem = 1;
		return NULL;
	}
	if (node_shape(c, ip, n) < 0)
		return NULL; /* the node stays unused in its chunk */
	n->hash_next = c->t.nodes[i];
	c->t.nodes[i] = n;
	c->t.node_count++;
	return n;
}

/* ----- Jumps -------------------------------------------------------------- */

static size_t jump_hash(const struct node *from, uint64_t ip, size_t mask)
{
	uint64_t h = (uint64_t)(uintptr_t)from * 0xc2b2ae3d27d4eb4full ^ ip * 0x9e3779b97f4a7c15ull;

	return (size_t)(h ^ h >> 29) & mask;
}

static int jumps_grow(struct jump_table *t)
{
	size_t size = t->mask ? (t->mask + 1) * 2 : 1024;
	struct jump *items = hwt_table_calloc(size, sizeof(*items));

	if (!items)
		return -1;
	for (size_t k = 0; k < t->used.count; k++) {
		size_t from = t->used.items[k], i;
		const struct jump *j = &t->items[from];

		for (i = jump_hash(j->from, j->ip, size - 1); items[i].from; i = (i + 1) & (size - 1))
			;
		items[i] = *j;
		t->used.items[k] = i;
	}
	free(t->items);
	t->items = items;
	t->mask = size - 1;
	return 0;
}

/* The jump from `from` to ip, made on first use (its block too); NULL: give up. */
static struct jump *jump_to(struct edge_ctx *c, struct node *from, uint64_t ip)
{
	struct jump_table *t = &c->t.jumps;
	struct node *to;
	size_t i;

	for (i = jump_hash(from, ip, t->mask); t->items[i].from; i = (i + 1) & t->mask)
		if (t->items[i].from == from && t->items[i].ip == ip)
			return &t->items[i];
	if (!(to = node_at(c, ip)))
		return NULL;
	if ((t->used.count + 1) * 2 > t->mask) {
		if (jumps_grow(t) < 0) {
			c->nomem = 1;
			return NULL;
		}
		for (i = jump_hash(from, ip, t->mask); t->items[i].from; i = (i + 1) & t->mask)
			;
	}
	if (hwt_slot_list_add(&t->used, i) < 0) {
		c->nomem = 1;
		return NULL;
	}
	t->items[i] = (struct jump){ from, ip, to, 0 };
	return &t->items[i];
}

/* ----- Runs of TNT bits ------------------------------------------------------ */

/*
 * The run of len bits (the oldest in the high end of bits) from the
 * conditional block `from`, as the walk takes it: each bit enters the
 * successor it names, then the blocks its direct jumps lead to. NULL when
 * it cannot be memoised (the walk takes it bit by bit and says why).
 */
static struct run *run_build(struct edge_ctx *c, struct run *r, struct node *from, uint32_t key);

static inline struct run *run_from(struct edge_ctx *c, struct node *from, unsigned bits,
				   unsigned len)
{
	struct hwt_edge_runs *rc = c->t.runs;
	uint32_t key = bits | len << RUN_BITS;
	uint64_t h = ((uint64_t)(uintptr_t)from ^ key) * 0x9e3779b97f4a7c15ull;
	struct run *r = &rc->runs[(h ^ h >> 32) & rc->mask];

	if (r->from == from && r->key == key && r->generation == rc->generation)
		return r;
	return run_build(c, r, from, key);
}

/* Adds the hits of rc's run r to its counts. */
static void run_add(struct hwt_edge_runs *rc, struct run *r)
{
	uint64_t *const *counts = rc->counts[r - rc->runs].counts;

	for (uint32_t k = 0; k < r->enters; k++)
		*counts[k] += r->hits;
	r->hits = 0;
}

/* Adds the hits of the runs of t's cache to their counts, before counts
   are read (those of t, and of the other tables sharing the cache). */
static void runs_flush(struct edge_tables *t)
{
	struct hwt_edge_runs *rc = t->runs;

	if (!rc)
		return;
	for (uint32_t k = 0; k < rc->hit_count; k++)
		run_add(rc, &rc->runs[rc->hit[k]]);
	rc->hit_count = 0;
}

/* No run of t's cache is used again: t's nodes are about to be forgotten or freed. */
static void runs_forget(struct edge_tables *t)
{
	struct hwt_edge_runs *rc = t->runs;

	if (!rc)
		return;
	runs_flush(t);
	if (++rc->generation == 0) { /* wrapped: old entries would match */
		for (uint32_t k = 0; k <= rc->mask; k++)
			rc->runs[k].from = NULL;
		rc->generation = 1;
	}
}

/* Makes the run of key from `from` in slot r. */
static struct run *__attribute__((noinline)) run_build(struct edge_ctx *c, struct run *r,
						       struct node *from, uint32_t key)
{
	unsigned bits = key & ((1u << RUN_BITS) - 1), len = key >> RUN_BITS;
	struct hwt_edge_runs *rc = c->t.runs;
	uint64_t **counts = rc->counts[r - rc->runs].counts;
	struct node *n = from;

	if (r->hits)
		run_add(rc, r); /* (its slot stays listed: runs_flush adds none) */
	r->from = NULL; /* until it is whole */
	r->enters = 0;
	for (unsigned k = len; k-- > 0;) {
		unsigned slot = bits >> k & 1u;

		if (n->kind != node_cond)
			return NULL;
		r->tail = 0;
		for (;;) {
			struct node *to = n->succ[slot];

			if (!to && !(to = n->succ[slot] = node_at(c, n->succ_ip[slot])))
				return NULL;
			if (r->enters == RUN_MAX_ENTERS)
				return NULL;
			counts[r->enters++] = &n->count[slot];
			r->last_prev = n->end;
			n = to;
			if (n->kind != node_fixed)
				break;
			slot = 0;
			r->tail++;
		}
	}
	r->last_count = counts[r->enters - 1]; /* len >= 1: one at least */
	r->to = n;
	r->from = from;
	r->key = key;
	r->generation = rc->generation;
	return r;
}

static int done_reserve(struct edge_ctx *c)
{
	if (c->done_count == c->done_capacity) {
		size_t capacity = c->done_capacity ? 2 * c->done_capacity : 4;
		void *p = realloc(c->done, capacity * sizeof(*c->done));

		if (!p)
			return -1;
		c->done = p;
		c->done_capacity = capacity;
	}
	return 0;
}

/* ----- Taking counts out ---------------------------------------------------- */

/* Where counts go as they are taken out of tables and zeroed. */
struct take {
	struct hwt_pt_block_count *items; /* NULL: nowhere */
	size_t n;
	uint64_t blocks, insns;
};

static void take_count(struct take *w, uint64_t prev, const struct node *to, uint64_t *count)
{
	if (w->items)
		w->items[w->n++] = (struct hwt_pt_block_count){ prev, to->ip, to->end, to->ninsn, 0,
							       *count };
	w->blocks += *count;
	w->insns += *count * to->ninsn;
	*count = 0;
}

/* The counts of t's nodes and jumps: room for tables_take. */
static size_t tables_counted(struct edge_tables *t)
{
	size_t n = t->jumps.used.count;

	runs_flush(t);
	for (size_t k = 0; k < t->chunk_count; k++)
		for (size_t j = 0; j < chunk_nodes(t, k); j++) {
			const struct node *x = &t->chunks[k][j];

			n += (x->first != 0) + (x->count[0] != 0) + (x->count[1] != 0);
		}
	return n;
}

/* Takes out the counts of t's nodes and jumps into w. */
static void tables_take(struct edge_tables *t, struct take *w)
{
	runs_flush(t);
	for (size_t k = 0; k < t->jumps.used.count; k++) {
		struct jump *j = &t->jumps.items[t->jumps.used.items[k]];

		if (j->count)
			take_count(w, j->from->end, j->to, &j->count);
	}
	for (size_t k = 0; k < t->chunk_count; k++)
		for (size_t j = 0; j < chunk_nodes(t, k); j++) {
			struct node *x = &t->chunks[k][j];

			if (x->first)
				take_count(w, 0, x, &x->first);
			for (int s = 0; s < 2; s++)
				if (x->count[s])
					take_count(w, x->end, x->succ[s], &x->count[s]);
		}
}

/* Empties the stream's own tables (their counts taken out). */
static void tables_forget(struct edge_tables *t)
{
	runs_forget(t); /* (no run may hold hits for nodes forgotten, nor match them) */
	for (size_t k = 0; k < t->chunk_count; k++)
		for (size_t j = 0; j < chunk_nodes(t, k); j++)
			t->nodes[node_hash(t->chunks[k][j].ip, t->node_mask)] = NULL;
	t->chunk_cur = t->chunk_used = 0;
	t->node_count = 0;
	for (size_t k = 0; k < t->jumps.used.count; k++)
		t->jumps.items[t->jumps.used.items[k]].from = NULL;
	t->jumps.used.count = 0;
}

/* A new entry of c->done for epoch with room for cap counts, or NULL. */
static struct epoch_counts *done_add(struct edge_ctx *c, size_t epoch, size_t cap)
{
	struct epoch_counts *e;

	if (done_reserve(c) < 0)
		return NULL;
	e = &c->done[c->done_count];
	e->epoch = epoch;
	e->count = 0;
	e->items = malloc((cap ? cap : 1) * sizeof(*e->items));
	if (!e->items)
		return NULL;
	c->done_count++;
	return e;
}

/* Takes the counts of t into a new entry of c->done for epoch; -1 when
   out of memory (they are zeroed all the same). */
static int done_take(struct edge_ctx *c, size_t epoch, struct edge_tables *t)
{
	struct epoch_counts *e = done_add(c, epoch, tables_counted(t));
	struct take w = { .items = e ? e->items : NULL };

	tables_take(t, &w);
	if (e)
		e->count = w.n;
	c->blocks += w.blocks;
	c->insns += w.insns;
	return e ? 0 : -1;
}

/* Moves the counts of blocks cut short into w, in the order they were first counted. */
static void cut_short_take(struct edge_ctx *c, struct take *w)
{
	for (size_t k = 0; k < c->table.used.count; k++) {
		struct hwt_pt_block_count *x = &c->table.items[c->table.used.items[k]];

		if (x->count) {
			if (w->items)
				w->items[w->n++] = *x;
			w->blocks += x->count;
			w->insns += x->count * x->ninsn;
		}
		x->ninsn = 0;
	}
	c->table.used.count = 0;
}

static int epoch_counts_back(struct edge_ctx *c);

/*
 * Moves the counts of the current epoch into c->done: those of blocks cut
 * short, and those of the stream's own tables, which then forget their
 * nodes. A layout's tables keep theirs (layout_drain). Counts are zeroed
 * also when out of memory (-1), so that none stays for the next stream.
 */
static int epoch_close(struct edge_ctx *c)
{
	size_t cap;
	struct epoch_counts *e;
	struct take w = { 0 };

	if (c->again_of)
		return epoch_counts_back(c);
	cap = c->table.used.count + (c->layout ? 0 : tables_counted(&c->t));
	e = done_add(c, c->epoch, cap);
	w.items = e ? e->items : NULL;
	cut_short_take(c, &w);
	if (!c->layout) {
		tables_take(&c->t, &w);
		tables_forget(&c->t);
	}
	if (e)
		e->count = w.n;
	c->blocks += w.blocks;
	c->insns += w.insns;
	return e ? 0 : -1;
}

/* ----- Layouts kept across streams ----------------------------------------- */

/*
 * The tables of an address space layout (the same files mapped at the
 * same places) outlive the stream that made them: the next process of a
 * suite finds its blocks, their successors, its jumps and its runs of TNT
 * bits where the last one left them, and adds its counts to theirs. The
 * counts of every stream walked there sum in them, and go to the edge
 * pool (edge_pool.c) when the layout is dropped or the decoder flushed:
 * nothing is taken out stream by stream. A stream whose counts must leave
 * them (it goes to libipt; a layout it walked in is about to be dropped)
 * is walked again in tables of its own up to where it is, which counts
 * the same again, and those counts are subtracted (take_counts_back):
 * rare, and then the stream goes on in tables of its own. The decoder
 * keeps the MAX_LAYOUTS used last; only a whole stream on the decoder's
 * thread uses them (the parts of a split stream have tables of their
 * own). In check mode each stream's counts are taken out at its end, to
 * be compared with libipt's (touched_take).
 */
#define MAX_LAYOUTS 32

struct edge_layout {
	struct hwt_epoch epoch;    /* its mappings, copied; maps NULL: a free slot */
	uint64_t hash;
	struct edge_tables t;      /* while not attached to a stream */
	uint64_t used;             /* when last attached */
	int counted;               /* its tables hold counts not drained */
};

struct hwt_edge_layouts {
	struct edge_layout items[MAX_LAYOUTS];
	uint64_t clock;
	struct hwt_profile *profile; /* the counts' */
};

static int tables_alloc(struct edge_ctx *c);
static void tables_free(struct edge_tables *t);

/* Hands l's counts to the edge pool, for the profile they are of. */
static int layout_drain(struct hwt_decoder *d, struct edge_layout *l)
{
	struct hwt_profile *profile = d->profile;
	struct hwt_space space = { .epochs = &l->epoch, .count = 1 };
	struct take w = { 0 };
	size_t zero = 0;
	int status;

	if (!l->counted)
		return 0;
	l->counted = 0;
	w.items = malloc((tables_counted(&l->t) + 1) * sizeof(*w.items));
	tables_take(&l->t, &w);
	d->stats.blocks += w.blocks;
	d->stats.insns += w.insns;
	if (!w.items)
		return -hbe_nomem;
	d->profile = d->edge_layouts->profile;
	status = hwt_edge_pool_add(d, &space, &w.items, &w.n, &zero, 1, NULL, 0);
	d->profile = profile;
	free(w.items);
	return status;
}

static void layout_free(struct edge_layout *l)
{
	tables_free(&l->t);
	free(l->epoch.maps);
	memset(l, 0, sizeof(*l));
}

/* How many layouts d keeps (its options'). */
static size_t layouts_kept(const struct hwt_decoder *d)
{
	unsigned n = d->shared->options ? d->shared->options->keep_layouts : 0;

	return n && n < MAX_LAYOUTS ? n : MAX_LAYOUTS;
}

/* The layout c's stream walked epoch in, or NULL. */
static struct edge_layout *touched_layout(const struct edge_ctx *c, size_t epoch)
{
	for (size_t k = 0; k < c->touched_count; k++)
		if (c->touched[k].epoch == epoch)
			return c->touched[k].layout;
	return NULL;
}

static int layout_touched(const struct edge_ctx *c, const struct edge_layout *l)
{
	for (size_t k = 0; k < c->touched_count; k++)
		if (c->touched[k].layout == l)
			return 1;
	return 0;
}

static int take_counts_back(struct edge_ctx *c, size_t upto, int keep);

/*
 * Gives c the tables of its epoch's layout, new or kept: 0; 1 when c is
 * to walk in tables of its own, since the layout to drop holds counts of
 * c's stream (taken back); -1 when out of memory.
 */
static int layout_attach(struct edge_ctx *c)
{
	const struct hwt_epoch *e = &c->space->epochs[c->epoch];
	struct hwt_edge_layouts *ls = c->d->edge_layouts;
	uint64_t hash = hwt_epoch_layout_hash(e);
	size_t kept = layouts_kept(c->d);
	struct edge_layout *l = NULL;
	void *p;

	if (!ls && !(ls = c->d->edge_layouts = calloc(1, sizeof(*ls))))
		return -1;
	if (ls->profile != c->d->profile) {
		if (hwt_edge_flush(c->d) < 0)
			return -1;
		ls->profile = c->d->profile;
	}
	for (size_t k = 0; k < kept && !l; k++)
		if (ls->items[k].epoch.maps && ls->items[k].hash == hash &&
		    hwt_epoch_layout_same(&ls->items[k].epoch, e))
			l = &ls->items[k];
	if (!l) {
		l = &ls->items[0];
		for (size_t k = 1; k < kept && l->epoch.maps; k++)
			if (!ls->items[k].epoch.maps || ls->items[k].used < l->used)
				l = &ls->items[k];
		if (l->epoch.maps && layout_touched(c, l))
			return take_counts_back(c, c->epoch, 1) < 0 ? -1 : 1;
		if (layout_drain(c->d, l) < 0)
			return -1;
		layout_free(l);
		memset(&c->t, 0, sizeof(c->t));
		l->epoch.maps = malloc((e->count + 1) * sizeof(*e->maps));
		if (!l->epoch.maps || tables_alloc(c) < 0) {
			tables_free(&c->t);
			layout_free(l);
			return -1;
		}
		memcpy(l->epoch.maps, e->maps, e->count * sizeof(*e->maps));
		l->epoch.count = e->count;
		l->hash = hash;
		l->t = c->t;
	}
	p = hwt_grow_array(c->touched, &c->touched_capacity, c->touched_count + 1,
			   sizeof(*c->touched));
	if (!p)
		return -1;
	c->touched = p;
	c->touched[c->touched_count++] = (struct touched){ l, c->epoch };
	c->t = l->t;
	c->layout = l;
	l->counted = 1;
	l->used = ++ls->clock;
	return 0;
}

/* Hands c's tables back to their layout. */
static void layout_detach(struct edge_ctx *c)
{
	if (!c->layout)
		return;
	c->layout->t = c->t;
	c->layout = NULL;
	memset(&c->t, 0, sizeof(c->t));
}

/*
 * Tables for c's epoch, its files checked first as libipt's loop checks
 * them. Finding one shorter than its mapping drops the layouts kept:
 * what the stream counted in them is taken back first, and it goes on in
 * tables of its own. -1: out of memory.
 */
static int epoch_tables(struct edge_ctx *c)
{
	const struct hwt_epoch *e = &c->space->epochs[c->epoch];

	if (c->touched_count && hwt_epoch_short_files(e) && take_counts_back(c, c->epoch, 1) < 0)
		return -1;
	hwt_epoch_check_files(c->d, e);
	if (!c->own_tables) {
		int status = layout_attach(c);

		if (status <= 0)
			return status;
	}
	return c->t.runs ? 0 : tables_alloc(c);
}

/* The node of the block at ip in t, or NULL. */
static struct node *node_find(const struct edge_tables *t, uint64_t ip)
{
	struct node *n = t->nodes[node_hash(ip, t->node_mask)];

	while (n && n->ip != ip)
		n = n->hash_next;
	return n;
}

/* The jump from `from` to ip in t, or NULL. */
static struct jump *jump_find(const struct edge_tables *t, const struct node *from, uint64_t ip)
{
	for (size_t i = jump_hash(from, ip, t->jumps.mask); t->jumps.items[i].from;
	     i = (i + 1) & t->jumps.mask)
		if (t->jumps.items[i].from == from && t->jumps.items[i].ip == ip)
			return &t->jumps.items[i];
	return NULL;
}

/*
 * Subtracts the counts in own, a walk again's tables, from t's, where the
 * first walk counted them: the same blocks (by their first instruction)
 * and the same successors. -1 when one is not there.
 */
static int tables_subtract(struct edge_tables *t, struct edge_tables *own)
{
	runs_flush(own);
	for (size_t k = 0; k < own->jumps.used.count; k++) {
		const struct jump *j = &own->jumps.items[own->jumps.used.items[k]];
		const struct node *from;
		struct jump *to;

		if (!j->count)
			continue;
		if (!(from = node_find(t, j->from->ip)) || !(to = jump_find(t, from, j->ip)))
			return -1;
		to->count -= j->count;
	}
	for (size_t k = 0; k < own->chunk_count; k++)
		for (size_t j = 0; j < chunk_nodes(own, k); j++) {
			const struct node *x = &own->chunks[k][j];
			struct node *y;

			if (!x->first && !x->count[0] && !x->count[1])
				continue;
			if (!(y = node_find(t, x->ip)))
				return -1;
			y->first -= x->first;
			y->count[0] -= x->count[0];
			y->count[1] -= x->count[1];
		}
	return 0;
}

/*
 * The close of an epoch in a walk again (take_counts_back): its counts out of
 * the layout the first walk walked the epoch in, and into the first
 * walk's c->done if it keeps them. Blocks cut short the first walk has.
 */
static int epoch_counts_back(struct edge_ctx *c)
{
	struct edge_ctx *first = c->again_of;
	struct edge_layout *l = touched_layout(first, c->epoch);
	struct take none = { 0 };
	int status = 0;

	cut_short_take(c, &none);
	if (l && tables_subtract(&l->t, &c->t) < 0)
		status = -1;
	if (l && c->keep_taken && done_take(first, c->epoch, &c->t) < 0)
		status = -1;
	tables_forget(&c->t);
	return status;
}

static void ctx_free(struct edge_ctx *c);
static int walk(struct edge_ctx *c);

/*
 * Takes what c's stream counted in the layouts kept back out of them:
 * walks the stream again from its start in tables of its own, up to where
 * c is (the start of epoch upto, or where c gave up: SIZE_MAX), which
 * counts the same, and subtracts each epoch's counts from the layout c
 * walked the epoch in; keep: they go into c->done, as if c had walked in
 * tables of its own. Then c goes on in tables of its own. -1 when out of
 * memory, or when the walk again does not end where c is (a bug: the
 * decode is then marked incomplete).
 */
static int take_counts_back(struct edge_ctx *c, size_t upto, int keep)
{
	struct edge_ctx again;
	int status, ended;

	c->own_tables = 1;
	if (!c->touched_count)
		return 0;
	memset(&again, 0, sizeof(again));
	again.d = c->d;
	again.stream = c->stream;
	again.space = c->space;
	again.buf = again.pos = again.released = c->buf;
	again.end = c->end;
	again.own_tables = 1;
	again.again_of = c;
	again.upto = upto;
	again.keep_taken = keep;
	c->d->stats.edge_taken_back++;
	again.next_time = c->space->count > 1 ? c->space->epochs[1].time : UINT64_MAX;
	if (table_grow(&again.table) < 0 || epoch_tables(&again) < 0) {
		status = -1;
	} else {
		status = walk(&again);
		ended = again.at_upto ? 1 : status == GIVE_UP;
		if (again.nomem || !ended || again.pos != c->pos ||
		    (!again.at_upto && epoch_close(&again) < 0))
			status = -1;
		else
			status = 0;
	}
	if (status < 0)
		c->nomem = c->d->nomem = 1; /* the layouts hold counts libipt counts again */
	if (status < 0 && !again.nomem)
		hwt_decode_diag(c->d, hwt_diag_stream, c->stream->path, -1,
				"internal error: the edge decoder could not take back the counts "
				"of this stream (walked again to offset 0x%zx, it gave up at 0x%zx)",
				(size_t)(again.pos - again.buf), (size_t)(c->pos - c->buf));
	c->touched_count = 0;
	ctx_free(&again);
	return status;
}

/* What a stream given up counted, out of its layouts; c detached. */
static void layout_release(struct edge_ctx *c)
{
	layout_detach(c);
	if (!c->nomem && !c->d->nomem) /* (else the profile is incomplete anyway) */
		(void)take_counts_back(c, SIZE_MAX, 0); /* sets c->nomem when it fails */
	c->touched_count = 0;
}

int hwt_edge_drain(struct hwt_decoder *d)
{
	struct hwt_edge_layouts *ls = d->edge_layouts;
	int status = 0;

	for (size_t k = 0; ls && k < MAX_LAYOUTS; k++)
		if (ls->items[k].epoch.maps && layout_drain(d, &ls->items[k]) < 0)
			status = -hbe_nomem;
	if (status < 0)
		d->nomem = 1;
	return status;
}

int hwt_edge_flush(struct hwt_decoder *d)
{
	int status = hwt_edge_drain(d);

	if (hwt_edge_pool_flush(d) < 0)
		status = -hbe_nomem;
	return status;
}

void hwt_edge_layouts_free(struct hwt_decoder *d)
{
	struct hwt_edge_layouts *ls = d->edge_layouts;

	if (!ls)
		return;
	for (size_t k = 0; k < MAX_LAYOUTS; k++)
		layout_free(&ls->items[k]);
	free(ls);
	d->edge_layouts = NULL;
}

/* ----- Packets ------------------------------------------------------------ */

enum pkt {
	pkt_eos = 0,
	pkt_tnt,
	pkt_tip,
	pkt_pge,
	pkt_pgd,
	pkt_fup,
	pkt_psb,
	pkt_psbend,
	pkt_ovf,
	pkt_mode_exec,
	pkt_tsc,
	pkt_skip,       /* PAD, CYC: nothing for the decode */
	pkt_unknown,    /* anything else, or cut: libipt decides */
};

static const uint8_t psb_pattern[16] = { 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
					 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82 };

static uint64_t load_le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	for (unsigned k = 0; k < n; k++)
		v |= (uint64_t)p[k] << (8 * k);
	return v;
}

/* n bytes at p, little-endian, where 8 can be read: one load. */
static inline uint64_t load_le_fast(const uint8_t *p, unsigned n)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return n >= 8 ? v : v & ((1ull << (8 * n)) - 1);
}

/* An IP packet's IP from its payload (libipt's last-IP rules); -1: bad form. */
static inline __attribute__((always_inline)) int ip_packet(struct edge_ctx *c, uint8_t header,
							   int *suppressed, uint64_t *ip)
{
	static const uint8_t size[8] = { 0, 2, 4, 6, 6, 0, 8, 0 };
	unsigned bytes = header >> 5;
	uint64_t v;

	if (bytes == 5 || bytes == 7)
		return -1;
	if (c->end - c->pos < 1 + size[bytes])
		return -1;
	v = c->end - c->pos > 8 ? load_le_fast(c->pos + 1, size[bytes])
				: load_le(c->pos + 1, size[bytes]);
	c->pos += 1 + size[bytes];
	*suppressed = bytes == 0;
	switch (bytes) {
	case 0:
		break;
	case 1:
		c->last_ip = (c->last_ip & ~0xffffull) | v;
		break;
	case 2:
		c->last_ip = (c->last_ip & ~0xffffffffull) | v;
		break;
	case 3:
		c->last_ip = v & (1ull << 47) ? v | 0xffff000000000000ull : v;
		break;
	case 4:
		c->last_ip = (c->last_ip & 0xffff000000000000ull) | v;
		break;
	default:
		c->last_ip = v;
		break;
	}
	*ip = c->last_ip;
	return 0;
}

/* Reads the packet at pos. *ip for IP packets, *suppressed when it has none.
   Inlined: the walk reads a packet every few blocks, most often a short TNT
   or a TIP, which are tested first. */
static inline __attribute__((always_inline)) enum pkt next_packet(struct edge_ctx *c,
								  uint64_t *ip, int *suppressed)
{
	const uint8_t *p = c->pos;
	size_t left = (size_t)(c->end - p);
	uint8_t b;

	if (!left)
		return pkt_eos;
	b = p[0];
	if (!(b & 1) && b > 0x02) { /* short TNT: stop bit, then bits down to bit 1 */
		unsigned stop = 31u - (unsigned)__builtin_clz(b);

		c->tnt_bits = (uint64_t)(b >> 1) & ((1ull << (stop - 1)) - 1);
		c->tnt_count = stop - 1;
		c->pos++;
		return pkt_tnt;
	}
	if (b == 0x00) {
		c->pos++;
		return pkt_skip;
	}
	if ((b & 3) == 3) { /* CYC */
		size_t k = 1;

		if (b & 4) {
			while (k < left && (p[k] & 1))
				k++;
			if (k >= left || k > 8)
				return pkt_unknown;
			k++;
		}
		c->pos += k;
		return pkt_skip;
	}
	switch (b & 0x1f) {
	case 0x0d:
	case 0x11:
	case 0x01:
	case 0x1d: {
		enum pkt kind = (b & 0x1f) == 0x0d ? pkt_tip :
				(b & 0x1f) == 0x11 ? pkt_pge :
				(b & 0x1f) == 0x01 ? pkt_pgd : pkt_fup;

		return ip_packet(c, b, suppressed, ip) < 0 ? pkt_unknown : kind;
	}
	default:
		break;
	}
	if (b == 0x99) { /* MODE: only MODE.Exec with 64-bit code */
		if (left < 2 || (p[1] >> 5) != 0 || (p[1] & 3) != 1)
			return pkt_unknown;
		c->pos += 2;
		return pkt_mode_exec;
	}
	if (b == 0x19) {
		if (left < 8)
			return pkt_unknown;
		c->time = load_le(p + 1, 7);
		c->pos += 8;
		return pkt_tsc;
	}
	if (b != 0x02 || left < 2)
		return pkt_unknown;
	switch (p[1]) {
	case 0x82:
		if (left < 16 || memcmp(p, psb_pattern, 16))
			return pkt_unknown;
		c->pos += 16;
		c->last_ip = 0;
		return pkt_psb;
	case 0x23:
		c->pos += 2;
		return pkt_psbend;
	case 0xf3:
		c->pos += 2;
		c->last_ip = 0;
		return pkt_ovf;
	case 0xa3: {
		uint64_t v;
		unsigned stop;

		if (left < 8)
			return pkt_unknown;
		v = load_le(p + 2, 6);
		if (!v)
			return pkt_unknown;
		stop = 63u - (unsigned)__builtin_clzll(v);
		c->tnt_bits = v & ((1ull << stop) - 1);
		c->tnt_count = stop;
		c->pos += 8;
		return pkt_tnt;
	}
	default:
		return pkt_unknown;
	}
}

/* ----- The walk ------------------------------------------------------------ */

/* Applies the records up to the time the last packets said, at a block boundary. */
static int boundary_time(struct edge_ctx *c, uint64_t *prev)
{
	size_t e = c->epoch;

	if (c->time < c->next_time)
		return 0;
	while (e + 1 < c->space->count && c->space->epochs[e + 1].time <= c->time)
		e++;
	if (e == c->epoch)
		return 0;
	if (epoch_close(c) < 0) {
		c->nomem = 1;
		return GIVE_UP;
	}
	layout_detach(c);
	if (*prev) {
		c->crossing_pending = 1;
		c->crossing_prev = *prev;
		c->crossing_epoch = c->epoch;
		*prev = 0;
	}
	c->epoch = e;
	c->next_time = e + 1 < c->space->count ? c->space->epochs[e + 1].time : UINT64_MAX;
	if (c->again_of && e >= c->upto) {
		c->at_upto = 1;
		return GIVE_UP;
	}
	/* A split stream has no files shorter than a mapping (edge_split). */
	if (!c->split && epoch_tables(c) < 0) {
		c->nomem = 1;
		return GIVE_UP;
	}
	return 0;
}

static int crossing_reserve(struct edge_ctx *c, size_t n)
{
	size_t capacity = c->crossing_capacity ? c->crossing_capacity : 8;
	void *p;

	if (c->crossing_count + n <= c->crossing_capacity)
		return 0;
	while (capacity < c->crossing_count + n)
		capacity *= 2;
	p = realloc(c->crossings, capacity * sizeof(*c->crossings));
	if (!p)
		return -1;
	c->crossings = p;
	c->crossing_capacity = capacity;
	return 0;
}

/* The first block after an address space change: pairs it with the last before. */
static int __attribute__((noinline)) cross(struct edge_ctx *c, const struct node *n)
{
	struct hwt_pt_crossing *x;

	if (crossing_reserve(c, 1) < 0) {
		c->nomem = 1;
		return GIVE_UP;
	}
	x = &c->crossings[c->crossing_count++];
	*x = (struct hwt_pt_crossing){ c->crossing_epoch, c->epoch, c->crossing_prev, n->ip };
	c->crossing_pending = 0;
	/* Taking this block back would leave the crossing unpaired. */
	c->since_packet = 2;
	return 0;
}

/* Counts the block n after prev (0: none) in *counter. */
static inline int enter(struct edge_ctx *c, uint64_t *counter, uint64_t prev, struct node *n)
{
	(*counter)++;
	c->undo = counter;
	c->undo_prev = prev;
	c->undo_node = n;
	c->since_packet++;
	if (__builtin_expect(c->crossing_pending, 0))
		return cross(c, n);
	return 0;
}

/* Starts at ip after no block (enable, resync, async branch, overflow). */
static struct node *start_at(struct edge_ctx *c, uint64_t ip)
{
	struct node *n = node_at(c, ip);

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

	if (c->time >= c->next_time && boundary_time(c, &prev) < 0)
		return GIVE_UP;
	if (prev)
		return 0;
	return (*cur = start_at(c, ip)) ? 1 : GIVE_UP;
}

/* Takes back the block entered last (an event came before it ran). */
static int take_back(struct edge_ctx *c)
{
	if (c->since_packet != 1)
		return GIVE_UP;
	if (!c->undo)
		return GIVE_UP; /* entered in the part before (edge_split) */
	(*c->undo)--;
	c->since_packet = 0;
	return 0;
}

/* The block entered last ran only up to the instruction before ip. */
static int cut_before(struct edge_ctx *c, uint64_t ip)
{
	struct node part, *n = c->undo_node;
	uint64_t prev = c->undo_prev;
	size_t slot;

	if (take_back(c) < 0)
		return GIVE_UP;
	if (ip == n->ip)
		return 0;
	if (follow(hwt_epoch_find(&c->space->epochs[c->epoch], n->ip), n->ip, ip, &part) != 1)
		return GIVE_UP;
	slot = table_slot(c, prev, part.ip, part.end, part.ninsn);
	if (slot == SIZE_MAX)
		return GIVE_UP;
	c->table.items[slot].count++;
	return 0;
}

static void split_progress(struct edge_ctx *c, size_t bytes);

/* Trace read so far goes back to the page cache (memory is bounded by
   code, not trace), and the decode shows progress. */
#define RELEASE_BYTES (16u << 20)

static void __attribute__((noinline)) release(struct edge_ctx *c)
{
	size_t done = (size_t)(c->pos - c->buf) & ~(size_t)(RELEASE_BYTES - 1);
	size_t bytes;

	if (c->buf + done <= c->released)
		return;
	bytes = (size_t)(c->buf + done - c->released);
	(void)madvise((void *)(uintptr_t)c->released, bytes, MADV_DONTNEED);
	c->released = c->buf + done;
	if (c->split)
		split_progress(c, bytes);
	else if (!c->again_of)
		hwt_decode_progress(c->d, c->d->done_bytes + done);
}

/* After a packet that answered a query: timing packets up to the next one. */
static inline void read_ahead(struct edge_ctx *c)
{
	c->since_packet = 0;
	if (__builtin_expect(c->pos - c->released >= RELEASE_BYTES, 0))
		release(c);
	while (c->pos < c->end) {
		uint8_t b = c->pos[0];

		if (b == 0x19 && c->end - c->pos >= 8) {
			c->time = load_le(c->pos + 1, 7);
			c->pos += 8;
		} else if (b == 0x00) {
			c->pos++;
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
		struct hwt_edge_runs *rc = c->t.runs;

		if (rc->hit_count == rc->mask + 1)
			runs_flush(&c->t);
		rc->hit[rc->hit_count++] = (uint16_t)(r - rc->runs);
	}
	c->undo = r->last_count;
	c->undo_prev = r->last_prev;
	c->undo_node = r->to;
	c->since_packet = 1 + r->tail;
}

/* Adds run r's counts as the walk would, its len bits consumed; 0 when a
   record applies at its last bit (the walk takes it). */
static inline int run_take(struct edge_ctx *c, struct run *r, unsigned len)
{
	if (len == c->tnt_count) {
		/* The packet's last bits: what follows it is read first, as the
		   walk does before its last bit, and may bring a later time. */
		const uint8_t *pos = c->pos;
		uint64_t time = c->time;

		read_ahead(c);
		if (c->time >= c->next_time) {
			c->pos = pos;
			c->time = time;
			return 0;
		}
	}
	c->tnt_count -= len;
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

		switch (next_packet(c, &at, &suppressed)) {
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
static int runs_through(const struct edge_ctx *c, const struct node *cur, uint64_t ip)
{
	struct node part;

	return ip == cur->ip ||
	       follow(hwt_epoch_find(&c->space->epochs[c->epoch], cur->ip), cur->ip, ip, &part) == 1;
}

/* The walk stopped at c->stop (edge_split): c->cur runs. */
#define STOPPED 2

static int walk_on(struct edge_ctx *c, struct node *cur);

static int walk(struct edge_ctx *c)
{
	struct node *cur = NULL;
	uint64_t prev = 0;
	int fup;
	uint64_t ip = 0;

	/* The stream starts with PSB+ (the software units write it so). */
	if (c->end - c->pos < 16 || next_packet(c, &ip, &fup) != pkt_psb)
		return GIVE_UP;
	if (psb_plus(c, &fup, &ip) < 0)
		return GIVE_UP;
	read_ahead(c);
	c->enabled = c->tracing = fup;
	if (boundary_time(c, &prev) < 0)
		return GIVE_UP;
	if (fup && !(cur = start_at(c, ip)))
		return GIVE_UP;
	return walk_on(c, cur);
}

/*
 * A part after the first one (edge_split): from its PSB+, in the state the
 * PSB+ gives. What it cannot know (the block entered before, whose count
 * an event could take back) makes it give up; the join decodes it again.
 */
static int walk_part(struct edge_ctx *c)
{
	struct node *cur = NULL;
	int fup;
	uint64_t ip = 0;

	if (c->end - c->pos < 16 || next_packet(c, &ip, &fup) != pkt_psb ||
	    psb_plus(c, &fup, &ip) < 0)
		return GIVE_UP;
	c->tracing = c->enabled = fup;
	c->since_packet = fup != 0;
	while (c->epoch + 1 < c->space->count && c->space->epochs[c->epoch + 1].time <= c->time)
		c->epoch++;
	c->next_time = c->epoch + 1 < c->space->count ? c->space->epochs[c->epoch + 1].time
						     : UINT64_MAX;
	c->start = (struct edge_state){ c->time, c->last_ip, fup ? ip : 0, c->epoch, fup, fup, 0,
					c->since_packet };
	if (fup && !(cur = node_at(c, ip)))
		return GIVE_UP;
	return walk_on(c, cur);
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
	const uint8_t *pos = c->pos, *limit, *stop;
	const struct jump_table *jumps = &c->t.jumps;
	uint64_t last_ip = c->last_ip;

	if (c->end - pos < 16)
		return cur;
	/* Not past the next release of read trace, nor to the stop. */
	limit = c->end - 8; /* room to read any packet here and the next byte */
	if (limit > c->released && (size_t)(limit - c->released) > RELEASE_BYTES)
		limit = c->released + RELEASE_BYTES;
	stop = atomic_load_explicit(&c->stop, memory_order_relaxed);
	if (stop && stop < limit)
		limit = stop;
	while (pos < limit) {
		uint8_t b = pos[0];

		if (!(b & 1) && b > 0x02) { /* short TNT */
			unsigned len = 30u - (unsigned)__builtin_clz(b);
			struct run *r;

			if (cur->kind != node_cond || pos[1] == 0x19 || pos[1] == 0x00 ||
			    !(r = run_from(c, cur, (b >> 1) & ((1u << len) - 1), len)))
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
				break; /* not the first probe's: jump_to */
			c->since_packet = 0; /* a packet was read */
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
	c->pos = pos;
	c->last_ip = last_ip;
	return cur;
}

/* The walk from cur; STOPPED at c->stop. */
static int walk_on(struct edge_ctx *c, struct node *cur)
{
	uint64_t prev = 0;
	int fup;
	uint64_t ip = 0;

	for (;;) {
		int suppressed = 0, status;
		const uint8_t *at_stop = NULL, *stop;
		enum pkt p;

		if (c->tracing) {
			/* cur ran; its branch decides what runs next. */
			if (cur->kind == node_fixed) {
				struct node *n = cur->succ[0];

				if (!n && !(n = cur->succ[0] = node_at(c, cur->succ_ip[0])))
					return GIVE_UP;
				prev = cur->end;
				if (enter(c, &cur->count[0], prev, n) < 0)
					return GIVE_UP;
				cur = n;
				continue;
			}
			/* (tnt_count first: after a TIP it is 0, and the kind of
			   block a TIP leads to is the traced program's choice) */
			if (c->tnt_count && cur->kind == node_cond) {
				/* Runs of bits at once, where no record applies in them. */
				if (c->time < c->next_time && !c->crossing_pending) {
					unsigned len = c->tnt_count < RUN_BITS ? c->tnt_count : RUN_BITS;
					unsigned bits = (unsigned)(c->tnt_bits >> (c->tnt_count - len)) &
							((1u << len) - 1);
					struct run *r = run_from(c, cur, bits, len);

					if (r && run_take(c, r, len)) {
						cur = r->to;
						continue;
					}
					if (c->nomem)
						return GIVE_UP;
				}
				unsigned taken = (unsigned)(c->tnt_bits >> --c->tnt_count) & 1u;
				struct node *n = cur->succ[taken];

				if (!c->tnt_count)
					read_ahead(c);
				else
					c->since_packet = 0;
				if (!n && !(n = cur->succ[taken] = node_at(c, cur->succ_ip[taken])))
					return GIVE_UP;
				status = after_branch(c, &cur, n->ip);
				if (status < 0)
					return GIVE_UP;
				if (status)
					continue;
				if (enter(c, &cur->count[taken], cur->end, n) < 0)
					return GIVE_UP;
				cur = n;
				continue;
			}
		}
		if (c->tnt_count)
			return GIVE_UP; /* TNT bits where no conditional branch is */
		if (c->tracing && !c->crossing_pending && c->time < c->next_time) {
			cur = walk_fast(c, cur);
			if (cur->kind == node_fixed)
				continue;
		}
		stop = atomic_load_explicit(&c->stop, memory_order_relaxed);
		if (__builtin_expect(stop != NULL, 0) && c->pos >= stop) {
			/* the PSB there is the next part's start; else a packet
			   ran over it, and the next part is decoded from here */
			if (c->pos > stop) {
				c->cur = cur;
				return STOPPED;
			}
			at_stop = stop;
		}
		p = next_packet(c, &ip, &suppressed);
		switch (p) {
		case pkt_skip:
			continue;
		case pkt_tsc:
			/* While tracing, not after an answer: libipt may apply it
			   elsewhere. Else it applies where tracing resumes. */
			if (c->tracing && c->time >= c->next_time)
				return GIVE_UP;
			continue;
		case pkt_eos:
			/* Cut while tracing (the thread died): libipt drops the
			   block it could not finish, and its loop says so. */
			if (c->tracing != c->enabled || (c->tracing && take_back(c) < 0))
				return GIVE_UP;
			return 0;
		case pkt_tnt:
			if (!c->tracing || cur->kind != node_cond)
				return GIVE_UP;
			continue;
		case pkt_tip: {
			struct jump *j;

			if (!c->tracing || suppressed ||
			    (cur->kind != node_indirect && cur->kind != node_far))
				return GIVE_UP;
			read_ahead(c);
			status = after_branch(c, &cur, ip);
			if (status < 0)
				return GIVE_UP;
			if (status)
				continue;
			if (!(j = jump_to(c, cur, ip)) || enter(c, &j->count, cur->end, j->to) < 0)
				return GIVE_UP;
			cur = j->to;
			continue;
		}
		case pkt_pgd:
			/* Bound to cur's branch: with no IP only a far one (libipt
			   proceeds to a change of privilege). */
			if (!c->tracing || cur->kind == node_fixed ||
			    (suppressed && cur->kind != node_far))
				return GIVE_UP;
			read_ahead(c);
			c->tracing = c->enabled = 0;
			prev = 0;
			if (boundary_time(c, &prev) < 0)
				return GIVE_UP;
			continue;
		case pkt_fup: {
			/* An asynchronous event at ip: cur ran up to it. Then TIP
			   (async branch) or TIP.PGD (async disable). */
			uint64_t to = 0;
			int nosuch = 0;

			if (!c->tracing || suppressed || cut_before(c, ip) < 0)
				return GIVE_UP;
			p = next_packet(c, &to, &nosuch);
			prev = 0;
			if (p == pkt_pgd) {
				read_ahead(c);
				c->tracing = c->enabled = 0;
				if (boundary_time(c, &prev) < 0)
					return GIVE_UP;
				continue;
			}
			if (p != pkt_tip || nosuch)
				return GIVE_UP;
			read_ahead(c);
			if (boundary_time(c, &prev) < 0 || !(cur = start_at(c, to)))
				return GIVE_UP;
			continue;
		}
		case pkt_pge:
			if (c->tracing || suppressed)
				return GIVE_UP;
			read_ahead(c);
			c->tracing = c->enabled = 1;
			prev = 0;
			if (boundary_time(c, &prev) < 0 || !(cur = start_at(c, ip)))
				return GIVE_UP;
			continue;
		case pkt_mode_exec:
			continue;
		case pkt_ovf: {
			/* Trace was lost: what cur did is unknown (libipt ends the
			   block before it). A FUP says where tracing resumed. */
			const uint8_t *at;

			if (c->tracing && take_back(c) < 0)
				return GIVE_UP;
			c->overflows++;
			prev = 0;
			do {
				at = c->pos;
				p = next_packet(c, &ip, &suppressed);
			} while (p == pkt_skip || p == pkt_tsc);
			if (p == pkt_fup && !suppressed) {
				read_ahead(c);
				c->tracing = 1;
				if (boundary_time(c, &prev) < 0 || !(cur = start_at(c, ip)))
					return GIVE_UP;
				continue;
			}
			c->pos = at;
			c->tracing = 0;
			if (p == pkt_pge)
				continue;
			return GIVE_UP;
		}
		case pkt_psb:
			if (psb_plus(c, &fup, &ip) < 0 || fup != c->tracing)
				return GIVE_UP;
			/* libipt ends the block where the FUP binds (its
			   status update events do), and flow_profile.c joins
			   the two parts again: the counts are cur's. */
			if (c->tracing && (c->since_packet != 1 || !runs_through(c, cur, ip)))
				return GIVE_UP;
			if (c->time >= c->next_time)
				return GIVE_UP;
			if (at_stop) {
				c->cur = cur;
				c->stopped_at = at_stop;
				return STOPPED;
			}
			atomic_store_explicit(&c->reached, c->pos, memory_order_relaxed);
			continue;
		default:
			return GIVE_UP;
		}
	}
}

/* ----- The stream ----------------------------------------------------------- */

static void run_cache_free(struct hwt_edge_runs *rc)
{
	if (rc) {
		free(rc->mem);
		free(rc->hit);
	}
	free(rc);
}

static void tables_free(struct edge_tables *t)
{
	if (t->own_runs)
		run_cache_free(t->runs);
	else
		runs_forget(t);
	for (size_t k = 0; k < t->chunk_count; k++)
		free(t->chunks[k]);
	free(t->chunks);
	free(t->nodes);
	free(t->jumps.items);
	free(t->jumps.used.items);
	memset(t, 0, sizeof(*t));
}

static void ctx_free(struct edge_ctx *c)
{
	layout_release(c);
	tables_free(&c->t);
	free(c->table.items);
	free(c->table.used.items);
	for (size_t k = 0; k < c->done_count; k++)
		free(c->done[k].items);
	free(c->done);
	free(c->crossings);
	free(c->touched);
}

/* An empty run cache of slots runs (a power of 2), or NULL. A decoder
   thread's fills one huge page: 2 MiB of runs and their counts. */
static struct hwt_edge_runs *run_cache_alloc(uint32_t slots)
{
	struct hwt_edge_runs *rc = calloc(1, sizeof(*rc));

	if (!rc)
		return NULL;
	rc->mem = hwt_table_calloc_huge(slots * (sizeof(*rc->runs) + sizeof(*rc->counts)));
	rc->hit = hwt_table_calloc(slots, sizeof(*rc->hit));
	if (!rc->mem || !rc->hit) {
		run_cache_free(rc);
		return NULL;
	}
	rc->runs = rc->mem;
	rc->counts = (struct run_counts *)(rc->runs + slots);
	rc->mask = slots - 1;
	return rc;
}

/* Empty tables in c->t, with the run cache of c's thread: the decoder's
   (made on first use) on its thread, else one of their own. */
static int tables_alloc(struct edge_ctx *c)
{
	if (nodes_grow(c) < 0 || jumps_grow(&c->t.jumps) < 0)
		return -1;
	if (!on_decoder_thread(c)) {
		c->t.runs = run_cache_alloc(PART_RUN_SLOTS);
		c->t.own_runs = 1;
		return c->t.runs ? 0 : -1;
	}
	if (!c->d->edge_runs && !(c->d->edge_runs = run_cache_alloc(RUN_SLOTS)))
		return -1;
	c->t.runs = c->d->edge_runs;
	return 0;
}

void hwt_edge_runs_free(struct hwt_decoder *d)
{
	run_cache_free(d->edge_runs);
	d->edge_runs = NULL;
}

/* The tables of a walk of a part, empty. */
static int ctx_tables(struct edge_ctx *c)
{
	return table_grow(&c->table) < 0 || tables_alloc(c) < 0 ? -1 : 0;
}

/*
 * Decodes the stream into c without side effects. 0: decoded, 1: libipt
 * must, -hbe_nomem. A whole stream walks in the tables of its layouts.
 */
static int edge_run(struct edge_ctx *c)
{
	int status;

	if (table_grow(&c->table) < 0)
		return -hbe_nomem;
	c->next_time = c->space->count > 1 ? c->space->epochs[1].time : UINT64_MAX;
	if (c->split ? tables_alloc(c) < 0 : epoch_tables(c) < 0)
		return -hbe_nomem;
	status = walk(c);
	if (c->nomem)
		status = -hbe_nomem;
	else if (status == STOPPED)
		return STOPPED; /* the first part of a split stream: edge_run_split */
	else if (status < 0)
		status = 1;
	else if (epoch_close(c) < 0)
		c->nomem = 1;
	if (c->nomem)
		status = -hbe_nomem;
	if (status != 0) {
		layout_release(c);
		if (c->nomem)
			status = -hbe_nomem;
	}
	layout_detach(c);
	return status;
}

/* ----- Parts of a stream on threads of their own ---------------------------- */

/*
 * A stream of several MiB is split at PSBs into parts, one a thread. Each
 * part after the first starts in the state its PSB+ gives; the join, in
 * order, keeps a part's counts when the part before it ended at its PSB+
 * in that state, else decodes the part again from where the part before
 * stopped. Counts add up, and the epochs' lists join where a part ends and
 * the next begins in one epoch, so the profile is the one thread's.
 *
 * Parts of equal bytes do not cost the same (code found, the kind of
 * packets), and a CPU of a VM may be slowed by the host: a thread whose
 * part is done takes the second half of what is left of the part with the
 * most left (split_steal), so that the threads end together.
 */
#define SEGMENT_BYTES (1u << 20)
#define MAX_PARTS 64

enum { part_pending, part_walking, part_done };

struct edge_split {
	pthread_mutex_t lock;      /* the parts, their states and their stops */
	struct edge_ctx *head;     /* parts[0], on the calling thread */
	struct edge_ctx *parts[MAX_PARTS]; /* in trace order */
	const uint8_t *starts[MAX_PARTS];  /* parts[k]'s PSB */
	size_t count;
	size_t steal_bytes;        /* half of at least this much is taken */
	size_t split_off;          /* parts split_steal made */
	int stopped;               /* the head gave up: nothing more to take */
	uint64_t size;
	atomic_uint_least64_t released; /* bytes the parts have read, for progress */
};

/* Whether c is walked on the thread that owns its decoder (d->code). */
static int on_decoder_thread(const struct edge_ctx *c)
{
	return !c->split || c == c->split->head;
}

static void split_progress(struct edge_ctx *c, size_t bytes)
{
	struct edge_split *sp = c->split;
	uint64_t done = atomic_fetch_add(&sp->released, bytes) + bytes;

	/* Only the calling thread reports; parts decoded again count twice. */
	if (c == sp->head)
		hwt_decode_progress(c->d, c->d->done_bytes + (done < sp->size ? done : sp->size));
}

/* The first PSB at or after p, or NULL. */
static const uint8_t *psb_from(const uint8_t *p, const uint8_t *end)
{
	while (end - p >= 16) {
		const uint8_t *q = memchr(p, psb_pattern[0], (size_t)(end - p) - 15);

		if (!q)
			return NULL;
		if (!memcmp(q, psb_pattern, 16))
			return q;
		p = q + 1;
	}
	return NULL;
}

/* A part of c's stream from the PSB at start to stop (NULL: its end), at index k of sp. */
static struct edge_ctx *part_add(struct edge_split *sp, size_t k, const uint8_t *start,
				 const uint8_t *stop)
{
	const struct edge_ctx *c = sp->head;
	struct edge_ctx *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->d = c->d;
	p->stream = c->stream;
	p->space = c->space;
	p->buf = c->buf;
	p->end = c->end;
	p->pos = start;
	p->released = c->buf + ((size_t)(start - c->buf) & ~(size_t)4095);
	p->split = sp;
	atomic_init(&p->stop, stop);
	atomic_init(&p->reached, start);
	/* Not walked: decoded again in the join. */
	p->status = GIVE_UP;
	memmove(sp->parts + k + 1, sp->parts + k, (sp->count - k) * sizeof(*sp->parts));
	memmove(sp->starts + k + 1, sp->starts + k, (sp->count - k) * sizeof(*sp->starts));
	sp->parts[k] = p;
	sp->starts[k] = start;
	sp->count++;
	return p;
}

/*
 * Under sp->lock: a new part, walking, of the second half of what is left
 * of the walking part with the most left, which now stops where it
 * starts; NULL when no part has twice sp->steal_bytes left. A part that
 * has walked past that PSB by then stops where it is, and the join decodes
 * the new part again.
 */
static struct edge_ctx *split_steal(struct edge_split *sp)
{
	size_t best = SIZE_MAX, left = 0;
	const uint8_t *best_at = NULL, *best_stop = NULL, *q;
	struct edge_ctx *p;

	if (sp->count == MAX_PARTS)
		return NULL;
	for (size_t k = 0; k < sp->count; k++) {
		struct edge_ctx *v = sp->parts[k];
		const uint8_t *stop = atomic_load_explicit(&v->stop, memory_order_relaxed);
		const uint8_t *at = atomic_load_explicit(&v->reached, memory_order_relaxed);
		const uint8_t *end = stop ? stop : v->end;

		if (v->part_state == part_walking && end > at && (size_t)(end - at) > left) {
			best = k;
			best_at = at;
			best_stop = stop;
			left = (size_t)(end - at);
		}
	}
	if (best == SIZE_MAX || left / 2 < sp->steal_bytes)
		return NULL;
	q = psb_from(best_at + left / 2, best_at + left);
	if (!q || !(p = part_add(sp, best + 1, q, best_stop)))
		return NULL;
	p->part_state = part_walking;
	sp->split_off++;
	atomic_store_explicit(&sp->parts[best]->stop, q, memory_order_relaxed);
	return p;
}

/* Marks p (NULL: none) walked, and gives the next part to walk: one not
   started, else one split_steal makes; NULL when there is none. */
static struct edge_ctx *part_next(struct edge_split *sp, struct edge_ctx *p)
{
	struct edge_ctx *next = NULL;

	pthread_mutex_lock(&sp->lock);
	if (p)
		p->part_state = part_done;
	for (size_t k = 1; k < sp->count && !sp->stopped && !next; k++)
		if (sp->parts[k]->part_state == part_pending)
			next = sp->parts[k];
	if (next)
		next->part_state = part_walking;
	else if (!sp->stopped)
		next = split_steal(sp);
	pthread_mutex_unlock(&sp->lock);
	return next;
}

/* Walks part p in tables of its own, from its PSB+. */
static void part_walk(struct edge_ctx *p)
{
	if (ctx_tables(p) < 0) {
		p->nomem = 1;
		p->status = GIVE_UP;
	} else {
		p->status = walk_part(p);
	}
}

/* Parts walked while there are. */
static void parts_walk(struct edge_split *sp, struct edge_ctx *done)
{
	for (struct edge_ctx *p = part_next(sp, done); p; p = part_next(sp, p))
		part_walk(p);
}

static void *split_thread(void *arg)
{
	parts_walk(arg, NULL);
	return NULL;
}

/* Whether c stopped at its PSB+ in the state next starts in. next's first
   block runs from the FUP's IP, which may be inside c's running block: it
   ends at the same branch, and what follows counts from that branch. */
static int joins(const struct edge_ctx *c, const struct edge_ctx *next, const uint8_t *start)
{
	const struct edge_state *s = &next->start;

	return c->stopped_at == start && next->status != GIVE_UP &&
	       !next->nomem && c->time == s->time && c->last_ip == s->last_ip &&
	       c->epoch == s->epoch && c->tracing == s->tracing && c->enabled == s->enabled &&
	       c->crossing_pending == s->crossing_pending && c->since_packet == s->since_packet &&
	       (c->tracing ? runs_through(c, c->cur, s->ip) : !s->ip);
}

/* Moves from's counts (decoded after into's) to into. */
static int absorb(struct edge_ctx *into, struct edge_ctx *from)
{
	for (size_t k = 0; k < from->done_count; k++) {
		struct epoch_counts *e = &from->done[k];
		struct epoch_counts *last = into->done_count ? &into->done[into->done_count - 1] : NULL;

		if (last && last->epoch == e->epoch) {
			void *p = realloc(last->items, (last->count + e->count + 1) * sizeof(*e->items));

			if (!p)
				return -1;
			last->items = p;
			memcpy(last->items + last->count, e->items, e->count * sizeof(*e->items));
			last->count += e->count;
			free(e->items);
		} else {
			if (done_reserve(into) < 0)
				return -1;
			into->done[into->done_count++] = *e;
		}
		/* moved: from->done no longer holds it */
		e->items = NULL;
		e->count = 0;
	}
	if (from->crossing_count) {
		if (crossing_reserve(into, from->crossing_count) < 0)
			return -1;
		memcpy(into->crossings + into->crossing_count, from->crossings,
		       from->crossing_count * sizeof(*from->crossings));
		into->crossing_count += from->crossing_count;
	}
	into->blocks += from->blocks;
	into->insns += from->insns;
	into->overflows += from->overflows;
	into->enabled = from->enabled;
	return 0;
}

/* The parts' walks in order, into sp->head; as edge_run returns. */
static int split_join(struct edge_split *sp, int status)
{
	struct edge_ctx *c = sp->head; /* the part whose state is the decode's */
	struct hwt_decode_stats *stats = &sp->head->d->stats;

	for (size_t k = 1; k < sp->count && status == STOPPED && !c->nomem; k++) {
		struct edge_ctx *next = sp->parts[k];

		if (c->stopped_at > sp->starts[k]) {
			/* c walked next's part before its stop was moved back
			   (split_steal): next's walk is not needed */
			continue;
		}
		if (joins(c, next, sp->starts[k])) {
			stats->edge_segments++;
			if (epoch_close(c) < 0 || (c != sp->head && absorb(sp->head, c) < 0))
				return -hbe_nomem;
			c = next;
			status = next->status;
		} else {
			stats->edge_redecoded++;
			c->stopped_at = NULL;
			c->stop = k + 1 < sp->count ? sp->starts[k + 1] : NULL;
			status = walk_on(c, c->cur);
		}
	}
	if (c->nomem)
		return -hbe_nomem;
	if (status != 0)
		return 1;
	if (epoch_close(c) < 0 || (c != sp->head && absorb(sp->head, c) < 0))
		return -hbe_nomem;
	return 0;
}

/* edge_run on n threads; a part is split off where twice steal_bytes are left. */
static int edge_run_split(struct edge_ctx *c, unsigned n, size_t steal_bytes)
{
	struct edge_split sp;
	pthread_t threads[MAX_PARTS];
	int started[MAX_PARTS] = { 0 };
	size_t size = (size_t)(c->end - c->buf), threads_count;
	int status;

	memset(&sp, 0, sizeof(sp));
	sp.head = c;
	sp.size = size;
	sp.steal_bytes = steal_bytes;
	atomic_init(&sp.released, 0);
	sp.parts[0] = c;
	sp.starts[sp.count++] = c->buf;
	for (unsigned k = 1; k < n; k++) {
		const uint8_t *q = psb_from(c->buf + size / n * k, c->end);

		if (!q || q <= sp.starts[sp.count - 1])
			break;
		if (!part_add(&sp, sp.count, q, NULL))
			break; /* fewer parts */
		/* the part before stops where this one starts */
		atomic_store_explicit(&sp.parts[sp.count - 2]->stop, q, memory_order_relaxed);
	}
	if (sp.count < 2) {
		c->stop = NULL;
		return edge_run(c);
	}
	pthread_mutex_init(&sp.lock, NULL);
	c->split = &sp;
	c->part_state = part_walking;
	atomic_init(&c->reached, c->buf);
	threads_count = sp.count;
	for (size_t k = 1; k < threads_count; k++)
		started[k] = !pthread_create(&threads[k], NULL, split_thread, &sp);
	status = edge_run(c);
	if (status != STOPPED) {
		/* given up, or out of memory: what the others walk is not used */
		pthread_mutex_lock(&sp.lock);
		sp.stopped = 1;
		pthread_mutex_unlock(&sp.lock);
	}
	parts_walk(&sp, c);
	for (size_t k = 1; k < threads_count; k++)
		if (started[k])
			pthread_join(threads[k], NULL);
	c->d->stats.edge_split_off += sp.split_off;
	if (status == STOPPED)
		status = split_join(&sp, STOPPED);
	for (size_t k = 1; k < sp.count; k++) {
		ctx_free(sp.parts[k]);
		free(sp.parts[k]);
	}
	pthread_mutex_destroy(&sp.lock);
	c->split = NULL;
	return status;
}

/*
 * Check mode's stream in layouts: their counts, the stream's alone (each
 * stream's are taken out so), into c->done. -1 when out of memory.
 */
static int touched_take(struct edge_ctx *c)
{
	int status = 0;

	for (size_t k = 0; k < c->touched_count; k++)
		if (done_take(c, c->touched[k].epoch, &c->touched[k].layout->t) < 0)
			status = -1;
	c->touched_count = 0;
	return status;
}

/*
 * Adds what edge_run found to d as pt_decode would have: the counts in
 * the layouts stay there (layout_drain) and those in c->done go into d's
 * edge pool (pooled); else all go into d's profile now.
 */
static int edge_commit(struct edge_ctx *c, size_t size, int pooled)
{
	struct hwt_decoder *d = c->d;
	int taken = pooled ? 0 : touched_take(c); /* first: it adds to c->done */
	struct hwt_pt_block_count **counts = calloc(c->done_count + 1, sizeof(*counts));
	size_t *sizes = calloc(c->done_count + 1, sizeof(*sizes));
	size_t *epochs = calloc(c->done_count + 1, sizeof(*epochs));
	int status = -hbe_nomem;

	d->stats.streams++;
	d->stats.trace_bytes += size;
	d->stats.blocks += c->blocks;
	d->stats.insns += c->insns;
	d->stats.overflows += c->overflows;
	d->stats.edge_streams++;
	for (uint64_t k = 0; k < c->overflows; k++)
		hwt_decode_diag(d, hwt_diag_stream, c->stream->path, -1,
				    "trace overflow: the trace unit dropped trace, counts are low");
	if (c->enabled && !d->shared->trace_cap)
		hwt_decode_diag(d, hwt_diag_stream, c->stream->path, (int64_t)size,
				    "the trace ends at offset 0x%zx while tracing was enabled: "
				    "the stream was cut (recorder killed?) or the thread was killed",
				    size);
	if (counts && sizes && epochs) {
		for (size_t k = 0; k < c->done_count; k++) {
			counts[k] = c->done[k].items;
			sizes[k] = c->done[k].count;
			epochs[k] = c->done[k].epoch;
		}
		status = pooled ? hwt_edge_pool_add(d, c->space, counts, sizes, epochs,
						    c->done_count, c->crossings, c->crossing_count)
				: hwt_pt_counts_add(d, c->stream, c->space, counts, sizes, epochs,
						    c->done_count, c->crossings, c->crossing_count);
	}
	free(counts);
	free(sizes);
	free(epochs);
	if (taken < 0)
		status = -hbe_nomem;
	c->touched_count = 0; /* its counts are the layouts' now */
	d->done_bytes += size;
	hwt_decode_progress(d, d->done_bytes);
	if (status < 0)
		d->nomem = 1;
	return status;
}

/* Decodes with edge_run; 1 when libipt must (nothing done), else as decode_stream. */
static int edge_try(struct hwt_decoder *d, const struct hwt_bundle_stream *stream,
		    struct hwt_space *space, struct edge_ctx *c, size_t *size)
{
	uint8_t *buf;
	size_t segment;
	unsigned parts;
	int status;

	memset(c, 0, sizeof(*c));
	c->d = d;
	c->stream = stream;
	c->space = space;
	if (d->shared->pt_async_resume)
		return 1; /* kernel-mode trace cut out: libipt decodes the user part (stream.c) */
	buf = hwt_stream_bytes(d, stream, size);
	if (!buf)
		return 1; /* libipt reports it */
	c->buf = c->pos = c->released = buf;
	c->end = buf + *size;
	parts = d->split > 1 ? d->split : 1;
	segment = d->shared->options && d->shared->options->segment_bytes ? d->shared->options->segment_bytes
							   : SEGMENT_BYTES;
	if (parts > *size / segment)
		parts = (unsigned)(*size / segment);
	if (parts > MAX_PARTS)
		parts = MAX_PARTS;
	/* A file shorter than its mapping is found when an epoch is first
	   used (hwt_epoch_check_files), which the parts cannot do in order. */
	if (parts > 1 && !hwt_space_short_files(space))
		status = edge_run_split(c, parts, segment);
	else
		status = edge_run(c);
	hwt_stream_bytes_done(d, buf, *size);
	return status;
}

/* Both decoders into profiles of their own; an error where they differ. */
static int edge_check(struct hwt_decoder *d, const struct hwt_bundle_stream *stream,
		      struct hwt_space *space, struct edge_ctx *c, size_t size);

static int edge_decode(struct hwt_decoder *d, const struct hwt_bundle_stream *stream,
		       struct hwt_space *space)
{
	struct edge_ctx c;
	size_t size = 0;
	int status = edge_try(d, stream, space, &c, &size);

	if (status == 0)
		status = d->shared->options && d->shared->options->decoder == hwt_decoder_check
				 ? edge_check(d, stream, space, &c, size)
				 : edge_commit(&c, size, 1);
	else if (status == 1) {
		d->stats.edge_fallbacks++;
		status = hwt_pt_decoder.decode_stream(d, stream, space);
	} else {
		d->nomem = 1;
	}
	ctx_free(&c);
	return status;
}

/* The profile as text, malloc'ed, or NULL. */
static char *profile_text(const struct hwt_profile *p, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	if (!f)
		return NULL;
	if (hwt_profile_write(p, f) < 0) {
		fclose(f);
		free(text);
		return NULL;
	}
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

static int diags_equal(const struct hwt_diag_list *a, const struct hwt_diag_list *b)
{
	if (a->count != b->count)
		return 0;
	for (size_t k = 0; k < a->count; k++)
		if (a->items[k].kind != b->items[k].kind || a->items[k].offset != b->items[k].offset ||
		    strcmp(a->items[k].message, b->items[k].message))
			return 0;
	return 1;
}

static int edge_check(struct hwt_decoder *d, const struct hwt_bundle_stream *stream,
		      struct hwt_space *space, struct edge_ctx *c, size_t size)
{
	struct hwt_profile *real = d->profile;
	struct hwt_profile *ipt = hwt_decoder_profile_like(d);
	struct hwt_profile *edge = hwt_decoder_profile_like(d);
	struct hwt_diag_list *real_diags = d->diags;
	struct hwt_diag_list ipt_diags = { 0 }, edge_diags = { 0 };
	struct hwt_decode_stats stats;
	uint64_t done_bytes = d->done_bytes;
	char *ipt_text = NULL, *edge_text = NULL;
	size_t ipt_len = 0, edge_len = 0;
	int status = -hbe_nomem, same;

	if (!ipt || !edge)
		goto out;
	/* libipt's counts are the ones kept. */
	d->profile = edge;
	d->diags = &edge_diags;
	stats = d->stats;
	status = edge_commit(c, size, 0);
	d->stats = stats;
	d->done_bytes = done_bytes;
	if (status < 0)
		goto out;
	d->profile = ipt;
	d->diags = &ipt_diags;
	status = hwt_pt_decoder.decode_stream(d, stream, space);
	d->stats.edge_streams++;
	if (status < 0)
		goto out;
	ipt_text = profile_text(ipt, &ipt_len);
	edge_text = profile_text(edge, &edge_len);
	if (!ipt_text || !edge_text) {
		status = -hbe_nomem;
		goto out;
	}
	same = ipt_len == edge_len && !memcmp(ipt_text, edge_text, ipt_len) &&
	       diags_equal(&ipt_diags, &edge_diags);
	status = hwt_profile_merge(real, ipt) < 0 ? -hbe_nomem : 0;
	d->profile = real;
	d->diags = real_diags;
	for (size_t k = 0; k < ipt_diags.count; k++) {
		const struct hwt_diag_entry *e = &ipt_diags.items[k];

		hwt_decode_diag(d, e->kind, e->path, e->offset, "%s", e->message);
	}
	if (!same)
		hwt_decode_diag(d, hwt_diag_stream, stream->path, -1,
				    "the edge decoder and libipt disagree on this stream "
				    "(%zu and %zu bytes of profile, %zu and %zu diagnostics)",
				    edge_len, ipt_len, edge_diags.count, ipt_diags.count);
out:
	d->profile = real;
	d->diags = real_diags;
	if (status < 0)
		d->nomem = 1;
	hwt_diag_list_flush(&ipt_diags, NULL);
	hwt_diag_list_flush(&edge_diags, NULL);
	free(ipt_text);
	free(edge_text);
	hwt_profile_free(ipt);
	hwt_profile_free(edge);
	return status;
}

const struct hwt_trace_decoder hwt_edge_decoder = {
	.name = "intel-pt",
	.decode_stream = edge_decode,
};
