// SPDX-License-Identifier: GPL-2.0
/*
 * What one stepped instruction writes (hwt_sw_int.h). With TF set the CPU
 * traps after each user instruction: the trap says where the thread is now
 * (regs->ip) and the state says which instruction ran (next_ip, read and
 * classified here). The packets are those of a user-mode-only Intel PT unit
 * with return compression off, as the software units write them
 * (docs/trace-unit.md):
 *
 *   conditional branch                   TNT bit
 *   indirect jump or call, return        TIP(target)
 *   direct jump or call, anything else   nothing
 *   SYSCALL, INT n (far)                 TIP.PGD; TIP.PGE where user mode resumes
 *   interrupted by a signal              FUP(ip), TIP.PGD
 *   a record was queued since            TSC
 *   bytes could not be written           OVF, FUP(ip)
 *   a branch out of the ranges (filter)  TIP.PGD(target)
 *
 * A far instruction gets no trap of its own: the next trap comes after
 * the first instruction back in user mode. That one is the instruction
 * after it, or for rt_sigreturn the IP in the signal frame; a signal
 * delivered on the way out (hwt_sw_leave from thread_signal) and exec
 * (thread_exec) are seen by hooks. A REP string instruction traps after
 * each iteration and is counted once.
 */
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/stddef.h>
#include <linux/uaccess.h>
#include <asm/msr.h>
#include <asm/processor-flags.h>
#include <asm/ptrace.h>
#include <asm/sigframe.h>
#include <asm/unistd.h>

#include "hwt_sw_int.h"
#include "x86_insn.h"

/* Far instructions in a row without a trap between them (a restarted syscall). */
#define HWT_SW_CHAIN_MAX	8

/* The instruction at @ip, read without faulting (traps and hooks run atomic). */
static bool hwt_sw_decode(u64 ip, struct hwt_x86_insn *insn, bool *is_syscall)
{
	u8 bytes[HWT_X86_MAX_LEN];
	size_t n = sizeof(bytes);

	if (copy_from_user_nofault(bytes, (const void __user *)ip, n)) {
		/* It ran, so its own bytes are there; the next page may not be. */
		n = PAGE_SIZE - offset_in_page(ip);
		if (n >= sizeof(bytes) || copy_from_user_nofault(bytes, (const void __user *)ip, n))
			return false;
	}
	if (hwt_x86_insn_decode(bytes, n, insn) < 0)
		return false;
	*is_syscall = insn->length == 2 && bytes[0] == 0x0f && bytes[1] == 0x05;
	return true;
}

/*
 * Where user mode resumed after the far instruction at @ip: after it, or
 * for rt_sigreturn (rax @ax) where the signal frame at @sp says.
 */
static u64 hwt_sw_return_ip(u64 ip, const struct hwt_x86_insn *insn, bool is_syscall,
			    u64 ax, u64 sp)
{
	/* The handler's RET popped pretcode: sp is the frame's uc. */
	u64 at = sp - sizeof(long) + offsetof(struct rt_sigframe, uc.uc_mcontext.ip);
	u64 rip;

	if (is_syscall && ax == __NR_rt_sigreturn &&
	    !copy_from_user_nofault(&rip, (const void __user *)at, sizeof(rip)))
		return rip;
	return ip + insn->length;
}

void hwt_sw_begin(struct hwt_sw_thread *ts)
{
	struct hwt_sw_cfg *cfg;
	u32 psb_period;
	bool wrap;

	if (!ts->fresh)
		return;
	ts->fresh = false;
	/* A stream takes the configuration of its start. */
	rcu_read_lock();
	cfg = rcu_dereference(ts->sc->cfg);
	wrap = cfg->flags & HWT_SW_WRAP;
	psb_period = cfg->psb_period;
	hwt_sw_ring_init(&ts->pt, ts->pt.buf, wrap);
	hwt_sw_ring_init(&ts->blk, (cfg->flags & HWT_SW_BLOCKS) ? ts->aux : NULL, wrap);
	rcu_read_unlock();
	hwt_sw_ring_window(ts);
	hwt_sw_stream_start(&ts->st, ts->st.enc.buf, ts->st.enc.size, rdtsc(), psb_period,
			    &hwt_sw_ring_ops);
	ts->seen_time = hwt_context_record_time(ts->sc->ctx);
}

/*
 * Before the packets of instruction @ip: a TSC when the context queued a
 * record since the last one (the image may have changed: a decoder applies
 * records up to it), the OVF owed after dropped packets.
 */
static void hwt_sw_clock(struct hwt_sw_thread *ts, u64 now, u64 ip)
{
	u64 t = hwt_context_record_time(ts->sc->ctx);

	if (t != ts->seen_time) {
		ts->seen_time = t;
		hwt_sw_stream_sync(&ts->st, now, ip);
	} else if (ts->st.lost) {
		hwt_sw_stream_sync(&ts->st, ts->st.time, ip);
	}
}

/* Instruction @ip ran: counted, and logged in the block log. */
static void hwt_sw_executed(struct hwt_sw_thread *ts, u64 ip, const struct hwt_x86_insn *insn)
{
	if ((insn->flags & HWT_X86_REP) && ip == ts->rep_ip)
		return;		/* another iteration */
	ts->stepped++;
	if (!ts->blk.buf)
		return;
	if (ts->blk_cur.insns && ip == ts->blk_next) {
		ts->blk_cur.insns++;
	} else {
		hwt_sw_ring_block_close(ts);
		ts->blk_cur.start = ip;
		ts->blk_cur.insns = 1;
		ts->blk_cur.flags = 0;
	}
	ts->blk_next = ip + insn->length;
}

