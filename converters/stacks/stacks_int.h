/* Internals of the stacks library, shared by its files. */
#ifndef HWT_STACKS_INT_H
#define HWT_STACKS_INT_H

#include <stdint.h>
#include <stdio.h>

#include "hwt_stacks.h"

/* Decimal digits of v in out (24 bytes); returns out. */
char *hwt_stacks_u64(char out[24], uint64_t v);

/* A malloc'd copy of name, demangled when it is a C++ name; NULL: out of memory. */
char *hwt_stacks_demangle(const char *name);

/* Writes s with the characters JSON (json != 0) or XML needs escaped. */
void hwt_stacks_put_escaped(FILE *out, const char *s, int json);

/*
 * Per node, its children sorted by name: children of node n are
 * order[first[n] .. first[n] + count[n]).
 */
struct hwt_sorted_tree {
	uint32_t *order;
	uint32_t *first;
	uint32_t *count;
};

int hwt_sorted_tree_init(const struct hwt_stack_tree *tree, struct hwt_sorted_tree *sorted);
void hwt_sorted_tree_fini(struct hwt_sorted_tree *sorted);

/* ----- Timelines (timeline.c), driven by the builder -------------------- */

/* A thread's timeline begins; name: "command pid/tid". */
int hwt_timeline_thread_begin(struct hwt_stacks_timeline *tl, uint32_t pid, uint32_t tid,
			      const char *process, const char *name);
void hwt_timeline_open(struct hwt_stacks_timeline *tl, const char *frame, enum hwt_frame_kind kind,
		       uint64_t at);
void hwt_timeline_close(struct hwt_stacks_timeline *tl, const char *frame,
			enum hwt_frame_kind kind, uint64_t at);
/* The thread ends at at (every frame closed by then). */
void hwt_timeline_thread_end(struct hwt_stacks_timeline *tl, uint64_t at);
enum hwt_stacks_weight hwt_timeline_weight(const struct hwt_stacks_timeline *tl);

#endif /* HWT_STACKS_INT_H */
