// SPDX-License-Identifier: GPL-2.0
/*
 * hwt_sw.ko in CPU mode (hwt_sw_int.h): the user-mode code of every
 * thread that runs on a traced CPU is stepped while it runs there, into
 * that CPU's buffer. A CPU runs one thread at a time, so each CPU has one
 * step state (a struct hwt_sw_thread whose task is the thread it steps
 * now); TF is set in a thread's registers only while it is current on a
 * traced CPU: at its switch-in, and cleared at its switch-out, exit, and
 * on each CPU (interrupting whatever runs) when the context stops. So a
 * thread carries no TF of ours off the CPU, and nothing outlives the
 * context but a fork child copied in the instant before (the backstop in
 * hwt_sw_cpu_stray).
 *
 * The buffer is cut into the threads' streams by SWITCH records with its
 * offset: "in" where a thread's stream begins (PSB+, queued at its first
 * packet after the switch-in), "out" where it ends (after its last packet,
 * TIP.PGD). An exec ends one and the new image begins the next. Not
 * stepped: kernel threads (user mode only), io_uring workers, exiting
 * threads and the collector's own process (the context's allocator).
 * A full buffer is written over (HWT_SW_WRAP: a CPU cannot pause).
 */
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/task_work.h>
#include <asm/msr.h>
#include <asm/processor-flags.h>
#include <asm/ptrace.h>
#include <asm/syscall.h>

#include "hwt_record.h"
#include "hwt_sw_int.h"

/* This CPU's state while a context traces it: written and read with interrupts off. */
static DEFINE_PER_CPU(struct hwt_sw_thread *, hwt_sw_cpu_state);
/* Live CPU-mode contexts, and when the last one went (jiffies): the backstop's window. */
static atomic_t hwt_sw_cpu_live = ATOMIC_INIT(0);
static unsigned long hwt_sw_cpu_ended;
#define HWT_SW_CPU_BACKSTOP	(10 * HZ)

int hwt_sw_cpu_init(struct hwt_sw_ctx *sc)
{
	unsigned int cpu;

	sc->owner_tgid = task_tgid_nr(current);
	sc->cpu = kcalloc(nr_cpu_ids, sizeof(*sc->cpu), GFP_KERNEL);
	if (!sc->cpu)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		sc->cpu[cpu] = hwt_sw_state_alloc(sc);
		if (!sc->cpu[cpu]) {
			hwt_sw_cpu_deinit(sc);
			return -ENOMEM;
		}
	}
	atomic_inc(&hwt_sw_cpu_live);
	return 0;
}

void hwt_sw_cpu_deinit(struct hwt_sw_ctx *sc)
{
	unsigned int cpu;
	bool live = true;

	/* Stopping cleared them on every online CPU; an offline one may keep it. */
	for_each_possible_cpu(cpu) {
		if (!sc->cpu[cpu])
			live = false;
		else if (per_cpu(hwt_sw_cpu_state, cpu) == sc->cpu[cpu])
			per_cpu(hwt_sw_cpu_state, cpu) = NULL;
	}
	synchronize_rcu();	/* the trap handler reads it with interrupts off */
	for_each_possible_cpu(cpu)
		if (sc->cpu[cpu])
			hwt_sw_state_free(sc->cpu[cpu]);
	kfree(sc->cpu);
	sc->cpu = NULL;
	if (live) {
		WRITE_ONCE(hwt_sw_cpu_ended, jiffies);
		atomic_dec(&hwt_sw_cpu_live);
	}
}

struct hwt_sw_thread *hwt_sw_cpu_current(void)
{
	struct hwt_sw_thread *cs = this_cpu_read(hwt_sw_cpu_state);

	return cs && cs->task == current ? cs : NULL;
}

