/*
 * The profile: what a whole run executed, as counts keyed by image and file
 * offset, so that profiles of several threads, processes, runs and machines
 * merge by addition (docs/profile.md).
 *
 * The decoder (converters/decode) fills a profile from a trace bundle; the
 * lcov writer, the AutoFDO converter and the flame graph read it.
 *
 * What a profile holds:
 *
 *  - images: one per executable file (key: build-id, else path), with its
 *    path, build-id and flags;
 *  - blocks: per image, contiguous runs of straight-line code
 *    {begin offset, end offset (of the last instruction), instructions}
 *    with the number of times each ran from begin to end. Blocks of one
 *    image may overlap (a run that was cut by an event, or blocks merged
 *    from another profile): an instruction's count is the sum of the counts
 *    of the blocks that contain it;
 *  - edges: control transfers {from image, from offset (the branch
 *    instruction), to image, to offset, kind} with a count. Conditional
 *    branches have one edge for taken and one for not taken (to = the next
 *    instruction); jumps, calls and returns have one edge per target seen.
 *
 * Offsets are file offsets in the image's file (not virtual addresses);
 * hwt_profile_image_insns gives the ELF virtual address of each instruction.
 *
 * In the style of libipt: an opaque object with alloc/free, functions that
 * return a negative enum hwt_profile_error on failure (hwt_profile_errstr
 * names it), no hidden global state. Data handed out (images, blocks,
 * edges) is owned by the profile and valid until the profile changes.
 */
#ifndef HWT_PROFILE_H
#define HWT_PROFILE_H

#include "hwt_errors.h"
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

struct hwt_profile;

/* The serialised form this library writes (and the newest it reads). */
#define HWT_PROFILE_VERSION 1

/* Error codes, returned negated. */
enum hwt_profile_error {
	hpe_ok = hwt_ok,
	hpe_internal = hwt_err_internal,   /* a bug in this library */
	hpe_invalid = hwt_err_invalid,     /* bad argument (NULL, image index out of range, ...) */
	hpe_nomem = hwt_err_nomem,
	hpe_io = hwt_err_io,               /* a system call failed; errno tells why */
	hpe_format = HWT_ERR_PROFILE_BASE, /* the serialised form does not parse */
	hpe_version,                       /* a serialised version this library does not read */
	hpe_mismatch,                      /* the file is not the image the profile was made from
	                                      (build-id differs, or it is too short) */
	hpe_bad_code,                      /* the image's code does not decode as its blocks say */
	hpe_not_elf,                       /* the file is not an ELF file this library reads */
};

/* A human readable string for an error code (negative or not). */
const char *hwt_profile_errstr(int code);

/* ----- Images ----------------------------------------------------------- */

#define HWT_PROFILE_BUILD_ID_MAX 20u

/* Image flags (struct hwt_profile_image.flags); merging ORs them. */
#define HWT_PROFILE_IMAGE_TRACE_UNIT 0x1u /* trace unit's own code: decoded
                                             through, never reported */
#define HWT_PROFILE_IMAGE_VDSO       0x2u /* the vDSO (path: the bundle's copy) */
#define HWT_PROFILE_IMAGE_MISSING    0x4u /* the file could not be read: trace
                                             through it was not decoded */
#define HWT_PROFILE_IMAGE_REPLACED   0x8u /* the file changed since the recording
                                             (build-id or size differ): not decoded */

struct hwt_profile_image {
	/* The file as the recording saw it (absolute path). */
	const char *path;
	uint8_t build_id[HWT_PROFILE_BUILD_ID_MAX];
	uint32_t build_id_size;   /* 0: no build-id, the image is keyed by path */
	uint32_t flags;           /* HWT_PROFILE_IMAGE_* */
	/*
	 * Trace that could not be decoded in this image (decode errors whose
	 * address lies in it, or blocks that could not be read because the
	 * file is missing or replaced): number of such errors. Merging adds.
	 */
	uint64_t undecoded;
};

/*
 * Finds or adds the image with this build-id (build_id_size 0: none, then
 * the path is the key). flags are ORed into the image's flags. Returns the
 * image's index (>= 0) or a negative error.
 */
int hwt_profile_image_add(struct hwt_profile *profile, const char *path,
			  const uint8_t *build_id, uint32_t build_id_size, uint32_t flags);

size_t hwt_profile_image_count(const struct hwt_profile *profile);
/* NULL when i is out of range. */
const struct hwt_profile_image *hwt_profile_image_at(const struct hwt_profile *profile, size_t i);
/* Adds n to an image's undecoded count. */
int hwt_profile_image_add_undecoded(struct hwt_profile *profile, size_t image, uint64_t n);

/* ----- Blocks ----------------------------------------------------------- */

struct hwt_profile_block {
	uint64_t begin;   /* file offset of the first instruction */
	uint64_t end;     /* file offset of the last instruction */
	uint32_t insns;   /* instructions from begin to end, both included */
	uint64_t count;   /* times the block ran from begin through end */
};

/*
 * Adds count to the block {begin, end, insns} of an image (the block is
 * identified by begin and end; insns must agree with an existing block:
 * -hpe_invalid otherwise).
 */
int hwt_profile_add_block(struct hwt_profile *profile, size_t image, uint64_t begin,
			  uint64_t end, uint32_t insns, uint64_t count);

