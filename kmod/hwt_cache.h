/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Slab caches of the objects hwt.ko allocates per context and per thread,
 * named so that /proc/slabinfo shows them (the tests count them for leaks):
 *   hwt_context  struct hwt_context, with its record queue descriptor
 *   hwt_thread   struct hwt_thread, with its task work item
 *   hwt_buffer   struct hwt_buffer, the descriptor of a trace buffer (the
 *                memory itself is vmalloc_user(), shown in /proc/vmallocinfo)
 *   hwt_cpus     CPU mode: the CPU set and the per-CPU buffer table, sized
 *                by nr_cpu_ids when the module loads
 *   hwt_select   struct hwt_select, a context's selection glob lists
 *                (HWT_CFG_SELECT)
 */
#ifndef HWT_CACHE_H
#define HWT_CACHE_H

#include <linux/cpumask.h>
#include <linux/slab.h>
#include <linux/string.h>

struct hwt_buffer;

extern struct kmem_cache *hwt_context_cache;
extern struct kmem_cache *hwt_thread_cache;
extern struct kmem_cache *hwt_buffer_cache;
extern struct kmem_cache *hwt_cpus_cache;
extern struct kmem_cache *hwt_select_cache;

int hwt_cache_init(void);
/* After the last object is freed (module exit, hwt_wq drained). */
void hwt_cache_exit(void);

/*
 * A zeroed object. Not __GFP_ZERO: the caches have a constructor (see
 * hwt_cache.c), and with init_on_alloc (Debian's default) SLUB then skips
 * zeroing even for __GFP_ZERO.
 */
static inline void *hwt_cache_zalloc(struct kmem_cache *c, gfp_t gfp)
{
	void *p = kmem_cache_alloc(c, gfp);

	if (p)
		memset(p, 0, kmem_cache_size(c));
	return p;
}

/* The buffer table of a hwt_cpus object: nr_cpu_ids pointers, then the CPU set. */
static inline struct hwt_buffer **hwt_cpus_bufs(void *obj)
{
	return obj;
}

static inline struct cpumask *hwt_cpus_mask(void *obj)
{
	return (struct cpumask *)((struct hwt_buffer **)obj + nr_cpu_ids);
}

#endif /* HWT_CACHE_H */
