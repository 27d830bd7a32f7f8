// SPDX-License-Identifier: GPL-2.0
/*
 * Permissions. THREAD mode asks the kernel's own ptrace policy (credentials,
 * dumpability, LSMs such as Yama) through ptrace_may_access(). 6.1 does not
 * export it, so its address is resolved once through a kprobe on it (the
 * last resort the kernel leaves modules since kallsyms_lookup_name went
 * unexported). If that fails, or indirect calls to unexported functions are
 * unsafe (kernel IBT), only CAP_SYS_PTRACE holders may use THREAD mode.
 */
#include <linux/capability.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/sched.h>

#include "hwt_perm.h"

static bool (*hwt_ptrace_may_access)(struct task_struct *task, unsigned int mode);

void hwt_perm_init(void)
{
	struct kprobe kp = { .symbol_name = "ptrace_may_access" };

	if (IS_ENABLED(CONFIG_X86_KERNEL_IBT) || IS_ENABLED(CONFIG_CFI_CLANG)) {
		pr_warn("hwt: THREAD mode limited to CAP_SYS_PTRACE (indirect-call checking kernel)\n");
		return;
	}
	if (register_kprobe(&kp)) {
		pr_warn("hwt: ptrace_may_access not found; THREAD mode limited to CAP_SYS_PTRACE\n");
		return;
	}
	hwt_ptrace_may_access = (void *)kp.addr;
	unregister_kprobe(&kp);
}

int hwt_perm_thread(struct task_struct *task)
{
	if (hwt_ptrace_may_access)
		return hwt_ptrace_may_access(task, PTRACE_MODE_ATTACH_REALCREDS) ? 0 : -EPERM;
	return capable(CAP_SYS_PTRACE) ? 0 : -EPERM;
}

int hwt_perm_cpu(void)
{
	return perfmon_capable() ? 0 : -EPERM;
}
