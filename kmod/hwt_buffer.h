/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Trace buffers: vmalloc_user() memory mapped read-only into the collector,
 * charged to the context owner's locked memory (user->locked_vm) as perf
 * charges its AUX buffers: a user may hold hwt_mlock_kb (a module parameter)
 * plus RLIMIT_MEMLOCK, unless CAP_IPC_LOCK, CAP_SYS_ADMIN or hwt_paranoid -1.
 */
#ifndef HWT_BUFFER_H
#define HWT_BUFFER_H

#include "hwt_backend.h"

struct user_struct;
struct vm_area_struct;

/* Whom a context's buffers are charged to, and how far. */
struct hwt_charge {
	struct user_struct	*user;	/* reference held, or NULL: nothing charged */
	unsigned long		limit;	/* pages user->locked_vm may reach; ULONG_MAX: none */
};

/* The caller's user and limit (at HWT_IOC_ALLOC); releases with hwt_charge_fini(). */
void hwt_charge_init(struct hwt_charge *ch);
void hwt_charge_fini(struct hwt_charge *ch);
/*
 * Allocates a zeroed buffer of @size bytes (page multiple), charged to @ch;
 * may sleep. ERR_PTR(-ENOBUFS) when the charge goes over the limit,
 * ERR_PTR(-ENOMEM).
 */
struct hwt_buffer *hwt_buffer_alloc(size_t size, u32 id, const struct hwt_charge *ch);
/* Frees @buf (NULL or an error pointer: nothing) and uncharges its pages. */
void hwt_buffer_free(struct hwt_buffer *buf);
/* Maps @buf read-only into @vma; the pages stay valid while mapped. */
int hwt_buffer_mmap(struct hwt_buffer *buf, struct vm_area_struct *vma);

#endif /* HWT_BUFFER_H */
