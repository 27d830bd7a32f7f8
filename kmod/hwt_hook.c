// SPDX-License-Identifier: GPL-2.0
/* Hooks: see hwt_hook.h. */
#include <linux/binfmts.h>
#include <linux/dcache.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/percpu.h>
#include <linux/rculist.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <asm/msr.h>

#include "hwt_ioctl.h"
#include "hwt_buildid.h"
#include "hwt_context.h"
#include "hwt_hook.h"
#include "hwt_perm.h"
#include "hwt_record.h"
#include "hwt_select.h"
#include "hwt_thread.h"

/*
 * Records that carry a path are built in a per-CPU scratch area: hooks run
 * with preemption off and must not allocate. Layout: the record, then at
 * HWT_SCRATCH_PATH a PATH_MAX area for d_path().
 */
#define HWT_SCRATCH_SIZE	(16u << 10)
#define HWT_SCRATCH_PATH	(12u << 10)
#define HWT_ARGS_MAX		4096u
#define HWT_HOOK_MAX_DEST	(2 * HWT_HOOK_MAX_CTX)

static DEFINE_PER_CPU(void *, hwt_scratch);
static DEFINE_PER_CPU(int, hwt_scratch_busy);

/* A context that gets a hook's records, and its thread of the task if any. */
struct hwt_dest {
	struct hwt_context	*ctx;
	struct hwt_thread	*thr;		/* THREAD mode, else NULL */
	bool			follow;		/* fork: the context traces the child */
};

/* Preemption off. NULL if a hook on this CPU already uses the area. */
static void *hwt_scratch_get(void)
{
	if (this_cpu_inc_return(hwt_scratch_busy) != 1) {
		this_cpu_dec(hwt_scratch_busy);
		return NULL;
	}
	return this_cpu_read(hwt_scratch);
}

static void hwt_scratch_put(void)
{
	this_cpu_dec(hwt_scratch_busy);
}

/* Record time is the TSC, the clock of Intel PT's TSC packets. */
static void hwt_hook_hdr(struct hwt_record_header *h, u16 type, u32 size,
			 struct task_struct *t)
{
	h->magic = HWT_RECORD_MAGIC;
	h->type = type;
	h->flags = 0;
	h->size = size;
	h->crc32 = 0;
	h->time = rdtsc();
	h->pid = task_tgid_nr(t);
	h->tid = task_pid_nr(t);
}

/* Appends every running CPU-mode context to the @m destinations in @d. RCU held. */
static int hwt_hook_cpu_dests(struct hwt_dest *d, int m)
{
	struct hwt_context *ctx;

	if (!atomic_read(&hwt_nr_cpu_contexts))
		return m;
	list_for_each_entry_rcu(ctx, &hwt_cpu_contexts, cpu_link) {
		if (m == HWT_HOOK_MAX_DEST)
			break;
		if (READ_ONCE(ctx->state) != HWT_CTX_RUNNING)
			continue;
		d[m].ctx = ctx;
		d[m].thr = NULL;
		d[m].follow = true;
		m++;
	}
	return m;
}

/*
 * Running contexts that want records about @task: those that trace it
 * (THREAD mode), then every CPU-mode context. RCU held.
 */
static int hwt_hook_dests(struct task_struct *task, struct hwt_dest *d)
{
	struct hwt_thread *thrs[HWT_HOOK_MAX_CTX];
	int i, n, m = 0;

	n = hwt_thread_find(task, thrs, HWT_HOOK_MAX_CTX);
	for (i = 0; i < n; i++) {
		if (READ_ONCE(thrs[i]->ctx->state) != HWT_CTX_RUNNING || hwt_thread_quiet(thrs[i]))
			continue;
		d[m].ctx = thrs[i]->ctx;
		d[m].thr = thrs[i];
		d[m].follow = false;
		m++;
	}
	return hwt_hook_cpu_dests(d, m);
}

/*
 * Queues @rec in every destination. Where @pause_cfg is set in a THREAD-mode
 * context's configuration, the record says so and the thread pauses on its
 * way back to user mode.
 */
