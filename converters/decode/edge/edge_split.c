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
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "edge_int.h"

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
int edge_on_decoder_thread(const struct edge_ctx *c)
{
	return !c->part.split || c == c->part.split->head;
}

void edge_split_progress(struct edge_ctx *c, size_t bytes)
{
	struct edge_split *sp = c->part.split;
	uint64_t done = atomic_fetch_add(&sp->released, bytes) + bytes;

	/* Only the calling thread reports; parts decoded again count twice. */
	if (c == sp->head)
		hwt_decode_progress(c->d, c->d->done_bytes + (done < sp->size ? done : sp->size));
}

/* The first PSB at or after p, or NULL. */
static const uint8_t *psb_from(const uint8_t *p, const uint8_t *end)
{
	while (end - p >= 16) {
		const uint8_t *q = memchr(p, edge_psb_pattern[0], (size_t)(end - p) - 15);

		if (!q)
			return NULL;
		if (!memcmp(q, edge_psb_pattern, 16))
			return q;
		p = q + 1;
	}
	return NULL;
}

/* A part on a thread of its own, from start to stop (NULL: the end), not
   walked yet. */
static void edge_part_init(struct edge_part *part, struct edge_split *sp, const uint8_t *start,
			   const uint8_t *stop)
{
	part->split = sp;
	atomic_init(&part->stop, stop);
	atomic_init(&part->reached, start);
	/* Not walked: decoded again in the join. */
	part->status = GIVE_UP;
}