/*
 * The blocks of an image, sorted by begin then end. *blocks stays valid
 * until the profile changes. Returns 0 or a negative error.
 */
int hwt_profile_blocks(const struct hwt_profile *profile, size_t image,
		       const struct hwt_profile_block **blocks, size_t *count);

/* ----- Edges ------------------------------------------------------------ */

enum hwt_profile_edge_kind {
	hwt_edge_cond_taken,      /* conditional branch, taken */
	hwt_edge_cond_not_taken,  /* conditional branch, not taken (to: next insn) */
	hwt_edge_jump,            /* direct jump */
	hwt_edge_call,            /* direct call (to: the callee's entry) */
	hwt_edge_return,          /* near return (to: where it returned) */
	hwt_edge_indirect_jump,   /* jump through a register or memory */
	hwt_edge_indirect_call,   /* call through a register or memory */
	hwt_edge_far,             /* syscall-class and far transfers that came back
	                             elsewhere, e.g. sigreturn (from: the instruction) */
	hwt_edge_kind_count
};

/* Name in the serialised form and listings ("cond-taken", ...), or NULL. */
const char *hwt_profile_edge_kind_name(enum hwt_profile_edge_kind kind);

struct hwt_profile_edge {
	uint32_t from_image;  /* image index */
	uint32_t to_image;
	uint64_t from;        /* file offset of the branch instruction */
	uint64_t to;          /* file offset where execution went on */
	uint32_t kind;        /* enum hwt_profile_edge_kind */
	uint64_t count;
};

/* Adds edge->count to the edge {from_image, from, to_image, to, kind}. */
int hwt_profile_add_edge(struct hwt_profile *profile, const struct hwt_profile_edge *edge);

/*
 * All edges, sorted by from_image, from, kind, to_image, to. *edges stays
 * valid until the profile changes.
 */
int hwt_profile_edges(const struct hwt_profile *profile,
		      const struct hwt_profile_edge **edges, size_t *count);

/* ----- Per-instruction view (for lcov and the like) ---------------------- */

struct hwt_profile_insn {
	uint64_t offset;      /* file offset */
	uint64_t vaddr;       /* ELF virtual address (PT_LOAD mapping); the offset
	                         itself when no segment maps it */
	uint64_t count;       /* times it ran */
	uint64_t taken;       /* conditional branches: times taken */
	uint64_t not_taken;   /* conditional branches: times not taken */
	uint8_t length;       /* bytes */
	uint8_t branch;       /* enum hwt_insn_kind (common/insn.h: the classes of
	                         common/x86_insn.h, AArch64 instructions mapped onto them) */
	uint8_t x86_flags;    /* HWT_INSN_* flags: HWT_INSN_REP marks an x86 rep-prefixed
	                         string instruction, counted once per execution
	                         however many iterations it made */
	uint8_t reserved[5];
};

/*
 * Every executed instruction of an image, sorted by offset, with its count
 * and, for conditional branches, taken and not-taken counts (from the
 * edges). Instruction boundaries come from the classifier of the image's
 * architecture (its ELF e_machine: x86-64 or AArch64) reading the image's
 * code from file (NULL: the image's path; a copy or a debug file with the
 * same build-id may be given instead). Checks the file's build-id against
 * the image's.
 *
 * On success *insns is malloc'd (free() it) and 0 is returned. Errors:
 * -hpe_io (the file cannot be read), -hpe_not_elf (also: of an architecture hwt does not decode), -hpe_mismatch (another
 * build-id, or blocks beyond the end of the file), -hpe_bad_code (a block
 * does not decode to its instruction count), -hpe_nomem, -hpe_invalid.
 */
int hwt_profile_image_insns(const struct hwt_profile *profile, size_t image,
			    const char *file, struct hwt_profile_insn **insns, size_t *count);

/* The instruction at file offset in such a list (n of them, sorted), or NULL. */
const struct hwt_profile_insn *hwt_profile_insn_at(const struct hwt_profile_insn *insns, size_t n,
						   uint64_t offset);

/* ----- Whole profiles ---------------------------------------------------- */

struct hwt_profile *hwt_profile_alloc(void);
void hwt_profile_free(struct hwt_profile *profile);

/* Adds every count of src to dst (images matched by key). */
int hwt_profile_merge(struct hwt_profile *dst, const struct hwt_profile *src);

/* Totals over all images: instructions executed (sum of count * insns). */
uint64_t hwt_profile_total_insns(const struct hwt_profile *profile);

/*
 * Serialised form (docs/profile.md): text, deterministic (sorted), so equal
 * profiles give equal bytes. write returns 0 or -hpe_io.
 */
int hwt_profile_write(const struct hwt_profile *profile, FILE *file);
int hwt_profile_save(const struct hwt_profile *profile, const char *path);

/*
 * Reads a serialised profile and adds it to profile (so reading several
 * files merges them). On -hpe_format, *line (if not NULL) is the line
 * number that did not parse.
 */
int hwt_profile_read(struct hwt_profile *profile, FILE *file, size_t *line);
int hwt_profile_load(struct hwt_profile *profile, const char *path, size_t *line);

#ifdef __cplusplus
}
#endif

#endif /* HWT_PROFILE_H */
