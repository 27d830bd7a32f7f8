/* SPDX-License-Identifier: GPL-2.0 */
/* Trace buffers: vmalloc_user() memory mapped read-only into the collector. */
#ifndef HWT_BUFFER_H
#define HWT_BUFFER_H

#include "hwt_backend.h"

struct vm_area_struct;

/* Allocates a zeroed buffer of @size bytes (page multiple); may sleep. */
struct hwt_buffer *hwt_buffer_alloc(size_t size, u32 id);
void hwt_buffer_free(struct hwt_buffer *buf);
/* Maps @buf read-only into @vma; the pages stay valid while mapped. */
int hwt_buffer_mmap(struct hwt_buffer *buf, struct vm_area_struct *vma);

#endif /* HWT_BUFFER_H */
