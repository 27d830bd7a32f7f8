// SPDX-License-Identifier: GPL-2.0
/* Trace buffers: see hwt_buffer.h. */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "hwt_buffer.h"
#include "hwt_cache.h"
#include "hwt_compat.h"
#include "hwt_stats.h"

struct hwt_buffer *hwt_buffer_alloc(size_t size, u32 id)
{
	struct hwt_buffer *buf;

	buf = hwt_cache_zalloc(hwt_buffer_cache, GFP_KERNEL);
	if (!buf)
		return NULL;
	buf->base = vmalloc_user(size);
	if (!buf->base) {
		kmem_cache_free(hwt_buffer_cache, buf);
		return NULL;
	}
	buf->size = size;
	buf->id = id;
	atomic64_inc(&hwt_stats.buffers);
	return buf;
}

void hwt_buffer_free(struct hwt_buffer *buf)
{
	if (!buf)
		return;
	/* Pages still mapped by a collector keep their own references. */
	vfree(buf->base);
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
