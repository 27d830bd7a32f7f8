/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/* What hwt_test.ko's backends write into trace buffers (for the tests). */
#ifndef HWT_TEST_ENTRY_H
#define HWT_TEST_ENTRY_H

#include <linux/types.h>

#define HWT_TEST_MAGIC		0x54545748u	/* "HWTT": backend "test" */
#define HWT_TEST2_MAGIC		0x32545748u	/* "HWT2": backend "test2" */

enum hwt_test_what {
	HWT_TEST_THREAD_ALLOC = 1,
	HWT_TEST_THREAD_IN = 2,
	HWT_TEST_THREAD_OUT = 3,
	HWT_TEST_CPU_ENABLE = 4,
	HWT_TEST_CPU_DISABLE = 5,
	HWT_TEST_CPU_SWITCH = 6,
};

struct hwt_test_entry {
	__u32 magic;
	__u32 id;	/* buffer: tid or CPU */
	__u64 seq;	/* entry number in the buffer since allocation */
	__u32 pid;	/* thread switched in (CPU mode); THREAD_IN: the task the
			 * enable ran in (the thread's own task work, or the task
			 * it was switched in after); else the buffer's tid */
	__u32 cpu;
	__u32 ident;	/* context ident */
	__u32 what;	/* enum hwt_test_what */
};

#endif /* HWT_TEST_ENTRY_H */
