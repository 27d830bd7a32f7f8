/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hooks: where hwt.ko learns what traced tasks do (hwt_probe.c attaches
 * them). Each returns at once for a task that no context traces.
 *   sched_process_exec  (tracepoint)  EXEC and the new image's MMAPs; pause; with
 *                                     selection, hands the image to the task work
 *   sched_process_fork  (tracepoint)  FORK / PROCESS_START / THREAD_CREATE; follows children
 *   sched_process_exit  (tracepoint)  THREAD_EXIT / PROCESS_EXIT; stops following
 *   sched_switch        (tracepoint)  backend enable/disable, SWITCH records
 *   signal_deliver      (tracepoint)  SIGNAL; the backend's thread_signal
 *   perf_event_mmap     (ftrace)      MMAP of file-backed executable mappings; pause
 *   munmap              (ftrace)      MUNMAP of ranges holding executable mappings
 * Tracepoint probes run with preemption off; the ftrace callbacks turn it
 * off (with ftrace's recursion guard) once the task is known to be traced.
 * None sleeps or allocates but with GFP_ATOMIC.
 */
#ifndef HWT_HOOK_H
#define HWT_HOOK_H

#include <linux/types.h>

struct k_sigaction;
struct kernel_siginfo;
struct ftrace_ops;
struct ftrace_regs;
struct linux_binprm;
struct task_struct;

void hwt_hook_on_exec(void *data, struct task_struct *p, pid_t old_pid,
		      struct linux_binprm *bprm);
void hwt_hook_on_fork(void *data, struct task_struct *parent, struct task_struct *child);
void hwt_hook_on_exit(void *data, struct task_struct *p);
void hwt_hook_on_signal(void *data, int sig, struct kernel_siginfo *info, struct k_sigaction *ka);
void hwt_hook_on_switch(void *data, bool preempt, struct task_struct *prev,
			struct task_struct *next, unsigned int prev_state);
void hwt_hook_on_mmap(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
		      struct ftrace_regs *fregs);
void hwt_hook_on_munmap(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
			struct ftrace_regs *fregs);

#endif /* HWT_HOOK_H */
