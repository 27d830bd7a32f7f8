// SPDX-License-Identifier: GPL-2.0
/*
 * Address ranges (HWT_SW_FILTER), as Intel PT's ADDRn filters: a thread
 * steps only inside its process's ranges; a branch out of them writes
 * TIP.PGD with its target and the thread runs on unstepped, its TF clear.
 * Re-entry is caught by uprobes at each range's start and after each call
 * in it (where a call out of the range returns): the probe's handler
 * notes the hit, and when uprobes has executed the probed instruction
 * (out of line, or emulated), a return probe on uprobe_notify_resume
 * records it and sets TF again. TF must be clear while uprobes steps out
 * of line (it sends SIGTRAP to a thread that was stepping), so the handler
 * clears it for a thread that steps already, too.
 *
 * The probes are per file (inode, offset); their filter installs them in
 * the processes of the context only.
 */
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/pid.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/uprobes.h>
#include <linux/version.h>
#include <asm/processor-flags.h>

#include "hwt_sw_int.h"
#include "x86_insn.h"

/* Bytes of a range read to find its calls, and probes per range. */
#define HWT_SW_FILTER_CODE_MAX	(64u << 10)
#define HWT_SW_FILTER_SITES_MAX	512u

struct hwt_sw_probe {
	struct uprobe_consumer	uc;
	struct hwt_sw_ctx	*sc;
	struct inode		*inode;		/* reference held */
	loff_t			offset;
	struct hwt_x86_insn	insn;		/* the instruction there (memory holds int3) */
	bool			keep;		/* still wanted by the new configuration */
	struct list_head	link;		/* hwt_sw_filter.probes */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	struct uprobe		*uprobe;
#endif
};

struct hwt_sw_filter {
	struct list_head	probes;		/* ctx->mtx (configure, deinit) */
};

/* ----- The thread's ranges ----- */

void hwt_sw_filter_refresh(struct hwt_sw_thread *ts)
{
	struct hwt_sw_cfg *cfg;
	u32 i, n = 0;

	rcu_read_lock();
	cfg = rcu_dereference(ts->sc->cfg);
	if (cfg->gen != ts->cfg_gen) {
		ts->cfg_gen = cfg->gen;
		ts->filtered = cfg->flags & HWT_SW_FILTER;
		for (i = 0; i < cfg->nranges && n < HWT_SW_RANGES_MAX; i++) {
			if (cfg->ranges[i].pid == task_tgid_nr(ts->task) || cfg->ranges[i].pid == 0)
				ts->ranges[n++] = cfg->ranges[i];
		}
		ts->nranges = n;
	}
	rcu_read_unlock();
}

bool hwt_sw_filter_in(const struct hwt_sw_thread *ts, u64 ip)
{
	u32 i;

	if (!ts->filtered)
		return true;
	for (i = 0; i < ts->nranges; i++) {
		if (ip >= ts->ranges[i].start && ip < ts->ranges[i].end)
			return true;
	}
	return false;
}

/* ----- Catching re-entry ----- */

/* A probe was hit (task context, before uprobes runs the instruction there). */
static int hwt_sw_probe_hit(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	struct hwt_sw_probe *p = container_of(uc, struct hwt_sw_probe, uc);
	struct hwt_sw_thread *ts = NULL;
	struct hwt_thread *thr;

	rcu_read_lock();
	thr = hwt_thread_of(current, &hwt_sw_backend);
	if (thr)
		ts = hwt_thread_backend_priv(thr);
	if (!ts || ts->sc != p->sc || !hwt_thread_tracing(thr))
		goto out;
	hwt_sw_filter_refresh(ts);
	if (!hwt_sw_filter_in(ts, regs->ip))
		goto out;
	if (!ts->tf || ts->outside) {
		/* Re-entry: tracing resumes here. */
		ts->next_ip = regs->ip;
		ts->resume = true;
		ts->outside = false;
	}
	ts->tf = false;
	regs->flags &= ~X86_EFLAGS_TF;
	ts->xol = true;
	ts->next_insn = p->insn;
	ts->next_known = true;
out:
	rcu_read_unlock();
	return 0;
}

