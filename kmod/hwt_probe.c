// SPDX-License-Identifier: GPL-2.0
/* Attaching the hooks: see hwt_probe.h. */
#include <linux/ftrace.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <trace/events/sched.h>
#include <trace/events/signal.h>

#include "hwt_ioctl.h"
#include "hwt_compat.h"
#include "hwt_hook.h"
#include "hwt_probe.h"
#include "hwt_stats.h"

/*
 * Each probe's type must be the tracepoint's TP_PROTO (with the data
 * pointer first): the kernel's register_trace_<name>() declares it, so a
 * kernel that changes a prototype fails the build here instead of calling
 * the probe with other arguments. HWT_PROBE_PROTO_SELFTEST (build_ways.sh)
 * checks a wrong prototype is refused.
 */
#define HWT_PROBE_CHECK(name, fn)						\
	static_assert(__builtin_types_compatible_p(typeof(&register_trace_##name), \
						   int (*)(typeof(&fn), void *)), \
		      #fn " does not match the prototype of tracepoint " #name)

HWT_PROBE_CHECK(sched_process_exec, hwt_hook_on_exec);
HWT_PROBE_CHECK(sched_process_fork, hwt_hook_on_fork);
HWT_PROBE_CHECK(sched_process_exit, hwt_hook_on_exit);
HWT_PROBE_CHECK(sched_switch, hwt_hook_on_switch);
HWT_PROBE_CHECK(signal_deliver, hwt_hook_on_signal);
#ifdef HWT_PROBE_PROTO_SELFTEST
HWT_PROBE_CHECK(sched_switch, hwt_hook_on_exit);
#endif

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

/*
 * The function hooks, each needed by one feature only: a missing one turns
 * it off. Each is an ftrace_ops of its own, filtered to its one function
 * by name, so the function's call site jumps straight to a trampoline that
 * calls the hook with the argument registers saved (not a kprobe: no
 * pt_regs, no kprobe look-up, no second dispatch), which keeps the cost on
 * untraced tasks at the hook's first test.
 */
struct hwt_probe_fn {
	const char		*sym;
	ftrace_func_t		func;
	u32			feature;	/* HWT_FEATURE_* */
	const char		*what;		/* for the warning */
	struct ftrace_ops	ops;
	bool			registered;
};

static struct hwt_probe_fn hwt_probe_fns[] = {
	{ "perf_event_mmap", hwt_hook_on_mmap, HWT_FEATURE_MMAP, "MMAP records of mmap() calls" },
	{ HWT_MUNMAP_SYMBOL, hwt_hook_on_munmap, HWT_FEATURE_MUNMAP, "MUNMAP records" },
};

u32 hwt_probe_features_off;

/*
 * Debugging: functions whose hooks are not registered, as if the kernel
 * lacked them (comma-separated), to test the warning and what still works.
 */
static char *pretend_missing = "";
module_param(pretend_missing, charp, 0444);
MODULE_PARM_DESC(pretend_missing,
		 "debug: hooked functions to treat as missing (comma-separated)");

static bool hwt_probe_pretend_missing(const char *sym)
{
	size_t len = strlen(sym);
	const char *p = pretend_missing;

	while (p && *p) {
		const char *end = strchrnul(p, ',');

		if (end - p == len && !strncmp(p, sym, len))
			return true;
		p = *end ? end + 1 : end;
	}
	return false;
}

static void hwt_probe_tp_lookup(struct tracepoint *tp, void *priv)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(hwt_probe_tps); i++) {
		if (!strcmp(tp->name, hwt_probe_tps[i].name))
			hwt_probe_tps[i].tp = tp;
	}
}

static int hwt_probe_fn_register(struct hwt_probe_fn *f)
{
	int ret;

	if (hwt_probe_pretend_missing(f->sym))
		return -ENOENT;
	memset(&f->ops, 0, sizeof(f->ops));
	f->ops.func = f->func;
	f->ops.flags = HWT_FTRACE_FLAGS;
	/* -EINVAL when the kernel has no traceable function of that name. */
	ret = ftrace_set_filter(&f->ops, (unsigned char *)f->sym, strlen(f->sym), 1);
	if (!ret)
		ret = register_ftrace_function(&f->ops);
	if (ret)
		ftrace_free_filter(&f->ops);
	return ret;
}

static void hwt_probe_fns_register(void)
{
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(hwt_probe_fns); i++) {
		struct hwt_probe_fn *f = &hwt_probe_fns[i];

		ret = hwt_probe_fn_register(f);
		f->registered = !ret;
		if (ret) {
			hwt_probe_features_off |= f->feature;
			pr_warn("hwt: function hook on %s: %d: %s are off\n", f->sym, ret, f->what);
		}
	}
}

int hwt_probe_init(void)
{
	int i, ret;

	/* The sched tracepoints are not exported to modules; find them by name. */
	for_each_kernel_tracepoint(hwt_probe_tp_lookup, NULL);
	for (i = 0; i < ARRAY_SIZE(hwt_probe_tps); i++) {
		if (!hwt_probe_tps[i].tp) {
			pr_err("hwt: tracepoint %s not found\n", hwt_probe_tps[i].name);
			return -ENOENT;
		}
	}
	for (i = 0; i < ARRAY_SIZE(hwt_probe_tps); i++) {
		ret = tracepoint_probe_register(hwt_probe_tps[i].tp, hwt_probe_tps[i].probe, NULL);
		if (ret) {
			pr_err("hwt: tracepoint %s: %d\n", hwt_probe_tps[i].name, ret);
			goto err_tp;
		}
	}
	hwt_probe_fns_register();
	atomic64_inc(&hwt_stats.hook_registrations);
	return 0;

err_tp:
	while (--i >= 0)
		tracepoint_probe_unregister(hwt_probe_tps[i].tp, hwt_probe_tps[i].probe, NULL);
	tracepoint_synchronize_unregister();
	return ret;
}

void hwt_probe_exit(void)
{
	int i;

	for (i = ARRAY_SIZE(hwt_probe_fns) - 1; i >= 0; i--) {
		/* Waits until no CPU runs the hook (ftrace's synchronisation). */
		if (hwt_probe_fns[i].registered) {
			unregister_ftrace_function(&hwt_probe_fns[i].ops);
			ftrace_free_filter(&hwt_probe_fns[i].ops);
		}
		hwt_probe_fns[i].registered = false;
	}
	for (i = 0; i < ARRAY_SIZE(hwt_probe_tps); i++)
		tracepoint_probe_unregister(hwt_probe_tps[i].tp, hwt_probe_tps[i].probe, NULL);
	/* No probe runs after this: they may go with the module. */
	tracepoint_synchronize_unregister();
}
