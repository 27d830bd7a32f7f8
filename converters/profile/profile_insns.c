/*
 * The per-instruction view of an image: blocks walked instruction by
 * instruction with the classifier of the image's architecture (its ELF
 * e_machine: x86-64 or AArch64) over the image's file, plus the
 * taken/not-taken counts of conditional branches from the edges.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "elf_file.h"
#include "profile_int.h"
#include "insn.h"

struct insn_map {
	struct hwt_profile_insn *items;
	size_t count, capacity;
	struct hwt_hash_index index;  /* of items by offset */
};

/* The entry for offset, or NULL (when create is 0 and there is none, or out of memory). */
static struct hwt_profile_insn *map_get(struct insn_map *m, uint64_t offset, int create)
{
	struct hwt_hash_probe probe;
	uint64_t hash = hwt_hash_mix(offset);

	for (long k = hwt_hash_index_find(&m->index, hash, &probe); k >= 0;
	     k = hwt_hash_index_next(&m->index, &probe))
		if (m->items[k].offset == offset)
			return &m->items[k];
	if (!create)
		return NULL;
	{
		void *p = hwt_grow_array(m->items, &m->capacity, m->count + 1,
					 sizeof(*m->items));

		if (!p)
			return NULL;
		m->items = p;
	}
	if (hwt_hash_index_add(&m->index, hash, m->count) < 0)
		return NULL;
	memset(&m->items[m->count], 0, sizeof(m->items[0]));
	m->items[m->count].offset = offset;
	return &m->items[m->count++];
}

static int insn_cmp(const void *pa, const void *pb)
{
	const struct hwt_profile_insn *a = pa, *b = pb;

	return a->offset < b->offset ? -1 : a->offset > b->offset;
}

/* Adds one block's count to each of its instructions. */
static int walk_block(struct insn_map *m, const struct hwt_elf_file *file,
		      const struct hwt_profile_block *b)
{
	uint64_t off = b->begin;

	for (uint32_t n = 0; n < b->insns; n++) {
		struct hwt_insn insn;
		struct hwt_profile_insn *pi;
		int len;

		if (off >= file->size)
			return -hpe_mismatch;
		if (n + 1 == b->insns && off != b->end)
			return -hpe_bad_code;
		len = hwt_insn_decode(file->machine, file->data + off, file->size - off, &insn);
		if (len < 0)
			return -hpe_bad_code;
		pi = map_get(m, off, 1);
		if (!pi)
			return -hpe_nomem;
		pi->count += b->count;
		pi->length = (uint8_t)len;
		pi->branch = insn.kind;
		pi->x86_flags = insn.flags;
		off += (uint64_t)len;
	}
	return 0;
}

int hwt_profile_image_insns(const struct hwt_profile *profile, size_t image,
			    const char *path, struct hwt_profile_insn **insns, size_t *count)
{
	const struct hwt_profile_image *img;
	const struct hwt_profile_block *blocks;
	const struct hwt_profile_edge *edges;
	struct hwt_elf_file file;
	struct insn_map m = { 0 };
	size_t nblocks, nedges;
	int status;

	if (!profile || image >= profile->image_count || !insns || !count)
		return -hpe_invalid;
	img = &profile->images[image]->pub;
	status = hwt_profile_blocks(profile, image, &blocks, &nblocks);
	if (status < 0)
		return status;
	status = hwt_profile_edges(profile, &edges, &nedges);
	if (status < 0)
		return status;
	status = hwt_elf_file_open(&file, path ? path : img->path);
	if (status < 0)
		return hwt_elf_error_as(status, hpe_io);
	if (!file.is_elf || !hwt_insn_machine_known(file.machine)) {
		status = -hpe_not_elf;
		goto out;
	}
	if (img->build_id_size && (file.build_id_size != img->build_id_size ||
				   memcmp(file.build_id, img->build_id, img->build_id_size))) {
		status = -hpe_mismatch;
		goto out;
	}
	for (size_t k = 0; k < nblocks; k++) {
		status = walk_block(&m, &file, &blocks[k]);
		if (status < 0)
			goto out;
	}
	for (size_t k = 0; k < nedges; k++) {
		const struct hwt_profile_edge *e = &edges[k];
		struct hwt_profile_insn *pi;

		if (e->from_image != image ||
		    (e->kind != hwt_edge_cond_taken && e->kind != hwt_edge_cond_not_taken))
			continue;
		pi = map_get(&m, e->from, 0);
		if (!pi)
			continue; /* an edge from outside every block: inconsistent input */
		if (e->kind == hwt_edge_cond_taken)
			pi->taken += e->count;
		else
			pi->not_taken += e->count;
	}
	for (size_t k = 0; k < m.count; k++)
		m.items[k].vaddr = hwt_elf_file_vaddr(&file, m.items[k].offset);
	if (m.count) /* qsort of a NULL array is undefined even for no items */
		qsort(m.items, m.count, sizeof(*m.items), insn_cmp);
	*insns = m.items;
	*count = m.count;
	m.items = NULL;
	status = 0;
out:
	hwt_elf_file_close(&file);
	free(m.items);
	hwt_hash_index_free(&m.index);
	return status;
}

static int cmp_insn_offset(const void *key, const void *elem)
{
	uint64_t k = *(const uint64_t *)key;
	const struct hwt_profile_insn *i = elem;

	return k < i->offset ? -1 : k > i->offset;
}

const struct hwt_profile_insn *hwt_profile_insn_at(const struct hwt_profile_insn *insns, size_t n,
						   uint64_t offset)
{
	return n ? bsearch(&offset, insns, n, sizeof(*insns), cmp_insn_offset) : NULL;
}
