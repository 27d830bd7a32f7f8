/*
 * The edge decoder's nodes: libipt's blocks, each found once per set of
 * tables with the x86 classifier and once per decoder thread through its
 * code cache (code_cache.c).
 */
#include <stdlib.h>
#include <string.h>

#include "edge_int.h"

/* A fresh node; chunks are kept from epoch to epoch, their nodes cleared as
   they are handed out again. */
static struct node *node_alloc(struct edge_ctx *c)
{
	struct node *n;

	if (c->as.t.chunk_used == NODES_PER_CHUNK || !c->as.t.chunk_count) {
		if (c->as.t.chunk_count && c->as.t.chunk_cur + 1 < c->as.t.chunk_count) {
			c->as.t.chunk_cur++;
		} else {
			struct node **chunks = realloc(c->as.t.chunks,
						       (c->as.t.chunk_count + 1) * sizeof(*chunks));

			if (!chunks)
				return NULL;
			c->as.t.chunks = chunks;
			if (!(c->as.t.chunks[c->as.t.chunk_count] = malloc(NODES_PER_CHUNK * sizeof(*n))))
				return NULL;
			c->as.t.chunk_cur = c->as.t.chunk_count++;
		}
		c->as.t.chunk_used = 0;
	}
	n = &c->as.t.chunks[c->as.t.chunk_cur][c->as.t.chunk_used++];
	memset(n, 0, sizeof(*n));
	return n;
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
int edge_follow(const struct hwt_mapping *m, uint64_t ip, uint64_t stop, struct node *n)
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

/* A node as edge_follow() finds it, its addresses relative to its mapping's bias. */
struct node_shape {
	uint64_t end, succ_ip[2];
	uint32_t ninsn, kind;
};

/*
 * edge_follow() for a whole block, through the decoder's code cache: a block
 * of ld.so or libc is followed once, not once in every process. A part of
 * a split stream on a thread of its own leaves the cache to the thread
 * that owns the decoder.
 */
static int node_shape(struct edge_ctx *c, uint64_t ip, struct node *n)
{
	const struct hwt_mapping *m = hwt_epoch_find(&c->as.space->epochs[c->as.epoch], ip);
	const struct node_shape *shape;
	struct node_shape *added;
	struct hwt_code_key key;
	uint64_t bias;

	if (!m || m->file->state != hwt_file_ok)
		return -1;
	if (!edge_on_decoder_thread(c))
		return edge_follow(m, ip, 0, n);
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
	if (edge_follow(m, ip, 0, n) < 0)
		return -1;
	if ((added = hwt_code_add(c->d, &key, sizeof(*added))))
		*added = (struct node_shape){ n->end - bias,
					      { n->succ_ip[0] - bias, n->succ_ip[1] - bias },
					      n->ninsn, n->kind };
	return 0;
}

/* Doubles t's hash of nodes (makes it, empty); -1 when out of memory. */
int edge_nodes_grow(struct edge_tables *t)
{
	size_t size = t->node_mask ? (t->node_mask + 1) * 2 : 4096;
	struct node **nodes = hwt_table_calloc(size, sizeof(*nodes));

	if (!nodes)
		return -1;
	for (size_t k = 0; t->nodes && k <= t->node_mask; k++)
		for (struct node *n = t->nodes[k], *next; n; n = next) {
			size_t i = node_hash(n->ip, size - 1);

			next = n->hash_next;
			n->hash_next = nodes[i];
			nodes[i] = n;
		}
	free(t->nodes);
	t->nodes = nodes;
	t->node_mask = size - 1;
	return 0;
}

/* The node of the block at ip, made on first use; NULL: give up. */
struct node *edge_node_at(struct edge_ctx *c, uint64_t ip)
{
	size_t i = node_hash(ip, c->as.t.node_mask);
	struct node *n;

	for (n = c->as.t.nodes[i]; n; n = n->hash_next)
		if (n->ip == ip)
			return n;
	if ((c->as.t.node_count + 1) > c->as.t.node_mask) {
		if (edge_nodes_grow(&c->as.t) < 0) {
			c->nomem = 1;
			return NULL;
		}
		i = node_hash(ip, c->as.t.node_mask);
	}
	n = node_alloc(c);
	if (!n) {
		c->nomem = 1;
		return NULL;
	}
	if (node_shape(c, ip, n) < 0)
		return NULL; /* the node stays unused in its chunk */
	n->hash_next = c->as.t.nodes[i];
	c->as.t.nodes[i] = n;
	c->as.t.node_count++;
	return n;
}

/* The node of the block at ip in t, or NULL. */
struct node *edge_node_find(const struct edge_tables *t, uint64_t ip)
{
	struct node *n = t->nodes[node_hash(ip, t->node_mask)];

	while (n && n->ip != ip)
		n = n->hash_next;
	return n;
}
