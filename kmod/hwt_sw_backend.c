// SPDX-License-Identifier: GPL-2.0
/*
 * hwt_sw.ko: the "sw" backend (hwt_sw_int.h). Its operations, the debug
 * exception handler that receives each step, and the orphans: threads
 * whose TF may still be set when their context goes away.
 *
 * TF lives in the thread's user registers; only the thread itself (or the
 * scheduler while it is switched out) may change them, so a context that
 * stops or dies cannot clear it from the collector. A thread that traps
 * while no context traces it has TF cleared then, without a signal: its
 * framework thread tells while it is hashed, the orphan set afterwards
 * (filled by the stop operation, before the framework unhashes anything).
 */
#include <linux/hashtable.h>
#include <linux/kdebug.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <asm/debugreg.h>
#include <asm/processor-flags.h>
#include <asm/ptrace.h>
#include <asm/syscall.h>

#include "hwt_cache.h"
#include "hwt_sw_int.h"

static struct kmem_cache *hwt_sw_thread_cache;

static void hwt_sw_thread_ctor(void *obj)
{
}

/* Threads whose TF may outlive their tracing, by task (the lock is irqsave). */
static DEFINE_SPINLOCK(hwt_sw_orphan_lock);
static DEFINE_HASHTABLE(hwt_sw_orphans, 8);
static unsigned int hwt_sw_norphans;		/* hwt_sw_orphan_lock */
static void hwt_sw_orphan_sweep(struct work_struct *work);
static DECLARE_DELAYED_WORK(hwt_sw_sweep_work, hwt_sw_orphan_sweep);

static void hwt_sw_thread_free_rcu(struct rcu_head *head)
{
	struct hwt_sw_thread *ts = container_of(head, struct hwt_sw_thread, rcu);

	put_task_struct(ts->task);
	kmem_cache_free(hwt_sw_thread_cache, ts);
}

static void hwt_sw_thread_release(struct kref *ref)
{
	struct hwt_sw_thread *ts = container_of(ref, struct hwt_sw_thread, ref);

	/* The debug exception handler may still be reading it. */
	call_rcu(&ts->rcu, hwt_sw_thread_free_rcu);
}

void hwt_sw_thread_put(struct hwt_sw_thread *ts)
{
	kref_put(&ts->ref, hwt_sw_thread_release);
}

/* Makes @ts an orphan (once). Holds a module reference: TF must not outlive the handler. */
static void hwt_sw_orphan_add(struct hwt_sw_thread *ts)
{
	unsigned long flags;

	spin_lock_irqsave(&hwt_sw_orphan_lock, flags);
	if (!ts->orphaned && !(ts->task->flags & PF_EXITING) && try_module_get(THIS_MODULE)) {
		ts->orphaned = true;
		kref_get(&ts->ref);
		hash_add_rcu(hwt_sw_orphans, &ts->orphan, (unsigned long)ts->task);
		if (hwt_sw_norphans++ == 0)
			schedule_delayed_work(&hwt_sw_sweep_work, HZ / 10);
	}
	spin_unlock_irqrestore(&hwt_sw_orphan_lock, flags);
}

/* Lock held. The caller puts ts and the module reference after the unlock. */
static void hwt_sw_orphan_del(struct hwt_sw_thread *ts)
{
	hash_del_rcu(&ts->orphan);
	ts->orphaned = false;
	hwt_sw_norphans--;
}

/* Takes @task out of the orphans; true if it was one. Any context. */
static bool hwt_sw_orphan_take(struct task_struct *task)
{
	struct hwt_sw_thread *ts, *found = NULL;
	unsigned long flags;

	spin_lock_irqsave(&hwt_sw_orphan_lock, flags);
	hash_for_each_possible(hwt_sw_orphans, ts, orphan, (unsigned long)task) {
		if (ts->task == task) {
			hwt_sw_orphan_del(ts);
			found = ts;
			break;
		}
	}
	spin_unlock_irqrestore(&hwt_sw_orphan_lock, flags);
	if (!found)
		return false;
	hwt_sw_thread_put(found);
	module_put(THIS_MODULE);
	return true;
}

/* Orphans whose task has exited will never trap again. */
static void hwt_sw_orphan_sweep(struct work_struct *work)
{
	struct hwt_sw_thread *ts, *gone[32];
	struct hlist_node *tmp;
	unsigned long flags;
	int bkt, i, n = 0;
	bool again;

	spin_lock_irqsave(&hwt_sw_orphan_lock, flags);
	hash_for_each_safe(hwt_sw_orphans, bkt, tmp, ts, orphan) {
		if (n == ARRAY_SIZE(gone))
			break;
		if (ts->task->flags & PF_EXITING) {
			hwt_sw_orphan_del(ts);
			gone[n++] = ts;
		}
	}
	again = hwt_sw_norphans != 0;
	spin_unlock_irqrestore(&hwt_sw_orphan_lock, flags);
	for (i = 0; i < n; i++) {
		hwt_sw_thread_put(gone[i]);
		module_put(THIS_MODULE);
	}
	if (again)
		schedule_delayed_work(&hwt_sw_sweep_work, n == ARRAY_SIZE(gone) ? 0 : HZ / 10);
}

