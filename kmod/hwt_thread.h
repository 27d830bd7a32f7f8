/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Traced threads (THREAD mode). One hwt_thread per (context, task): a task
 * may be traced by several contexts of different backends. Hooks find a
 * task's hwt_threads in a global hash keyed by the task_struct pointer,
 * under RCU; writers take hwt_thread_lock.
 */
#ifndef HWT_THREAD_H
#define HWT_THREAD_H

#include <linux/hash.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/task_work.h>
#include <linux/types.h>

struct hwt_context;
struct hwt_buffer;

extern spinlock_t hwt_thread_lock;	/* guards the hash (writers only) */
/* Guards writing hwt_thread.buf and the backend state (hwt_thread_buffer_ensure). */
extern struct mutex hwt_thread_alloc_mtx;

/* hwt_thread.flags bits */
enum {
	HWT_THR_HASHED,		/* in the hash: hooks see it */
	HWT_THR_EXITED,		/* the task has exited */
	HWT_THR_ENABLED,	/* the backend unit is on (switched in) */
	HWT_THR_WORK,		/* task work queued and not yet run */
	HWT_THR_PAUSED,		/* waiting in hwt_pause_wait() */
	HWT_THR_READY,		/* buffer and backend state exist */
	HWT_THR_UNTRACED,	/* an exec made it untraceable for the owner: unhashed,
				   unit off, never paused or enabled again */
	HWT_THR_SELECTING,	/* exec'd, the new image not yet judged (HWT_CFG_SELECT):
				   hashed, unit off, no record */
	HWT_THR_UNSELECTED,	/* its image was not selected: hashed and followed (forks,
				   threads, execs), unit off, no record, no pause; its
				   children start so */
	HWT_THR_ASK,		/* exec'd, allowed by the credential replay: its task
				   work asks the owner (hwt_perm_exec_ask) before the
				   image is judged; SELECTING meanwhile */
};

/* hwt_thread.work_flags bits: what the queued task work does */
#define HWT_WORK_ALLOC	0x1u	/* allocate the buffer (new thread) */
#define HWT_WORK_PAUSE	0x2u	/* pause for the collector */
#define HWT_WORK_SELECT	0x4u	/* judge the exec'd image (sel_file) */
#define HWT_WORK_BACKEND 0x8u	/* the backend's thread_work */
#define HWT_WORK_ENABLE	0x10u	/* enable its unit (running when the context started) */

struct hwt_thread {
	struct kref		ref;		/* atomic: ctx->threads list, queued task work */
	struct hwt_context	*ctx;		/* const: holds a context reference */
	struct task_struct	*task;		/* const: reference held (a freed task_struct
						   is never mistaken for a new one) */
	pid_t			tid;		/* the task itself writes (a non-leader exec
						   takes the leader's pid); READ_ONCE */
	pid_t			pid;		/* const */
	struct hlist_node	hnode;		/* hwt_thread_lock + RCU */
	struct list_head	link;		/* ctx lock: ctx->threads */
	unsigned long		flags;		/* atomic bits HWT_THR_* */
	struct hwt_buffer	*buf;		/* hwt_thread_alloc_mtx: written once, a plain
						   store before HWT_THR_READY is set; others read
						   it after seeing READY (or in the release) */
	struct hwt_buffer	*aux;		/* like buf: the second buffer, or NULL */
	void			*backend_priv;	/* backend: set by its thread_alloc under
						   hwt_thread_alloc_mtx, like buf */
	atomic_t		work_flags;	/* HWT_WORK_* for the next task work run */
	struct callback_head	work;		/* owned by the task while HWT_THR_WORK */
	atomic64_t		pause_seq;	/* pauses requested */
	atomic64_t		wake_seq;	/* pauses answered by WAKEUP */
	struct file		*sel_file;	/* xchg: the exec'd file, from the exec hook
						   to the SELECT work (reference held) */
};

/* Not traced now: hooks neither record nor enable the unit (RCU or the task itself). */
static inline bool hwt_thread_quiet(const struct hwt_thread *thr)
{
	return test_bit(HWT_THR_SELECTING, &thr->flags) ||
	       test_bit(HWT_THR_UNSELECTED, &thr->flags);
}

/* Allocates an unhashed thread for @task in @ctx (takes a ctx reference). */
struct hwt_thread *hwt_thread_alloc(struct hwt_context *ctx, struct task_struct *task, gfp_t gfp);
void hwt_thread_get(struct hwt_thread *thr);
/*
 * Drops a reference; the last one frees buffer and backend state, so it
 * must be in process context once the thread has a buffer.
 */
void hwt_thread_put(struct hwt_thread *thr);
/* Adds @thr to the hash and ctx->threads. ctx lock and hwt_thread_lock held. */
void hwt_thread_insert(struct hwt_thread *thr);
/* Removes @thr from the hash (hooks stop seeing it after a grace period). hwt_thread_lock held. */
void hwt_thread_unhash(struct hwt_thread *thr);
/* The thread of @task in @ctx, or NULL. RCU or hwt_thread_lock held. */
struct hwt_thread *hwt_thread_lookup(struct hwt_context *ctx, struct task_struct *task);
/* The marker of traced tasks (hwt_thread.c): hwt_thread_lock for writers. */
#define HWT_MARK_BITS		14
#define HWT_MARK_SLOT(task)	hash_ptr(task, HWT_MARK_BITS)
extern u16 hwt_thread_marks[1 << HWT_MARK_BITS];
extern int hwt_threads_hashed;

/*
 * False if no context traces @task (one load while nothing is traced, two
 * otherwise); true if one may. Lockless; any context.
 */
static inline bool hwt_thread_marked(const struct task_struct *task)
{
	return READ_ONCE(hwt_threads_hashed) &&
	       READ_ONCE(hwt_thread_marks[HWT_MARK_SLOT(task)]);
}

/* Fills @out with up to @max hashed threads of @task (none at once if not marked). RCU held. */
int hwt_thread_find(struct task_struct *task, struct hwt_thread **out, int max);
/* True if a live context of backend @b traces @task. RCU or hwt_thread_lock held. */
bool hwt_thread_busy(struct task_struct *task, struct hwt_backend *b);
/* Allocates the buffer and backend state if missing; may sleep. */
int hwt_thread_buffer_ensure(struct hwt_thread *thr);
/* Queues the task work with @what (HWT_WORK_*). Atomic-safe. False if the task is exiting. */
bool hwt_thread_queue_work(struct hwt_thread *thr, u32 what);

/* Max contexts a hook serves for one task in one call. */
#define HWT_HOOK_MAX_CTX	8

#endif /* HWT_THREAD_H */
