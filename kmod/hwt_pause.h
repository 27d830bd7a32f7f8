/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pause for reconfiguration. A hook that queued an EXEC or MMAP record for
 * a thread whose context asked for pauses queues task work on the thread
 * (TWA_RESUME). The work runs on the thread's way back to user mode, with
 * no lock held (mmap_lock in particular is released by then), and waits
 * until the collector answers with HWT_IOC_WAKEUP, the context stops or
 * dies, a fatal signal arrives, or the collector's timeout passes. The same
 * work allocates the buffer of a newly created thread before it first runs
 * user code.
 */
#ifndef HWT_PAUSE_H
#define HWT_PAUSE_H

struct callback_head;
struct hwt_context;

/* Task work callback of hwt_thread.work. */
void hwt_pause_work(struct callback_head *cb);
/* Answers the pauses of thread @tid (-1: all) of @ctx; -ESRCH if none such. */
int hwt_pause_wakeup(struct hwt_context *ctx, pid_t tid);

#endif /* HWT_PAUSE_H */