static void hwt_hook_deliver(struct hwt_dest *d, int n, struct hwt_record_header *rec,
			     u32 pause_cfg, bool only_follow)
{
	u16 flags = rec->flags;
	int i;

	for (i = 0; i < n; i++) {
		struct hwt_thread *thr = d[i].thr;
		bool pause = pause_cfg && thr &&
			     (READ_ONCE(d[i].ctx->cfg_flags) & pause_cfg);

		if (only_follow && !d[i].follow)
			continue;
		rec->flags = flags;
		if (pause) {
			atomic64_inc(&thr->pause_seq);
			rec->flags |= HWT_RECORD_PAUSED;
		}
		hwt_context_record(d[i].ctx, rec);
		if (pause)
			hwt_thread_queue_work(thr, HWT_WORK_PAUSE);
	}
	rec->flags = flags;
}

static void hwt_hook_lost(struct hwt_dest *d, int n, u32 reason, struct task_struct *t)
{
	struct hwt_record_lost rec;

	memset(&rec, 0, sizeof(rec));
	hwt_hook_hdr(&rec.hdr, HWT_RECORD_LOST, sizeof(rec), t);
	rec.reason = reason;
	rec.records = 1;
	hwt_hook_deliver(d, n, &rec.hdr, 0, false);
}

/* Path of @mm's executable into @buf, or "" (atomic-safe). */
static const char *hwt_hook_exe_path(struct mm_struct *mm, char *buf)
{
	const char *p = "";
	struct file *f;

	if (!mm)
		return p;
	rcu_read_lock();
	f = rcu_dereference(mm->exe_file);
	if (f && !get_file_rcu(f))
		f = NULL;
	rcu_read_unlock();
	if (f) {
		p = d_path(&f->f_path, buf, PATH_MAX);
		if (IS_ERR(p))
			p = "";
		fput(f);
	}
	return p;
}

/* PROCESS_START / EXEC: lays out @path in @s; returns where the arguments go. */
static char *hwt_hook_process_begin(void *s, const char *path)
{
	struct hwt_record_process *rec = s;
	char *p = (char *)(rec + 1);
	size_t len = strnlen(path, PATH_MAX - 1);

	memmove(p, path, len);
	p[len] = '\0';
	return p + len + 1;
}

/* Completes the record in @s whose @an argument bytes are at @args. */
static struct hwt_record_header *hwt_hook_process_end(void *s, u16 type, struct task_struct *t,
						      char *args, size_t an)
{
	struct hwt_record_process *rec = s;
	struct task_struct *parent;
	u32 size, asize, argc = 0;
	size_t i;

	while (an && args[an - 1] != '\0')	/* drop a truncated argument */
		an--;
	for (i = 0; i < an; i++)
		argc += args[i] == '\0';
	size = (args + an) - (char *)s;
	asize = hwt_record_align(size);
	memset((char *)s + size, 0, asize - size);
	hwt_hook_hdr(&rec->hdr, type, asize, t);
	rcu_read_lock();
	parent = rcu_dereference(t->real_parent);
	rec->ppid = parent ? task_tgid_nr(parent) : 0;
	rcu_read_unlock();
	rec->argc = argc;
	rec->generation = 0;
	rec->reserved = 0;
	return &rec->hdr;
}

/* Arguments of the current task, without faulting (hooks run atomic). */
static size_t hwt_hook_current_args(char *dst)
{
	struct mm_struct *mm = current->mm;
	unsigned long start, end;
	size_t n;

	if (!mm)
		return 0;
	start = READ_ONCE(mm->arg_start);
	end = READ_ONCE(mm->arg_end);
	if (end <= start)
		return 0;
	n = min_t(size_t, end - start, HWT_ARGS_MAX);
	if (copy_from_user_nofault(dst, (const void __user *)start, n))
		return 0;
	return n;
}

static bool hwt_hook_is_vdso(struct vm_area_struct *vma)
{
#ifdef CONFIG_X86
	return vma->vm_mm && (unsigned long)vma->vm_mm->context.vdso == vma->vm_start;
#else
	return false;
#endif
}

/* What an MMAP record tells of a mapping, taken while mmap_lock is held. */
struct hwt_map {
	struct file	*file;		/* NULL: the vDSO */
	unsigned long	start;
	unsigned long	end;
	u64		pgoff;		/* bytes */
	unsigned long	vm_flags;
};

