// SPDX-License-Identifier: GPL-2.0
/* Hooks: see hwt_hook.h. */
#include <linux/binfmts.h>
#include <linux/dcache.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/ftrace.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/rculist.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include <linux/signal.h>
#include <linux/string.h>

#include "hwt_ioctl.h"
#include "hwt_compat.h"
#include "hwt_context.h"
#include "hwt_dest.h"
#include "hwt_hook.h"
#include "hwt_perm.h"
#include "hwt_rec.h"
#include "hwt_scratch.h"
#include "hwt_thread.h"

/*
 * The first test of every hook: false for a task that no context traces
 * while no CPU-mode context exists (CPU mode traces every task). The
 * probes stay registered while the module is loaded (hwt_probe.h); this is
 * what keeps them cheap.
 */
static __always_inline bool hwt_hook_wanted(const struct task_struct *t)
{
	return hwt_thread_marked(t) || atomic_read(&hwt_nr_cpu_contexts);
}

/*
 * CPU mode: the running contexts that trace the CPU current runs on, into
 * @ctxs. RCU held, preemption off.
 */
static int hwt_hook_cpu_contexts(struct hwt_context **ctxs)
{
	struct hwt_context *ctx;
	int cpu = smp_processor_id(), n = 0;

	if (!atomic_read(&hwt_nr_cpu_contexts))
		return 0;
	list_for_each_entry_rcu(ctx, &hwt_cpu_contexts, cpu_link) {
		if (n == HWT_HOOK_MAX_CTX)
			break;
		if (READ_ONCE(ctx->state) == HWT_CTX_RUNNING && cpumask_test_cpu(cpu, ctx->cpus))
			ctxs[n++] = ctx;
	}
	return n;
}

/*
 * exec, first: each backend tracing @p ends the old image's trace before
 * any record of the exec is queued (a collector that reads the buffer
 * pointer when it sees EXEC finds the old image's trace complete). RCU held.
 */
static void hwt_hook_exec_backends(struct task_struct *p)
{
	struct hwt_thread *thrs[HWT_HOOK_MAX_CTX];

	struct hwt_context *ctxs[HWT_HOOK_MAX_CTX];
	int i, n;

	n = hwt_thread_find(p, thrs, HWT_HOOK_MAX_CTX);
	for (i = 0; i < n; i++) {
		const struct hwt_backend_ops *ops = thrs[i]->ctx->backend->ops;

		if (ops->thread_exec && test_bit(HWT_THR_READY, &thrs[i]->flags) &&
		    !hwt_thread_quiet(thrs[i]))
			ops->thread_exec(thrs[i]);
	}
	n = hwt_hook_cpu_contexts(ctxs);
	for (i = 0; i < n; i++)
		if (ctxs[i]->backend->ops->cpu_exec)
			ctxs[i]->backend->ops->cpu_exec(ctxs[i]);
}

/*
 * exec, before anything is recorded: a THREAD-mode context whose owner may
 * no longer ptrace @p under the credentials the exec committed (a set-id or
 * capability-gaining image, a non-dumpable one, a secure exec) stops tracing
 * it, as perf stops a task's events at such an exec. Its unit goes off; it
 * leaves the hash, so no hook sees it again: no record, no switch-in
 * enabling the unit, no pause, and children it forks are not followed. It
 * stays on ctx->threads (buffer mappable) until teardown, as exited threads
 * do. The context gets an UNTRACED record (path, reason) instead of EXEC and
 * the image's MMAPs. Contexts not running (IDLE, STOPPED) untrace it too,
 * without the record. RCU held, atomic; @s is the scratch area or NULL.
 */