/*
 * The packets owed are not known (an instruction that could not be read,
 * an IP no instruction leads to: the kernel moved it): OVF, then tracing
 * resumes at the next IP (FUP, or TIP.PGE when it was disabled).
 */
static void hwt_sw_lose(struct hwt_sw_thread *ts)
{
	ts->st.lost = 1;
	ts->resume = !ts->st.enabled;
	hwt_sw_ring_block_close(ts);
}

/* The thread leaves its ranges: it runs on unstepped until a probe catches it. */
static void hwt_sw_out(struct hwt_sw_thread *ts, struct pt_regs *regs)
{
	regs->flags &= ~X86_EFLAGS_TF;
	ts->tf = false;
	ts->outside = true;
	ts->resume = false;
	ts->rep_ip = 0;
	hwt_sw_ring_block_close(ts);
}

/* The branch packet of @insn at @ip, which went to @to; false when it cannot have. */
static bool hwt_sw_outcome(struct hwt_sw_thread *ts, u64 ip, const struct hwt_x86_insn *insn,
			   u64 to)
{
	u64 fall = ip + insn->length;
	bool ok;

	switch (insn->branch) {
	case HWT_X86_OTHER:
		ok = to == fall || ((insn->flags & HWT_X86_REP) && to == ip);
		break;
	case HWT_X86_COND:
		ok = to == fall || to == hwt_x86_insn_target(insn, ip);
		break;
	case HWT_X86_JUMP:
	case HWT_X86_CALL:
		ok = to == hwt_x86_insn_target(insn, ip);
		break;
	default:
		ok = true;
		break;
	}
	if (!ok)
		return false;
	hwt_sw_stream_branch(&ts->st, insn->branch, to, fall);
	ts->rep_ip = (insn->flags & HWT_X86_REP) && to == ip ? ip : 0;
	return true;
}

void hwt_sw_step(struct hwt_sw_thread *ts, struct pt_regs *regs)
{
	struct hwt_sw_stream *s = &ts->st;
	u64 now = rdtsc(), to = regs->ip, ip = ts->next_ip;
	u64 ax = ts->next_ax, sp = ts->next_sp;
	struct hwt_x86_insn insn;
	bool sys;
	int i;

	hwt_sw_begin(ts);
	hwt_sw_filter_refresh(ts);
	hwt_sw_clock(ts, now, ip);
	for (i = 0;; i++) {
		if (i == 0 && ts->next_known) {
			insn = ts->next_insn;	/* a probe's: memory holds its int3 */
			sys = false;
			ts->next_known = false;
		} else if (i == HWT_SW_CHAIN_MAX || !hwt_sw_decode(ip, &insn, &sys)) {
			hwt_sw_lose(ts);
			goto next;
		}
		if (ts->resume) {
			hwt_sw_stream_enable(s, ip, now);
			ts->resume = false;
		}
		hwt_sw_executed(ts, ip, &insn);
		if (insn.branch != HWT_X86_FAR)
			break;
		/* It entered the kernel; the instruction back in user mode ran too. */
		hwt_sw_stream_disable(s);
		hwt_sw_ring_block_close(ts);
		ip = hwt_sw_return_ip(ip, &insn, sys, ax, sp);
		ax = -1;	/* not known for the next one */
		ts->resume = true;
		if (!hwt_sw_filter_in(ts, ip)) {
			hwt_sw_out(ts, regs);	/* back in user mode outside the ranges */
			goto next;
		}
	}
	if (!hwt_sw_filter_in(ts, to)) {
		/*
		 * Out of the ranges: TIP.PGD with the target instead of the
		 * branch's own packet, as the Valgrind unit writes it (libipt
		 * binds it to the branch without the filter configuration).
		 */
		hwt_sw_stream_reserve(s);
		hwt_pt_tip_pgd(&s->enc, to, 0);
		s->enabled = 0;
		hwt_sw_out(ts, regs);
	} else if (!hwt_sw_outcome(ts, ip, &insn, to)) {
		hwt_sw_lose(ts);
	}
next:
	ts->next_ip = to;
	ts->next_ax = regs->ax;
	ts->next_sp = regs->sp;
	hwt_sw_stream_psb_if_due(s, to);
}

void hwt_sw_leave(struct hwt_sw_thread *ts, bool in_syscall)
{
	struct hwt_x86_insn insn;
	u64 now = rdtsc(), ip = ts->next_ip;
	bool sys;

	if (ts->fresh)
		return;		/* nothing written since the stream (re)started */
	if (ts->tf) {
		ts->tf = false;
		if (in_syscall && hwt_sw_decode(ip, &insn, &sys) && insn.branch == HWT_X86_FAR) {
			/* It ran: this is its system call. */
			hwt_sw_clock(ts, now, ip);
			if (ts->resume)
				hwt_sw_stream_enable(&ts->st, ip, now);
			hwt_sw_executed(ts, ip, &insn);
			hwt_sw_stream_disable(&ts->st);
		} else if (!ts->resume && ts->st.enabled) {
			hwt_sw_stream_interrupt(&ts->st, ip, now);
		}
		ts->resume = false;
	}
	hwt_sw_ring_block_close(ts);
	hwt_sw_stream_flush(&ts->st);
}
