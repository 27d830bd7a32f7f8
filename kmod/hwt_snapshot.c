// SPDX-License-Identifier: GPL-2.0
/* The START snapshot: see hwt_snapshot.h. */
#include <linux/file.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/pid.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/slab.h>

#include "hwt_context.h"
#include "hwt_perm.h"
#include "hwt_rec.h"
#include "hwt_scratch.h"
#include "hwt_snapshot.h"
#include "hwt_thread.h"

/* Mappings taken (with file references) per hold of the target's mmap_lock. */
#define HWT_SNAP_BATCH	32

/* PROCESS_START of @task: executable path and arguments. */
static void hwt_snapshot_process(struct hwt_context *ctx, struct task_struct *task,
				 struct mm_struct *mm, void *s)
{
	char *args;
	size_t an = 0;
	int got;

	args = hwt_rec_process_begin(s, hwt_rec_exe_path(mm, hwt_scratch_path(s)));
	if (mm->arg_end > mm->arg_start) {
		an = min_t(size_t, mm->arg_end - mm->arg_start, HWT_REC_ARGS_MAX);
		got = access_process_vm(task, mm->arg_start, args, an, FOLL_FORCE);
		an = got > 0 ? got : 0;
	}
	hwt_context_record(ctx, hwt_rec_process_end(s, HWT_RECORD_PROCESS_START, task, args, an));
}

/*
 * MMAPs of every wanted mapping of @mm. The build-ids are read with
 * kernel_read(), which may sleep and do I/O: not under the target's
 * mmap_lock. Mappings are taken in batches (with file references) under
 * the lock, and recorded after.
 */
static void hwt_snapshot_maps(struct hwt_context *ctx, struct task_struct *task,
			      struct mm_struct *mm, void *s)
{
	struct hwt_record_header *rec;
	struct vm_area_struct *vma;
	unsigned long addr = 0;
	struct hwt_map *maps;

	maps = kmalloc_array(HWT_SNAP_BATCH, sizeof(*maps), GFP_KERNEL);
	while (maps && mmap_read_lock_killable(mm) == 0) {
		int i, n = 0;

		{
			VMA_ITERATOR(vmi, mm, addr);

			for_each_vma(vmi, vma) {
				if (!hwt_rec_vma_wanted(vma))
					continue;
				if (n == HWT_SNAP_BATCH)
					break;
				hwt_rec_map_of(vma, &maps[n]);
				if (maps[n].file)
					get_file(maps[n].file);
				n++;
			}
		}
		mmap_read_unlock(mm);
		for (i = 0; i < n; i++) {
			rec = hwt_rec_mmap(s, task, &maps[i], HWT_BID_READ);
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
}

/* True when a selection left the target untraced after an exec since ALLOC. */
static bool hwt_snapshot_unselected(struct hwt_context *ctx, struct task_struct *task)
{
	struct hwt_thread *thr;
	bool quiet;

	rcu_read_lock();
	thr = hwt_thread_lookup(ctx, task);
	quiet = thr && hwt_thread_quiet(thr);
	rcu_read_unlock();
	return quiet;
}

void hwt_snapshot_take(struct hwt_context *ctx)
{
	struct task_struct *task;
	struct mm_struct *mm;
	void *s;

	task = get_pid_task(ctx->target, PIDTYPE_TGID);
	if (!task)
		return;
	if (hwt_snapshot_unselected(ctx, task))
		goto out_task;
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
	hwt_snapshot_process(ctx, task, mm, s);
	hwt_snapshot_maps(ctx, task, mm, s);
	kfree(s);
out_mm:
	mmput(mm);
out_task:
	put_task_struct(task);
}
