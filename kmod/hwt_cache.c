// SPDX-License-Identifier: GPL-2.0
/* Slab caches: see hwt_cache.h. */
#include <linux/cpumask.h>
#include <linux/slab.h>

#include "hwt_backend.h"
#include "hwt_cache.h"
#include "hwt_context.h"
#include "hwt_select.h"
#include "hwt_thread.h"

struct kmem_cache *hwt_context_cache;
struct kmem_cache *hwt_thread_cache;
struct kmem_cache *hwt_buffer_cache;
struct kmem_cache *hwt_cpus_cache;
struct kmem_cache *hwt_select_cache;

/*
 * SLUB merges a new cache into an existing one of the same size and flags,
 * and /proc/slabinfo then shows only the other cache's name. 6.1 has no
 * SLAB_NO_MERGE; a cache with a constructor is never merged, so each cache
 * gets this one. It has nothing to set up: objects are zeroed when
 * allocated (hwt_cache_zalloc).
 */
static void hwt_cache_ctor(void *obj)
{
}

static struct kmem_cache *hwt_cache_create(const char *name, size_t size)
{
	return kmem_cache_create(name, size, 0, SLAB_HWCACHE_ALIGN, hwt_cache_ctor);
}

int hwt_cache_init(void)
{
	hwt_context_cache = hwt_cache_create("hwt_context", sizeof(struct hwt_context));
	hwt_thread_cache = hwt_cache_create("hwt_thread", sizeof(struct hwt_thread));
	hwt_buffer_cache = hwt_cache_create("hwt_buffer", sizeof(struct hwt_buffer));
	hwt_cpus_cache = hwt_cache_create("hwt_cpus", nr_cpu_ids * sizeof(struct hwt_buffer *) +
					  cpumask_size());
	/* The glob lists are copied from user memory: hardened usercopy needs them whitelisted. */
	hwt_select_cache = kmem_cache_create_usercopy("hwt_select", sizeof(struct hwt_select), 0,
						      SLAB_HWCACHE_ALIGN,
						      offsetof(struct hwt_select, globs),
						      sizeof_field(struct hwt_select, globs),
						      hwt_cache_ctor);
	if (!hwt_context_cache || !hwt_thread_cache || !hwt_buffer_cache || !hwt_cpus_cache ||
	    !hwt_select_cache) {
		hwt_cache_exit();
		return -ENOMEM;
	}
	return 0;
}

void hwt_cache_exit(void)
{
	/* kmem_cache_destroy() accepts NULL, and warns about objects left. */
	kmem_cache_destroy(hwt_select_cache);
	kmem_cache_destroy(hwt_cpus_cache);
	kmem_cache_destroy(hwt_buffer_cache);
	kmem_cache_destroy(hwt_thread_cache);
	kmem_cache_destroy(hwt_context_cache);
	hwt_select_cache = hwt_cpus_cache = hwt_buffer_cache = NULL;
	hwt_thread_cache = hwt_context_cache = NULL;
}
