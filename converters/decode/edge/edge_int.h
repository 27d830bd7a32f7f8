/*
 * The edge decoder's parts (converters/decode/edge/), private to them.
 *
 * libipt decodes instruction by instruction; the profile needs only which
 * block followed which (stream.c counts {previous block's last
 * instruction, block} pairs). Here each block is found once per address
 * space with the x86 classifier (common/x86_insn.h) and cached as a node
 * with its terminating branch and its successors (edge_nodes.c); a TNT bit
 * moves from a node to one of its two successors and adds one to that
 * successor's count, a TIP finds its target's node and count in one probe
 * (edge_jumps.c). A run of TNT bits from a node is memoised with the
 * counts it adds (edge_runs.c), and the most common packets are walked in
 * a loop of their own, which leaves everything else to the walk
 * (edge_walk.c). Blocks are libipt's: they run through direct jumps and
 * calls inside one mapping (libipt's section) and end at a conditional,
 * indirect or far branch, so the counts handed to stream.c
 * (hwt_pt_counts_add) give the profile that libipt's loop and
 * flow_profile.c give. It hands out no ordered flow (hwt_flow.h): a flow
 * consumer gets libipt's decoder (decode.c).
 *
 * A whole stream walks in tables kept by address space layout across the
 * streams of the decode (edge_layout.c): the processes of a suite find
 * the blocks of ld.so and libc that the ones before them found, and their
 * counts are summed there, turned into profile counts once per layout
 * (edge_pool.c). Blocks are read from the files once per decoder thread
 * (code_cache.c), so a layout met for the first time is quick too. A
 * stream whose counts must leave the layouts is walked again to take
 * them back (edge_take_back.c); a long stream is split at PSBs across
 * threads (edge_split.c).
 *
 * The decode is done first without touching the profile. Whatever this
 * decoder does not model exactly as libipt does (a decode error, a packet
 * it does not know, a stream cut while tracing, an event where libipt's
 * binding is not certain) makes it give the stream to libipt's decoder
 * untouched, so the result is libipt's in every case; the decode stats
 * count such streams (hwt_decode_stats.edge_fallbacks). The stream, its
 * commit and check mode are in edge_stream.c and edge_check.c.
 */
#ifndef HWT_EDGE_INT_H
#define HWT_EDGE_INT_H

#include <stdatomic.h>
#include <stdint.h>