static void hwt_hook_exec_untrace(struct task_struct *p, struct linux_binprm *bprm, void *s)
{
	struct hwt_thread *thrs[HWT_HOOK_MAX_CTX];
	struct hwt_record_header *rec;
	int cpu = smp_processor_id();
	char small[sizeof(struct hwt_record_untraced) + 64];
	const char *why, *path;
	int i, n;

	n = hwt_thread_find(p, thrs, HWT_HOOK_MAX_CTX);
	for (i = 0; i < n; i++) {
		struct hwt_thread *thr = thrs[i];
		struct hwt_context *ctx = thr->ctx;

		if (!ctx->owner_cred || READ_ONCE(ctx->state) == HWT_CTX_DEAD)
			continue;
		why = hwt_perm_exec(ctx->owner_cred, p, p->mm, bprm);
		if (!why) {
			/* The LSMs too, from the owner, before anything of the image is traced. */
			if (ctx->owner_task)
				set_bit(HWT_THR_ASK, &thr->flags);
			continue;
		}
		set_bit(HWT_THR_UNTRACED, &thr->flags);
		WRITE_ONCE(thr->tid, task_pid_nr(p));	/* BUFPTR finds it by its tid */
		if (test_and_clear_bit(HWT_THR_ENABLED, &thr->flags))
			ctx->backend->ops->thread_disable(thr, cpu);
		spin_lock(&hwt_thread_lock);
		hwt_thread_unhash(thr);
		spin_unlock(&hwt_thread_lock);
		if (s) {
			path = d_path(&bprm->file->f_path, hwt_scratch_path(s), PATH_MAX);
			if (IS_ERR(path))
				path = bprm->filename;
			rec = hwt_rec_untraced(s, HWT_SCRATCH_PATH, p, path, why);
		} else {
			/* The scratch area is in use (a nested hook): no path. */
			rec = hwt_rec_untraced(small, sizeof(small), p, "", "untraceable");
		}
		if (rec)
			hwt_context_record(ctx, rec);
	}
}

/*
 * exec, for contexts that select (HWT_CFG_SELECT) and for threads a
 * selection left untraced: the new image is judged by the thread's task
 * work (hwt_select_work) before it runs, since the judgement reads
 * the file and looks debug files up, which sleeps, and this hook runs
 * atomic. Until then the thread is SELECTING: unit off, no record, and the
 * work holds a reference on the exec'd file. RCU held.
 */
static void hwt_hook_exec_select(struct task_struct *p, struct linux_binprm *bprm)
{
	struct hwt_thread *thrs[HWT_HOOK_MAX_CTX];
	int cpu = smp_processor_id();
	struct file *old;
	int i, n;

	n = hwt_thread_find(p, thrs, HWT_HOOK_MAX_CTX);
	for (i = 0; i < n; i++) {
		struct hwt_thread *thr = thrs[i];
		struct hwt_context *ctx = thr->ctx;

		if (test_bit(HWT_THR_UNTRACED, &thr->flags) ||
		    READ_ONCE(ctx->state) == HWT_CTX_DEAD ||
		    (!(READ_ONCE(ctx->cfg_flags) & HWT_CFG_SELECT) &&
		     !test_bit(HWT_THR_UNSELECTED, &thr->flags) &&
		     !test_bit(HWT_THR_ASK, &thr->flags)))
			continue;
		WRITE_ONCE(thr->tid, task_pid_nr(p));
		set_bit(HWT_THR_SELECTING, &thr->flags);
		if (test_and_clear_bit(HWT_THR_ENABLED, &thr->flags))
			ctx->backend->ops->thread_disable(thr, cpu);
		old = xchg(&thr->sel_file, get_file(bprm->file));
		if (old)
			fput(old);
		hwt_thread_queue_work(thr, HWT_WORK_SELECT);
	}
}

/*
 * exec: generic for every binary format. The new image's mappings were
 * made during the exec (before this tracepoint, which is why the mmap hook
 * ignores tasks in execve); they are recorded here, after EXEC, from the
 * new mm. A pause asked for happens on the way back to user mode.
 */
void hwt_hook_on_exec(void *data, struct task_struct *p, pid_t old_pid,
			  struct linux_binprm *bprm)
{
	struct hwt_dest d[HWT_DEST_MAX];
	struct hwt_record_header *rec;
	struct mm_struct *mm = p->mm;
	const char *path;
	char *args;
	void *s;
	int i, n;