/* The probed instruction ran (emulated or out of line): it is recorded, TF set again. */
static int hwt_sw_probe_done(struct kretprobe_instance *ri, struct pt_regs *kregs)
{
	struct pt_regs *regs = task_pt_regs(current);
	struct hwt_sw_thread *ts = NULL;
	struct hwt_thread *thr;

	if (current->utask && current->utask->active_uprobe)
		return 0;	/* the out-of-line step is still to come */
	rcu_read_lock();
	thr = hwt_thread_of(current, &hwt_sw_backend);
	if (thr)
		ts = hwt_thread_backend_priv(thr);
	if (ts && ts->xol) {
		ts->xol = false;
		if (hwt_thread_tracing(thr)) {
			ts->tf = true;
			hwt_sw_step(ts, regs);
			if (ts->tf)
				regs->flags |= X86_EFLAGS_TF;
		}
	}
	rcu_read_unlock();
	return 0;
}

static struct kretprobe hwt_sw_probe_resume = {
	.kp.symbol_name	= "uprobe_notify_resume",
	.handler	= hwt_sw_probe_done,
	.maxactive	= 64,
};
static bool hwt_sw_probe_resume_on;

/* Only the context's processes get its breakpoints. */
static bool hwt_sw_probe_mm(struct hwt_sw_ctx *sc, struct mm_struct *mm)
{
	struct hwt_sw_thread *ts;
	bool found = false;

	spin_lock(&sc->lock);
	list_for_each_entry(ts, &sc->threads, ctx_link) {
		if (READ_ONCE(ts->task->mm) == mm) {
			found = true;
			break;
		}
	}
	spin_unlock(&sc->lock);
	return found;
}

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
static bool hwt_sw_probe_filter(struct uprobe_consumer *uc, struct mm_struct *mm)
#else
static bool hwt_sw_probe_filter(struct uprobe_consumer *uc, enum uprobe_filter_ctx ctx,
				struct mm_struct *mm)
#endif
{
	return hwt_sw_probe_mm(container_of(uc, struct hwt_sw_probe, uc)->sc, mm);
}

static int hwt_sw_probe_register(struct hwt_sw_probe *p)
{
	p->uc.handler = hwt_sw_probe_hit;
	p->uc.filter = hwt_sw_probe_filter;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	p->uprobe = uprobe_register(p->inode, p->offset, 0, &p->uc);
	return IS_ERR(p->uprobe) ? PTR_ERR(p->uprobe) : 0;
#else
	return uprobe_register(p->inode, p->offset, &p->uc);
#endif
}

static void hwt_sw_probe_free(struct hwt_sw_probe *p)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	uprobe_unregister_nosync(p->uprobe, &p->uc);
	uprobe_unregister_sync();
#else
	uprobe_unregister(p->inode, p->offset, &p->uc);
#endif
	list_del(&p->link);
	iput(p->inode);
	kfree(p);
}

/* Wants a probe at (inode, offset), of @insn: an existing one is kept, else one is made. */
static int hwt_sw_probe_want(struct hwt_sw_ctx *sc, struct inode *inode, loff_t offset,
			     const struct hwt_x86_insn *insn)
{
	struct hwt_sw_probe *p;
	int ret;

	list_for_each_entry(p, &sc->filter->probes, link) {
		if (p->inode == inode && p->offset == offset) {
			p->keep = true;
			return 0;
		}
	}
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	p->sc = sc;
	p->inode = igrab(inode);
	p->offset = offset;
	p->insn = *insn;
	p->keep = true;
	if (!p->inode) {
		kfree(p);
		return -ENOENT;
	}
	ret = hwt_sw_probe_register(p);
	if (ret) {
		iput(p->inode);
		kfree(p);
		return ret;
	}
	list_add_tail(&p->link, &sc->filter->probes);
	return 0;
}

/*
 * The probes of range @r: its start, and the instruction after each call
 * in it, found by decoding its code from the file (memory may hold the
 * int3 of a probe already).
 */
