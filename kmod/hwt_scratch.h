/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Scratch areas for records that carry a path. Hooks run with preemption
 * off and must not allocate, so each CPU has one, allocated at module load;
 * process-context builders (the START snapshot, the SELECT work) kmalloc
 * one of the same size. Layout: the record from offset 0 (at most
 * HWT_SCRATCH_PATH bytes), then a PATH_MAX area for d_path().
 */
#ifndef HWT_SCRATCH_H
#define HWT_SCRATCH_H

#define HWT_SCRATCH_SIZE	(16u << 10)
#define HWT_SCRATCH_PATH	(12u << 10)

/* The path area of scratch area @s. */
static inline char *hwt_scratch_path(void *s)
{
	return (char *)s + HWT_SCRATCH_PATH;
}

/* Allocates every CPU's area (module init); -ENOMEM. */
int hwt_scratch_init(void);
void hwt_scratch_exit(void);
/*
 * This CPU's area, or NULL when a hook on this CPU already uses it (a
 * nested hook). Preemption off until hwt_scratch_put().
 */
void *hwt_scratch_get(void);
void hwt_scratch_put(void);

#endif /* HWT_SCRATCH_H */
