/*
 * Stacks: exact call stacks of every thread from the control flow that the
 * decoder hands out (converters/decode/hwt_flow.h), and the flame graphs
 * and timelines drawn from them (docs/flame.md).
 *
 * Three objects, in the style of libipt (alloc/free, negative enum
 * hwt_stacks_error codes, hwt_stacks_errstr):
 *
 *  - struct hwt_stack_tree: a calling context tree: one node per distinct
 *    stack (root first), named frames, with the instructions, calls and
 *    time spent in each stack's leaf. Memory grows with the number of
 *    distinct stacks, never with the trace. The folded, flame graph (SVG)
 *    and diff writers read it; a folded file reads back into one.
 *  - struct hwt_stacks: the stack builder, a consumer of the control flow
 *    (hwt_stacks_consumer) that keeps a shadow stack per thread and adds
 *    to a tree, and optionally writes a timeline (struct
 *    hwt_stacks_timeline: speedscope's evented profiles, Chrome's trace
 *    events) in execution order.
 *  - struct hwt_stacks_symbols: function names of the images a decode
 *    saw (ELF symbols, DWARF names and inline chains), loaded on first use.
 */
#ifndef HWT_STACKS_H
#define HWT_STACKS_H

#include "hwt_errors.h"
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hwt_flow.h"
#include "profile.h"