static void hwt_hook_map_of(struct vm_area_struct *vma, struct hwt_map *m)
{
	m->file = hwt_hook_is_vdso(vma) ? NULL : vma->vm_file;
	m->start = vma->vm_start;
	m->end = vma->vm_end;
	m->pgoff = (u64)vma->vm_pgoff << PAGE_SHIFT;
	m->vm_flags = vma->vm_flags;
}

/*
 * MMAP record of @m in @s, or NULL when its path cannot be had. The
 * build-id is read as @how says (hwt_buildid.h); none for the vDSO.
 */
static struct hwt_record_header *hwt_hook_build_mmap(void *s, struct task_struct *t,
						     const struct hwt_map *m, enum hwt_bid_how how)
{
	struct hwt_record_mmap *rec = s;
	const char *path;
	u16 flags = 0;
	u32 size, asize;
	size_t len;
	int bid;

	if (!m->file) {
		path = "[vdso]";
		flags = HWT_MMAP_VDSO;
	} else {
		path = d_path(&m->file->f_path, (char *)s + HWT_SCRATCH_PATH, PATH_MAX);
		if (IS_ERR(path))
			return NULL;
	}
	len = strlen(path);
	memmove(rec + 1, path, len + 1);
	size = sizeof(*rec) + len + 1;
	asize = hwt_record_align(size);
	memset((char *)s + size, 0, asize - size);
	memset(rec, 0, sizeof(*rec));
	hwt_hook_hdr(&rec->hdr, HWT_RECORD_MMAP, asize, t);
	rec->hdr.flags = flags;
	rec->addr = m->start;
	rec->len = m->end - m->start;
	rec->pgoff = m->pgoff;
	rec->prot = ((m->vm_flags & VM_READ) ? HWT_PROT_READ : 0) |
		    ((m->vm_flags & VM_WRITE) ? HWT_PROT_WRITE : 0) |
		    ((m->vm_flags & VM_EXEC) ? HWT_PROT_EXEC : 0);
	bid = m->file ? hwt_buildid_get(m->file, how, rec->build_id) : 0;
	if (bid > 0) {
		rec->build_id_size = bid;
	} else {
		rec->build_id_size = 0;
		memset(rec->build_id, 0, sizeof(rec->build_id));
	}
	return &rec->hdr;
}

/* In a hook: atomic, mmap_lock held; the build-id only from the page cache. */
static struct hwt_record_header *hwt_hook_build_vma(void *s, struct task_struct *t,
						    struct vm_area_struct *vma)
{
	struct hwt_map m;

	hwt_hook_map_of(vma, &m);
	return hwt_hook_build_mmap(s, t, &m, HWT_BID_CACHED);
}

static bool hwt_hook_vma_wanted(struct vm_area_struct *vma)
{
	return (vma->vm_flags & VM_EXEC) && (vma->vm_file || hwt_hook_is_vdso(vma));
}

/* MMAP records of every executable mapping of @mm (mmap_lock held). */
static void hwt_hook_image(struct hwt_dest *d, int n, struct task_struct *t,
			   struct mm_struct *mm, void *s)
{
	struct vm_area_struct *vma;
	struct hwt_record_header *rec;
	VMA_ITERATOR(vmi, mm, 0);

	for_each_vma(vmi, vma) {
		if (!hwt_hook_vma_wanted(vma))
			continue;
		rec = hwt_hook_build_vma(s, t, vma);
		if (rec)
			hwt_hook_deliver(d, n, rec, 0, false);
		else
			hwt_hook_lost(d, n, HWT_LOST_IMAGE, t);
	}
}

/*
 * UNTRACED record of @p in @s (at least HWT_SCRATCH_SIZE bytes): the new
 * image's path and @why.
 */
