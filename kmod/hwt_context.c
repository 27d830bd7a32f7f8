// SPDX-License-Identifier: GPL-2.0
/* Trace contexts: see hwt_context.h. */
#include <linux/cred.h>
#include <linux/cpu.h>
#include <linux/idr.h>
#include <linux/module.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/workqueue.h>

#include "hwt_ioctl.h"
#include "hwt_buffer.h"
#include "hwt_cache.h"
#include "hwt_context.h"
#include "hwt_record.h"
#include "hwt_snapshot.h"
#include "hwt_stats.h"
#include "hwt_thread.h"

DEFINE_MUTEX(hwt_mtx);
static LIST_HEAD(hwt_contexts);		/* hwt_mtx */
LIST_HEAD(hwt_cpu_contexts);		/* hwt_mtx + RCU */
atomic_t hwt_nr_cpu_contexts = ATOMIC_INIT(0);
static unsigned int hwt_nr_contexts;	/* hwt_mtx: contexts not yet freed */
static DEFINE_IDA(hwt_idents);
struct workqueue_struct *hwt_wq;	/* frees contexts; drained at module exit */

struct hwt_context *hwt_context_alloc(struct hwt_backend *b, u32 mode, u32 flags,
				      size_t bufsize, size_t aux_bufsize, u64 recq_size)
{
	struct hwt_context *ctx;
	int ret;

	lockdep_assert_held(&hwt_mtx);
	ctx = hwt_cache_zalloc(hwt_context_cache, GFP_KERNEL);
	if (!ctx)
		return ERR_PTR(-ENOMEM);
	ret = ida_alloc_min(&hwt_idents, 1, GFP_KERNEL);
	if (ret < 0)
		goto err_free;
	ctx->ident = ret;
	kref_init(&ctx->ref);
	ctx->mode = mode;
	ctx->flags = flags;
	ctx->backend = b;
	ctx->bufsize = bufsize;
	ctx->aux_bufsize = aux_bufsize;
	ctx->state = HWT_CTX_IDLE;
	ctx->pause_timeout_ms = 1000;
	INIT_LIST_HEAD(&ctx->threads);
	INIT_LIST_HEAD(&ctx->cpu_link);
	mutex_init(&ctx->mtx);
	spin_lock_init(&ctx->lock);
	init_waitqueue_head(&ctx->pause_wq);
	if (mode == HWT_MODE_CPU) {
		void *cpus = hwt_cache_zalloc(hwt_cpus_cache, GFP_KERNEL);

		if (!cpus) {
			ret = -ENOMEM;
			goto err_ida;
		}
		ctx->cpu_bufs = hwt_cpus_bufs(cpus);
		ctx->cpus = hwt_cpus_mask(cpus);
	}
	ret = hwt_recq_init(&ctx->recq, recq_size);
	if (ret)
		goto err_cpus;
	if (b->ops->init) {
		ret = b->ops->init(ctx);
		if (ret)
			goto err_recq;
	}
	hwt_nr_contexts++;
	__module_get(THIS_MODULE);
	list_add_tail(&ctx->link, &hwt_contexts);
	atomic64_inc(&hwt_stats.contexts);
	return ctx;

err_recq:
	hwt_recq_fini(&ctx->recq);
err_cpus:
	if (ctx->cpu_bufs)
		kmem_cache_free(hwt_cpus_cache, ctx->cpu_bufs);
err_ida:
	ida_free(&hwt_idents, ctx->ident);
err_free:
	kmem_cache_free(hwt_context_cache, ctx);
	return ERR_PTR(ret);
}

unsigned int hwt_context_count_user(const struct user_struct *user)
{
	struct hwt_context *ctx;
	unsigned int n = 0;

	lockdep_assert_held(&hwt_mtx);
	list_for_each_entry(ctx, &hwt_contexts, link)
		n += ctx->charge.user == user && READ_ONCE(ctx->state) != HWT_CTX_DEAD;
	return n;
}

void hwt_context_get(struct hwt_context *ctx)
{
	kref_get(&ctx->ref);
}

