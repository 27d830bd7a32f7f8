/*
 * The trace size cap of a recording (--max-trace-size, docs/hwt-cov.md):
 * one page in the bundle, select/trace-budget, that `hwt record` makes
 * and every traced process of the run maps shared, so that the cap counts
 * the bytes of trace of all processes and threads together. A software
 * unit takes its bytes from it before each write of its buffer (whole
 * packets): a write that starts under the cap is written, every later one
 * of the run is dropped, so each stream ends after a complete packet and
 * the run's trace passes the cap by at most one buffer per thread that was
 * writing when it was reached. The preloaded library runs processes started
 * after that natively (still followed); `hwt record` watches it to say the
 * stop when it happens (the units say nothing: the command's stderr is its
 * own). Shared by the units and the preloaded library: libc-free.
 */
#ifndef HWT_TRACE_BUDGET_H
#define HWT_TRACE_BUDGET_H

#include "hwt_types.h"

/* Its path in the bundle. */
#define HWT_TRACE_BUDGET_FILE "select/trace-budget"
/* Its size: a page, mapped whole. */
#define HWT_TRACE_BUDGET_SIZE 4096

struct hwt_trace_budget {
	uint64_t cap;        /* bytes of trace the run may write */
	uint64_t used;       /* bytes asked for (past cap once a write was refused) */
	uint32_t reached;    /* a write reached the cap: the run's trace stops */
};

/*
 * Takes len bytes for a write: 1 when they may be written (the run was
 * under the cap), 0 when not (then and for every later call: used only
 * grows). Marks the cap reached when this write reaches it.
 */
static inline int hwt_trace_budget_take(struct hwt_trace_budget *b, uint64_t len)
{
	uint64_t before = __atomic_fetch_add(&b->used, len, __ATOMIC_RELAXED);

	if (before + len >= b->cap || before + len < before)
		__atomic_store_n(&b->reached, 1, __ATOMIC_RELAXED);
	return before < b->cap;
}

/* Whether the cap was reached (a process that starts now is not traced). */
static inline int hwt_trace_budget_spent(const struct hwt_trace_budget *b)
{
	return __atomic_load_n(&b->reached, __ATOMIC_RELAXED) ||
	       __atomic_load_n(&b->used, __ATOMIC_RELAXED) >= b->cap;
}

#endif /* HWT_TRACE_BUDGET_H */
