/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Trace contexts. A context is what one HWT_IOC_ALLOC creates: a mode, a
 * backend, the traced CPUs or threads, their buffers and a record queue. The
 * context file descriptor owns it; closing that fd (or the owner exiting)
 * tears it down.
 *
 * Lock order (the one place it is written down; kmod/README.md lists what
 * each lock guards):
 *   ctx->mtx -> hwt_mtx -> ctx->lock -> hwt_thread_lock -> recq.lock
 * hwt_thread_alloc_mtx is taken with none of these held. Hooks take no
 * mutex; they find contexts and threads under RCU (tracepoint and kprobe
 * handlers run with preemption off) and check ctx->state.
 */
#ifndef HWT_CONTEXT_H
#define HWT_CONTEXT_H

#include <linux/cpumask.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "hwt_backend.h"
#include "hwt_buffer.h"
#include "hwt_select.h"
#include "hwt_recq.h"

/* Global: context list, idents, backends and their busy maps, hook registration. */
extern struct mutex hwt_mtx;

enum hwt_ctx_state {
	HWT_CTX_IDLE,		/* allocated, not started: threads are followed, nothing recorded */
	HWT_CTX_RUNNING,	/* hooks record, backend traces */
	HWT_CTX_STOPPED,	/* HWT_IOC_STOP: nothing recorded, threads still followed */
	HWT_CTX_DEAD,		/* torn down: hooks ignore it */
};

struct hwt_context {
	struct kref		ref;		/* atomic: fd, each thread, RCU-less users */
	u32			ident;		/* const */
	u32			mode;		/* const: HWT_MODE_* */
	u32			flags;		/* const: HWT_ALLOC_* */
	struct pid		*target;	/* const: THREAD mode target process (reference held) */
	const struct cred	*owner_cred;	/* const: THREAD mode, the allocator's credentials
						   at HWT_IOC_ALLOC (reference held): the exec
						   hook checks them against each new image */
	struct task_struct	*owner_task;	/* const: THREAD mode, the allocating thread
						   (reference held): asked at each exec whether
						   it may still ptrace the thread (hwt_perm.h) */
	struct hwt_backend	*backend;	/* const: module reference held */
	void			*backend_priv;	/* backend */
	size_t			bufsize;	/* const */
	size_t			aux_bufsize;	/* const: THREAD mode second buffers, or 0 */
	struct hwt_charge	charge;		/* const once hashed: the owner its buffers are
						   charged to; counts its contexts */
	u64			rec_time;	/* WRITE_ONCE: time of the newest queued record */

	struct list_head	link;		/* hwt_mtx: hwt_contexts */
	struct list_head	cpu_link;	/* hwt_mtx + RCU: hwt_cpu_contexts (CPU mode) */

	struct mutex		mtx;		/* ioctls that change state or config */
	spinlock_t		lock;		/* ctx lock, see macros below */
	int			state;		/* ctx lock to write; hooks READ_ONCE */
	struct list_head	threads;	/* ctx lock: every hwt_thread ever traced */
	u32			cfg_flags;	/* ctx lock to write; hooks READ_ONCE: HWT_CFG_* */
	u32			pause_timeout_ms; /* ctx lock to write; READ_ONCE */
	struct hwt_select __rcu	*select;	/* ctx->mtx + ctx lock to write, RCU to read:
						   glob lists of HWT_CFG_SELECT, or NULL */

	/* CPU mode: one hwt_cpus object (hwt_cache.h) holds both; NULL in THREAD mode. */
	struct cpumask		*cpus;		/* const: CPU mode set */
	struct hwt_buffer	**cpu_bufs;	/* const array by CPU (CPU mode) */

	struct hwt_recq		recq;		/* own lock */
	wait_queue_head_t	pause_wq;	/* threads paused for the collector */
	struct work_struct	free_work;	/* hwt_wq: the final free */
};

#define HWT_CTX_LOCK(ctx)		spin_lock(&(ctx)->lock)
#define HWT_CTX_UNLOCK(ctx)		spin_unlock(&(ctx)->lock)
#define HWT_CTX_ASSERT_LOCKED(ctx)	lockdep_assert_held(&(ctx)->lock)

/* Allocates an IDLE context holding one reference (the caller's). hwt_mtx held. */
struct hwt_context *hwt_context_alloc(struct hwt_backend *b, u32 mode, u32 flags,
				      size_t bufsize, size_t aux_bufsize, u64 recq_size);
/* Contexts of @user not yet torn down (HWT_IOC_ALLOC's per-user limit). hwt_mtx held. */
unsigned int hwt_context_count_user(const struct user_struct *user);
void hwt_context_get(struct hwt_context *ctx);
/* Drops a reference; the last one queues the free on hwt_wq (any context). */
void hwt_context_put(struct hwt_context *ctx);
/* Stops tracing, detaches every thread, wakes paused threads (fd release). */
void hwt_context_teardown(struct hwt_context *ctx);
int hwt_context_start(struct hwt_context *ctx);
int hwt_context_stop(struct hwt_context *ctx);

extern struct list_head hwt_cpu_contexts;	/* hwt_mtx + RCU */
extern atomic_t hwt_nr_cpu_contexts;
extern struct workqueue_struct *hwt_wq;


#endif /* HWT_CONTEXT_H */