	if (!hwt_hook_wanted(p) || (p->flags & PF_KTHREAD))
		return;
	rcu_read_lock();
	hwt_hook_exec_backends(p);
	s = hwt_scratch_get();
	hwt_hook_exec_untrace(p, bprm, s);
	hwt_hook_exec_select(p, bprm);
	n = hwt_dest_find(p, d);
	if (!n)
		goto out_put;
	for (i = 0; i < n; i++) {
		if (d[i].thr)
			WRITE_ONCE(d[i].thr->tid, task_pid_nr(p));
	}
	if (!s) {
		hwt_dest_lost(d, n, HWT_LOST_IMAGE, p);
		goto out;
	}
	path = d_path(&bprm->file->f_path, hwt_scratch_path(s), PATH_MAX);
	if (IS_ERR(path))
		path = bprm->filename;
	args = hwt_rec_process_begin(s, path);
	rec = hwt_rec_process_end(s, HWT_RECORD_EXEC, p, args, hwt_rec_current_args(args));
	hwt_dest_deliver(d, n, rec, HWT_CFG_PAUSE_EXEC, false);
	if (mm && mmap_read_trylock(mm)) {
		hwt_dest_image(d, n, p, mm, s);
		mmap_read_unlock(mm);
	} else {
		hwt_dest_lost(d, n, HWT_LOST_IMAGE, p);
	}
out_put:
	if (s)
		hwt_scratch_put();
out:
	rcu_read_unlock();
}

/*
 * Makes @ctx trace @child; returns its thread or NULL. Atomic. The child
 * of a thread not traced now starts UNSELECTED, without a buffer.
 */
static struct hwt_thread *hwt_hook_follow(struct hwt_context *ctx, struct task_struct *child,
					  bool quiet)
{
	struct hwt_thread *cthr, *old;

	HWT_CTX_LOCK(ctx);
	if (ctx->state == HWT_CTX_DEAD) {
		HWT_CTX_UNLOCK(ctx);
		return NULL;
	}
	cthr = hwt_thread_alloc(ctx, child, GFP_ATOMIC);
	if (!cthr) {
		HWT_CTX_UNLOCK(ctx);
		return NULL;
	}
	if (quiet)
		set_bit(HWT_THR_UNSELECTED, &cthr->flags);
	spin_lock(&hwt_thread_lock);
	old = hwt_thread_lookup(ctx, child);	/* attached while being created */
	if (!old)
		hwt_thread_insert(cthr);
	spin_unlock(&hwt_thread_lock);
	HWT_CTX_UNLOCK(ctx);
	if (old) {
		hwt_thread_put(cthr);	/* no buffer yet: atomic-safe */
		return old;
	}
	/* The buffer is allocated before the child first runs user code. */
	hwt_thread_queue_work(cthr, HWT_WORK_ALLOC);
	return cthr;
}

/* fork / clone: called in the parent before the child first runs. */
void hwt_hook_on_fork(void *data, struct task_struct *parent, struct task_struct *child)
{
	struct hwt_thread *thrs[HWT_HOOK_MAX_CTX];
	struct hwt_dest d[HWT_DEST_MAX];
	struct hwt_context *ctx;
	bool thread = child->tgid == parent->tgid;
	int i, n, m = 0;

	if (!hwt_hook_wanted(parent) || (child->flags & PF_KTHREAD))
		return;
	rcu_read_lock();
	n = hwt_thread_find(parent, thrs, HWT_HOOK_MAX_CTX);
	for (i = 0; i < n; i++) {
		struct hwt_thread *cthr = NULL;
		bool quiet = hwt_thread_quiet(thrs[i]);

		ctx = thrs[i]->ctx;
		if (thread || (ctx->flags & HWT_ALLOC_CHILDREN)) {
			cthr = hwt_hook_follow(ctx, child, quiet);
			if (!cthr)
				hwt_dest_lost(&(struct hwt_dest){ ctx, thrs[i], false }, 1,
					      HWT_LOST_TRACE_WRITE, parent);
		}
		if (ctx->backend->ops->task_fork && test_bit(HWT_THR_READY, &thrs[i]->flags))
			ctx->backend->ops->task_fork(thrs[i], child, cthr);
		if (READ_ONCE(ctx->state) != HWT_CTX_RUNNING || quiet)
			continue;
		d[m].ctx = ctx;
		d[m].thr = thrs[i];
		d[m].follow = cthr != NULL;
		m++;
	}
	if (atomic_read(&hwt_nr_cpu_contexts)) {
		list_for_each_entry_rcu(ctx, &hwt_cpu_contexts, cpu_link) {
			if (ctx->backend->ops->cpu_fork)
				ctx->backend->ops->cpu_fork(ctx, child);
		}
	}
	m = hwt_dest_cpu(d, m);
	if (!m)
		goto out;

	if (thread) {
		struct hwt_record_thread rec;

		memset(&rec, 0, sizeof(rec));
		hwt_rec_hdr(&rec.hdr, HWT_RECORD_THREAD_CREATE, sizeof(rec), parent);
		rec.child_tid = task_pid_nr(child);
		hwt_dest_deliver(d, m, &rec.hdr, 0, false);
	} else {
		struct hwt_record_fork rec;
		struct hwt_record_header *prec;
		char *args;
		void *s;

		memset(&rec, 0, sizeof(rec));
		hwt_rec_hdr(&rec.hdr, HWT_RECORD_FORK, sizeof(rec), parent);
		rec.child_pid = task_tgid_nr(child);
		hwt_dest_deliver(d, m, &rec.hdr, 0, false);

		s = hwt_scratch_get();
		if (!s) {
			hwt_dest_lost(d, m, HWT_LOST_IMAGE, child);
			goto out;
		}
		/* The child's image is the parent's: same executable and arguments. */
		args = hwt_rec_process_begin(s, hwt_rec_exe_path(parent->mm,
						   hwt_scratch_path(s)));
		prec = hwt_rec_process_end(s, HWT_RECORD_PROCESS_START, child, args,
					    parent == current ? hwt_rec_current_args(args) : 0);
		hwt_dest_deliver(d, m, prec, 0, true);
		hwt_scratch_put();
	}
out:
	rcu_read_unlock();
}

