/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Attaching the hooks (hwt_hook.h) to the kernel: tracepoint probes and
 * ftrace_ops function hooks, registered once when the module loads and unregistered when it
 * unloads. No kernel text is patched while contexts come and go; a hook
 * on a task that nothing traces returns after one test (hwt_hook.c).
 * A hooked function the kernel lacks (renamed, inlined) turns off the
 * feature that needs it, with a warning, and HWT_IOC_STATS reports it in
 * features_off; a missing tracepoint fails the load.
 */
#ifndef HWT_PROBE_H
#define HWT_PROBE_H

#include <linux/types.h>

/* HWT_FEATURE_* bits whose function hook could not be registered (written at load). */
extern u32 hwt_probe_features_off;

/* Finds the tracepoints and registers every hook (module init); -ENOENT. */
int hwt_probe_init(void);
/* Unregisters every hook and waits for running probes (module exit). */
void hwt_probe_exit(void);

#endif /* HWT_PROBE_H */
