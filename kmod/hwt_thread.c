// SPDX-License-Identifier: GPL-2.0
/* Traced threads: see hwt_thread.h. */
#include <linux/file.h>
#include <linux/hashtable.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/rculist.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>

#include "hwt_buffer.h"
#include "hwt_cache.h"
#include "hwt_context.h"
#include "hwt_pause.h"
#include "hwt_stats.h"
#include "hwt_thread.h"

DEFINE_SPINLOCK(hwt_thread_lock);
static DEFINE_HASHTABLE(hwt_threads, 10);	/* hwt_thread_lock + RCU */
DEFINE_MUTEX(hwt_thread_alloc_mtx);

#define HWT_THREAD_KEY(task)	((unsigned long)(task))

/*
 * The marker of traced tasks, read by every hook before anything else.
 * Linux has no per-task bit a module may own (FreeBSD's hwt sets P2_HWT in
 * struct proc), so it is a counting filter keyed by the task_struct's
 * address: a slot counts the hashed threads whose task falls in it. A task
 * whose slot is zero is traced by no context: its hooks return after that
 * one load. A task that shares a slot with a traced one costs a hash
 * look-up, counted in hwt_stats.untraced_lookups (16384 slots: with T
 * traced tasks, an untraced one collides with odds T/16384).
 * hwt_threads_hashed, read first, keeps the filter's cache lines untouched
 * while nothing is traced. Both written under hwt_thread_lock.
 */
u16 hwt_thread_marks[1 << HWT_MARK_BITS];
int hwt_threads_hashed;

struct hwt_thread *hwt_thread_alloc(struct hwt_context *ctx, struct task_struct *task, gfp_t gfp)
{
	struct hwt_thread *thr;

	thr = hwt_cache_zalloc(hwt_thread_cache, gfp);
	if (!thr)
		return NULL;
	kref_init(&thr->ref);
	hwt_context_get(ctx);
	thr->ctx = ctx;
	get_task_struct(task);
	thr->task = task;
	thr->tid = task_pid_nr(task);
	thr->pid = task_tgid_nr(task);
	INIT_HLIST_NODE(&thr->hnode);
	INIT_LIST_HEAD(&thr->link);
	atomic_set(&thr->work_flags, 0);
	atomic64_set(&thr->pause_seq, 0);
	atomic64_set(&thr->wake_seq, 0);
	atomic64_inc(&hwt_stats.threads);
	return thr;
}

void hwt_thread_get(struct hwt_thread *thr)
{
	kref_get(&thr->ref);
}

static void hwt_thread_release(struct kref *ref)
{
	struct hwt_thread *thr = container_of(ref, struct hwt_thread, ref);
	struct hwt_context *ctx = thr->ctx;

	WARN_ON_ONCE(test_bit(HWT_THR_HASHED, &thr->flags));
	if (thr->sel_file)
		fput(thr->sel_file);	/* a SELECT work that never ran */
	if (thr->buf) {
		if (ctx->backend->ops->thread_free)
			ctx->backend->ops->thread_free(thr);
		hwt_buffer_free(thr->buf);
		hwt_buffer_free(thr->aux);
	}
	put_task_struct(thr->task);
	kmem_cache_free(hwt_thread_cache, thr);
	atomic64_dec(&hwt_stats.threads);
	hwt_context_put(ctx);
}

void hwt_thread_put(struct hwt_thread *thr)
{
	might_sleep_if(thr->buf);
	kref_put(&thr->ref, hwt_thread_release);
}

void hwt_thread_insert(struct hwt_thread *thr)
{
	HWT_CTX_ASSERT_LOCKED(thr->ctx);
	lockdep_assert_held(&hwt_thread_lock);
	list_add_tail(&thr->link, &thr->ctx->threads);
	set_bit(HWT_THR_HASHED, &thr->flags);
	/* Marked before the hash publishes it (hash_add_rcu orders the stores). */
	WRITE_ONCE(hwt_thread_marks[HWT_MARK_SLOT(thr->task)],
		   hwt_thread_marks[HWT_MARK_SLOT(thr->task)] + 1);
	WRITE_ONCE(hwt_threads_hashed, hwt_threads_hashed + 1);
	hash_add_rcu(hwt_threads, &thr->hnode, HWT_THREAD_KEY(thr->task));
}