/* A thread exits (do_exit, after exit_mm): the last hook it passes. */
void hwt_hook_on_exit(void *data, struct task_struct *p)
{
	struct hwt_context *ctxs[HWT_HOOK_MAX_CTX];
	struct hwt_thread *thrs[HWT_HOOK_MAX_CTX];
	struct hwt_dest d[HWT_DEST_MAX];
	int cpu = smp_processor_id();
	int i, n, m;

	if (!hwt_hook_wanted(p) || (p->flags & PF_KTHREAD))
		return;
	rcu_read_lock();
	/* Units off first: a collector that drains at THREAD_EXIT finds the trace complete. */
	n = hwt_thread_find(p, thrs, HWT_HOOK_MAX_CTX);
	for (i = 0; i < n; i++) {
		if (test_and_clear_bit(HWT_THR_ENABLED, &thrs[i]->flags))
			thrs[i]->ctx->backend->ops->thread_disable(thrs[i], cpu);
	}
	m = hwt_hook_cpu_contexts(ctxs);
	for (i = 0; i < m; i++)
		if (ctxs[i]->backend->ops->cpu_exit)
			ctxs[i]->backend->ops->cpu_exit(ctxs[i]);
	m = hwt_dest_find(p, d);
	if (m) {
		struct hwt_record_thread trec;
		struct hwt_record_exit erec;

		memset(&trec, 0, sizeof(trec));
		hwt_rec_hdr(&trec.hdr, HWT_RECORD_THREAD_EXIT, sizeof(trec), p);
		hwt_dest_deliver(d, m, &trec.hdr, 0, false);
		if (atomic_read(&p->signal->live) == 0) {
			memset(&erec, 0, sizeof(erec));
			hwt_rec_hdr(&erec.hdr, HWT_RECORD_PROCESS_EXIT, sizeof(erec), p);
			erec.status = (p->signal->flags & SIGNAL_GROUP_EXIT) ?
				      p->signal->group_exit_code : p->exit_code;
			hwt_dest_deliver(d, m, &erec.hdr, 0, false);
		}
	}
	for (i = 0; i < n; i++) {
		set_bit(HWT_THR_EXITED, &thrs[i]->flags);
		spin_lock(&hwt_thread_lock);
		hwt_thread_unhash(thrs[i]);
		spin_unlock(&hwt_thread_lock);
	}
	rcu_read_unlock();
}

/*
 * A signal is delivered to @current (get_signal: siglock held, interrupts
 * off), before its frame is set up or its default action taken: SIGNAL
 * with where the thread was, and the backend's thread_signal.
 */
