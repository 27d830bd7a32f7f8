/* SPDX-License-Identifier: GPL-2.0 */
/* Who may trace what. */
#ifndef HWT_PERM_H
#define HWT_PERM_H

struct task_struct;

/* Resolves ptrace_may_access(), which 6.1 does not export to modules. */
void hwt_perm_init(void);
/* THREAD mode: the caller needs ptrace access (PTRACE_MODE_ATTACH_REALCREDS). */
int hwt_perm_thread(struct task_struct *task);
/* CPU mode: the caller needs CAP_PERFMON or CAP_SYS_ADMIN. */
int hwt_perm_cpu(void);

#endif /* HWT_PERM_H */
