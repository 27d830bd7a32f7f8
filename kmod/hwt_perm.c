// SPDX-License-Identifier: GPL-2.0
/*
 * Permissions. THREAD mode asks the kernel's own ptrace policy (credentials,
 * dumpability, LSMs such as Yama) through ptrace_may_access(). 6.1 does not
 * export it, so its address is resolved once through a kprobe on it (the
 * last resort the kernel leaves modules since kallsyms_lookup_name went
 * unexported). If that fails, or indirect calls to unexported functions are
 * unsafe (kernel IBT: Debian's 6.12), ptrace's credential, capability and
 * dumpability rules are replayed (hwt_perm_exec), without the LSM hooks.
 */
#include <linux/binfmts.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/coredump.h>
#include <linux/sched/mm.h>
#include <linux/user_namespace.h>

#include "hwt_perm.h"

static bool (*hwt_ptrace_may_access)(struct task_struct *task, unsigned int mode);

void hwt_perm_init(void)
{
	struct kprobe kp = { .symbol_name = "ptrace_may_access" };

	if (IS_ENABLED(CONFIG_X86_KERNEL_IBT) || IS_ENABLED(CONFIG_CFI_CLANG)) {
		pr_info("hwt: ptrace's rules replayed, without LSM hooks (indirect-call checking kernel)\n");
		return;
	}
	if (register_kprobe(&kp)) {
		pr_warn("hwt: ptrace_may_access not found; ptrace's rules replayed, without LSM hooks\n");
		return;
	}
	hwt_ptrace_may_access = (void *)kp.addr;
	unregister_kprobe(&kp);
}

int hwt_perm_thread(struct task_struct *task)
{
	struct mm_struct *mm;
	const char *why;

	if (hwt_ptrace_may_access)
		return hwt_ptrace_may_access(task, PTRACE_MODE_ATTACH_REALCREDS) ? 0 : -EPERM;
	mm = get_task_mm(task);
	why = hwt_perm_exec(current_cred(), task, mm, NULL);
	if (mm)
		mmput(mm);
	return why ? -EPERM : 0;
}

int hwt_perm_cpu(void)
{
	return perfmon_capable() ? 0 : -EPERM;
}

/*
 * Whether @cred holds @cap in @ns: effective in its own namespace, all
 * capabilities in a namespace it created (as its euid), nothing in one that
 * is not below its own. The user-namespace rule of capabilities(7), without
 * the LSM capable hooks (security_capable is not exported).
 */
static bool hwt_perm_cred_cap(const struct cred *cred, struct user_namespace *ns, int cap)
{
	for (;;) {
		if (ns == cred->user_ns)
			return cap_raised(cred->cap_effective, cap);
		if (ns->level <= cred->user_ns->level || !ns->parent)
			return false;
		if (ns->parent == cred->user_ns && uid_eq(ns->owner, cred->euid))
			return true;
		ns = ns->parent;
	}
}

const char *hwt_perm_exec(const struct cred *owner, struct task_struct *task,
			  struct mm_struct *mm, const struct linux_binprm *bprm)
{
	const struct cred *tcred;
	const char *why = NULL;
	bool cap;

	rcu_read_lock();
	tcred = __task_cred(task);
	cap = hwt_perm_cred_cap(owner, tcred->user_ns, CAP_SYS_PTRACE);
	/* ptrace's own rule, PTRACE_MODE_REALCREDS: the caller's real ids. */
	if (!(uid_eq(owner->uid, tcred->euid) && uid_eq(owner->uid, tcred->suid) &&
	      uid_eq(owner->uid, tcred->uid) && gid_eq(owner->gid, tcred->egid) &&
	      gid_eq(owner->gid, tcred->sgid) && gid_eq(owner->gid, tcred->gid)) && !cap)
		why = "credentials changed (set-user-ID or set-group-ID)";
	/* The capability LSM's: no capability the caller does not permit itself. */
	else if (!(owner->user_ns == tcred->user_ns &&
		   cap_issubset(tcred->cap_permitted, owner->cap_permitted)) && !cap)
		why = "capabilities gained";
	/* ptrace's dumpability rule, in the namespace of the new mm. */
	else if (mm && get_dumpable(mm) != SUID_DUMP_USER &&
		 !hwt_perm_cred_cap(owner, mm->user_ns, CAP_SYS_PTRACE))
		why = "not dumpable";
	/* What other LSMs flag (a domain transition); their ptrace hook cannot be asked here. */
	else if (bprm && bprm->secureexec && !cap)
		why = "secure exec";
	rcu_read_unlock();
	return why;
}
