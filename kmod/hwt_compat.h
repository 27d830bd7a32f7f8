/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What differs between the kernels hwt.ko is built for (Debian's 6.1 and
 * the 6.12 of bookworm-backports), in one place.
 */
#ifndef HWT_COMPAT_H
#define HWT_COMPAT_H

#include <linux/elf-em.h>
#include <linux/fs.h>
#include <linux/ftrace.h>
#include <linux/mm.h>
#include <linux/version.h>
#if defined(CONFIG_X86)
#include <asm/msr.h>
#elif defined(CONFIG_ARM64)
#include <clocksource/arm_arch_timer.h>
#endif

/* vm_flags became read-only in 6.3 (vm_flags_mod). */
static inline void hwt_vma_flags_mod(struct vm_area_struct *vma, unsigned long set,
				     unsigned long clear)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	vm_flags_mod(vma, set, clear);
#else
	vma->vm_flags = (vma->vm_flags | set) & ~clear;
#endif
}

/* A reference on @mm's executable or NULL; RCU held (get_file_rcu changed in 6.7). */
static inline struct file *hwt_mm_exe_file_rcu(struct mm_struct *mm)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
	return get_file_rcu(&mm->exe_file);
#else
	struct file *f = rcu_dereference(mm->exe_file);

	return f && get_file_rcu(f) ? f : NULL;
#endif
}

/*
 * The common path of munmap, mremap (and in 6.1 MAP_FIXED replacement):
 * (iterator, mm, start, len, ...) in both.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#define HWT_MUNMAP_SYMBOL	"do_vmi_munmap"
#else
#define HWT_MUNMAP_SYMBOL	"do_mas_munmap"
#endif

/*
 * Argument @n of the function an ftrace_ops callback is entered for
 * (hwt_probe.c). With DYNAMIC_FTRACE_WITH_ARGS (x86-64) the argument
 * registers are saved without FTRACE_OPS_FL_SAVE_REGS: 6.12 has an
 * accessor, 6.1's ftrace_regs is a pt_regs whose argument registers are
 * set. Without it (arm64 6.1), the ops asks for SAVE_REGS (HWT_FTRACE_FLAGS)
 * and the full pt_regs is there.
 */
#ifdef ftrace_regs_get_argument
#define hwt_ftrace_arg(fregs, n)	ftrace_regs_get_argument(fregs, n)
#define HWT_FTRACE_FLAGS		0
#elif defined(CONFIG_HAVE_DYNAMIC_FTRACE_WITH_ARGS)
#define hwt_ftrace_arg(fregs, n)	regs_get_kernel_argument(&(fregs)->regs, n)
#define HWT_FTRACE_FLAGS		0
#else
#define hwt_ftrace_arg(fregs, n)	regs_get_kernel_argument(ftrace_get_regs(fregs), n)
#define HWT_FTRACE_FLAGS		FTRACE_OPS_FL_SAVE_REGS
#endif

/*
 * The records' clock: the one the trace units' own timestamps count, so that a
 * decoder can tell which records a piece of trace follows. x86: the TSC
 * (Intel PT's TSC packets; user space converts it). arm64: the generic
 * timer's counter (CNTVCT_EL0, which ETM and SPE timestamps count), read the
 * way the arch timer driver reads it, with its errata workarounds.
 */
static inline u64 hwt_clock(void)
{
#if defined(CONFIG_X86)
	return rdtsc();
#elif defined(CONFIG_ARM64)
	return arch_timer_read_counter();
#else
#error "hwt.ko: no record clock for this architecture (x86-64 and arm64 only)"
#endif
}

/* The e_machine of the native programs whose images selection reads. */
#if defined(CONFIG_X86)
#define HWT_EM_NATIVE	EM_X86_64
#elif defined(CONFIG_ARM64)
#define HWT_EM_NATIVE	EM_AARCH64
#endif

#endif /* HWT_COMPAT_H */