void hwt_thread_unhash(struct hwt_thread *thr)
{
	lockdep_assert_held(&hwt_thread_lock);
	if (test_and_clear_bit(HWT_THR_HASHED, &thr->flags)) {
		hash_del_rcu(&thr->hnode);
		WRITE_ONCE(hwt_thread_marks[HWT_MARK_SLOT(thr->task)],
			   hwt_thread_marks[HWT_MARK_SLOT(thr->task)] - 1);
		WRITE_ONCE(hwt_threads_hashed, hwt_threads_hashed - 1);
	}
}

struct hwt_thread *hwt_thread_lookup(struct hwt_context *ctx, struct task_struct *task)
{
	struct hwt_thread *thr;

	hash_for_each_possible_rcu(hwt_threads, thr, hnode, HWT_THREAD_KEY(task),
				   lockdep_is_held(&hwt_thread_lock)) {
		if (thr->task == task && thr->ctx == ctx)
			return thr;
	}
	return NULL;
}

int hwt_thread_find(struct task_struct *task, struct hwt_thread **out, int max)
{
	struct hwt_thread *thr;
	int n = 0;

	if (!hwt_thread_marked(task))
		return 0;
	hash_for_each_possible_rcu(hwt_threads, thr, hnode, HWT_THREAD_KEY(task),
				   lockdep_is_held(&hwt_thread_lock)) {
		if (thr->task == task && n < max)
			out[n++] = thr;
	}
	if (!n)
		atomic64_inc(&hwt_stats.untraced_lookups);	/* a filter collision */
	return n;
}

bool hwt_thread_busy(struct task_struct *task, struct hwt_backend *b)
{
	struct hwt_thread *thr;

	hash_for_each_possible_rcu(hwt_threads, thr, hnode, HWT_THREAD_KEY(task),
				   lockdep_is_held(&hwt_thread_lock)) {
		if (thr->task == task && thr->ctx->backend == b &&
		    READ_ONCE(thr->ctx->state) != HWT_CTX_DEAD)
			return true;
	}
	return false;
}

int hwt_thread_buffer_ensure(struct hwt_thread *thr)
{
	struct hwt_context *ctx = thr->ctx;
	struct hwt_buffer *buf;
	int ret = 0;

	mutex_lock(&hwt_thread_alloc_mtx);
	if (thr->buf)
		goto out;
	buf = hwt_buffer_alloc(ctx->bufsize, READ_ONCE(thr->tid), &ctx->charge);
	if (IS_ERR(buf)) {
		ret = PTR_ERR(buf);
		goto out;
	}
	if (ctx->aux_bufsize) {
		thr->aux = hwt_buffer_alloc(ctx->aux_bufsize, READ_ONCE(thr->tid), &ctx->charge);
		if (IS_ERR(thr->aux)) {
			ret = PTR_ERR(thr->aux);
			thr->aux = NULL;
			hwt_buffer_free(buf);
			goto out;
		}
	}
	thr->buf = buf;
	if (ctx->backend->ops->thread_alloc) {
		ret = ctx->backend->ops->thread_alloc(thr);
		if (ret) {
			thr->buf = NULL;
			hwt_buffer_free(buf);
			hwt_buffer_free(thr->aux);
			thr->aux = NULL;
			goto out;
		}
	}
	/* Hooks call the backend for this thread only once the state is complete. */
	smp_mb__before_atomic();
	set_bit(HWT_THR_READY, &thr->flags);
out:
	mutex_unlock(&hwt_thread_alloc_mtx);
	return ret;
}

bool hwt_thread_queue_work(struct hwt_thread *thr, u32 what)
{
	atomic_or(what, &thr->work_flags);
	if (test_and_set_bit(HWT_THR_WORK, &thr->flags))
		return true;	/* the queued work will see @what */
	hwt_thread_get(thr);
	atomic64_inc(&hwt_stats.works);
	init_task_work(&thr->work, hwt_pause_work);
	if (task_work_add(thr->task, &thr->work, TWA_RESUME)) {
		clear_bit(HWT_THR_WORK, &thr->flags);
		atomic64_dec(&hwt_stats.works);
		/* Not the last reference: the caller's ctx->threads entry holds one. */
		kref_put(&thr->ref, hwt_thread_release);
		return false;
	}
	return true;
}
