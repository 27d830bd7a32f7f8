/*
 * AutoFDO's intermediate text form, as create_llvm_prof --profiler=text
 * reads it: three sections, each a count line then its entries, addresses
 * in hex without 0x, as the ELF file's virtual addresses:
 *
 *   ranges     begin-end:count    straight-line code from begin through the
 *                                 instruction at end (included)
 *   addresses  addr:count         (sampled instruction pointers)
 *   branches   from->to:count     taken branches
 *
 * From exact counts: every block of the image is a range; the addresses
 * are the blocks' first instructions with their counts; the branches are
 * every taken edge (everything but not-taken conditional branches and far
 * transfers) whose ends are both in the image.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "hwt_afdo.h"

static int taken_kind(uint32_t kind)
{
	return kind != hwt_edge_cond_not_taken && kind != hwt_edge_far;
}

int hwt_afdo_write_autofdo_text(const struct hwt_profile *profile, size_t image,
				const char *file, FILE *out, int *profile_error)
{
	const struct hwt_profile_block *blocks = NULL;
	const struct hwt_profile_edge *edges = NULL;
	struct hwt_profile_insn *insns = NULL;
	size_t n = 0, nblocks = 0, nedges = 0, i, count;
	int rc, pass;

	if (!profile || !out)
		return -hae_invalid;
	rc = hwt_profile_image_insns(profile, image, file, &insns, &n);
	if (rc == 0)
		rc = hwt_profile_blocks(profile, image, &blocks, &nblocks);
	if (rc == 0)
		rc = hwt_profile_edges(profile, &edges, &nedges);
	if (rc < 0) {
		if (profile_error)
			*profile_error = rc;
		free(insns);
		return -hae_profile;
	}
	/* Ranges: blocks whose ends are known instructions. */
	count = 0;
	for (i = 0; i < nblocks; i++)
		if (blocks[i].count && hwt_profile_insn_at(insns, n, blocks[i].begin) &&
		    hwt_profile_insn_at(insns, n, blocks[i].end))
			count++;
	fprintf(out, "%zu\n", count);
	for (i = 0; i < nblocks; i++) {
		const struct hwt_profile_insn *b, *e;

		if (!blocks[i].count)
			continue;
		b = hwt_profile_insn_at(insns, n, blocks[i].begin);
		e = hwt_profile_insn_at(insns, n, blocks[i].end);
		if (b && e)
			fprintf(out, "%" PRIx64 "-%" PRIx64 ":%" PRIu64 "\n", b->vaddr, e->vaddr,
				blocks[i].count);
	}
	/* Addresses: block starts (blocks are sorted by begin), counts added. */
	for (pass = 0; pass < 2; pass++) {
		count = 0;
		for (i = 0; i < nblocks;) {
			const struct hwt_profile_insn *b = hwt_profile_insn_at(insns, n, blocks[i].begin);
			uint64_t sum = 0;
			size_t j;

			for (j = i; j < nblocks && blocks[j].begin == blocks[i].begin; j++)
				sum += blocks[j].count;
			if (b && sum) {
				if (pass)
					fprintf(out, "%" PRIx64 ":%" PRIu64 "\n", b->vaddr, sum);
				else
					count++;
			}
			i = j;
		}
		if (!pass)
			fprintf(out, "%zu\n", count);
	}
	/* Branches. */
	count = 0;
	for (i = 0; i < nedges; i++)
		if (edges[i].from_image == image && edges[i].to_image == image &&
		    edges[i].count && taken_kind(edges[i].kind) &&
		    hwt_profile_insn_at(insns, n, edges[i].from) && hwt_profile_insn_at(insns, n, edges[i].to))
			count++;
	fprintf(out, "%zu\n", count);
	for (i = 0; i < nedges; i++) {
		const struct hwt_profile_insn *f, *t;

		if (edges[i].from_image != image || edges[i].to_image != image ||
		    !edges[i].count || !taken_kind(edges[i].kind))
			continue;
		f = hwt_profile_insn_at(insns, n, edges[i].from);
		t = hwt_profile_insn_at(insns, n, edges[i].to);
		if (f && t)
			fprintf(out, "%" PRIx64 "->%" PRIx64 ":%" PRIu64 "\n", f->vaddr, t->vaddr,
				edges[i].count);
	}
	free(insns);
	if (fflush(out) != 0 || ferror(out))
		return -hae_io;
	return 0;
}
