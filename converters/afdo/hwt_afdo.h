/*
 * The AutoFDO converter: LLVM sample profiles (the format clang reads with
 * -fprofile-sample-use) from an hwt profile, and the text input of
 * AutoFDO's create_llvm_prof (--profiler=text). docs/pgo.md describes the
 * counting convention and the whole flow.
 *
 * Three objects, in the style of libipt (alloc/free, negative enum
 * hwt_afdo_error codes, hwt_afdo_errstr):
 *
 *  - struct hwt_afdo_debug: what one ELF file's DWARF says about source
 *    positions: per address, the function, the chain of inlined calls
 *    (DW_TAG_inlined_subroutine: callee, call line, call discriminator) and
 *    the line table row (line, discriminator). Read with libdwarf (the
 *    20210528 API of Debian 12), DWARF 4 and 5.
 *  - struct hwt_afdo_samples: the sample profile being built, in LLVM's
 *    model (per function: total and head samples, body samples keyed by
 *    line offset and discriminator with call targets, inlined callsites),
 *    written in LLVM's text format.
 *  - the create_llvm_prof text writer (ranges, addresses, branches).
 */
#ifndef HWT_AFDO_H
#define HWT_AFDO_H

#include "hwt_errors.h"
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>

#include "profile.h"

#ifdef __cplusplus
extern "C" {
#endif

enum hwt_afdo_error {
	hae_ok = hwt_ok,
	hae_internal = hwt_err_internal,
	hae_invalid = hwt_err_invalid,
	hae_nomem = hwt_err_nomem,
	hae_io = hwt_err_io,             /* a file cannot be opened, read or written; errno says why */
	hae_not_elf = HWT_ERR_AFDO_BASE, /* not an ELF file libelf reads */
	hae_no_debug,                    /* no DWARF (no line table or no functions) */
	hae_dwarf,                       /* libdwarf failed reading the DWARF */
	hae_profile,                     /* the hwt profile library failed (see its message) */
};

const char *hwt_afdo_errstr(int code);

/* ----- Source positions of one image ------------------------------------- */

struct hwt_afdo_debug;

/* Deepest inline chain followed; code inlined deeper is left out. */
#define HWT_AFDO_MAX_FRAMES 32

/*
 * One frame of a source position, outermost (the function the code is
 * in) first. For frame i > 0, call_line and call_discriminator are where
 * frame i - 1 calls (inlines) it; the innermost frame's line and
 * discriminator are the line table's.
 */
struct hwt_afdo_frame {
	const char *function;   /* linkage name, else name (owned by the debug) */
	uint32_t decl_line;     /* DW_AT_decl_line of the function */
	uint32_t call_line;     /* frames > 0: DW_AT_call_line */
	uint32_t call_discriminator; /* frames > 0: DW_AT_GNU_discriminator */
};

struct hwt_afdo_location {
	struct hwt_afdo_frame frames[HWT_AFDO_MAX_FRAMES];
	uint32_t nframes;       /* >= 1 */
	uint32_t line;          /* line table row (innermost frame) */
	uint32_t discriminator; /* the row's discriminator as encoded */
	uint64_t entry;         /* vaddr of the outermost function's entry */
};

struct hwt_afdo_debug *hwt_afdo_debug_alloc(void);
void hwt_afdo_debug_free(struct hwt_afdo_debug *debug);

/*
 * Reads the DWARF of the ELF file at path, or when it has none that of its
 * separate debug file, found as gdb finds it in debug_dirs (a NULL-terminated
 * list of debug directories, gdb's debug-file-directory; NULL:
 * /usr/lib/debug; converters/elf/debug_file.h). Returns 0, or -hae_io,
 * -hae_not_elf, -hae_no_debug, -hae_dwarf, -hae_nomem.
 */
int hwt_afdo_debug_load_dirs(struct hwt_afdo_debug *debug, const char *path,
			     const char *const *debug_dirs);
/* The same in /usr/lib/debug. */
int hwt_afdo_debug_load(struct hwt_afdo_debug *debug, const char *path);
/* A file the debug link named that was not used (its CRC32 is not the link's), or NULL. */
const char *hwt_afdo_debug_crc_mismatch(const struct hwt_afdo_debug *debug);

/*
 * The source position of the instruction at vaddr. Returns 1 when found,
 * 0 when vaddr is in no function or its line is 0 (compiler-made code).
 */
int hwt_afdo_debug_lookup(const struct hwt_afdo_debug *debug, uint64_t vaddr,
			  struct hwt_afdo_location *loc);

/* The function whose entry is vaddr (its linkage name, else name), or NULL. */
const char *hwt_afdo_debug_function_at(const struct hwt_afdo_debug *debug, uint64_t vaddr);

/* Counts of what was read (for tests and --verbose). */
size_t hwt_afdo_debug_function_count(const struct hwt_afdo_debug *debug);

/*
 * LLVM's discriminator encoding (non flow-sensitive): the base
 * discriminator that sample profiles are keyed by, and the duplication
 * factor (unrolled or vectorised copies of a line, 1 when none).
 */
uint32_t hwt_afdo_base_discriminator(uint32_t discriminator);
uint32_t hwt_afdo_duplication_factor(uint32_t discriminator);

/* ----- The sample profile ------------------------------------------------- */

struct hwt_afdo_samples;

struct hwt_afdo_samples *hwt_afdo_samples_alloc(void);
void hwt_afdo_samples_free(struct hwt_afdo_samples *samples);

/* What adding one image did. */
struct hwt_afdo_image_stats {
	uint64_t insns;         /* executed instructions (distinct addresses) */
	uint64_t executed;      /* instructions executed (sum of counts) */
	uint64_t unattributed;  /* of executed: in no function or at line 0 */
	uint64_t calls;         /* call (and tail-call) edges named as call targets */
	uint64_t functions;     /* outermost functions with samples */
};

/*
 * Adds the samples of one image of profile: every executed instruction
 * (hwt_profile_image_insns) is given its source position from debug (the
 * DWARF of file, or of the image's path when file is NULL), and calls and
 * tail calls within the image to a function entry become call targets.
 * stats may be NULL. Returns 0, or a negative hwt_afdo_error (-hae_profile:
 * *profile_error, when not NULL, is the hwt_profile_error).
 */
int hwt_afdo_samples_add_image(struct hwt_afdo_samples *samples,
			       const struct hwt_profile *profile, size_t image,
			       const struct hwt_afdo_debug *debug, const char *file,
			       struct hwt_afdo_image_stats *stats, int *profile_error);

/* Functions (outermost) with samples. */
size_t hwt_afdo_samples_function_count(const struct hwt_afdo_samples *samples);
/* Total samples of all functions. */
uint64_t hwt_afdo_samples_total(const struct hwt_afdo_samples *samples);

/*
 * Writes LLVM's sample profile text format, functions by decreasing total
 * samples (then name), lines by offset then discriminator. 0 or -hae_io.
 */
int hwt_afdo_samples_write_text(const struct hwt_afdo_samples *samples, FILE *file);

/* ----- create_llvm_prof --profiler=text input ----------------------------- */

/*
 * Writes AutoFDO's intermediate text form for one image of profile:
 * ranges (every block, first to last instruction, inclusive), addresses
 * (the entry count of every executed instruction that starts a block) and
 * branches (every taken edge within the image), addresses as the ELF's
 * virtual addresses in hex. file: the image's file or a copy (NULL: its
 * path). Returns 0 or a negative hwt_afdo_error.
 */
int hwt_afdo_write_autofdo_text(const struct hwt_profile *profile, size_t image,
				const char *file, FILE *out, int *profile_error);

#ifdef __cplusplus
}
#endif

#endif /* HWT_AFDO_H */