static struct hwt_record_header *hwt_hook_build_untraced(void *s, struct task_struct *p,
							 const char *path, const char *why)
{
	struct hwt_record_untraced *rec = s;
	struct task_struct *parent;
	char *q = (char *)(rec + 1);
	size_t plen = strnlen(path, PATH_MAX - 1), wlen = strlen(why);
	u32 size, asize;

	memmove(q, path, plen);		/* path may lie in the scratch area */
	q[plen] = '\0';
	memcpy(q + plen + 1, why, wlen + 1);
	size = sizeof(*rec) + plen + 1 + wlen + 1;
	asize = hwt_record_align(size);
	memset((char *)s + size, 0, asize - size);
	hwt_hook_hdr(&rec->hdr, HWT_RECORD_UNTRACED, asize, p);
	rcu_read_lock();
	parent = rcu_dereference(p->real_parent);
	rec->ppid = parent ? task_tgid_nr(parent) : 0;
	rcu_read_unlock();
	rec->reserved = 0;
	return &rec->hdr;
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
		if (!why)
			continue;
		set_bit(HWT_THR_UNTRACED, &thr->flags);
		WRITE_ONCE(thr->tid, task_pid_nr(p));	/* BUFPTR finds it by its tid */
		if (test_and_clear_bit(HWT_THR_ENABLED, &thr->flags))
			ctx->backend->ops->thread_disable(thr, cpu);
		spin_lock(&hwt_thread_lock);
		hwt_thread_unhash(thr);
		spin_unlock(&hwt_thread_lock);
		if (s) {
			path = d_path(&bprm->file->f_path, (char *)s + HWT_SCRATCH_PATH, PATH_MAX);
			if (IS_ERR(path))
				path = bprm->filename;
			rec = hwt_hook_build_untraced(s, p, path, why);
		} else {
			/* The scratch area is in use (a nested hook): no path. */
			rec = hwt_hook_build_untraced(small, p, "", "untraceable");
		}
		hwt_context_record(ctx, rec);
	}
}

/*
 * exec, for contexts that select (HWT_CFG_SELECT) and for threads a
 * selection left untraced: the new image is judged by the thread's task
 * work (hwt_hook_select_work) before it runs, since the judgement reads
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
		     !test_bit(HWT_THR_UNSELECTED, &thr->flags)))
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
static void hwt_hook_on_exec(void *data, struct task_struct *p, pid_t old_pid,
			  struct linux_binprm *bprm)
{
	struct hwt_dest d[HWT_HOOK_MAX_DEST];
	struct hwt_record_header *rec;
	struct mm_struct *mm = p->mm;
	const char *path;
	char *args;
	void *s;
	int i, n;

	if (p->flags & PF_KTHREAD)
		return;
	rcu_read_lock();
	s = hwt_scratch_get();
	hwt_hook_exec_untrace(p, bprm, s);
	hwt_hook_exec_select(p, bprm);
	n = hwt_hook_dests(p, d);
	if (!n)
		goto out_put;
	for (i = 0; i < n; i++) {
		if (d[i].thr)
			WRITE_ONCE(d[i].thr->tid, task_pid_nr(p));
	}
	if (!s) {
		hwt_hook_lost(d, n, HWT_LOST_IMAGE, p);
		goto out;
	}
	path = d_path(&bprm->file->f_path, (char *)s + HWT_SCRATCH_PATH, PATH_MAX);
	if (IS_ERR(path))
		path = bprm->filename;
	args = hwt_hook_process_begin(s, path);
	rec = hwt_hook_process_end(s, HWT_RECORD_EXEC, p, args, hwt_hook_current_args(args));
	hwt_hook_deliver(d, n, rec, HWT_CFG_PAUSE_EXEC, false);
	if (mm && mmap_read_trylock(mm)) {
		hwt_hook_image(d, n, p, mm, s);
		mmap_read_unlock(mm);
	} else {
		hwt_hook_lost(d, n, HWT_LOST_IMAGE, p);
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
static void hwt_hook_on_fork(void *data, struct task_struct *parent, struct task_struct *child)
{
	struct hwt_thread *thrs[HWT_HOOK_MAX_CTX];
	struct hwt_dest d[HWT_HOOK_MAX_DEST];
	struct hwt_context *ctx;
	bool thread = child->tgid == parent->tgid;
	int i, n, m = 0;

	if (child->flags & PF_KTHREAD)
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
				hwt_hook_lost(&(struct hwt_dest){ ctx, thrs[i], false }, 1,
					      HWT_LOST_TRACE_WRITE, parent);
		}
		if (READ_ONCE(ctx->state) != HWT_CTX_RUNNING || quiet)
			continue;
		d[m].ctx = ctx;
		d[m].thr = thrs[i];
		d[m].follow = cthr != NULL;
		m++;
	}
	m = hwt_hook_cpu_dests(d, m);
	if (!m)
		goto out;

	if (thread) {
		struct hwt_record_thread rec;

		memset(&rec, 0, sizeof(rec));
		hwt_hook_hdr(&rec.hdr, HWT_RECORD_THREAD_CREATE, sizeof(rec), parent);
		rec.child_tid = task_pid_nr(child);
		hwt_hook_deliver(d, m, &rec.hdr, 0, false);
	} else {
		struct hwt_record_fork rec;
		struct hwt_record_header *prec;
		char *args;
		void *s;

		memset(&rec, 0, sizeof(rec));
		hwt_hook_hdr(&rec.hdr, HWT_RECORD_FORK, sizeof(rec), parent);
		rec.child_pid = task_tgid_nr(child);
		hwt_hook_deliver(d, m, &rec.hdr, 0, false);

		s = hwt_scratch_get();
		if (!s) {
			hwt_hook_lost(d, m, HWT_LOST_IMAGE, child);
			goto out;
		}
		/* The child's image is the parent's: same executable and arguments. */
		args = hwt_hook_process_begin(s, hwt_hook_exe_path(parent->mm,
						   (char *)s + HWT_SCRATCH_PATH));
		prec = hwt_hook_process_end(s, HWT_RECORD_PROCESS_START, child, args,
					    parent == current ? hwt_hook_current_args(args) : 0);
		hwt_hook_deliver(d, m, prec, 0, true);
		hwt_scratch_put();
	}
