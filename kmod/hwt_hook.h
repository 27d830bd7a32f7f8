/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hooks: where hwt.ko learns what traced tasks do. Registered only while at
 * least one context exists, so they cost nothing otherwise; each returns at
 * once for a task that no context traces.
 *   sched_process_exec  (tracepoint)  EXEC and the new image's MMAPs; pause; with
 *                                     selection, hands the image to the task work
 *   sched_process_fork  (tracepoint)  FORK / PROCESS_START / THREAD_CREATE; follows children
 *   sched_process_exit  (tracepoint)  THREAD_EXIT / PROCESS_EXIT; stops following
 *   sched_switch        (tracepoint)  backend enable/disable, SWITCH records
 *   perf_event_mmap     (kprobe)      MMAP of file-backed executable mappings; pause
 *   do_mas_munmap       (kprobe)      MUNMAP of ranges holding executable mappings
 */
#ifndef HWT_HOOK_H
#define HWT_HOOK_H

#include <linux/types.h>

struct hwt_context;
struct hwt_thread;

/* Resolves tracepoints and allocates per-CPU scratch (module init). */
int hwt_hook_init(void);
void hwt_hook_exit(void);
/* Registers / unregisters every hook. hwt_mtx held. */
int hwt_hook_register(void);
void hwt_hook_unregister(void);
/* THREAD mode start: PROCESS_START and MMAPs of the target as it is now. */
void hwt_hook_snapshot(struct hwt_context *ctx);
/*
 * Task work after an exec under selection: judges the new image, records
 * EXEC and MMAPs or UNTRACED. True when the thread is traced now (its unit
 * should go on). Process context, may sleep.
 */
bool hwt_hook_select_work(struct hwt_thread *thr);

#endif /* HWT_HOOK_H */
