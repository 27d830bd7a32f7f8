// SPDX-License-Identifier: GPL-2.0
/* Destinations of a hook's records: see hwt_dest.h. */
#include <linux/mm.h>
#include <linux/rculist.h>
#include <linux/string.h>

#include "hwt_ioctl.h"
#include "hwt_context.h"
#include "hwt_dest.h"
#include "hwt_rec.h"

int hwt_dest_cpu(struct hwt_dest *d, int m)
{
	struct hwt_context *ctx;

	if (!atomic_read(&hwt_nr_cpu_contexts))
		return m;
	list_for_each_entry_rcu(ctx, &hwt_cpu_contexts, cpu_link) {
		if (m == HWT_DEST_MAX)
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

int hwt_dest_find(struct task_struct *task, struct hwt_dest *d)
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
	return hwt_dest_cpu(d, m);
}

void hwt_dest_deliver(struct hwt_dest *d, int n, struct hwt_record_header *rec,
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

void hwt_dest_lost(struct hwt_dest *d, int n, u32 reason, struct task_struct *t)
{
	struct hwt_record_lost rec;

	memset(&rec, 0, sizeof(rec));
	hwt_rec_hdr(&rec.hdr, HWT_RECORD_LOST, sizeof(rec), t);
	rec.reason = reason;
	rec.records = 1;
	hwt_dest_deliver(d, n, &rec.hdr, 0, false);
}

void hwt_dest_image(struct hwt_dest *d, int n, struct task_struct *t, struct mm_struct *mm,
		    void *s)
{
	struct vm_area_struct *vma;
	struct hwt_record_header *rec;
	VMA_ITERATOR(vmi, mm, 0);

	for_each_vma(vmi, vma) {
		if (!hwt_rec_vma_wanted(vma))
			continue;
		rec = hwt_rec_vma(s, t, vma);
		if (rec)
			hwt_dest_deliver(d, n, rec, 0, false);
		else
			hwt_dest_lost(d, n, HWT_LOST_IMAGE, t);
	}
}