bool hwt_sw_cpu_stray(struct pt_regs *regs)
{
	if (!atomic_read(&hwt_sw_cpu_live) &&
	    time_after(jiffies, READ_ONCE(hwt_sw_cpu_ended) + HWT_SW_CPU_BACKSTOP))
		return false;
	/* A debugger's step (or a program's own TF under ptrace) is not ours. */
	if (current->ptrace || test_thread_flag(TIF_SINGLESTEP))
		return false;
	regs->flags &= ~X86_EFLAGS_TF;
	return true;
}

/* SWITCH of @t: its stream in this CPU's buffer begins (@in) or ends here. */
static void hwt_sw_cpu_record(struct hwt_sw_thread *cs, struct task_struct *t, u32 in)
{
	struct hwt_record_switch rec;

	memset(&rec, 0, sizeof(rec));
	rec.hdr.magic = HWT_RECORD_MAGIC;
	rec.hdr.type = HWT_RECORD_SWITCH;
	rec.hdr.size = sizeof(rec);
	rec.hdr.time = rdtsc();
	rec.hdr.pid = task_tgid_nr(t);
	rec.hdr.tid = task_pid_nr(t);
	rec.cpu = smp_processor_id();
	rec.in = in;
	rec.offset = cs->pt.buf->offset;
	hwt_context_record(cs->sc->ctx, &rec.hdr);
}

void hwt_sw_cpu_segment(struct hwt_sw_thread *cs)
{
	hwt_sw_cpu_record(cs, cs->task, 1);
	cs->segment = true;
}

/* @t (current, or switched out) stops being stepped here: its stream ends. */
static void hwt_sw_cpu_end(struct hwt_sw_thread *cs, struct task_struct *t)
{
	struct pt_regs *regs = task_pt_regs(t);

	hwt_sw_leave(cs, syscall_get_nr(t, regs) != -1);
	regs->flags &= ~X86_EFLAGS_TF;
	cs->tf = false;
	if (cs->segment)
		hwt_sw_cpu_record(cs, t, 0);
	cs->segment = false;
	cs->fresh = true;
	cs->task = NULL;
}

static bool hwt_sw_cpu_wanted(struct hwt_sw_ctx *sc, struct task_struct *t)
{
	return !(t->flags & (PF_KTHREAD | PF_IO_WORKER | PF_EXITING)) && t->mm &&
	       task_tgid_nr(t) != sc->owner_tgid;
}

/* @t, about to run user code here, is stepped from where its registers say: TIP.PGE there. */
static void hwt_sw_cpu_begin(struct hwt_sw_ctx *sc, struct hwt_sw_thread *cs, struct task_struct *t)
{
	if (!hwt_sw_cpu_wanted(sc, t))
		return;
	cs->task = t;
	hwt_sw_arm(cs, task_pt_regs(t));
}

/* The CPU's state when @ctx traces this CPU (interrupts off), else NULL. */
static struct hwt_sw_thread *hwt_sw_cpu_of(struct hwt_context *ctx, int cpu)
{
	struct hwt_sw_ctx *sc = hwt_context_backend_priv(ctx);
	struct hwt_sw_thread *cs = this_cpu_read(hwt_sw_cpu_state);

	return cs && cs == sc->cpu[cpu] ? cs : NULL;
}

/*
 * On @cpu (an IPI): threads are stepped from their next switch-in on, and
 * the one this IPI interrupted from now, as a switch-in would: a busy
 * thread may keep its CPU for the whole trace.
 */
void hwt_sw_cpu_enable(struct hwt_context *ctx, int cpu)
{
	struct hwt_sw_ctx *sc = hwt_context_backend_priv(ctx);
	struct hwt_sw_thread *cs = sc->cpu[cpu];

	cs->pt.buf = hwt_context_cpu_buffer(ctx, cpu);
	if (!cs->pt.buf)
		return;
	cs->task = NULL;
	cs->tf = false;
	cs->fresh = true;
	cs->segment = false;
	this_cpu_write(hwt_sw_cpu_state, cs);
	hwt_sw_cpu_begin(sc, cs, current);
}

