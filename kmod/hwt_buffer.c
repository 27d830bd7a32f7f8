// SPDX-License-Identifier: GPL-2.0
/* Trace buffers: see hwt_buffer.h. */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "hwt_buffer.h"
#include "hwt_cache.h"
#include "hwt_compat.h"
#include "hwt_perm.h"
#include "hwt_stats.h"

void hwt_charge_init(struct hwt_charge *ch)
{
	unsigned long rl = rlimit(RLIMIT_MEMLOCK);

	ch->user = get_current_user();
	if (!hwt_perm_limited() || capable(CAP_IPC_LOCK) || rl == RLIM_INFINITY)
		ch->limit = ULONG_MAX;
	else
		ch->limit = (READ_ONCE(hwt_mlock_kb) >> (PAGE_SHIFT - 10)) + (rl >> PAGE_SHIFT);
}

void hwt_charge_fini(struct hwt_charge *ch)
{
	if (ch->user)
		free_uid(ch->user);
	ch->user = NULL;
}

struct hwt_buffer *hwt_buffer_alloc(size_t size, u32 id, const struct hwt_charge *ch)
{
	unsigned long pages = size >> PAGE_SHIFT;
	struct hwt_buffer *buf;

	/* Charged first, as perf does, so that a user over the limit allocates nothing. */
	if (ch->user) {
		if ((unsigned long)atomic_long_add_return(pages, &ch->user->locked_vm) > ch->limit) {
			atomic_long_sub(pages, &ch->user->locked_vm);
			return ERR_PTR(-ENOBUFS);
		}
		atomic64_add(pages, &hwt_stats.locked_pages);
	}
	buf = hwt_cache_zalloc(hwt_buffer_cache, GFP_KERNEL);
	if (!buf)
		goto err;
	buf->base = vmalloc_user(size);
	if (!buf->base) {
		kmem_cache_free(hwt_buffer_cache, buf);
		goto err;
	}
	buf->size = size;
	buf->id = id;
	if (ch->user)
		buf->charged = get_uid(ch->user);
	atomic64_inc(&hwt_stats.buffers);
	return buf;

err:
	if (ch->user) {
		atomic_long_sub(pages, &ch->user->locked_vm);
		atomic64_sub(pages, &hwt_stats.locked_pages);
	}
	return ERR_PTR(-ENOMEM);
}

void hwt_buffer_free(struct hwt_buffer *buf)
{
	if (IS_ERR_OR_NULL(buf))
		return;
	/* Pages still mapped by a collector keep their own references. */
	vfree(buf->base);
	if (buf->charged) {
		atomic_long_sub(buf->size >> PAGE_SHIFT, &buf->charged->locked_vm);
		atomic64_sub(buf->size >> PAGE_SHIFT, &hwt_stats.locked_pages);
		free_uid(buf->charged);
	}
	kmem_cache_free(hwt_buffer_cache, buf);
	atomic64_dec(&hwt_stats.buffers);
}

int hwt_buffer_mmap(struct hwt_buffer *buf, struct vm_area_struct *vma)
{
	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
	if (vma->vm_end - vma->vm_start > buf->size)
		return -EINVAL;
	hwt_vma_flags_mod(vma, VM_DONTEXPAND | VM_DONTDUMP, VM_MAYWRITE);
	return remap_vmalloc_range(vma, buf->base, 0);
}