void hwt_hook_on_signal(void *data, int sig, struct kernel_siginfo *info, struct k_sigaction *ka)
{
	struct hwt_context *ctxs[HWT_HOOK_MAX_CTX];
	struct hwt_thread *thrs[HWT_HOOK_MAX_CTX];
	struct task_struct *t = current;
	struct hwt_record_signal rec;
	int i, n;

	if (!hwt_hook_wanted(t) || (t->flags & PF_KTHREAD))
		return;
	rcu_read_lock();
	n = hwt_thread_find(t, thrs, HWT_HOOK_MAX_CTX);
	for (i = 0; i < n; i++) {
		struct hwt_thread *thr = thrs[i];
		const struct hwt_backend_ops *ops = thr->ctx->backend->ops;

		if (READ_ONCE(thr->ctx->state) != HWT_CTX_RUNNING || hwt_thread_quiet(thr))
			continue;
		memset(&rec, 0, sizeof(rec));
		hwt_rec_hdr(&rec.hdr, HWT_RECORD_SIGNAL, sizeof(rec), t);
		rec.signo = sig;
		rec.ip = instruction_pointer(task_pt_regs(t));
		hwt_context_record(thr->ctx, &rec.hdr);
		if (ops->thread_signal && test_bit(HWT_THR_READY, &thr->flags))
			ops->thread_signal(thr, sig);
	}
	n = hwt_hook_cpu_contexts(ctxs);
	for (i = 0; i < n; i++)
		if (ctxs[i]->backend->ops->cpu_signal)
			ctxs[i]->backend->ops->cpu_signal(ctxs[i], sig);
	rcu_read_unlock();
}

static void hwt_hook_switch_record(struct hwt_thread *thr, struct task_struct *t, int cpu, u32 in)
{
	struct hwt_record_switch rec;

	if (!(READ_ONCE(thr->ctx->cfg_flags) & HWT_CFG_SWITCH))
		return;
	memset(&rec, 0, sizeof(rec));
	hwt_rec_hdr(&rec.hdr, HWT_RECORD_SWITCH, sizeof(rec), t);
	rec.cpu = cpu;
	rec.in = in;
	if (thr->buf)
		rec.offset = READ_ONCE(thr->buf->offset);
	hwt_context_record(thr->ctx, &rec.hdr);
}

/*
 * Context switch, under the run-queue lock with interrupts off: every
 * scheduler path passes here. THREAD mode: the backend saves the unit of
 * @prev and loads that of @next. CPU mode: the backend sees the switch.
 */
void hwt_hook_on_switch(void *data, bool preempt, struct task_struct *prev,
			    struct task_struct *next, unsigned int prev_state)
{
	struct hwt_thread *thrs[HWT_HOOK_MAX_CTX];
	struct hwt_context *ctx;
	int cpu;
	int i, n;

	if (!hwt_hook_wanted(prev) && !hwt_thread_marked(next))
		return;
	cpu = smp_processor_id();
	rcu_read_lock();
	n = hwt_thread_find(prev, thrs, HWT_HOOK_MAX_CTX);
	for (i = 0; i < n; i++) {
		struct hwt_thread *thr = thrs[i];

		if (test_and_clear_bit(HWT_THR_ENABLED, &thr->flags)) {
			thr->ctx->backend->ops->thread_disable(thr, cpu);
			hwt_hook_switch_record(thr, prev, cpu, 0);
		}
	}
	n = hwt_thread_find(next, thrs, HWT_HOOK_MAX_CTX);
	for (i = 0; i < n; i++) {
		struct hwt_thread *thr = thrs[i];

		if (READ_ONCE(thr->ctx->state) != HWT_CTX_RUNNING ||
		    !test_bit(HWT_THR_READY, &thr->flags) || hwt_thread_quiet(thr))
			continue;
		smp_mb__after_atomic();
		set_bit(HWT_THR_ENABLED, &thr->flags);
		thr->ctx->backend->ops->thread_enable(thr, cpu);
		hwt_hook_switch_record(thr, next, cpu, 1);
	}
	if (atomic_read(&hwt_nr_cpu_contexts)) {
		list_for_each_entry_rcu(ctx, &hwt_cpu_contexts, cpu_link) {
			if (READ_ONCE(ctx->state) != HWT_CTX_RUNNING ||
			    !cpumask_test_cpu(cpu, ctx->cpus) || !ctx->backend->ops->cpu_switch)
				continue;
			ctx->backend->ops->cpu_switch(ctx, cpu, prev, next);
		}
	}
	rcu_read_unlock();
}

