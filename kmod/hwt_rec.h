/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Builders of the records (common/hwt_record.h) that the hooks, the START
 * snapshot and the SELECT work queue. Each lays its record out in a
 * scratch area (hwt_scratch.h) or the caller's struct and fills the
 * header; hwt_context_record() seals it when it queues it. They never
 * sleep, except hwt_rec_mmap() with HWT_BID_READ.
 */
#ifndef HWT_REC_H
#define HWT_REC_H

#include <linux/types.h>

#include "hwt_buildid.h"
#include "hwt_record.h"

struct file;
struct mm_struct;
struct task_struct;
struct vm_area_struct;

/* Bytes of argv a PROCESS_START or EXEC record carries at most. */
#define HWT_REC_ARGS_MAX	4096u

/* What an MMAP record tells of a mapping, taken while mmap_lock is held. */
struct hwt_map {
	struct file	*file;		/* NULL: the vDSO */
	unsigned long	start;
	unsigned long	end;
	u64		pgoff;		/* bytes */
	unsigned long	vm_flags;
};

/* The header for a record of @type and @size about @t; time is hwt_clock() (hwt_compat.h). */
void hwt_rec_hdr(struct hwt_record_header *h, u16 type, u32 size, struct task_struct *t);

/*
 * PROCESS_START / EXEC in scratch area @s, in two steps: _begin lays out
 * @path and returns where the arguments go (at most HWT_REC_ARGS_MAX
 * bytes); _end completes the record whose @an argument bytes are at @args.
 */
char *hwt_rec_process_begin(void *s, const char *path);
struct hwt_record_header *hwt_rec_process_end(void *s, u16 type, struct task_struct *t,
					      char *args, size_t an);
/* Arguments of the current task into @dst, without faulting (hooks run atomic). */
size_t hwt_rec_current_args(char *dst);
/* Path of @mm's executable into @buf (PATH_MAX bytes), or "". */
const char *hwt_rec_exe_path(struct mm_struct *mm, char *buf);

/* Mappings that get MMAP records: executable, file-backed or the vDSO. */
bool hwt_rec_vma_wanted(struct vm_area_struct *vma);
void hwt_rec_map_of(struct vm_area_struct *vma, struct hwt_map *m);
/*
 * MMAP record of @m in scratch area @s, or NULL when its path cannot be
 * had. The build-id is read as @how says (hwt_buildid.h); none for the vDSO.
 */
struct hwt_record_header *hwt_rec_mmap(void *s, struct task_struct *t, const struct hwt_map *m,
				       enum hwt_bid_how how);
/* The same in a hook: atomic, mmap_lock held, the build-id from the page cache. */
struct hwt_record_header *hwt_rec_vma(void *s, struct task_struct *t, struct vm_area_struct *vma);

/*
 * UNTRACED record of @p in the @size bytes at @s (common/hwt_record.c lays
 * it out): the image's @path (in the path area of a scratch area, or
 * anywhere but the record's bytes) and @why. NULL when it does not fit.
 */
struct hwt_record_header *hwt_rec_untraced(void *s, size_t size, struct task_struct *p,
					   const char *path, const char *why);

#endif /* HWT_REC_H */