static void hwt_context_free_work(struct work_struct *work)
{
	struct hwt_context *ctx = container_of(work, struct hwt_context, free_work);
	struct hwt_backend *b = ctx->backend;
	unsigned int cpu;

	WARN_ON_ONCE(!list_empty(&ctx->threads));
	if (b->ops->deinit)
		b->ops->deinit(ctx);
	if (ctx->cpu_bufs) {
		for_each_possible_cpu(cpu)
			hwt_buffer_free(ctx->cpu_bufs[cpu]);
		kmem_cache_free(hwt_cpus_cache, ctx->cpu_bufs);
	}
	hwt_recq_fini(&ctx->recq);
	put_pid(ctx->target);
	hwt_select_free(rcu_dereference_protected(ctx->select, 1));
	if (ctx->owner_cred)
		put_cred(ctx->owner_cred);
	if (ctx->owner_task)
		put_task_struct(ctx->owner_task);

	mutex_lock(&hwt_mtx);
	hwt_charge_fini(&ctx->charge);
	list_del(&ctx->link);
	hwt_nr_contexts--;
	ida_free(&hwt_idents, ctx->ident);
	mutex_unlock(&hwt_mtx);

	module_put(b->owner);
	kmem_cache_free(hwt_context_cache, ctx);
	atomic64_dec(&hwt_stats.contexts);
	/* The module cannot go before hwt_wq is drained in its exit. */
	module_put(THIS_MODULE);
}

/*
 * The last reference may go in a hook (a thread that was never used), in a
 * task work callback of an exiting thread, or in the fd release; the free
 * itself (hook unregistration, vfree) runs from hwt_wq, which module exit
 * drains.
 */
static void hwt_context_release(struct kref *ref)
{
	struct hwt_context *ctx = container_of(ref, struct hwt_context, ref);

	INIT_WORK(&ctx->free_work, hwt_context_free_work);
	queue_work(hwt_wq, &ctx->free_work);
}

void hwt_context_put(struct hwt_context *ctx)
{
	kref_put(&ctx->ref, hwt_context_release);
}

static void hwt_context_cpu_enable(void *arg)
{
	struct hwt_context *ctx = arg;

	ctx->backend->ops->enable(ctx, smp_processor_id());
}

static void hwt_context_cpu_disable(void *arg)
{
	struct hwt_context *ctx = arg;

	ctx->backend->ops->disable(ctx, smp_processor_id());
}

/* CPU mode: runs @fn on every online CPU of the context. */
static void hwt_context_on_cpus(struct hwt_context *ctx, smp_call_func_t fn, bool present)
{
	unsigned int cpu;

	if (!present)
		return;
	cpus_read_lock();
	for_each_cpu(cpu, ctx->cpus) {
		if (cpu_online(cpu))
			smp_call_function_single(cpu, fn, ctx, 1);
	}
	cpus_read_unlock();
}

/*
 * THREAD mode: a thread's unit is enabled at its switch-in, and a thread
 * that keeps its CPU (a busy process attached, alone on a CPU) may not be
 * switched for long. Each thread running elsewhere is sent into the kernel
 * (kick_process), where its task work enables it now.
 */
static void hwt_context_kick_threads(struct hwt_context *ctx)
{
	struct hwt_thread *thr;

	HWT_CTX_LOCK(ctx);
	list_for_each_entry(thr, &ctx->threads, link) {
		if (thr->task == current || !test_bit(HWT_THR_READY, &thr->flags) ||
		    test_bit(HWT_THR_ENABLED, &thr->flags) || hwt_thread_quiet(thr))
			continue;
		if (hwt_thread_queue_work(thr, HWT_WORK_ENABLE))
			kick_process(thr->task);
	}
	HWT_CTX_UNLOCK(ctx);
}

int hwt_context_start(struct hwt_context *ctx)
{
	int old;

	mutex_lock(&ctx->mtx);
	HWT_CTX_LOCK(ctx);
	old = ctx->state;
	if (old == HWT_CTX_IDLE || old == HWT_CTX_STOPPED)
		WRITE_ONCE(ctx->state, HWT_CTX_RUNNING);
	HWT_CTX_UNLOCK(ctx);
	if (old == HWT_CTX_RUNNING || old == HWT_CTX_DEAD) {
		mutex_unlock(&ctx->mtx);
		return -EBUSY;
	}
	if (ctx->mode == HWT_MODE_CPU)
		hwt_context_on_cpus(ctx, hwt_context_cpu_enable, ctx->backend->ops->enable);
	else if (old == HWT_CTX_IDLE)
		hwt_snapshot_take(ctx);
	if (ctx->mode != HWT_MODE_CPU)
		hwt_context_kick_threads(ctx);
	mutex_unlock(&ctx->mtx);
	return 0;
}