/* A part of c's stream from the PSB at start to stop (NULL: its end), at index k of sp. */
static struct edge_ctx *part_add(struct edge_split *sp, size_t k, const uint8_t *start,
				 const uint8_t *stop)
{
	const struct edge_ctx *c = sp->head;
	struct edge_ctx *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	edge_ctx_init(p, c->d, c->stream, c->as.space);
	edge_reader_init(&p->rd, c->rd.buf, (size_t)(c->rd.end - c->rd.buf), start);
	edge_part_init(&p->part, sp, start, stop);
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
		const uint8_t *stop = atomic_load_explicit(&v->part.stop, memory_order_relaxed);
		const uint8_t *at = atomic_load_explicit(&v->part.reached, memory_order_relaxed);
		const uint8_t *end = stop ? stop : v->rd.end;

		if (v->part.state == part_walking && end > at && (size_t)(end - at) > left) {
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
	p->part.state = part_walking;
	sp->split_off++;
	atomic_store_explicit(&sp->parts[best]->part.stop, q, memory_order_relaxed);
	return p;
}

/* Marks p (NULL: none) walked, and gives the next part to walk: one not
   started, else one split_steal makes; NULL when there is none. */
static struct edge_ctx *part_next(struct edge_split *sp, struct edge_ctx *p)
{
	struct edge_ctx *next = NULL;

	pthread_mutex_lock(&sp->lock);
	if (p)
		p->part.state = part_done;
	for (size_t k = 1; k < sp->count && !sp->stopped && !next; k++)
		if (sp->parts[k]->part.state == part_pending)
			next = sp->parts[k];
	if (next)
		next->part.state = part_walking;
	else if (!sp->stopped)
		next = split_steal(sp);
	pthread_mutex_unlock(&sp->lock);
	return next;
}

/* The tables of a walk of a part, empty. */
static int ctx_tables(struct edge_ctx *c)
{
	return edge_table_grow(&c->out.table) < 0 || edge_tables_alloc(c) < 0 ? -1 : 0;
}

/* Walks part p in tables of its own, from its PSB+. */
static void part_walk(struct edge_ctx *p)
{
	if (ctx_tables(p) < 0) {
		p->nomem = 1;
		p->part.status = GIVE_UP;
	} else {
		p->part.status = edge_walk_part(p);
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
	const struct edge_state *s = &next->part.start;

	return c->part.stopped_at == start && next->part.status != GIVE_UP &&
	       !next->nomem && c->rd.time == s->time && c->rd.last_ip == s->last_ip &&
	       c->as.epoch == s->epoch && c->ws.tracing == s->tracing && c->ws.enabled == s->enabled &&
	       c->ws.crossing_pending == s->crossing_pending && c->ws.since_packet == s->since_packet &&
	       (c->ws.tracing ? edge_runs_through(c, c->part.cur, s->ip) : !s->ip);
}

/* Moves from's counts (decoded after into's) to into. */
static int absorb(struct edge_ctx *into, struct edge_ctx *from)
{
	for (size_t k = 0; k < from->out.done_count; k++) {
		struct epoch_counts *e = &from->out.done[k];
		struct epoch_counts *last =
			into->out.done_count ? &into->out.done[into->out.done_count - 1] : NULL;

		if (last && last->epoch == e->epoch) {
			void *p = realloc(last->items, (last->count + e->count + 1) * sizeof(*e->items));

			if (!p)
				return -1;
			last->items = p;
			memcpy(last->items + last->count, e->items, e->count * sizeof(*e->items));
			last->count += e->count;
			free(e->items);
		} else {
			if (edge_done_reserve(&into->out) < 0)
				return -1;
			into->out.done[into->out.done_count++] = *e;
		}
		/* moved: from->out.done no longer holds it */
		e->items = NULL;
		e->count = 0;
	}
	if (from->out.crossing_count) {
		if (edge_crossing_reserve(&into->out, from->out.crossing_count) < 0)
			return -1;
		memcpy(into->out.crossings + into->out.crossing_count, from->out.crossings,
		       from->out.crossing_count * sizeof(*from->out.crossings));
		into->out.crossing_count += from->out.crossing_count;
	}
	into->out.blocks += from->out.blocks;
	into->out.insns += from->out.insns;
	into->out.overflows += from->out.overflows;
	into->ws.enabled = from->ws.enabled;
	return 0;
}

/* The parts' walks in order, into sp->head; as edge_run returns. */
static int split_join(struct edge_split *sp, int status)
{
	struct edge_ctx *c = sp->head; /* the part whose state is the decode's */
	struct hwt_decode_stats *stats = &sp->head->d->stats;

	for (size_t k = 1; k < sp->count && status == STOPPED && !c->nomem; k++) {
		struct edge_ctx *next = sp->parts[k];

		if (c->part.stopped_at > sp->starts[k]) {
			/* c walked next's part before its stop was moved back
			   (split_steal): next's walk is not needed */
			continue;
		}
		if (joins(c, next, sp->starts[k])) {
			stats->edge_segments++;
			if (edge_epoch_close(c) < 0 || (c != sp->head && absorb(sp->head, c) < 0))
				return -hbe_nomem;
			c = next;
			status = next->part.status;
		} else {
			stats->edge_redecoded++;
			c->part.stopped_at = NULL;
			c->part.stop = k + 1 < sp->count ? sp->starts[k + 1] : NULL;
			status = edge_walk_on(c, c->part.cur);
		}
	}
	if (c->nomem)
		return -hbe_nomem;
	if (status != 0)
		return 1;
	if (edge_epoch_close(c) < 0 || (c != sp->head && absorb(sp->head, c) < 0))
		return -hbe_nomem;
	return 0;
}

/* edge_run on n threads; a part is split off where twice steal_bytes are left. */
int edge_run_split(struct edge_ctx *c, unsigned n, size_t steal_bytes)
{
	struct edge_split sp;
	pthread_t threads[MAX_PARTS];
	int started[MAX_PARTS] = { 0 };
	size_t size = (size_t)(c->rd.end - c->rd.buf), threads_count;
	int status;

	memset(&sp, 0, sizeof(sp));
	sp.head = c;
	sp.size = size;
	sp.steal_bytes = steal_bytes;
	atomic_init(&sp.released, 0);
	sp.parts[0] = c;
	sp.starts[sp.count++] = c->rd.buf;
	for (unsigned k = 1; k < n; k++) {
		const uint8_t *q = psb_from(c->rd.buf + size / n * k, c->rd.end);

		if (!q || q <= sp.starts[sp.count - 1])
			break;
		if (!part_add(&sp, sp.count, q, NULL))
			break; /* fewer parts */
		/* the part before stops where this one starts */
		atomic_store_explicit(&sp.parts[sp.count - 2]->part.stop, q, memory_order_relaxed);
	}
	if (sp.count < 2) {
		c->part.stop = NULL;
		return edge_run(c);
	}
	pthread_mutex_init(&sp.lock, NULL);
	c->part.split = &sp;
	c->part.state = part_walking;
	atomic_init(&c->part.reached, c->rd.buf);
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
		edge_ctx_fini(sp.parts[k]);
		free(sp.parts[k]);
	}
	pthread_mutex_destroy(&sp.lock);
	c->part.split = NULL;
	return status;
}
