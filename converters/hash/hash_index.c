/* The hash index of an array's items (hash_index.h). */
#include <stdlib.h>
#include <string.h>

#include "hash_index.h"

#define FIRST_SIZE 64

static void put(struct hwt_hash_slot *slots, size_t mask, uint32_t hash, uint32_t item)
{
	size_t i = hash & mask;

	while (slots[i].item)
		i = (i + 1) & mask;
	slots[i].hash = hash;
	slots[i].item = item;
}

/* Makes room for count items, at most half full. */
static int reserve(struct hwt_hash_index *index, size_t count)
{
	size_t size = index->slots ? index->mask + 1 : 0, new_size = size ? size : FIRST_SIZE;
	struct hwt_hash_slot *slots;

	if (count * 2 <= size)
		return 0;
	while (new_size < count * 2)
		new_size *= 2;
	slots = calloc(new_size, sizeof(*slots));
	if (!slots)
		return -1;
	for (size_t i = 0; i < size; i++)
		if (index->slots[i].item)
			put(slots, new_size - 1, index->slots[i].hash, index->slots[i].item);
	free(index->slots);
	index->slots = slots;
	index->mask = new_size - 1;
	return 0;
}

int hwt_hash_index_add(struct hwt_hash_index *index, uint64_t hash, size_t item)
{
	if (item >= HWT_HASH_INDEX_MAX || index->count >= HWT_HASH_INDEX_MAX ||
	    reserve(index, index->count + 1) < 0)
		return -1;
	put(index->slots, index->mask, (uint32_t)hash, (uint32_t)(item + 1));
	index->count++;
	return 0;
}

void hwt_hash_index_clear(struct hwt_hash_index *index)
{
	if (index->slots)
		memset(index->slots, 0, (index->mask + 1) * sizeof(*index->slots));
	index->count = 0;
}

void hwt_hash_index_free(struct hwt_hash_index *index)
{
	free(index->slots);
	memset(index, 0, sizeof(*index));
}