#ifdef __cplusplus
extern "C" {
#endif

enum hwt_stacks_error {
	hse_ok = hwt_ok,
	hse_internal = hwt_err_internal,
	hse_invalid = hwt_err_invalid,    /* bad argument */
	hse_nomem = hwt_err_nomem,
	hse_io = hwt_err_io,              /* a file cannot be read or written; errno says why */
	hse_format = HWT_ERR_STACKS_BASE, /* a folded file does not parse */
	hse_regex,                        /* a bad regular expression */
};

const char *hwt_stacks_errstr(int code);

/* What a stack is weighed by. */
enum hwt_stacks_weight {
	hwt_weight_insns,   /* instructions executed in the stack's leaf (exact) */
	hwt_weight_calls,   /* times the leaf frame was called (a call or a tail call) */
	hwt_weight_time,    /* clock ticks spent in the leaf (traces with timing) */
	hwt_weight_count
};

/* The weight named name, or -1. */
int hwt_stacks_weight_parse(const char *name);

/* ----- The calling context tree ------------------------------------------- */

struct hwt_stack_tree;

/* Kinds of frame, for colouring and for tests. */
enum hwt_frame_kind {
	hwt_frame_function,  /* a function (a symbol, or module+0xoffset) */
	hwt_frame_inlined,   /* a function inlined into the frame below (--inline) */
	hwt_frame_root,      /* a process (its command) */
	hwt_frame_marker,    /* [unknown], [signal], [overflow], [decode error], ... */
};

#define HWT_STACK_ROOT 0u  /* the tree's root node: no frame, no name */
#define HWT_STACK_NONE UINT32_MAX

struct hwt_stack_node {
	uint32_t parent;       /* HWT_STACK_NONE for the root */
	uint32_t name;         /* name index (hwt_stack_tree_name) */
	uint32_t first_child;  /* HWT_STACK_NONE: none; children in creation order */
	uint32_t next_sibling;
	uint64_t self[hwt_weight_count]; /* in this stack's leaf */
};

struct hwt_stack_tree *hwt_stack_tree_alloc(void);
void hwt_stack_tree_free(struct hwt_stack_tree *tree);

/* The index of name (added when new), or a negative error. */
int64_t hwt_stack_tree_intern(struct hwt_stack_tree *tree, const char *name,
			      enum hwt_frame_kind kind);
const char *hwt_stack_tree_name(const struct hwt_stack_tree *tree, uint32_t name);
/* Names interned so far: indexes 0 .. count - 1. */
size_t hwt_stack_tree_name_count(const struct hwt_stack_tree *tree);
enum hwt_frame_kind hwt_stack_tree_name_kind(const struct hwt_stack_tree *tree, uint32_t name);

/* The child of parent named name (made when new), or HWT_STACK_NONE when out of memory. */
uint32_t hwt_stack_tree_child(struct hwt_stack_tree *tree, uint32_t parent, uint32_t name);

size_t hwt_stack_tree_count(const struct hwt_stack_tree *tree);
const struct hwt_stack_node *hwt_stack_tree_node(const struct hwt_stack_tree *tree, uint32_t node);
void hwt_stack_tree_add(struct hwt_stack_tree *tree, uint32_t node, enum hwt_stacks_weight weight,
			uint64_t value);

/* Sum of a weight over node and everything below it. */
uint64_t hwt_stack_tree_total(const struct hwt_stack_tree *tree, uint32_t node,
			      enum hwt_stacks_weight weight);

/* Adds every count of src to dst (nodes matched by their names' path). */
int hwt_stack_tree_merge(struct hwt_stack_tree *dst, const struct hwt_stack_tree *src);

/*
 * Flat stacks from the counts of symbols' profile (flat.c): under one root
 * frame named root, a frame per function (its symbol, else one frame
 * "MODULE [no symbol]" for a module's code without symbols), weighed by
 * the instructions counted in it (insns weight). For a sampled profile (SPE), which has no call stacks.
 * Returns 0 or -hse_nomem, -hse_invalid.
 */
struct hwt_stacks_symbols;
int hwt_stack_tree_add_flat(struct hwt_stack_tree *tree, struct hwt_stacks_symbols *symbols,
			    const char *root);

/*
 * Folded stacks: one line per stack with a non-zero weight, frames root
 * first joined by ';', a space and the weight; children in name order, so
 * equal trees give equal bytes. max_depth > 0 cuts stacks deeper than
 * that many frames into a last frame "[deeper]" (a 100,000-deep recursion
 * would otherwise write gigabytes); *cut (may be NULL) is the number of
 * stacks that were. Returns 0 or -hse_io.
 */
int hwt_stack_tree_write_folded(const struct hwt_stack_tree *tree, enum hwt_stacks_weight weight,
				size_t max_depth, FILE *out, uint64_t *cut);

/*
 * Reads folded stacks (flamegraph.pl's format, ours or another tool's)
 * into tree under weight, adding. *line (may be NULL) is the line number
 * that did not parse on -hse_format.
 */
int hwt_stack_tree_read_folded(struct hwt_stack_tree *tree, enum hwt_stacks_weight weight,
			       FILE *in, size_t *line);

/* ----- Flame graphs (SVG) -------------------------------------------------- */

enum hwt_flame_colors {
	hwt_colors_hot,      /* flamegraph.pl's default: warm colours by name */
	hwt_colors_mem,      /* greens */
	hwt_colors_io,       /* blues */
	hwt_colors_kind,     /* by frame kind: functions, inlined, markers */
	hwt_colors_diff,     /* red grew, blue shrank (set by the diff) */
	hwt_colors_count
};

int hwt_flame_colors_parse(const char *name);

struct hwt_flame_options {
	const char *title;          /* NULL: "Flame Graph" */
	const char *subtitle;       /* NULL: none */
	unsigned width;             /* pixels; 0: 1200 */
	double min_width;           /* frames narrower than this many pixels are left out; <0: 0.1 */
	int inverted;               /* icicle: roots at the top */
	enum hwt_flame_colors colors;
	enum hwt_stacks_weight weight;
	const char *unit;           /* what a count is ("instructions"); NULL: from weight */
	size_t max_depth;           /* as for folded; 0: no limit */
	/* A diff (hwt_colors_diff): the first run's tree, whose totals per stack
	   are compared with the drawn tree's (NULL: none). */
	const struct hwt_stack_tree *before;
};

/*
 * Writes a self-contained interactive SVG flame graph of tree: no network,
 * no external script (click to zoom, reset, search by regular expression
 * with the matched share, tooltips). Returns 0 or -hse_io.
 */
int hwt_flame_write_svg(const struct hwt_stack_tree *tree, const struct hwt_flame_options *options,
			FILE *out);

/* ----- Function names ------------------------------------------------------ */

struct hwt_stacks_symbols;

#define HWT_SYMBOLS_INLINE 0x1u  /* read DWARF inline chains too */

/*
 * Names for the images of profile (its paths; relative paths are inside
 * bundle_dir, e.g. the vDSO's copy). Thread-safe: a parallel decode looks
 * functions up from several threads.
 */
struct hwt_stacks_symbols *hwt_stacks_symbols_alloc(const struct hwt_profile *profile,
						    const char *bundle_dir, uint32_t flags);
void hwt_stacks_symbols_free(struct hwt_stacks_symbols *symbols);

#define HWT_INLINE_MAX 16  /* deepest inline chain kept */

struct hwt_function_info {
	uint64_t entry;          /* file offset of the function's first instruction */
	uint64_t end;            /* file offset just after it */
	const char *name;        /* owned by the symbols; NULL: no symbol here */
	int sized;               /* the symbol has a size (st_size > 0) */
	int program_entry;       /* entry is the ELF entry point (e_entry) */
};

/*
 * The function holding the instruction at file offset of image. Returns 1
 * with *fn, or 0 when no symbol covers it (*fn->name is NULL, program_entry
 * still set).
 */
int hwt_stacks_symbols_function(struct hwt_stacks_symbols *symbols, int32_t image,
				uint64_t offset, struct hwt_function_info *fn);

/*
 * The chain of functions inlined at file offset of image, outermost first
 * (DWARF; HWT_SYMBOLS_INLINE): up to max names into names[], their count
 * (0: none there).
 */
size_t hwt_stacks_symbols_inline(struct hwt_stacks_symbols *symbols, int32_t image,
				 uint64_t offset, const char **names, size_t max);

/* The image's file name without directories ("libc.so.6"), "" when unknown. */
const char *hwt_stacks_symbols_module(const struct hwt_stacks_symbols *symbols, int32_t image);

/* The profile whose images are named. */
const struct hwt_profile *hwt_stacks_symbols_profile(const struct hwt_stacks_symbols *symbols);

/* Images whose symbols could not be read (for a warning), and why. */
size_t hwt_stacks_symbols_failures(const struct hwt_stacks_symbols *symbols);

/*
 * Where separate debug files are looked for (gdb's debug-file-directory: a
 * NULL-terminated list, kept by reference; NULL, the default:
 * /usr/lib/debug). Call before the first lookup.
 */
void hwt_stacks_symbols_set_debug_dirs(struct hwt_stacks_symbols *symbols,
				       const char *const *dirs);
/* Separate debug files passed over because their CRC32 is not the debug link's. */
size_t hwt_stacks_symbols_crc_mismatches(const struct hwt_stacks_symbols *symbols);

/* ----- Timelines ------------------------------------------------------------ */

enum hwt_timeline_format {
	hwt_timeline_speedscope,  /* speedscope's file format, evented profiles */
	hwt_timeline_chrome,      /* Chrome's trace event format (B/E, M) */
};

struct hwt_stacks_timeline;

/* A timeline written to out as streams are decoded (one at a time). */
struct hwt_stacks_timeline *hwt_stacks_timeline_alloc(enum hwt_timeline_format format, FILE *out,
						      enum hwt_stacks_weight weight, const char *name);
/* Writes what ends the file. 0, or -hse_io when a write failed. */
int hwt_stacks_timeline_finish(struct hwt_stacks_timeline *timeline);
void hwt_stacks_timeline_free(struct hwt_stacks_timeline *timeline);

/* ----- The stack builder ---------------------------------------------------- */

struct hwt_stacks;

/* Option flags. */
#define HWT_STACKS_MERGE     0x1u /* processes merged by command (no pid in the root) */
#define HWT_STACKS_INLINE    0x2u /* inlined frames (needs symbols with HWT_SYMBOLS_INLINE) */
#define HWT_STACKS_CALLGRIND 0x4u /* callgrind's convention (docs/flame.md): a jump to a
                                     function's entry (a tail call) nests a frame instead
                                     of replacing the jumping one */
#define HWT_STACKS_ADDRESSES 0x8u /* frames named PATH+0xENTRY (file offset of the
                                     function's entry) whether a symbol names them or
                                     not: for scripts that compare with other tools */
#define HWT_STACKS_SIGNAL_ROOTS 0x20u /* a signal handler's stack hangs from the root, not
                                         from the interrupted stack (tests: callgrind's
                                         inclusive costs lie between the two) */
#define HWT_STACKS_BLOCKS    0x10u /* tests: each stack ends in a frame naming the block
                                      that ran there, [@PATH+0xBEGIN-0xEND] (file offsets
                                      of its first and last instruction) */

#define HWT_STACKS_THREAD_ORDER 0x40u /* roots named by command and thread order, not
                                         pid (what --diff matches): COMMAND for the first
                                         thread of a command (by pid, then tid),
                                         COMMAND#2 for the second, ...; the threads
                                         are added to the tree by hwt_stacks_finish
                                         (HWT_STACKS_MERGE wins) */

struct hwt_stacks_options {
	uint32_t flags;           /* HWT_STACKS_* */
	int64_t pid, tid;         /* only this process (pid) or thread (tid); -1: all */
	/* Written as streams are decoded (then the decode must be serial); NULL: none. */
	struct hwt_stacks_timeline *timeline;
};

/* What a build saw. */
struct hwt_stacks_stats {
	uint64_t streams;         /* streams built (not left out by pid/tid) */
	uint64_t steps;           /* blocks handed in */
	uint64_t insns;           /* instructions counted */
	uint64_t calls, returns;
	uint64_t unmatched_returns; /* returns to no frame on the stack */
	uint64_t tail_calls;      /* jumps to another function's entry */
	uint64_t unwinds;         /* jumps back to a frame below the top (longjmp, exceptions) */
	uint64_t signals, sigreturns;
	uint64_t gaps;            /* overflows, decode errors */
	uint64_t max_depth;       /* deepest stack */
};

/*
 * symbols names the functions (it must outlive the builder); tree is
 * where stacks are added (it must too).
 */
struct hwt_stacks *hwt_stacks_alloc(struct hwt_stacks_symbols *symbols, struct hwt_stack_tree *tree,
				    const struct hwt_stacks_options *options);
void hwt_stacks_free(struct hwt_stacks *stacks);

/* The consumer to hand to the decoder (hwt_decode_options.flow). */
const struct hwt_flow_consumer *hwt_stacks_consumer(struct hwt_stacks *stacks);

/*
 * After the decode: adds the threads that HWT_STACKS_THREAD_ORDER kept
 * aside to the tree, in their order. 0 (nothing to do without the flag),
 * or -hse_nomem.
 */
int hwt_stacks_finish(struct hwt_stacks *stacks);

/* 0, or -hse_nomem when something was lost for want of memory. */
int hwt_stacks_status(const struct hwt_stacks *stacks);
void hwt_stacks_get_stats(const struct hwt_stacks *stacks, struct hwt_stacks_stats *stats);

#ifdef __cplusplus
}
#endif

#endif /* HWT_STACKS_H */
