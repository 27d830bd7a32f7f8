// SPDX-License-Identifier: GPL-2.0
/*
 * Permissions. Who opens /dev/hwt and what they may allocate: module
 * parameters (hwt_perm.h). THREAD mode asks the kernel's own ptrace policy
 * (credentials, dumpability, LSMs such as Yama) through ptrace_may_access(),
 * which no kernel exports: its address is resolved once through a kprobe on
 * it (the last resort the kernel leaves modules since kallsyms_lookup_name
 * went unexported). An indirect call to it is safe unless the CPU enforces
 * IBT and the kernel sealed the function (its ENDBR turned into a NOP at
 * boot, as objtool does to functions whose address is never taken) or the
 * kernel checks indirect calls by type (kCFI). Where it is not, THREAD mode
 * is refused: replaying ptrace's rules would skip the LSMs.
 */
#include <linux/binfmts.h>
#include <linux/capability.h>
#include <linux/completion.h>
#include <linux/cred.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/refcount.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/coredump.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/task_work.h>
#include <linux/uaccess.h>
#include <linux/uidgid.h>
#include <linux/user_namespace.h>
#include <asm/cpufeature.h>

#include "hwt_dev.h"
#include "hwt_perm.h"

int hwt_paranoid = 2;
int hwt_group = -1;
unsigned int hwt_mlock_kb = 131072;
unsigned int hwt_max_contexts = 64;

/* Access parameters: a change re-creates /dev/hwt with the mode it implies. */
static int hwt_param_set_access(const char *val, const struct kernel_param *kp, int lo)
{
	int v, ret;

	ret = kstrtoint(val, 0, &v);
	if (ret)
		return ret;
	if (v < lo || (kp->arg == &hwt_paranoid && v > 2))
		return -EINVAL;
	*(int *)kp->arg = v;
	return hwt_dev_update();
}

static int hwt_param_set_paranoid(const char *val, const struct kernel_param *kp)
{
	return hwt_param_set_access(val, kp, -1);
}

static int hwt_param_set_group(const char *val, const struct kernel_param *kp)
{
	return hwt_param_set_access(val, kp, -1);
}

static const struct kernel_param_ops hwt_paranoid_ops = {
	.set = hwt_param_set_paranoid,
	.get = param_get_int,
};
static const struct kernel_param_ops hwt_group_ops = {
	.set = hwt_param_set_group,
	.get = param_get_int,
};
module_param_cb(paranoid, &hwt_paranoid_ops, &hwt_paranoid, 0644);
MODULE_PARM_DESC(paranoid, "2: THREAD mode for hwt's group, 1: and CPU mode with CAP_PERFMON, "
		 "0: /dev/hwt open to all, -1: and no limits (default 2)");
module_param_cb(group, &hwt_group_ops, &hwt_group, 0644);
MODULE_PARM_DESC(group, "gid whose members may open /dev/hwt, -1: none (default)");
module_param_named(mlock_kb, hwt_mlock_kb, uint, 0644);
MODULE_PARM_DESC(mlock_kb, "trace buffer KiB a user may have on top of RLIMIT_MEMLOCK (default 131072)");
module_param_named(max_contexts, hwt_max_contexts, uint, 0644);
MODULE_PARM_DESC(max_contexts, "contexts a user may have open (default 64)");

umode_t hwt_perm_dev_mode(void)
{
	return READ_ONCE(hwt_paranoid) > 0 && READ_ONCE(hwt_group) < 0 ? 0600 : 0666;
}

int hwt_perm_open(void)
{
	int gid = READ_ONCE(hwt_group);

	/* capable() last: it audits a refusal. */
	if (READ_ONCE(hwt_paranoid) <= 0 || uid_eq(current_fsuid(), GLOBAL_ROOT_UID))
		return 0;
	if (gid >= 0 && in_group_p(make_kgid(&init_user_ns, gid)))
		return 0;
	return capable(CAP_SYS_ADMIN) ? 0 : -EACCES;
}

bool hwt_perm_limited(void)
{
	return READ_ONCE(hwt_paranoid) >= 0 && !capable(CAP_SYS_ADMIN);
}

static bool (*hwt_ptrace_may_access)(struct task_struct *task, unsigned int mode);
static const char *hwt_perm_no_route = "not resolved yet";

#ifdef CONFIG_X86_KERNEL_IBT
/* ENDBR64, the instruction an IBT-enforcing CPU wants at an indirect call's target. */
static bool hwt_perm_endbr_at(void *addr)
{
	static const u8 endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
	u8 insn[4];

	return !copy_from_kernel_nofault(insn, addr, sizeof(insn)) &&
	       !memcmp(insn, endbr64, sizeof(insn));
}
#endif