out:
	rcu_read_unlock();
}

/* A thread exits (do_exit, after exit_mm): the last hook it passes. */
static void hwt_hook_on_exit(void *data, struct task_struct *p)
{
	struct hwt_thread *thrs[HWT_HOOK_MAX_CTX];
	struct hwt_dest d[HWT_HOOK_MAX_DEST];
	int cpu = smp_processor_id();
	int i, n, m;

	if (p->flags & PF_KTHREAD)
		return;
	rcu_read_lock();
	m = hwt_hook_dests(p, d);
	if (m) {
		struct hwt_record_thread trec;
		struct hwt_record_exit erec;

		memset(&trec, 0, sizeof(trec));
		hwt_hook_hdr(&trec.hdr, HWT_RECORD_THREAD_EXIT, sizeof(trec), p);
		hwt_hook_deliver(d, m, &trec.hdr, 0, false);
		if (atomic_read(&p->signal->live) == 0) {
			memset(&erec, 0, sizeof(erec));
			hwt_hook_hdr(&erec.hdr, HWT_RECORD_PROCESS_EXIT, sizeof(erec), p);
			erec.status = (p->signal->flags & SIGNAL_GROUP_EXIT) ?
				      p->signal->group_exit_code : p->exit_code;
			hwt_hook_deliver(d, m, &erec.hdr, 0, false);
		}
	}

	n = hwt_thread_find(p, thrs, HWT_HOOK_MAX_CTX);
	for (i = 0; i < n; i++) {
		struct hwt_thread *thr = thrs[i];

		if (test_and_clear_bit(HWT_THR_ENABLED, &thr->flags))
			thr->ctx->backend->ops->thread_disable(thr, cpu);
		set_bit(HWT_THR_EXITED, &thr->flags);
		spin_lock(&hwt_thread_lock);
		hwt_thread_unhash(thr);
		spin_unlock(&hwt_thread_lock);
	}
	rcu_read_unlock();
}

static void hwt_hook_switch_record(struct hwt_thread *thr, struct task_struct *t, int cpu, u32 in)
{
	struct hwt_record_switch rec;

	if (!(READ_ONCE(thr->ctx->cfg_flags) & HWT_CFG_SWITCH))
		return;
	memset(&rec, 0, sizeof(rec));
	hwt_hook_hdr(&rec.hdr, HWT_RECORD_SWITCH, sizeof(rec), t);
	rec.cpu = cpu;
	rec.in = in;
	hwt_context_record(thr->ctx, &rec.hdr);
}

/*
 * Context switch, under the run-queue lock with interrupts off: every
 * scheduler path passes here. THREAD mode: the backend saves the unit of
 * @prev and loads that of @next. CPU mode: the backend sees the switch.
 */
static void hwt_hook_on_switch(void *data, bool preempt, struct task_struct *prev,
			    struct task_struct *next, unsigned int prev_state)
{
	struct hwt_thread *thrs[HWT_HOOK_MAX_CTX];
	struct hwt_context *ctx;
	int cpu = smp_processor_id();
	int i, n;

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
			ctx->backend->ops->cpu_switch(ctx, cpu, next);
		}
	}
	rcu_read_unlock();
}