/*
 * mmap: perf_event_mmap(vma) is called by mmap_region() (and brk, and
 * mprotect making a mapping executable) with mmap_lock held and the final
 * vma in place: address, length, offset and file are what user space gets.
 */
static noinline void hwt_hook_mmap_traced(unsigned long ip, unsigned long parent_ip,
					   struct ftrace_regs *fregs)
{
	struct hwt_dest d[HWT_DEST_MAX];
	struct task_struct *t = current;
	struct hwt_record_header *rec;
	struct vm_area_struct *vma;
	void *s;
	int n, bit;

	/* Preemption off from here, and no re-entry from what the hook calls. */
	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0)
		return;
	vma = (void *)hwt_ftrace_arg(fregs, 0);
	if ((t->flags & PF_KTHREAD) || t->in_execve || !vma || vma->vm_mm != t->mm ||
	    !(vma->vm_flags & VM_EXEC) || !vma->vm_file)
		goto unlock;
	rcu_read_lock();
	n = hwt_dest_find(t, d);
	if (!n)
		goto out;
	s = hwt_scratch_get();
	rec = s ? hwt_rec_vma(s, t, vma) : NULL;
	if (rec)
		hwt_dest_deliver(d, n, rec, HWT_CFG_PAUSE_MMAP, false);
	else
		hwt_dest_lost(d, n, HWT_LOST_IMAGE, t);
	if (s)
		hwt_scratch_put();
out:
	rcu_read_unlock();
unlock:
	ftrace_test_recursion_unlock(bit);
}

/*
 * munmap: HWT_MUNMAP_SYMBOL(iterator, mm, start, len, uf, ...) is where
 * munmap() and mremap() (and in 6.1 MAP_FIXED replacement) remove
 * mappings; mmap_lock is held for writing. Only ranges that hold
 * executable mappings are recorded.
 */
static noinline void hwt_hook_munmap_traced(unsigned long ip, unsigned long parent_ip,
					     struct ftrace_regs *fregs)
{
	struct hwt_dest d[HWT_DEST_MAX];
	struct task_struct *t = current;
	struct hwt_record_munmap rec;
	struct vm_area_struct *vma;
	unsigned long start, len;
	struct mm_struct *mm;
	bool exec = false;
	int n, bit;

	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0)
		return;
	mm = (void *)hwt_ftrace_arg(fregs, 1);
	start = hwt_ftrace_arg(fregs, 2);
	len = PAGE_ALIGN(hwt_ftrace_arg(fregs, 3));
	if ((t->flags & PF_KTHREAD) || t->in_execve || mm != t->mm || !len ||
	    offset_in_page(start) || start + len < start)
		goto unlock;
	rcu_read_lock();
	n = hwt_dest_find(t, d);
	if (!n)
		goto out;
	{
		VMA_ITERATOR(vmi, mm, start);

		for_each_vma_range(vmi, vma, start + len) {
			if (vma->vm_flags & VM_EXEC) {
				exec = true;
				break;
			}
		}
	}
	if (!exec)
		goto out;
	memset(&rec, 0, sizeof(rec));
	hwt_rec_hdr(&rec.hdr, HWT_RECORD_MUNMAP, sizeof(rec), t);
	rec.addr = start;
	rec.len = len;
	hwt_dest_deliver(d, n, &rec.hdr, 0, false);
out:
	rcu_read_unlock();
unlock:
	ftrace_test_recursion_unlock(bit);
}

/*
 * The ftrace callbacks: the marker test alone, in a frame of their own.
 * The work's frame (its arrays zeroed by the kernel's stack
 * initialisation, its stack canary) is paid by traced tasks only; notrace:
 * no ftrace call site of their own.
 */
notrace void hwt_hook_on_mmap(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
			      struct ftrace_regs *fregs)
{
	if (unlikely(hwt_hook_wanted(current)))
		hwt_hook_mmap_traced(ip, parent_ip, fregs);
}

notrace void hwt_hook_on_munmap(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
				struct ftrace_regs *fregs)
{
	if (unlikely(hwt_hook_wanted(current)))
		hwt_hook_munmap_traced(ip, parent_ip, fregs);
}
