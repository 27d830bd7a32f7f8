/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * The "sw" backend of hwt.ko (hwt_sw.ko): user-mode execution of THREAD-mode
 * targets, single-stepped, written as Intel PT packets (a user-mode-only
 * unit with return compression off, as docs/bundle.md's streams).
 * Its configuration is the backend config of HWT_IOC_SET_CONFIG.
 */
#ifndef HWT_SW_H
#define HWT_SW_H

#include <linux/types.h>

#define HWT_SW_BACKEND		"sw"

/* hwt_sw_config.flags */
#define HWT_SW_WRAP		0x1u	/* a full buffer is written over (a LOST record says
					   how much), instead of pausing the thread */
#define HWT_SW_BLOCKS		0x2u	/* log every executed block into the thread's second
					   buffer (HWT_ALLOC aux_bufsize), as blocks/ files hold */
#define HWT_SW_FILTER		0x4u	/* trace only inside the ranges: a process that has
					   none traces nothing (IP filtering, as ADDRn) */
#define HWT_SW_FLAGS		0x7u

#define HWT_SW_RANGES_MAX	4	/* address ranges per process, as Intel PT's ADDRn */
#define HWT_SW_PSB_DEFAULT	4096u

/*
 * With HWT_SW_FILTER, trace only [start, end) of process pid. A range lies
 * in one file-backed executable mapping; code outside runs unstepped, and
 * the backend catches re-entry at the range's start and after each call
 * it holds (uprobes).
 */
struct hwt_sw_range {
	__s32 pid;
	__u32 reserved;		/* must be zero */
	__u64 start;
	__u64 end;
};

struct hwt_sw_config {
	__u32 size;		/* sizeof(struct hwt_sw_config), without the ranges */
	__u32 flags;		/* HWT_SW_* */
	__u32 psb_period;	/* bytes of packets between PSB+, 256..1 MiB; 0: 4096 */
	__u32 nranges;		/* entries that follow (with HWT_SW_FILTER) */
	struct hwt_sw_range ranges[];
};
#define HWT_SW_CONFIG_SIZE_VER0	16u

/* One entry of the block log: straight-line instructions from start. */
struct hwt_sw_block {
	__u64 start;
	__u32 insns;
	__u32 flags;		/* 0 */
};

#endif /* HWT_SW_H */