static int hwt_sw_filter_range(struct hwt_sw_ctx *sc, const struct hwt_sw_range *r)
{
	struct hwt_x86_insn insn;
	struct task_struct *task;
	struct vm_area_struct *vma;
	struct file *file = NULL;
	struct mm_struct *mm;
	u64 base = 0, len, at;
	loff_t pos;
	u32 sites = 0;
	u8 *code;
	int ret = 0;
	ssize_t got;

	rcu_read_lock();
	task = get_pid_task(find_vpid(r->pid), PIDTYPE_TGID);
	rcu_read_unlock();
	if (!task)
		return 0;	/* it is gone: nothing to catch */
	mm = get_task_mm(task);
	put_task_struct(task);
	if (!mm)
		return 0;
	mmap_read_lock(mm);
	vma = find_vma(mm, r->start);
	if (vma && vma->vm_start <= r->start && r->end <= vma->vm_end && vma->vm_file &&
	    (vma->vm_flags & VM_EXEC)) {
		file = get_file(vma->vm_file);
		base = ((u64)vma->vm_pgoff << PAGE_SHIFT) - vma->vm_start;
	}
	mmap_read_unlock(mm);
	mmput(mm);
	if (!file)
		return -EINVAL;	/* not one file-backed executable mapping */
	len = min_t(u64, r->end - r->start, HWT_SW_FILTER_CODE_MAX);
	code = kvmalloc(len, GFP_KERNEL);
	pos = base + r->start;
	got = code ? kernel_read(file, code, len, &pos) : -ENOMEM;
	if (got <= 0) {
		ret = got ? got : -EINVAL;
		goto out;
	}
	for (at = 0; !ret && at < (u64)got && sites < HWT_SW_FILTER_SITES_MAX;) {
		bool call;

		if (hwt_x86_insn_decode(code + at, got - at, &insn) < 0) {
			at++;	/* not code (padding, data): step over a byte */
			continue;
		}
		if (at == 0)
			ret = hwt_sw_probe_want(sc, file_inode(file), base + r->start, &insn);
		call = insn.branch == HWT_X86_CALL || insn.branch == HWT_X86_CALL_INDIRECT;
		at += insn.length;
		if (!ret && call && at < (u64)got &&
		    hwt_x86_insn_decode(code + at, got - at, &insn) >= 0) {
			ret = hwt_sw_probe_want(sc, file_inode(file), base + r->start + at, &insn);
			sites++;
		}
	}
out:
	kvfree(code);
	fput(file);
	return ret;
}

int hwt_sw_filter_prepare(struct hwt_sw_ctx *sc, const struct hwt_sw_cfg *cfg)
{
	struct hwt_sw_probe *p;
	u32 i;
	int ret = 0;

	if (!(cfg->flags & HWT_SW_FILTER))
		return 0;
	if (!hwt_sw_probe_resume_on)
		return -EOPNOTSUPP;	/* no return probe on uprobe_notify_resume */
	if (!sc->filter) {
		sc->filter = kzalloc(sizeof(*sc->filter), GFP_KERNEL);
		if (!sc->filter)
			return -ENOMEM;
		INIT_LIST_HEAD(&sc->filter->probes);
	}
	list_for_each_entry(p, &sc->filter->probes, link)
		p->keep = false;
	for (i = 0; i < cfg->nranges && !ret; i++)
		ret = hwt_sw_filter_range(sc, &cfg->ranges[i]);
	return ret;
}

void hwt_sw_filter_prune(struct hwt_sw_ctx *sc, const struct hwt_sw_cfg *cfg)
{
	struct hwt_sw_probe *p, *tmp;

	if (!sc->filter)
		return;
	list_for_each_entry_safe(p, tmp, &sc->filter->probes, link) {
		if (!p->keep || !(cfg->flags & HWT_SW_FILTER))
			hwt_sw_probe_free(p);
	}
}

void hwt_sw_filter_free(struct hwt_sw_ctx *sc)
{
	struct hwt_sw_probe *p, *tmp;

	if (!sc->filter)
		return;
	list_for_each_entry_safe(p, tmp, &sc->filter->probes, link)
		hwt_sw_probe_free(p);
	kfree(sc->filter);
	sc->filter = NULL;
}

int hwt_sw_filter_init(void)
{
	/* Without it there is no IP filtering; tracing everything still works. */
	hwt_sw_probe_resume_on = register_kretprobe(&hwt_sw_probe_resume) == 0;
	if (!hwt_sw_probe_resume_on)
		pr_warn("hwt_sw: no return probe on uprobe_notify_resume: no address filters\n");
	return 0;
}

void hwt_sw_filter_exit(void)
{
	if (hwt_sw_probe_resume_on)
		unregister_kretprobe(&hwt_sw_probe_resume);
}
