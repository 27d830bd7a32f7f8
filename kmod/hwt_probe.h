/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Attaching the hooks (hwt_hook.h) to the kernel: tracepoint probes and
 * kprobes, registered when the first context is allocated and unregistered
 * when the last is freed, so that they cost nothing without a context.
 */
#ifndef HWT_PROBE_H
#define HWT_PROBE_H

/* Finds the tracepoints, which are not exported to modules (module init); -ENOENT. */
int hwt_probe_init(void);
/* Registers / unregisters every hook. hwt_mtx held. */
int hwt_probe_register(void);
void hwt_probe_unregister(void);

#endif /* HWT_PROBE_H */