void hwt_sw_maybe_arm(struct hwt_sw_thread *ts, struct pt_regs *regs)
{
	hwt_sw_filter_refresh(ts);
	if (hwt_sw_filter_in(ts, regs->ip)) {
		hwt_sw_arm(ts, regs);
		ts->outside = false;
	} else {
		regs->flags &= ~X86_EFLAGS_TF;
		ts->tf = false;
		ts->outside = true;
	}
}

void hwt_sw_arm(struct hwt_sw_thread *ts, struct pt_regs *regs)
{
	regs->flags |= X86_EFLAGS_TF;
	ts->tf = true;
	ts->next_ip = regs->ip;
	ts->next_ax = regs->ax;
	ts->next_sp = regs->sp;
	ts->rep_ip = 0;
	ts->next_known = false;
	ts->resume = true;
}

/* The debug exception: a single-step trap from user mode is ours if the thread is. */
static int hwt_sw_die(struct notifier_block *nb, unsigned long val, void *data)
{
	struct die_args *args = data;
	struct pt_regs *regs = args->regs;
	unsigned long *dr6 = (unsigned long *)args->err;
	struct hwt_sw_thread *ts = NULL;
	struct hwt_thread *thr;
	int ret = NOTIFY_STOP;

	if (val != DIE_DEBUG || !user_mode(regs) || !(*dr6 & DR_STEP))
		return NOTIFY_DONE;
	rcu_read_lock();
	thr = hwt_thread_of(current, &hwt_sw_backend);
	if (thr)
		ts = hwt_thread_backend_priv(thr);
	if (ts && hwt_thread_tracing(thr)) {
		if (ts->tf)
			hwt_sw_step(ts, regs);
		else
			hwt_sw_maybe_arm(ts, regs);	/* TF it did not know of: go on from here */
	} else if (ts) {
		/* Stopped, untraced or unselected: the steps end here. */
		hwt_sw_leave(ts, false);
		regs->flags &= ~X86_EFLAGS_TF;
	} else if (hwt_sw_orphan_take(current)) {
		regs->flags &= ~X86_EFLAGS_TF;
	} else {
		ret = NOTIFY_DONE;	/* not ours: a debugger's, the program's own */
	}
	rcu_read_unlock();
	if (ret == NOTIFY_STOP)
		*dr6 &= ~DR_STEP;
	return ret;
}

static struct notifier_block hwt_sw_die_nb = {
	.notifier_call	= hwt_sw_die,
	/* After uprobes (INT_MAX - 1), whose out-of-line steps are theirs. */
	.priority	= 0,
};

/* ----- Operations ------------------------------------------------------ */

static struct hwt_sw_cfg *hwt_sw_cfg_alloc(u32 nranges)
{
	return kzalloc(sizeof(struct hwt_sw_cfg) + nranges * sizeof(struct hwt_sw_range), GFP_KERNEL);
}

/* Configuration numbers: a thread refreshes its ranges when the number changes. */
static atomic_t hwt_sw_cfg_gen = ATOMIC_INIT(0);

static int hwt_sw_init(struct hwt_context *ctx)
{
	struct hwt_sw_ctx *sc = kzalloc(sizeof(*sc), GFP_KERNEL);
	struct hwt_sw_cfg *cfg = hwt_sw_cfg_alloc(0);

	if (!sc || !cfg) {
		kfree(sc);
		kfree(cfg);
		return -ENOMEM;
	}
	cfg->psb_period = HWT_SW_PSB_DEFAULT;
	cfg->gen = atomic_inc_return(&hwt_sw_cfg_gen);
	sc->ctx = ctx;
	RCU_INIT_POINTER(sc->cfg, cfg);
	spin_lock_init(&sc->lock);
	INIT_LIST_HEAD(&sc->threads);
	hwt_context_set_backend_priv(ctx, sc);
	return 0;
}

static void hwt_sw_deinit(struct hwt_context *ctx)
{
	struct hwt_sw_ctx *sc = hwt_context_backend_priv(ctx);

	/* Every thread is freed: nothing reads the configuration. */
	WARN_ON_ONCE(!list_empty(&sc->threads));
	hwt_sw_filter_free(sc);
	kfree(rcu_dereference_protected(sc->cfg, 1));
	kfree(sc);
}