#include "decode_int.h"
#include "edge_packet.h"
#include "x86_insn.h"

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
 * they are read (edge_runs_flush) or it is replaced.
 *
 * A decoder thread keeps one cache for all the tables it walks in (its
 * layouts and a stream's own tables), since entries are keyed by node and
 * nodes of different tables differ: a cache for each layout would be
 * pages to fault in for every layout met. The parts of a split stream on
 * other threads each have one of their own. The decoder thread's is
 * large, since the layouts of a suite share it, and made at its size:
 * pages faulted in as it grew would be faulted in again (docs/decode.md,
 * "The edge decoder's parts", has the figures).
 */
#define RUN_BITS 8u
#define RUN_MAX_ENTERS 8u
#define RUN_SLOTS (1u << 14)      /* a decoder thread's */
#define PART_RUN_SLOTS (1u << 12) /* a part's on a thread of its own */

/* What a look-up and a hit read, in one cache line: the table is read at
   random, and a miss costs the walk more than anything else it reads. */
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
 * forgotten or freed, the hits are added (edge_runs_flush) and the generation
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

/* ----- Tables ------------------------------------------------------------- */

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
 * Made by edge_tables_alloc, freed by edge_tables_free (edge_tables.c).
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

#define NODES_PER_CHUNK 4096u

/* Where counts go as they are taken out of tables and zeroed. */
struct take {
	struct hwt_pt_block_count *items; /* NULL: nowhere */
	size_t n;
	uint64_t blocks, insns;
};

/* The kept layouts a decoder keeps at most (edge_layout.c). */
#define MAX_LAYOUTS 32

/* An address space layout's tables, kept across streams (edge_layout.c). */
struct edge_layout {
	struct hwt_epoch epoch;    /* its mappings, copied; maps NULL: a free slot */
	uint64_t hash;
	struct edge_tables t;      /* while not attached to a stream */
	uint64_t used;             /* when last attached */
	int counted;               /* its tables hold counts not drained */
};

/* A layout the stream walked one of its epochs in. */
struct touched {
	struct edge_layout *layout;
	size_t epoch;
};

/* ----- A walk of a stream, in parts -------------------------------------- */

/*
 * The address space the walk is in, and the tables of its epoch: those
 * of the epoch's layout, or the stream's own. edge_address_init and
 * edge_address_fini (edge_layout.c); the counts a stream left in layouts
 * are taken back first (edge_layout_release).
 */
struct edge_address {
	struct hwt_space *space;
	size_t epoch;
	uint64_t next_time;        /* of the next epoch, UINT64_MAX: none */
	struct edge_tables t;      /* of the current epoch */
	struct edge_layout *layout;/* whose tables t are, NULL: the stream's own */
	int own_tables;            /* a whole stream not walked in layouts */
	struct touched *touched;   /* the layouts its counts are in */
	size_t touched_count, touched_capacity;
};

/*
 * What a walk found, out of its tables: counts by epoch, address space
 * crossings, totals. edge_counted_init and edge_counted_fini
 * (edge_counts.c).
 */
struct edge_counted {
	struct count_table table;  /* blocks cut short */
	struct epoch_counts *done;
	size_t done_count, done_capacity;
	struct hwt_pt_crossing *crossings;
	size_t crossing_count, crossing_capacity;
	uint64_t overflows, blocks, insns;
};

/* What libipt's loop keeps, and the last count, to take back. Zeroed:
   not tracing, nothing to take back; it owns nothing. */
struct edge_walk_state {
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
};

/* A walk again of a stream, to take its counts back (edge_take_back.c).
   Zeroed: the first walk. Set by edge_take_counts_back; it owns nothing. */
struct edge_again {
	struct edge_ctx *of;       /* the first walk */
	size_t upto;               /* stops at the start of this epoch */
	int at_upto;               /* stopped there */
	int keep_taken;            /* the counts taken back go to the first walk's done */
};

/* Why a stream goes to libipt. */
#define GIVE_UP (-1)
/* The walk stopped at its part's stop (edge_split.c): part.cur runs. */
#define STOPPED 2

/* A stream of more than this is split at PSBs (edge_split.c) ... */
#define SEGMENT_BYTES (1u << 20)
/* ... into this many parts at most. */
#define MAX_PARTS 64

enum { part_pending, part_walking, part_done };

/* A part of a stream split at PSBs (edge_split.c). Zeroed: the whole
   stream, on one thread; set by edge_part_init (edge_split.c). It owns
   nothing. */
struct edge_part {
	struct edge_split *split;  /* NULL: the whole stream, on one thread */
	/* The walk stops at the packet here or after it: moved back by other
	   threads (split_steal) while the walk runs, so read atomically. */
	_Atomic(const uint8_t *) stop;
	_Atomic(const uint8_t *) reached; /* the last PSB walked, for split_steal */
	struct node *cur;          /* where it stopped: the block running */
	const uint8_t *stopped_at; /* stopped after the PSB+ here; NULL: elsewhere */
	int state;                 /* part_pending, _walking or _done, under edge_split.lock */
	int status;                /* a part's walk: 0, GIVE_UP or STOPPED */
	struct edge_state start;   /* a part's state after its first PSB+ */
};

/* A walk of a stream (or of a part of it). edge_ctx_init and
   edge_ctx_fini (edge_stream.c). */
struct edge_ctx {
	struct hwt_decoder *d;
	const struct hwt_bundle_stream *stream;
	struct edge_reader rd;     /* packets */
	struct edge_walk_state ws;
	struct edge_address as;
	struct edge_counted out;
	struct edge_again again;
	struct edge_part part;
	int nomem;
};

/* ----- Functions --------------------------------------------------------- */

/* edge_stream.c */
void edge_ctx_init(struct edge_ctx *c, struct hwt_decoder *d,
		   const struct hwt_bundle_stream *stream, struct hwt_space *space);
void edge_ctx_fini(struct edge_ctx *c);
int edge_run(struct edge_ctx *c);
int edge_commit(struct edge_ctx *c, size_t size, int pooled);

/* edge_check.c */
int edge_check(struct hwt_decoder *d, const struct hwt_bundle_stream *stream,
	       struct hwt_space *space, struct edge_ctx *c, size_t size);

/* edge_counts.c */
int edge_counted_init(struct edge_counted *o);
void edge_counted_fini(struct edge_counted *o);
int edge_table_grow(struct count_table *t);
size_t edge_table_slot(struct edge_ctx *c, uint64_t prev, uint64_t ip, uint64_t end,
		       uint32_t ninsn);
int edge_done_reserve(struct edge_counted *o);
int edge_crossing_reserve(struct edge_counted *o, size_t n);
void edge_cut_short_take(struct edge_counted *o, struct take *w);
int edge_done_take(struct edge_ctx *c, size_t epoch, struct edge_tables *t);
int edge_epoch_close(struct edge_ctx *c);

/* edge_nodes.c */
int edge_follow(const struct hwt_mapping *m, uint64_t ip, uint64_t stop, struct node *n);
int edge_nodes_grow(struct edge_tables *t);
struct node *edge_node_at(struct edge_ctx *c, uint64_t ip);
struct node *edge_node_find(const struct edge_tables *t, uint64_t ip);

/* edge_jumps.c */
int edge_jumps_grow(struct jump_table *t);
struct jump *edge_jump_add(struct edge_ctx *c, struct node *from, uint64_t ip, size_t i);
struct jump *edge_jump_find(const struct edge_tables *t, const struct node *from, uint64_t ip);

/* edge_runs.c */
struct run *edge_run_build(struct edge_ctx *c, struct run *r, struct node *from, uint32_t key);
void edge_runs_flush(struct edge_tables *t);
void edge_runs_forget(struct edge_tables *t);
struct hwt_edge_runs *edge_run_cache_alloc(uint32_t slots);
void edge_run_cache_free(struct hwt_edge_runs *rc);

/* edge_tables.c */
int edge_tables_alloc(struct edge_ctx *c);
void edge_tables_free(struct edge_tables *t);
size_t edge_tables_counted(struct edge_tables *t);
void edge_tables_take(struct edge_tables *t, struct take *w);
void edge_tables_forget(struct edge_tables *t);
int edge_tables_subtract(struct edge_tables *t, struct edge_tables *own);

/* edge_layout.c */
void edge_address_init(struct edge_address *a, struct hwt_space *space);
void edge_address_fini(struct edge_address *a);
int edge_epoch_tables(struct edge_ctx *c);
void edge_layout_detach(struct edge_ctx *c);
void edge_layout_release(struct edge_ctx *c);
struct edge_layout *edge_touched_layout(const struct edge_ctx *c, size_t epoch);
int edge_touched_take(struct edge_ctx *c);

/* edge_take_back.c */
int edge_take_counts_back(struct edge_ctx *c, size_t upto, int keep);
int edge_epoch_counts_back(struct edge_ctx *c);

/* edge_walk.c */
int edge_walk(struct edge_ctx *c);
int edge_walk_part(struct edge_ctx *c);
int edge_walk_on(struct edge_ctx *c, struct node *cur);
int edge_runs_through(const struct edge_ctx *c, const struct node *cur, uint64_t ip);

/* edge_split.c */
int edge_on_decoder_thread(const struct edge_ctx *c);
void edge_split_progress(struct edge_ctx *c, size_t bytes);
int edge_run_split(struct edge_ctx *c, unsigned n, size_t steal_bytes);

/* ----- Inline: the hot path's look-ups ------------------------------------ */

static inline size_t node_hash(uint64_t ip, size_t mask)
{
	uint64_t h = ip * 0x9e3779b97f4a7c15ull;

	return (size_t)(h ^ h >> 31) & mask;
}

/* The nodes of tables t in chunk k. */
static inline size_t chunk_nodes(const struct edge_tables *t, size_t k)
{
	return k < t->chunk_cur ? NODES_PER_CHUNK : k == t->chunk_cur ? t->chunk_used : 0;
}

static inline size_t jump_hash(const struct node *from, uint64_t ip, size_t mask)
{
	uint64_t h = (uint64_t)(uintptr_t)from * 0xc2b2ae3d27d4eb4full ^ ip * 0x9e3779b97f4a7c15ull;

	return (size_t)(h ^ h >> 29) & mask;
}

/* The jump from `from` to ip, made on first use (its block too); NULL: give up. */
static inline struct jump *edge_jump_to(struct edge_ctx *c, struct node *from, uint64_t ip)
{
	struct jump_table *t = &c->as.t.jumps;
	size_t i;

	for (i = jump_hash(from, ip, t->mask); t->items[i].from; i = (i + 1) & t->mask)
		if (t->items[i].from == from && t->items[i].ip == ip)
			return &t->items[i];
	return edge_jump_add(c, from, ip, i);
}

/*
 * The run of len bits (the oldest in the high end of bits) from the
 * conditional block `from`, as the walk takes it: each bit enters the
 * successor it names, then the blocks its direct jumps lead to. NULL when
 * it cannot be memoised (the walk takes it bit by bit and says why).
 */
static inline struct run *edge_run_from(struct edge_ctx *c, struct node *from, unsigned bits,
					unsigned len)
{
	struct hwt_edge_runs *rc = c->as.t.runs;
	uint32_t key = bits | len << RUN_BITS;
	uint64_t h = ((uint64_t)(uintptr_t)from ^ key) * 0x9e3779b97f4a7c15ull;
	struct run *r = &rc->runs[(h ^ h >> 32) & rc->mask];

	if (r->from == from && r->key == key && r->generation == rc->generation)
		return r;
	return edge_run_build(c, r, from, key);
}

#endif
