/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hwt_sw.ko, the "sw" backend: user-mode execution of THREAD-mode targets,
 * single-stepped with the trap flag, written into each thread's buffer as
 * Intel PT by the encoder the user-space units use (common/sw_stream.c,
 * common/pt_encoder.c, common/x86_insn.c). See kmod/README.md, "The sw
 * backend".
 *
 * Files: hwt_sw_backend.c (the operations, the debug exception),
 * hwt_sw_step.c (what one stepped instruction writes), hwt_sw_ring.c (a
 * buffer written as a ring: pause or wrap when full), hwt_sw_filter.c
 * (address ranges and catching re-entry into them).
 *
 * Who touches a thread's state: the thread itself (its traps, the hooks
 * and task work that run as it), or the scheduler while it cannot run
 * (thread_enable/disable at a switch); the rest (the lists, the orphan
 * set) has its own lock.
 */
#ifndef HWT_SW_INT_H
#define HWT_SW_INT_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "hwt_backend.h"
#include "hwt_sw.h"
#include "sw_stream.h"
#include "x86_insn.h"

struct hwt_sw_filter;
struct pt_regs;

/* A configuration (HWT_IOC_SET_CONFIG), replaced whole under RCU. */
struct hwt_sw_cfg {
	u32			gen;		/* a new number for each configuration */
	u32			flags;		/* HWT_SW_* */
	u32			psb_period;
	u32			nranges;
	struct rcu_head		rcu;
	struct hwt_sw_range	ranges[];
};

/* A context's state (its backend_priv). */
struct hwt_sw_ctx {
	struct hwt_context	*ctx;		/* const */
	struct hwt_sw_cfg __rcu	*cfg;		/* RCU; replaced by configure */
	spinlock_t		lock;		/* threads */
	struct list_head	threads;	/* hwt_sw_thread.ctx_link */
	struct hwt_sw_filter	*filter;	/* configure (ctx->mtx); the re-entry probes */
};

/* A buffer written as a ring (hwt_sw_ring.c). */
struct hwt_sw_ring {
	struct hwt_buffer	*buf;		/* the framework's; NULL: none */
	u64			notified;	/* offset at the last BUFFER record */
	u64			lost_read;	/* wrap: read pointer at the last LOST record */
	bool			wrap;		/* write over unread bytes instead of pausing */
};

/* Block log entries a step may leave waiting for room. */
#define HWT_SW_BLK_PENDING	16
/* Bytes of packets one step can write while its buffer is full. */
#define HWT_SW_SPILL		512

/* A traced thread's state (its backend_priv). */
struct hwt_sw_thread {
	struct kref		ref;		/* the framework's thread, orphan membership */
	struct rcu_head		rcu;
	struct task_struct	*task;		/* const: reference held */
	struct hwt_sw_ctx	*sc;		/* const */
	struct hwt_thread	*thr;		/* const until thread_free */
	struct list_head	ctx_link;	/* sc->lock */
	struct hlist_node	orphan;		/* hwt_sw_orphan_lock: hwt_sw_orphans */
	bool			orphaned;	/* hwt_sw_orphan_lock */

	/* The thread's own (see above). */
	struct hwt_sw_stream	st;		/* its Intel PT stream */
	struct hwt_sw_ring	pt;		/* the buffer st writes */
	struct hwt_sw_ring	blk;		/* the block log (HWT_SW_BLOCKS), buf NULL if none */
	struct hwt_buffer	*aux;		/* const: the thread's second buffer, or NULL */
	u8			spill[HWT_SW_SPILL]; /* st's buffer while pt is full */
	bool			spilling;
	struct hwt_sw_block	blk_cur;	/* the block being logged (insns 0: none) */
	u64			blk_next;	/* where it continues */
	struct hwt_sw_block	blk_wait[HWT_SW_BLK_PENDING]; /* closed, waiting for room */
	u32			blk_nwait;
	u64			seen_time;	/* the context's record time at the last TSC */
	u64			next_ip;	/* the instruction the thread runs next (tf) */
	u64			next_ax, next_sp; /* its registers then */
	struct hwt_x86_insn	next_insn;	/* it, when next_known (at a probe: int3 in memory) */
	bool			next_known;
	u64			rep_ip;		/* a REP instruction already counted */
	bool			tf;		/* TF is ours and set: every instruction traps */
	bool			resume;		/* TIP.PGE due before next_ip */
	bool			fresh;		/* a new stream (PSB+) due before the next packet */
	bool			rearm;		/* thread_work: step from where it returns to user */
	bool			outside;	/* filtered: not in a range, not stepping */
	bool			xol;		/* a re-entry probe was hit: uprobes runs it */
	bool			filtered;	/* HWT_SW_FILTER: only its ranges are traced */
	u32			cfg_gen;	/* the configuration its ranges come from */
	u32			nranges;	/* its process's ranges */
	struct hwt_sw_range	ranges[HWT_SW_RANGES_MAX];
	u64			stepped;	/* instructions stepped */
	u64			lost_bytes;	/* packets dropped */
};