/*
 * mmap: perf_event_mmap(vma) is called by mmap_region() (and brk, and
 * mprotect making a mapping executable) with mmap_lock held and the final
 * vma in place: address, length, offset and file are what user space gets.
 */
static int hwt_hook_on_mmap(struct kprobe *kp, struct pt_regs *regs)
{
	struct vm_area_struct *vma = (void *)regs_get_kernel_argument(regs, 0);
	struct hwt_dest d[HWT_HOOK_MAX_DEST];
	struct task_struct *t = current;
	struct hwt_record_header *rec;
	void *s;
	int n;

	if ((t->flags & PF_KTHREAD) || t->in_execve || !vma || vma->vm_mm != t->mm ||
	    !(vma->vm_flags & VM_EXEC) || !vma->vm_file)
		return 0;
	rcu_read_lock();
	n = hwt_hook_dests(t, d);
	if (!n)
		goto out;
	s = hwt_scratch_get();
	rec = s ? hwt_hook_build_vma(s, t, vma) : NULL;
	if (rec)
		hwt_hook_deliver(d, n, rec, HWT_CFG_PAUSE_MMAP, false);
	else
		hwt_hook_lost(d, n, HWT_LOST_IMAGE, t);
	if (s)
		hwt_scratch_put();
out:
	rcu_read_unlock();
	return 0;
}

/*
 * munmap: do_mas_munmap(mas, mm, start, len, uf, downgrade) is where
 * munmap(), MAP_FIXED replacement and mremap() remove mappings in 6.1;
 * mmap_lock is held for writing. Only ranges that hold executable mappings
 * are recorded.
 */
static int hwt_hook_on_munmap(struct kprobe *kp, struct pt_regs *regs)
{
	struct mm_struct *mm = (void *)regs_get_kernel_argument(regs, 1);
	unsigned long start = regs_get_kernel_argument(regs, 2);
	unsigned long len = PAGE_ALIGN(regs_get_kernel_argument(regs, 3));
	struct hwt_dest d[HWT_HOOK_MAX_DEST];
	struct task_struct *t = current;
	struct hwt_record_munmap rec;
	struct vm_area_struct *vma;
	bool exec = false;
	int n;

	if ((t->flags & PF_KTHREAD) || t->in_execve || mm != t->mm || !len ||
	    offset_in_page(start) || start + len < start)
		return 0;
	rcu_read_lock();
	n = hwt_hook_dests(t, d);
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
	hwt_hook_hdr(&rec.hdr, HWT_RECORD_MUNMAP, sizeof(rec), t);
	rec.addr = start;
	rec.len = len;
	hwt_hook_deliver(d, n, &rec.hdr, 0, false);
out:
	rcu_read_unlock();
	return 0;
}

/*
 * The SELECT task work of @thr (hwt_pause.c), on the thread's way back to
 * user mode after an exec, before the new image's first instruction; no
 * lock held, may sleep. Judges the exec'd file. Selected: the buffer is
 * made if missing, the context gets EXEC (paused on request) and the MMAPs
 * of the image, and the thread is traced again; true is returned (the
 * caller turns the unit on). Not selected: UNSELECTED, one UNTRACED record
 * (path, reason), no pause.
 */
