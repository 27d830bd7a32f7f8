/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Destinations of a hook's records: the running contexts that want to hear
 * about a task (those that trace it in THREAD mode, and every CPU-mode
 * context), and the delivery to them, with the pause a context asked for.
 * Callers hold RCU (hooks run with preemption off).
 */
#ifndef HWT_DEST_H
#define HWT_DEST_H

#include <linux/types.h>

#include "hwt_thread.h"

struct hwt_context;
struct hwt_record_header;
struct mm_struct;
struct task_struct;

#define HWT_DEST_MAX	(2 * HWT_HOOK_MAX_CTX)

/* A context that gets a hook's records, and its thread of the task if any. */
struct hwt_dest {
	struct hwt_context	*ctx;
	struct hwt_thread	*thr;		/* THREAD mode, else NULL */
	bool			follow;		/* fork: the context traces the child */
};

/* Appends every running CPU-mode context to the @m destinations in @d; the new count. */
int hwt_dest_cpu(struct hwt_dest *d, int m);
/* Fills @d (HWT_DEST_MAX) with the contexts that trace @task, then the CPU-mode ones. */
int hwt_dest_find(struct task_struct *task, struct hwt_dest *d);
/*
 * Queues @rec in every destination (only those that follow the child, with
 * @only_follow). Where @pause_cfg is set in a THREAD-mode context's
 * configuration, the record says so and the thread pauses on its way back
 * to user mode.
 */
void hwt_dest_deliver(struct hwt_dest *d, int n, struct hwt_record_header *rec,
		      u32 pause_cfg, bool only_follow);
/* A LOST record of one record, for @reason. */
void hwt_dest_lost(struct hwt_dest *d, int n, u32 reason, struct task_struct *t);
/* MMAP records of every executable mapping of @mm (mmap_lock held), built in scratch area @s. */
void hwt_dest_image(struct hwt_dest *d, int n, struct task_struct *t, struct mm_struct *mm,
		    void *s);

#endif /* HWT_DEST_H */