static int hwt_sw_configure(struct hwt_context *ctx, const void *data, size_t len)
{
	struct hwt_sw_ctx *sc = hwt_context_backend_priv(ctx);
	const struct hwt_sw_config *uc = data;
	struct hwt_sw_cfg *cfg, *old;
	u32 i, n;
	int ret;

	if (len < HWT_SW_CONFIG_SIZE_VER0 || uc->size < HWT_SW_CONFIG_SIZE_VER0 ||
	    uc->size > len || (uc->flags & ~HWT_SW_FLAGS))
		return -EINVAL;
	if (uc->psb_period && (uc->psb_period < 256 || uc->psb_period > (1u << 20)))
		return -EINVAL;
	n = uc->nranges;
	if (n > (len - uc->size) / sizeof(struct hwt_sw_range))
		return -EINVAL;
	cfg = hwt_sw_cfg_alloc(n);
	if (!cfg)
		return -ENOMEM;
	cfg->gen = atomic_inc_return(&hwt_sw_cfg_gen);
	cfg->flags = uc->flags;
	cfg->psb_period = uc->psb_period ? uc->psb_period : HWT_SW_PSB_DEFAULT;
	cfg->nranges = n;
	memcpy(cfg->ranges, (const u8 *)data + uc->size, n * sizeof(*cfg->ranges));
	for (i = 0; i < n; i++) {
		if (cfg->ranges[i].reserved || cfg->ranges[i].start >= cfg->ranges[i].end ||
		    cfg->ranges[i].pid < 0) {
			kfree(cfg);
			return -EINVAL;
		}
	}
	/* The probes first: a thread that finds its new range finds them set. */
	ret = hwt_sw_filter_prepare(sc, cfg);
	if (ret) {
		kfree(cfg);
		return ret;
	}
	old = rcu_replace_pointer(sc->cfg, cfg, true);
	synchronize_rcu();
	kfree(old);
	hwt_sw_filter_prune(sc, cfg);
	return 0;
}

static void hwt_sw_stop(struct hwt_context *ctx)
{
	struct hwt_sw_ctx *sc = hwt_context_backend_priv(ctx);
	struct hwt_sw_thread *ts;

	spin_lock(&sc->lock);
	list_for_each_entry(ts, &sc->threads, ctx_link)
		hwt_sw_orphan_add(ts);
	spin_unlock(&sc->lock);
}

static int hwt_sw_thread_alloc(struct hwt_thread *thr)
{
	struct hwt_context *ctx = hwt_thread_context(thr);
	struct hwt_sw_ctx *sc = hwt_context_backend_priv(ctx);
	struct hwt_sw_thread *ts;

	ts = hwt_cache_zalloc(hwt_sw_thread_cache, GFP_KERNEL);
	if (!ts)
		return -ENOMEM;
	kref_init(&ts->ref);
	ts->task = get_task_struct(hwt_thread_task(thr));
	ts->sc = sc;
	ts->thr = thr;
	INIT_HLIST_NODE(&ts->orphan);
	ts->fresh = true;	/* hwt_sw_begin() applies the configuration */
	ts->pt.buf = hwt_thread_buffer(thr);
	ts->aux = hwt_thread_aux_buffer(thr);
	spin_lock(&sc->lock);
	list_add_tail(&ts->ctx_link, &sc->threads);
	spin_unlock(&sc->lock);
	hwt_thread_set_backend_priv(thr, ts);
	return 0;
}

static void hwt_sw_thread_free(struct hwt_thread *thr)
{
	struct hwt_sw_thread *ts = hwt_thread_backend_priv(thr);
	struct hwt_sw_ctx *sc = ts->sc;

	spin_lock(&sc->lock);
	list_del(&ts->ctx_link);
	spin_unlock(&sc->lock);
	ts->thr = NULL;
	hwt_sw_thread_put(ts);
}

/* Switched in (it is not running), or enabled by its own task work. */
static void hwt_sw_thread_enable(struct hwt_thread *thr, int cpu)
{
	struct hwt_sw_thread *ts = hwt_thread_backend_priv(thr);

	/* Not while uprobes runs a probed instruction (hwt_sw_filter.c). */
	if (!ts->tf && !ts->outside && !ts->xol)
		hwt_sw_maybe_arm(ts, task_pt_regs(ts->task));
}

/* Switched out, or at exit: what was written becomes readable. */
static void hwt_sw_thread_disable(struct hwt_thread *thr, int cpu)
{
	struct hwt_sw_thread *ts = hwt_thread_backend_priv(thr);

	if (ts->task == current && (current->flags & PF_EXITING))
		hwt_sw_leave(ts, syscall_get_nr(current, task_pt_regs(current)) != -1);
	else if (!ts->fresh)
		hwt_sw_stream_flush(&ts->st);
}