extern struct hwt_backend hwt_sw_backend;

/* hwt_sw.c */
void hwt_sw_thread_put(struct hwt_sw_thread *ts);
/* Sets TF in @regs: the thread steps from regs->ip, a resume point (TIP.PGE). */
void hwt_sw_arm(struct hwt_sw_thread *ts, struct pt_regs *regs);
/* The same when regs->ip is traced (no filter, or in a range); else it runs unstepped. */
void hwt_sw_maybe_arm(struct hwt_sw_thread *ts, struct pt_regs *regs);

/* hwt_sw_ring.c */
void hwt_sw_ring_init(struct hwt_sw_ring *r, struct hwt_buffer *buf, bool wrap);
/* Bytes that may be written at the write position now. */
u64 hwt_sw_ring_room(const struct hwt_sw_ring *r);
/* @n bytes were written at the write position (never past the ring's end). */
void hwt_sw_ring_commit(struct hwt_sw_ring *r, struct hwt_context *ctx, u64 n);
/* Points st's encoder at free space of pt, or the spill area; false when full. */
bool hwt_sw_ring_window(struct hwt_sw_thread *ts);
/* st's ops: write commits what the encoder wrote in the window and moves on. */
extern const struct hwt_sw_stream_ops hwt_sw_ring_ops;
/* Block log: the block being logged goes out (or waits for room). */
void hwt_sw_ring_block_close(struct hwt_sw_thread *ts);
/* True when what waits for room (spill, blocks) fits now. */
bool hwt_sw_ring_has_room(void *ts);
/* Writes out what waited for room; call after hwt_sw_ring_has_room(). */
void hwt_sw_ring_unspill(struct hwt_sw_thread *ts);
/* Something waits for room (the thread must wait in thread_work). */
static inline bool hwt_sw_ring_waiting(const struct hwt_sw_thread *ts)
{
	return ts->spilling || ts->blk_nwait;
}

/* hwt_sw_step.c */
/* A trap after one instruction; @regs: where the thread is now. */
void hwt_sw_step(struct hwt_sw_thread *ts, struct pt_regs *regs);
/*
 * The thread leaves user mode for good or for a while without a trap
 * (exec, exit, a signal): settles the instruction that was next. @in_syscall:
 * the kernel was entered by a system call (orig_ax), so a SYSCALL that was
 * next ran; else the thread was interrupted before it (FUP, TIP.PGD).
 */
void hwt_sw_leave(struct hwt_sw_thread *ts, bool in_syscall);
/* Starts a new stream (PSB+) if one is due. */
void hwt_sw_begin(struct hwt_sw_thread *ts);


/* hwt_sw_filter.c */
/* The thread's ranges, from the configuration when it changed. */
void hwt_sw_filter_refresh(struct hwt_sw_thread *ts);
/* True when @ip is traced: no filtering, or in one of its ranges. */
bool hwt_sw_filter_in(const struct hwt_sw_thread *ts, u64 ip);
/* Sets the re-entry probes @cfg needs (ctx->mtx held); the old ones stay. */
int hwt_sw_filter_prepare(struct hwt_sw_ctx *sc, const struct hwt_sw_cfg *cfg);
/* Then, once @cfg is in place, drops those it does not need. */
void hwt_sw_filter_prune(struct hwt_sw_ctx *sc, const struct hwt_sw_cfg *cfg);
void hwt_sw_filter_free(struct hwt_sw_ctx *sc);
int hwt_sw_filter_init(void);
void hwt_sw_filter_exit(void);

#endif /* HWT_SW_INT_H */