bool hwt_hook_select_work(struct hwt_thread *thr)
{
	struct hwt_context *ctx = thr->ctx;
	struct file *f = xchg(&thr->sel_file, NULL);
	struct hwt_dest d = { ctx, thr, false };
	struct task_struct *p = current;
	struct hwt_record_header *rec;
	struct mm_struct *mm = p->mm;
	enum hwt_rule_verdict v;
	const char *path, *why;
	bool traced = false;
	char *args;
	void *s;

	if (!f)
		return false;
	s = kmalloc(HWT_SCRATCH_SIZE, GFP_KERNEL);
	if (!s) {
		set_bit(HWT_THR_UNSELECTED, &thr->flags);
		hwt_hook_lost(&d, 1, HWT_LOST_IMAGE, p);
		goto out;
	}
	v = hwt_select_judge(ctx, f, (char *)s + HWT_SCRATCH_PATH, &path, &why);
	if (v == HWT_RULE_TRACE && hwt_thread_buffer_ensure(thr)) {
		v = HWT_RULE_NATIVE;
		why = "no memory for the trace buffer";
	}
	if (v != HWT_RULE_TRACE) {
		set_bit(HWT_THR_UNSELECTED, &thr->flags);
		rec = hwt_hook_build_untraced(s, p, path, why ? why : "not selected");
		hwt_context_record(ctx, rec);
		goto out_free;
	}
	clear_bit(HWT_THR_UNSELECTED, &thr->flags);
	traced = true;
	if (READ_ONCE(ctx->state) != HWT_CTX_RUNNING)
		goto out_free;	/* nothing is recorded, and no pause */
	args = hwt_hook_process_begin(s, path);
	rec = hwt_hook_process_end(s, HWT_RECORD_EXEC, p, args, hwt_hook_current_args(args));
	hwt_hook_deliver(&d, 1, rec, HWT_CFG_PAUSE_EXEC, false);
	if (mm && mmap_read_lock_killable(mm) == 0) {
		hwt_hook_image(&d, 1, p, mm, s);
		mmap_read_unlock(mm);
	} else {
		hwt_hook_lost(&d, 1, HWT_LOST_IMAGE, p);
	}
out_free:
	kfree(s);
out:
	smp_mb__before_atomic();
	clear_bit(HWT_THR_SELECTING, &thr->flags);
	fput(f);
	return traced;
}

#define HWT_SNAP_BATCH	32

void hwt_hook_snapshot(struct hwt_context *ctx)
{
	struct hwt_record_header *rec;
	struct vm_area_struct *vma;
	struct task_struct *task;
	struct hwt_map *maps;
	unsigned long addr = 0;
	struct mm_struct *mm;
	char *args;
	size_t an = 0;
	void *s;
	int got;

	task = get_pid_task(ctx->target, PIDTYPE_TGID);
	if (!task)
		return;
	/* A selection left it untraced after an exec since ALLOC: no snapshot. */
	rcu_read_lock();
	{
		struct hwt_thread *thr = hwt_thread_lookup(ctx, task);

		if (thr && hwt_thread_quiet(thr)) {
			rcu_read_unlock();
			goto out_task;
		}
	}
	rcu_read_unlock();
	mm = get_task_mm(task);
	if (!mm)
		goto out_task;
	/*
	 * An exec between ALLOC and the first START may have made the target
	 * untraceable (its hook untraced the threads): no snapshot of it.
	 */
	if (ctx->owner_cred && hwt_perm_exec(ctx->owner_cred, task, mm, NULL))
		goto out_mm;
	s = kmalloc(HWT_SCRATCH_SIZE, GFP_KERNEL);
	if (!s)
		goto out_mm;

	args = hwt_hook_process_begin(s, hwt_hook_exe_path(mm, (char *)s + HWT_SCRATCH_PATH));
	if (mm->arg_end > mm->arg_start) {
		an = min_t(size_t, mm->arg_end - mm->arg_start, HWT_ARGS_MAX);
		got = access_process_vm(task, mm->arg_start, args, an, FOLL_FORCE);
		an = got > 0 ? got : 0;
	}
	rec = hwt_hook_process_end(s, HWT_RECORD_PROCESS_START, task, args, an);
	hwt_context_record(ctx, rec);

	/*
	 * The build-ids are read with kernel_read(), which may sleep and do
	 * I/O: not under the target's mmap_lock. Mappings are taken in
	 * batches (with file references) under the lock, and recorded after.
	 */
	maps = kmalloc_array(HWT_SNAP_BATCH, sizeof(*maps), GFP_KERNEL);
	while (maps && mmap_read_lock_killable(mm) == 0) {
		int i, n = 0;

		{
			VMA_ITERATOR(vmi, mm, addr);

			for_each_vma(vmi, vma) {
				if (!hwt_hook_vma_wanted(vma))
					continue;
				if (n == HWT_SNAP_BATCH)
					break;
				hwt_hook_map_of(vma, &maps[n]);
				if (maps[n].file)
					get_file(maps[n].file);
				n++;
			}
		}
		mmap_read_unlock(mm);
		for (i = 0; i < n; i++) {
			rec = hwt_hook_build_mmap(s, task, &maps[i], HWT_BID_READ);
			if (rec)
				hwt_context_record(ctx, rec);
			if (maps[i].file)
				fput(maps[i].file);
		}
		if (n < HWT_SNAP_BATCH)
			break;
		addr = maps[n - 1].end;
	}
	kfree(maps);
	kfree(s);
out_mm:
	mmput(mm);
out_task:
	put_task_struct(task);
}