void hwt_perm_init(void)
{
	struct kprobe kp = { .symbol_name = "ptrace_may_access" };
	void *addr;

	if (IS_ENABLED(CONFIG_CFI_CLANG)) {
		hwt_perm_no_route = "indirect calls checked by type (kCFI)";
		goto none;
	}
	if (register_kprobe(&kp)) {
		hwt_perm_no_route = "ptrace_may_access not found";
		goto none;
	}
	addr = kp.addr;
	unregister_kprobe(&kp);
#ifdef CONFIG_X86_KERNEL_IBT
	/* On an IBT kernel a kprobe at a function's entry lands after its ENDBR. */
	if (hwt_perm_endbr_at(addr - 4))
		addr -= 4;
	else if (!hwt_perm_endbr_at(addr) && cpu_feature_enabled(X86_FEATURE_IBT)) {
		hwt_perm_no_route = "ptrace_may_access has no ENDBR (sealed) and the CPU enforces IBT";
		goto none;
	}
#endif
	hwt_ptrace_may_access = addr;
	return;
none:
	pr_warn("hwt: THREAD mode refused: the kernel's ptrace check cannot be called (%s)\n",
		hwt_perm_no_route);
}

int hwt_perm_thread(struct task_struct *task)
{
	if (!hwt_ptrace_may_access) {
		pr_warn_ratelimited("hwt: THREAD mode refused: the kernel's ptrace check cannot be called (%s)\n",
				    hwt_perm_no_route);
		return -EOPNOTSUPP;
	}
	return hwt_ptrace_may_access(task, PTRACE_MODE_ATTACH_REALCREDS) ? 0 : -EPERM;
}

int hwt_perm_cpu(void)
{
	if (capable(CAP_SYS_ADMIN))
		return 0;
	if (!perfmon_capable())
		return -EPERM;
	return READ_ONCE(hwt_paranoid) >= 2 ? -EACCES : 0;
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

/*
 * One question to the owner: may it ptrace @task? Shared by the asking
 * thread and the task work on the owner; the last one out frees it.
 */
struct hwt_perm_ask {
	struct callback_head	cb;
	refcount_t		ref;
	struct task_struct	*task;	/* reference held */
	struct completion	done;
	bool			allowed;	/* written before done completes */
};

static void hwt_perm_ask_put(struct hwt_perm_ask *ask)
{
	if (refcount_dec_and_test(&ask->ref)) {
		put_task_struct(ask->task);
		kfree(ask);
	}
}

/* Task work on the owner: current is the owner, as at HWT_IOC_ALLOC. */
static void hwt_perm_ask_work(struct callback_head *cb)
{
	struct hwt_perm_ask *ask = container_of(cb, struct hwt_perm_ask, cb);

	ask->allowed = hwt_ptrace_may_access(ask->task, PTRACE_MODE_ATTACH_REALCREDS);
	complete(&ask->done);
	hwt_perm_ask_put(ask);
	/* The queue took a module reference: this code stays until here. */
	module_put(THIS_MODULE);
}

const char *hwt_perm_exec_ask(struct task_struct *owner, struct task_struct *task,
			      unsigned int timeout_ms)
{
	struct hwt_perm_ask *ask;
	const char *why = NULL;
	long ret;

	if (!hwt_ptrace_may_access)
		return "the kernel's ptrace check cannot be called";
	/* The owner is the exec'ing thread itself (its other threads died in the exec). */
	if (same_thread_group(owner, current))
		return hwt_ptrace_may_access(task, PTRACE_MODE_ATTACH_REALCREDS) ?
			NULL : "the owner may not ptrace it";
	ask = kzalloc(sizeof(*ask), GFP_KERNEL);
	if (!ask)
		return "no memory to ask the owner";
	refcount_set(&ask->ref, 2);
	ask->task = get_task_struct(task);
	init_completion(&ask->done);
	init_task_work(&ask->cb, hwt_perm_ask_work);
	__module_get(THIS_MODULE);
	/* TWA_SIGNAL: the owner answers even while it sleeps in a syscall (restarted after). */
	if (task_work_add(owner, &ask->cb, TWA_SIGNAL)) {
		module_put(THIS_MODULE);
		refcount_set(&ask->ref, 1);
		hwt_perm_ask_put(ask);
		return "the owner has exited";
	}
	ret = wait_for_completion_killable_timeout(&ask->done, msecs_to_jiffies(timeout_ms));
	if (ret > 0)
		why = READ_ONCE(ask->allowed) ? NULL : "the owner may not ptrace it";
	else if (ret == 0)
		why = "the owner did not answer within the pause timeout";
	else
		why = "killed while asking the owner";
	hwt_perm_ask_put(ask);
	return why;
}
