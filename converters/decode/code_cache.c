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
#include "hash_index.h"

/* Values are kept in pieces of this size (a larger value has its own). */
#define ARENA_PIECE (1u << 20)
/* Past this, the cache is emptied and filled again: memory stays bounded
   however many different mappings a bundle holds. */
#define MAX_BYTES ((size_t)256 << 20)

struct code_entry {
	struct hwt_code_key key;
	void *value;
};

struct arena_piece {
	struct arena_piece *next;
	size_t used, size;
	_Alignas(16) unsigned char data[];
};

struct hwt_code_cache {
	struct hwt_hash_index index;
	struct code_entry *entries;
	size_t count, capacity;
	struct arena_piece *pieces;
	size_t bytes;
};

static uint64_t key_hash(const struct hwt_code_key *k)
{
	return hwt_hash_mix((uint64_t)(uintptr_t)k->file * 0x9e3779b97f4a7c15ull ^
			    k->pgoff * 0xc2b2ae3d27d4eb4full ^ k->size * 0x165667b19e3779f9ull ^
			    k->offset ^ (uint64_t)k->what << 56 ^ (uint64_t)k->extra << 24);
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

const void *hwt_code_find(const struct hwt_decoder *d, const struct hwt_code_key *key)
{
	const struct hwt_code_cache *cc = d->code;
	struct hwt_hash_probe p;

	if (!cc)
		return NULL;
	for (long k = hwt_hash_index_find(&cc->index, key_hash(key), &p); k >= 0;
	     k = hwt_hash_index_next(&cc->index, &p))
		if (key_equal(&cc->entries[k].key, key))
			return cc->entries[k].value;
	return NULL;
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
	hwt_hash_index_free(&cc->index);
}

static void *arena_alloc(struct hwt_code_cache *cc, size_t size)
{
	struct arena_piece *p = cc->pieces;

	size = (size + 15) & ~(size_t)15;
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
	return p->data + p->used - size;
}

void *hwt_code_add(struct hwt_decoder *d, const struct hwt_code_key *key, size_t size)
{
	struct hwt_code_cache *cc = d->code;
	void *value;

	if (!cc && !(cc = d->code = calloc(1, sizeof(*cc))))
		return NULL;
	if (cc->bytes + cc->capacity * sizeof(*cc->entries) + size > MAX_BYTES)
		cache_empty(cc);
	if (cc->count == cc->capacity) {
		size_t capacity = cc->capacity ? 2 * cc->capacity : 4096;
		void *p = realloc(cc->entries, capacity * sizeof(*cc->entries));

		if (!p)
			return NULL;
		cc->entries = p;
		cc->capacity = capacity;
	}
	value = arena_alloc(cc, size);
	if (!value || hwt_hash_index_add(&cc->index, key_hash(key), cc->count) < 0)
		return NULL; /* an unused value stays in the arena until it is freed */
	cc->entries[cc->count++] = (struct code_entry){ *key, value };
	return value;
}

void hwt_code_cache_free(struct hwt_decoder *d)
{
	struct hwt_code_cache *cc = d->code;

	if (!cc)
		return;
	cache_empty(cc);
	free(cc->entries);
	free(cc);
	d->code = NULL;
}
