/*
 * What the decoders learnt from reading code, kept across the streams that
 * one decoder (one thread) decodes. A file mapped over the same range of
 * its pages holds the same code in every process that maps it, wherever
 * the mapping starts, so a block found once in one process need not be
 * decoded again in the next: a suite of short processes runs the same
 * start-up code of ld.so and libc in each. The values are the callers'
 * (the edge decoder's nodes, stream.c's chains and block exits), kept in
 * an arena freed with the cache; their addresses are relative to the
 * mapping's bias (start - pgoff), which hwt_code_bias gives.
 */
#include <stdlib.h>
#include <string.h>

#include "decode_int.h"

/* Values are kept in pieces of this size (a larger value has its own). */
#define ARENA_PIECE (1u << 20)
/* Past this, the cache is emptied and filled again: memory stays bounded
   however many different mappings a bundle holds. */
#define MAX_BYTES ((size_t)256 << 20)

/* A value with its key, in the arena. */
struct code_entry {
	struct hwt_code_key key;
	_Alignas(16) unsigned char value[];
};

/* A slot of the table: small, so that the table stays in the cache of the
   core and a look-up waits for one read of memory, the entry's. */
struct code_slot {
	uint64_t hash;
	struct code_entry *entry;  /* NULL: empty */
};

struct arena_piece {
	struct arena_piece *next;
	size_t used, size;
	_Alignas(16) unsigned char data[];
};

struct hwt_code_cache {
	struct code_slot *slots;   /* open addressing, at most half full */
	size_t mask, count;
	struct arena_piece *pieces;
	size_t bytes;              /* of the pieces */
};

static uint64_t key_hash(const struct hwt_code_key *k)
{
	uint64_t h = ((uint64_t)(uintptr_t)k->file ^ k->pgoff ^ k->size << 17) * 0xc2b2ae3d27d4eb4full +
		     k->offset * 0x9e3779b97f4a7c15ull + (k->what | (uint64_t)k->extra << 8);

	h ^= h >> 32;
	h *= 0xff51afd7ed558ccdull;
	return h ^ h >> 29;
}

static int key_equal(const struct hwt_code_key *a, const struct hwt_code_key *b)
{
	return a->file == b->file && a->offset == b->offset && a->pgoff == b->pgoff &&
	       a->size == b->size && a->what == b->what && a->extra == b->extra;
}

struct hwt_code_key hwt_code_key(const struct hwt_mapping *m, uint64_t ip, uint32_t what,
				 uint32_t extra)
{
	return (struct hwt_code_key){ m->file, m->pgoff, m->end - m->start,
				      ip - m->start + m->pgoff, what, extra };
}

/* The slot of key, or the empty one where it would go. */
static struct code_slot *slot_of(const struct hwt_code_cache *cc, const struct hwt_code_key *key,
				 uint64_t hash)
{
	for (size_t i = (size_t)hash & cc->mask;; i = (i + 1) & cc->mask) {
		struct code_slot *s = &cc->slots[i];

		if (!s->entry || (s->hash == hash && key_equal(&s->entry->key, key)))
			return s;
	}
}

const void *hwt_code_find(const struct hwt_decoder *d, const struct hwt_code_key *key)
{
	const struct hwt_code_cache *cc = d->code;
	const struct code_slot *s;

	if (!cc || !cc->slots)
		return NULL;
	s = slot_of(cc, key, key_hash(key));
	return s->entry ? s->entry->value : NULL;
}

static void cache_empty(struct hwt_code_cache *cc)
{
	for (struct arena_piece *p = cc->pieces, *next; p; p = next) {
		next = p->next;
		free(p);
	}
	cc->pieces = NULL;
	cc->bytes = 0;
	cc->count = 0;
	free(cc->slots);
	cc->slots = NULL;
	cc->mask = 0;
}

static int slots_grow(struct hwt_code_cache *cc)
{
	size_t size = cc->slots ? 2 * (cc->mask + 1) : 8192;
	struct code_slot *slots = hwt_table_calloc(size, sizeof(*slots));

	if (!slots)
		return -1;
	for (size_t k = 0; cc->slots && k <= cc->mask; k++) {
		const struct code_slot *s = &cc->slots[k];
		size_t i;

		if (!s->entry)
			continue;
		for (i = (size_t)s->hash & (size - 1); slots[i].entry; i = (i + 1) & (size - 1))
			;
		slots[i] = *s;
	}
	free(cc->slots);
	cc->slots = slots;
	cc->mask = size - 1;
	return 0;
}

static struct code_entry *arena_alloc(struct hwt_code_cache *cc, size_t size)
{
	struct arena_piece *p = cc->pieces;

	size = (sizeof(struct code_entry) + size + 15) & ~(size_t)15;
	if (!p || p->size - p->used < size) {
		size_t room = size > ARENA_PIECE ? size : ARENA_PIECE;

		p = malloc(sizeof(*p) + room);
		if (!p)
			return NULL;
		p->size = room;
		p->used = 0;
		p->next = cc->pieces;
		cc->pieces = p;
		cc->bytes += sizeof(*p) + room;
	}
	p->used += size;
	return (struct code_entry *)(p->data + p->used - size);
}

void *hwt_code_add(struct hwt_decoder *d, const struct hwt_code_key *key, size_t size)
{
	struct hwt_code_cache *cc = d->code;
	uint64_t hash = key_hash(key);
	struct code_slot *s;
	struct code_entry *e;

	if (!cc && !(cc = d->code = calloc(1, sizeof(*cc))))
		return NULL;
	if (cc->bytes + (cc->mask + 1) * sizeof(*cc->slots) + size > MAX_BYTES)
		cache_empty(cc);
	if ((cc->count + 1) * 2 > cc->mask && slots_grow(cc) < 0)
		return NULL;
	s = slot_of(cc, key, hash);
	if (s->entry)
		return NULL; /* there already: the caller did not look */
	if (!(e = arena_alloc(cc, size)))
		return NULL;
	e->key = *key;
	*s = (struct code_slot){ hash, e };
	cc->count++;
	return e->value;
}

void hwt_code_cache_free(struct hwt_decoder *d)
{
	struct hwt_code_cache *cc = d->code;

	if (!cc)
		return;
	cache_empty(cc);
	free(cc);
	d->code = NULL;
}
