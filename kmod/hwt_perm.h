/* SPDX-License-Identifier: GPL-2.0 */
/* Who may trace what. */
#ifndef HWT_PERM_H
#define HWT_PERM_H

struct cred;
struct linux_binprm;
struct mm_struct;
struct task_struct;

/* Resolves ptrace_may_access(), which 6.1 does not export to modules. */
void hwt_perm_init(void);
/* THREAD mode: the caller needs ptrace access (PTRACE_MODE_ATTACH_REALCREDS). */
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
/* CPU mode: the caller needs CAP_PERFMON or CAP_SYS_ADMIN. */
int hwt_perm_cpu(void);

#endif /* HWT_PERM_H */
