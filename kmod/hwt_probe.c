// SPDX-License-Identifier: GPL-2.0
/* Attaching the hooks: see hwt_probe.h. */
#include <linux/kprobes.h>
#include <linux/lockdep.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "hwt_compat.h"
#include "hwt_context.h"
#include "hwt_hook.h"
#include "hwt_probe.h"

struct hwt_probe_tp {
	const char		*name;
	void			*probe;
	struct tracepoint	*tp;
};

static struct hwt_probe_tp hwt_probe_tps[] = {
	{ "sched_process_exec",	hwt_hook_on_exec },
	{ "sched_process_fork",	hwt_hook_on_fork },
	{ "sched_process_exit",	hwt_hook_on_exit },
	{ "sched_switch",	hwt_hook_on_switch },
	{ "signal_deliver",	hwt_hook_on_signal },
};

static struct kprobe hwt_probe_kp_mmap;
static struct kprobe hwt_probe_kp_munmap;

static void hwt_probe_tp_lookup(struct tracepoint *tp, void *priv)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(hwt_probe_tps); i++) {
		if (!strcmp(tp->name, hwt_probe_tps[i].name))
			hwt_probe_tps[i].tp = tp;
	}
}

int hwt_probe_init(void)
{
	int i;

	/* The sched tracepoints are not exported to modules; find them by name. */
	for_each_kernel_tracepoint(hwt_probe_tp_lookup, NULL);
	for (i = 0; i < ARRAY_SIZE(hwt_probe_tps); i++) {
		if (!hwt_probe_tps[i].tp) {
			pr_err("hwt: tracepoint %s not found\n", hwt_probe_tps[i].name);
			return -ENOENT;
		}
	}
	return 0;
}

static int hwt_probe_kprobe(struct kprobe *kp, const char *sym,
			   int (*pre)(struct kprobe *, struct pt_regs *))
{
	memset(kp, 0, sizeof(*kp));
	kp->symbol_name = sym;
	kp->pre_handler = pre;
	return register_kprobe(kp);
}

int hwt_probe_register(void)
{
	int i, ret;

	lockdep_assert_held(&hwt_mtx);
	for (i = 0; i < ARRAY_SIZE(hwt_probe_tps); i++) {
		ret = tracepoint_probe_register(hwt_probe_tps[i].tp, hwt_probe_tps[i].probe, NULL);
		if (ret)
			goto err_tp;
	}
	ret = hwt_probe_kprobe(&hwt_probe_kp_mmap, "perf_event_mmap", hwt_hook_on_mmap);
	if (ret) {
		pr_err("hwt: kprobe on perf_event_mmap: %d\n", ret);
		goto err_tp;
	}
	ret = hwt_probe_kprobe(&hwt_probe_kp_munmap, HWT_MUNMAP_SYMBOL, hwt_hook_on_munmap);
	if (ret) {
		pr_err("hwt: kprobe on %s: %d\n", HWT_MUNMAP_SYMBOL, ret);
		unregister_kprobe(&hwt_probe_kp_mmap);
		goto err_tp;
	}
	return 0;

err_tp:
	while (--i >= 0)
		tracepoint_probe_unregister(hwt_probe_tps[i].tp, hwt_probe_tps[i].probe, NULL);
	tracepoint_synchronize_unregister();
	return ret;
}

void hwt_probe_unregister(void)
{
	int i;

	lockdep_assert_held(&hwt_mtx);
	unregister_kprobe(&hwt_probe_kp_munmap);
	unregister_kprobe(&hwt_probe_kp_mmap);
	for (i = 0; i < ARRAY_SIZE(hwt_probe_tps); i++)
		tracepoint_probe_unregister(hwt_probe_tps[i].tp, hwt_probe_tps[i].probe, NULL);
	/* No probe runs after this: they may go with the module. */
	tracepoint_synchronize_unregister();
}
