/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The START snapshot (THREAD mode, first HWT_IOC_START): PROCESS_START and
 * the MMAPs of the target process as it is, so that a collector that
 * attaches to a running process can decode it.
 */
#ifndef HWT_SNAPSHOT_H
#define HWT_SNAPSHOT_H

struct hwt_context;

/*
 * Queues the records of @ctx's target. Process context, ctx->mtx held;
 * sleeps (it reads build-ids with kernel_read, not under mmap_lock).
 * Nothing for a target that an exec since ALLOC made untraceable or left
 * unselected.
 */
void hwt_snapshot_take(struct hwt_context *ctx);

#endif /* HWT_SNAPSHOT_H */
