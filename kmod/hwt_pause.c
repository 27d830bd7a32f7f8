// SPDX-License-Identifier: GPL-2.0
/* Pause for reconfiguration: see hwt_pause.h. */
#include <linux/file.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/sched/signal.h>
#include <linux/wait.h>

#include "hwt_context.h"
#include "hwt_pause.h"
#include "hwt_rec.h"
#include "hwt_record.h"
#include "hwt_select.h"
#include "hwt_stats.h"
#include "hwt_thread.h"

/* The context still runs and the thread is still its to trace. */
static bool hwt_pause_live(struct hwt_thread *thr)
{
	return READ_ONCE(thr->ctx->state) == HWT_CTX_RUNNING &&
	       !test_bit(HWT_THR_UNTRACED, &thr->flags);
}

static bool hwt_pause_done(struct hwt_thread *thr, s64 target)
{
	return atomic64_read(&thr->wake_seq) >= target || !hwt_pause_live(thr);
}

/* Waits with no lock held; returns early on a fatal signal. */
static void hwt_pause_wait(struct hwt_thread *thr)
{
	struct hwt_context *ctx = thr->ctx;
	s64 target = atomic64_read(&thr->pause_seq);
	long timeout = msecs_to_jiffies(READ_ONCE(ctx->pause_timeout_ms));
	long ret;

	set_bit(HWT_THR_PAUSED, &thr->flags);
	atomic64_inc(&hwt_stats.paused);
	ret = wait_event_killable_timeout(ctx->pause_wq, hwt_pause_done(thr, target), timeout);
	if (ret == 0)
		atomic64_inc(&hwt_stats.pause_timeouts);
	atomic64_dec(&hwt_stats.paused);
	clear_bit(HWT_THR_PAUSED, &thr->flags);
}

/*
 * A new thread runs when its buffer appears, so no switch-in will enable
 * its unit before it reaches user mode: enable it here, as the switch hook
 * would, with interrupts off so no switch comes in between.
 */
static void hwt_pause_enable_self(struct hwt_thread *thr)
{
	unsigned long flags;

	local_irq_save(flags);
	if (READ_ONCE(thr->ctx->state) == HWT_CTX_RUNNING &&
	    test_bit(HWT_THR_HASHED, &thr->flags) && test_bit(HWT_THR_READY, &thr->flags) &&
	    !hwt_thread_quiet(thr) && !test_and_set_bit(HWT_THR_ENABLED, &thr->flags))
		thr->ctx->backend->ops->thread_enable(thr, smp_processor_id());
	local_irq_restore(flags);
}

/*
 * A followed thread got no buffer (out of memory, or over its owner's
 * locked-memory limit: hwt_buffer.h): it runs untraced, and a LOST record
 * says so rather than leaving a silent gap.
 */
static void hwt_pause_no_buffer(struct hwt_thread *thr)
{
	struct hwt_record_lost rec;

	memset(&rec, 0, sizeof(rec));
	hwt_rec_hdr(&rec.hdr, HWT_RECORD_LOST, sizeof(rec), current);
	rec.reason = HWT_LOST_TRACE_WRITE;
	hwt_context_record(thr->ctx, &rec.hdr);
}

void hwt_pause_work(struct callback_head *cb)
{
	struct hwt_thread *thr = container_of(cb, struct hwt_thread, work);
	u32 what;

	/* From here on a hook may queue the work again. */
	clear_bit(HWT_THR_WORK, &thr->flags);
	smp_mb__after_atomic();
	what = atomic_xchg(&thr->work_flags, 0);

	if (!(current->flags & PF_EXITING) && READ_ONCE(thr->ctx->state) != HWT_CTX_DEAD) {
		/* A child of an untraced (unselected) thread gets its buffer when selected. */
		if ((what & HWT_WORK_ALLOC) && !test_bit(HWT_THR_UNSELECTED, &thr->flags)) {
			if (hwt_thread_buffer_ensure(thr) == 0)
				hwt_pause_enable_self(thr);
			else
				hwt_pause_no_buffer(thr);
		}
		if ((what & HWT_WORK_SELECT) && hwt_select_work(thr))
			hwt_pause_enable_self(thr);
		if (what & HWT_WORK_ENABLE)
			hwt_pause_enable_self(thr);
		if ((what & HWT_WORK_PAUSE) && !fatal_signal_pending(current) &&
		    !test_bit(HWT_THR_UNTRACED, &thr->flags))
			hwt_pause_wait(thr);
		/* After the pause: the collector may have reconfigured the backend. */
		if ((what & HWT_WORK_BACKEND) && thr->ctx->backend->ops->thread_work &&
		    !test_bit(HWT_THR_UNTRACED, &thr->flags))
			thr->ctx->backend->ops->thread_work(thr);
	}
	/* Exiting, or the context is gone: a SELECT left undone drops its file. */
	if (what & HWT_WORK_SELECT) {
		struct file *f = xchg(&thr->sel_file, NULL);

		if (f)
			fput(f);
	}
	atomic64_dec(&hwt_stats.works);
	hwt_thread_put(thr);
}

int hwt_thread_wait(struct hwt_thread *thr, bool (*done)(void *arg), void *arg)
{
	long ret;

	set_bit(HWT_THR_PAUSED, &thr->flags);
	atomic64_inc(&hwt_stats.paused);
	ret = wait_event_killable(thr->ctx->pause_wq, done(arg) || !hwt_pause_live(thr));
	atomic64_dec(&hwt_stats.paused);
	clear_bit(HWT_THR_PAUSED, &thr->flags);
	if (ret)
		return -EINTR;
	return done(arg) ? 0 : -ESHUTDOWN;
}
EXPORT_SYMBOL_GPL(hwt_thread_wait);

int hwt_pause_wakeup(struct hwt_context *ctx, pid_t tid)
{
	struct hwt_thread *thr;
	int ret = -ESRCH;

	HWT_CTX_LOCK(ctx);
	list_for_each_entry(thr, &ctx->threads, link) {
		if (tid != -1 && READ_ONCE(thr->tid) != tid)
			continue;
		atomic64_set(&thr->wake_seq, atomic64_read(&thr->pause_seq));
		ret = 0;
	}
	HWT_CTX_UNLOCK(ctx);
	if (!ret)
		wake_up_all(&ctx->pause_wq);
	return ret;
}