/* ctx->mtx held. */
static void hwt_context_stop_locked(struct hwt_context *ctx, int new_state)
{
	int old;

	HWT_CTX_LOCK(ctx);
	old = ctx->state;
	WRITE_ONCE(ctx->state, new_state);
	HWT_CTX_UNLOCK(ctx);
	if (old != HWT_CTX_RUNNING)
		return;
	if (ctx->mode == HWT_MODE_CPU)
		hwt_context_on_cpus(ctx, hwt_context_cpu_disable, ctx->backend->ops->disable);
	if (ctx->backend->ops->stop)
		ctx->backend->ops->stop(ctx);
	/* Paused threads return: nobody reconfigures a stopped context. */
	wake_up_all(&ctx->pause_wq);
}

int hwt_context_stop(struct hwt_context *ctx)
{
	int ret = 0;

	mutex_lock(&ctx->mtx);
	if (ctx->state == HWT_CTX_RUNNING)
		hwt_context_stop_locked(ctx, HWT_CTX_STOPPED);
	else
		ret = -EINVAL;
	mutex_unlock(&ctx->mtx);
	return ret;
}

void hwt_context_teardown(struct hwt_context *ctx)
{
	struct hwt_backend *b = ctx->backend;
	struct hwt_thread *thr, *tmp;
	LIST_HEAD(threads);

	mutex_lock(&ctx->mtx);
	hwt_context_stop_locked(ctx, HWT_CTX_DEAD);

	mutex_lock(&hwt_mtx);
	if (ctx->mode == HWT_MODE_CPU) {
		list_del_rcu(&ctx->cpu_link);
		atomic_dec(&hwt_nr_cpu_contexts);
		bitmap_andnot(b->busy_cpus, b->busy_cpus, cpumask_bits(ctx->cpus), nr_cpu_ids);
		b->nctx_cpu--;
	} else {
		b->nctx_thread--;
	}
	mutex_unlock(&hwt_mtx);

	HWT_CTX_LOCK(ctx);
	list_splice_init(&ctx->threads, &threads);
	spin_lock(&hwt_thread_lock);
	list_for_each_entry(thr, &threads, link)
		hwt_thread_unhash(thr);
	spin_unlock(&hwt_thread_lock);
	HWT_CTX_UNLOCK(ctx);

	wake_up_all(&ctx->pause_wq);
	/* Hooks that found a thread or this context before are done after this. */
	synchronize_rcu();

	list_for_each_entry_safe(thr, tmp, &threads, link) {
		list_del_init(&thr->link);
		hwt_thread_put(thr);
	}
	mutex_unlock(&ctx->mtx);
	hwt_context_put(ctx);
}

void hwt_context_record(struct hwt_context *ctx, struct hwt_record_header *rec)
{
	if (READ_ONCE(ctx->state) != HWT_CTX_RUNNING)
		return;
	hwt_record_seal(rec);
	if (hwt_recq_push(&ctx->recq, rec))
		WRITE_ONCE(ctx->rec_time, rec->time);
}
EXPORT_SYMBOL_GPL(hwt_context_record);

u64 hwt_context_record_time(struct hwt_context *ctx)
{
	return READ_ONCE(ctx->rec_time);
}
EXPORT_SYMBOL_GPL(hwt_context_record_time);

/* Accessors for backends. */
struct hwt_buffer *hwt_context_cpu_buffer(struct hwt_context *ctx, int cpu)
{
	if (!ctx->cpu_bufs || cpu < 0 || cpu >= nr_cpu_ids)
		return NULL;
	return ctx->cpu_bufs[cpu];
}
EXPORT_SYMBOL_GPL(hwt_context_cpu_buffer);

bool hwt_context_cpu_mode(struct hwt_context *ctx)
{
	return ctx->mode == HWT_MODE_CPU;
}
EXPORT_SYMBOL_GPL(hwt_context_cpu_mode);

void *hwt_context_backend_priv(struct hwt_context *ctx)
{
	return ctx->backend_priv;
}
EXPORT_SYMBOL_GPL(hwt_context_backend_priv);

void hwt_context_set_backend_priv(struct hwt_context *ctx, void *priv)
{
	ctx->backend_priv = priv;
}
EXPORT_SYMBOL_GPL(hwt_context_set_backend_priv);

u32 hwt_context_ident(struct hwt_context *ctx)
{
	return ctx->ident;
}
EXPORT_SYMBOL_GPL(hwt_context_ident);