/* exec: the old image's trace ends here; the new one starts a stream. */
static void hwt_sw_thread_exec(struct hwt_thread *thr)
{
	struct hwt_sw_thread *ts = hwt_thread_backend_priv(thr);

	hwt_sw_leave(ts, true);
	ts->fresh = true;
	ts->outside = false;
	/* start_thread() cleared TF: steps begin at the entry, if it stays traced. */
	ts->rearm = true;
	hwt_thread_request_work(thr);
}

static void hwt_sw_thread_signal(struct hwt_thread *thr, int sig)
{
	struct hwt_sw_thread *ts = hwt_thread_backend_priv(thr);

	hwt_sw_leave(ts, syscall_get_nr(current, task_pt_regs(current)) != -1);
	/* The frame clears TF: steps go on where it returns to user mode. */
	ts->rearm = true;
	hwt_thread_request_work(thr);
}

/* The child has the parent's registers, TF too: its own thread (if any) arms it. */
static void hwt_sw_task_fork(struct hwt_thread *parent, struct task_struct *child,
			     struct hwt_thread *cthr)
{
	task_pt_regs(child)->flags &= ~X86_EFLAGS_TF;
}

static void hwt_sw_thread_work(struct hwt_thread *thr)
{
	struct hwt_sw_thread *ts = hwt_thread_backend_priv(thr);

	if (hwt_sw_ring_waiting(ts)) {
		if (hwt_thread_wait(thr, hwt_sw_ring_has_room, ts) == 0) {
			hwt_sw_ring_unspill(ts);
		} else {
			/* The context is gone or the thread dies: it waits no more. */
			ts->spilling = false;
			ts->blk_nwait = 0;
		}
	}
	if (ts->rearm) {
		ts->rearm = false;
		/* A signal handler may start inside the ranges even when the thread was out. */
		if (!ts->tf && !ts->xol && hwt_thread_tracing(thr))
			hwt_sw_maybe_arm(ts, task_pt_regs(current));
	}
}

static const struct hwt_backend_ops hwt_sw_ops = {
	.init		= hwt_sw_init,
	.deinit		= hwt_sw_deinit,
	.configure	= hwt_sw_configure,
	.stop		= hwt_sw_stop,
	.thread_alloc	= hwt_sw_thread_alloc,
	.thread_free	= hwt_sw_thread_free,
	.thread_enable	= hwt_sw_thread_enable,
	.thread_disable	= hwt_sw_thread_disable,
	.thread_exec	= hwt_sw_thread_exec,
	.thread_signal	= hwt_sw_thread_signal,
	.task_fork	= hwt_sw_task_fork,
	.thread_work	= hwt_sw_thread_work,
};

struct hwt_backend hwt_sw_backend = {
	.name	= HWT_SW_BACKEND,
	.ops	= &hwt_sw_ops,
	.owner	= THIS_MODULE,
};

static int __init hwt_sw_mod_init(void)
{
	int ret;

	/* A cache of its own, named in /proc/slabinfo (hwt_cache.h: a constructor keeps it unmerged). */
	hwt_sw_thread_cache = kmem_cache_create("hwt_sw_thread", sizeof(struct hwt_sw_thread), 0, 0,
						hwt_sw_thread_ctor);
	if (!hwt_sw_thread_cache)
		return -ENOMEM;
	ret = register_die_notifier(&hwt_sw_die_nb);
	if (ret)
		goto err_cache;
	hwt_sw_filter_init();
	ret = hwt_backend_register(&hwt_sw_backend);
	if (ret)
		goto err_die;
	return 0;

err_die:
	hwt_sw_filter_exit();
	unregister_die_notifier(&hwt_sw_die_nb);
err_cache:
	kmem_cache_destroy(hwt_sw_thread_cache);
	return ret;
}

static void __exit hwt_sw_mod_exit(void)
{
	/* No context and no orphan holds the module: no thread has TF of ours. */
	hwt_backend_unregister(&hwt_sw_backend);
	hwt_sw_filter_exit();
	unregister_die_notifier(&hwt_sw_die_nb);
	cancel_delayed_work_sync(&hwt_sw_sweep_work);
	rcu_barrier();	/* the threads' RCU frees */
	kmem_cache_destroy(hwt_sw_thread_cache);
}

module_init(hwt_sw_mod_init);
module_exit(hwt_sw_mod_exit);
MODULE_DESCRIPTION("hwt sw backend: single-stepped user-mode trace written as Intel PT");
MODULE_LICENSE("GPL");