/* On @cpu (an IPI, interrupting whatever runs): the thread stepped now stops. */
void hwt_sw_cpu_disable(struct hwt_context *ctx, int cpu)
{
	struct hwt_sw_thread *cs = hwt_sw_cpu_of(ctx, cpu);

	if (!cs)
		return;
	/* Its user registers are task_pt_regs(current), in user mode or in a system call. */
	if (cs->task == current)
		hwt_sw_cpu_end(cs, current);
	cs->task = NULL;
	this_cpu_write(hwt_sw_cpu_state, NULL);
}

void hwt_sw_cpu_switch(struct hwt_context *ctx, int cpu, struct task_struct *prev,
		       struct task_struct *next)
{
	struct hwt_sw_ctx *sc = hwt_context_backend_priv(ctx);
	struct hwt_sw_thread *cs = hwt_sw_cpu_of(ctx, cpu);

	if (!cs)
		return;
	if (cs->task == prev)
		hwt_sw_cpu_end(cs, prev);
	hwt_sw_cpu_begin(sc, cs, next);
}

/* The old image's stream ends; the new one is stepped from its entry (start_thread cleared TF). */
void hwt_sw_cpu_exec(struct hwt_context *ctx)
{
	struct hwt_sw_thread *cs;
	unsigned long flags;

	local_irq_save(flags);
	cs = hwt_sw_cpu_of(ctx, smp_processor_id());
	if (cs && cs->task == current) {
		hwt_sw_leave(cs, true);
		if (cs->segment)
			hwt_sw_cpu_record(cs, current, 0);
		cs->segment = false;
		cs->fresh = true;
		hwt_sw_arm(cs, task_pt_regs(current));
	}
	local_irq_restore(flags);
}

void hwt_sw_cpu_exit(struct hwt_context *ctx)
{
	struct hwt_sw_thread *cs;
	unsigned long flags;

	local_irq_save(flags);
	cs = hwt_sw_cpu_of(ctx, smp_processor_id());
	if (cs && cs->task == current)
		hwt_sw_cpu_end(cs, current);
	local_irq_restore(flags);
}

/* After a signal's frame: TF again, where the handler (or the thread) resumes. */
struct hwt_sw_rearm {
	struct callback_head	cb;
};

static void hwt_sw_cpu_rearm(struct callback_head *cb)
{
	struct hwt_sw_thread *cs;
	unsigned long flags;

	kfree(container_of(cb, struct hwt_sw_rearm, cb));
	local_irq_save(flags);
	/*
	 * Stepped here (maybe on another CPU, switched in since): it has run
	 * no user instruction since the signal, so it resumes at regs->ip,
	 * wherever a switch-in meanwhile thought.
	 */
	cs = hwt_sw_cpu_current();
	if (cs)
		hwt_sw_arm(cs, task_pt_regs(current));
	local_irq_restore(flags);
	module_put(THIS_MODULE);
}

void hwt_sw_cpu_signal(struct hwt_context *ctx, int sig)
{
	struct hwt_sw_thread *cs = hwt_sw_cpu_of(ctx, smp_processor_id());
	struct hwt_sw_rearm *w;

	if (!cs || cs->task != current)
		return;
	hwt_sw_leave(cs, syscall_get_nr(current, task_pt_regs(current)) != -1);
	/* The frame clears TF: task work (before user mode) sets it again. */
	w = kmalloc(sizeof(*w), GFP_ATOMIC);
	if (w && try_module_get(THIS_MODULE)) {
		init_task_work(&w->cb, hwt_sw_cpu_rearm);
		if (!task_work_add(current, &w->cb, TWA_RESUME))
			return;
		module_put(THIS_MODULE);
	}
	kfree(w);
	cs->st.lost = 1;	/* until its next switch-in: OVF then */
}

/* The child has its parent's registers: TF set by us must not go with it. */
void hwt_sw_cpu_fork(struct hwt_context *ctx, struct task_struct *child)
{
	if (!current->ptrace && !test_thread_flag(TIF_SINGLESTEP))
		task_pt_regs(child)->flags &= ~X86_EFLAGS_TF;
}
