/* SPDX-License-Identifier: GPL-2.0 */
/* Who may trace what. */
#ifndef HWT_PERM_H
#define HWT_PERM_H

#include <linux/types.h>

struct cred;
struct linux_binprm;
struct mm_struct;
struct task_struct;

/*
 * Who may open /dev/hwt and what they may allocate, as perf_event_paranoid
 * (kmod/README.md, "Access"); module parameters, writable by root in
 * /sys/module/hwt/parameters/. For callers without CAP_SYS_ADMIN:
 *   2  root and members of hwt_group open /dev/hwt; THREAD mode only
 *   1  as 2, and CPU mode with CAP_PERFMON
 *   0  as 1, and anyone opens /dev/hwt
 *  -1  as 0, and no locked-memory or context limit
 */
extern int hwt_paranoid;
extern int hwt_group;			/* gid (initial namespace), or -1: none */
extern unsigned int hwt_mlock_kb;	/* per-user allowance of buffer memory */
extern unsigned int hwt_max_contexts;	/* per user */

/* The mode /dev/hwt gets: 0600 unless the parameters open it to others. */
umode_t hwt_perm_dev_mode(void);
/* open() of /dev/hwt: 0 or -EACCES. */
int hwt_perm_open(void);
/* Resolves ptrace_may_access(), which modules cannot link to. */
void hwt_perm_init(void);
/*
 * THREAD mode: the caller needs ptrace access (PTRACE_MODE_ATTACH_REALCREDS),
 * the kernel's own check with the LSMs: -EPERM without it, -EOPNOTSUPP when
 * this kernel offers no safe way to ask (a line in the kernel log says why).
 */
int hwt_perm_thread(struct task_struct *task);
/*
 * THREAD mode, at exec (@bprm) or later (@bprm NULL): why a tracer with
 * credentials @owner (the context owner's at HWT_IOC_ALLOC) may no longer
 * trace @task (address space @mm, held by the caller) under its current
 * credentials, or NULL if it may. Never
 * sleeps, takes no lock (RCU inside): the exec hook calls it. It replays the
 * credential parts of PTRACE_MODE_ATTACH_REALCREDS (ids, capabilities,
 * dumpability) for a tracer that is not current; LSM ptrace hooks other than
 * the capability one cannot be asked for another task's credentials, so a
 * secure exec (bprm->secureexec, which LSMs set on a privilege transition)
 * counts as a denial unless the owner has CAP_SYS_PTRACE.
 */
const char *hwt_perm_exec(const struct cred *owner, struct task_struct *task,
			  struct mm_struct *mm, const struct linux_binprm *bprm);
/*
 * THREAD mode, at exec, after hwt_perm_exec allowed it: asks the kernel's
 * own ptrace_may_access(@task, PTRACE_MODE_ATTACH_REALCREDS), LSMs included,
 * from the context owner @owner (the thread that did HWT_IOC_ALLOC), as the
 * attach did: a task work queued on @owner (TWA_SIGNAL) asks and answers.
 * Yama's relational scope asks whether current is an ancestor of @task and
 * the exec hook's current is @task itself, so no other caller will do.
 * Waits at most @timeout_ms (killable): an owner gone, stopped or slow is a
 * denial. NULL if allowed, else why not. Sleeps; the thread's own task work
 * calls it with no lock held.
 */
const char *hwt_perm_exec_ask(struct task_struct *owner, struct task_struct *task,
			      unsigned int timeout_ms);
/* CPU mode: CAP_PERFMON or CAP_SYS_ADMIN (-EPERM); at hwt_paranoid 2, CAP_SYS_ADMIN (-EACCES). */
int hwt_perm_cpu(void);
/* Whether the caller's contexts are limited in number and locked memory. */
bool hwt_perm_limited(void);

#endif /* HWT_PERM_H */