/* Registration. */

struct hwt_hook_tp {
	const char		*name;
	void			*probe;
	struct tracepoint	*tp;
};

static struct hwt_hook_tp hwt_hook_tps[] = {
	{ "sched_process_exec",	hwt_hook_on_exec },
	{ "sched_process_fork",	hwt_hook_on_fork },
	{ "sched_process_exit",	hwt_hook_on_exit },
	{ "sched_switch",	hwt_hook_on_switch },
};

static struct kprobe hwt_kp_mmap;
static struct kprobe hwt_kp_munmap;

static void hwt_hook_tp_lookup(struct tracepoint *tp, void *priv)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(hwt_hook_tps); i++) {
		if (!strcmp(tp->name, hwt_hook_tps[i].name))
			hwt_hook_tps[i].tp = tp;
	}
}

int hwt_hook_init(void)
{
	unsigned int cpu;
	int i;

	/* The sched tracepoints are not exported to modules; find them by name. */
	for_each_kernel_tracepoint(hwt_hook_tp_lookup, NULL);
	for (i = 0; i < ARRAY_SIZE(hwt_hook_tps); i++) {
		if (!hwt_hook_tps[i].tp) {
			pr_err("hwt: tracepoint %s not found\n", hwt_hook_tps[i].name);
			return -ENOENT;
		}
	}
	for_each_possible_cpu(cpu) {
		void *s = kmalloc_node(HWT_SCRATCH_SIZE, GFP_KERNEL, cpu_to_node(cpu));

		if (!s) {
			hwt_hook_exit();
			return -ENOMEM;
		}
		per_cpu(hwt_scratch, cpu) = s;
	}
	return 0;
}

void hwt_hook_exit(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		kfree(per_cpu(hwt_scratch, cpu));
		per_cpu(hwt_scratch, cpu) = NULL;
	}
}

static int hwt_hook_kprobe(struct kprobe *kp, const char *sym,
			   int (*pre)(struct kprobe *, struct pt_regs *))
{
	memset(kp, 0, sizeof(*kp));
	kp->symbol_name = sym;
	kp->pre_handler = pre;
	return register_kprobe(kp);
}

int hwt_hook_register(void)
{
	int i, ret;

	lockdep_assert_held(&hwt_mtx);
	for (i = 0; i < ARRAY_SIZE(hwt_hook_tps); i++) {
		ret = tracepoint_probe_register(hwt_hook_tps[i].tp, hwt_hook_tps[i].probe, NULL);
		if (ret)
			goto err_tp;
	}
	ret = hwt_hook_kprobe(&hwt_kp_mmap, "perf_event_mmap", hwt_hook_on_mmap);
	if (ret) {
		pr_err("hwt: kprobe on perf_event_mmap: %d\n", ret);
		goto err_tp;
	}
	ret = hwt_hook_kprobe(&hwt_kp_munmap, "do_mas_munmap", hwt_hook_on_munmap);
	if (ret) {
		pr_err("hwt: kprobe on do_mas_munmap: %d\n", ret);
		unregister_kprobe(&hwt_kp_mmap);
		goto err_tp;
	}
	return 0;

err_tp:
	while (--i >= 0)
		tracepoint_probe_unregister(hwt_hook_tps[i].tp, hwt_hook_tps[i].probe, NULL);
	tracepoint_synchronize_unregister();
	return ret;
}

void hwt_hook_unregister(void)
{
	int i;

	lockdep_assert_held(&hwt_mtx);
	unregister_kprobe(&hwt_kp_munmap);
	unregister_kprobe(&hwt_kp_mmap);
	for (i = 0; i < ARRAY_SIZE(hwt_hook_tps); i++)
		tracepoint_probe_unregister(hwt_hook_tps[i].tp, hwt_hook_tps[i].probe, NULL);
	/* No probe runs after this: they may go with the module. */
	tracepoint_synchronize_unregister();
}
