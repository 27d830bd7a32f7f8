/*
 * One traced thread (a QEMU vCPU): its Intel PT stream (x86-64 guests) or
 * ETMv4 stream (aarch64 guests: etm4_sw_stream.h says what each event
 * below becomes there; the logic is the same).
 *
 * Translated code calls hwt_qemu_vcpu_block at the start of every block it
 * runs, which appends the block's description to the thread's log; the log
 * is turned into packets when it fills, before any record, at system calls
 * and at the end. A block's packets depend on where the next one starts:
 * a conditional branch is taken when the next block is its target (TNT),
 * an indirect one went where the next block is (TIP). Tracing is enabled
 * (PacketEn) while the thread runs guest code; a system call disables it
 * (TIP.PGD) and the next block enables it again (TIP.PGE at its start), as
 * a user-mode-only hardware unit would.
 *
 * QEMU has no signal callback, and delivers a signal between two blocks:
 * the next block then starts where no branch of the last one leads (or,
 * after an indirect branch, at a registered handler). That is written as
 * the asynchronous event it is (FUP, TIP.PGD), then TIP.PGE at the
 * handler. Where the interrupted instruction's outcome is unknown (a
 * conditional or indirect branch that ended the last block), the event is
 * placed before that instruction, and the instruction is replayed when
 * rt_sigreturn resumes the thread: TIP.PGE at it, then its TNT or TIP for
 * the resume address. The decoder sees every instruction once, with its
 * real outcome; only the handler's place in time moves by one instruction.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "etm4_sw_stream.h"
#include "insn.h"
#include "sw_block_log.h"
#include "sw_stream.h"
#include "unit.h"

#define LOG_ENTRIES 2048
#define MAX_VCPUS 4096
#define BUFFER_SIZE (64 * 1024)
#define MAX_PENDING 16
#define MAX_HANDLERS 64

struct vcpu {
	const struct hwt_qemu_block *log[LOG_ENTRIES];
	unsigned nlog;
	bool used;               /* a live thread's (else free for the next one) */
	bool open;               /* stream file exists */
	bool sigreturn;          /* the last system call was rt_sigreturn */
	const struct hwt_qemu_block *syscall; /* block whose system call disabled tracing */
	char stream_name[64];
	char blocks_name[64];
	const struct hwt_qemu_block *prev; /* the last block encoded, while enabled */
	uint64_t last_rep;       /* REP instruction of the last logged block */
	/* Branches interrupted by a signal, replayed at rt_sigreturn (innermost last). */
	const struct hwt_qemu_block *pending[MAX_PENDING];
	unsigned npending;
	union {
		struct hwt_sw_stream pt;
		struct hwt_etm4_sw_stream etm;
	} st;                    /* hwt_qemu_etm says which */
	uint8_t buf[BUFFER_SIZE];
	struct hwt_sw_block_log blocks; /* --debug-blocks; kept when the state is reused */
};

/*
 * State per host thread, not per vCPU index: QEMU gives a new thread the
 * index of one that is still on its way out (its exit callback has not run
 * yet). A thread finds its own through self; all[] holds every one made,
 * free ones reused by new threads.
 */
static struct vcpu *all[MAX_VCPUS];
static unsigned nall;
static bool all_full;  /* a thread found no state: said once */
static pthread_mutex_t alloc_lock = PTHREAD_MUTEX_INITIALIZER;
static __thread struct vcpu *self __attribute__((tls_model("initial-exec")));
static uint64_t handlers[MAX_HANDLERS];
static unsigned nhandlers;

void hwt_qemu_vcpu_add_handler(uint64_t handler)
{
	unsigned n = __atomic_load_n(&nhandlers, __ATOMIC_ACQUIRE);

	for (unsigned i = 0; i < n; i++)
		if (handlers[i] == handler)
			return;
	pthread_mutex_lock(&alloc_lock);
	if (nhandlers < MAX_HANDLERS) {
		handlers[nhandlers] = handler;
		__atomic_store_n(&nhandlers, nhandlers + 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&alloc_lock);
}

static bool is_handler(uint64_t ip)
{
	unsigned n = __atomic_load_n(&nhandlers, __ATOMIC_ACQUIRE);

	for (unsigned i = 0; i < n; i++)
		if (handlers[i] == ip)
			return true;
	return false;
}

static void write_blocks(struct hwt_sw_block_log *log, const void *buf, size_t len)
{
	struct vcpu *v = (struct vcpu *)((char *)log - offsetof(struct vcpu, blocks));

	hwt_qemu_file_append("blocks", v->blocks_name, buf, len);
}

/* The streams' ops: packets go to streams/<image>-<tid>.pt|.etm, a loss into the sideband. */
static int append_packets(void *st, const uint8_t *buf, size_t len)
{
	struct vcpu *v = (struct vcpu *)((char *)st - offsetof(struct vcpu, st));

	/* Past the run's cap: dropped as if written (no loss), the stream ends here.
	   etm=off (SPE alone): no stream is kept at all. */
	if (hwt_qemu_opts.no_etm ||
	    (hwt_qemu_budget && !hwt_trace_budget_take(hwt_qemu_budget, len)))
		return 1;
	return hwt_qemu_file_append("streams", v->stream_name, buf, len);
}

static int write_pt(struct hwt_sw_stream *st, const uint8_t *buf, size_t len)
{
	return append_packets(st, buf, len);
}

static int write_etm(struct hwt_etm4_sw_stream *st, const uint8_t *buf, size_t len)
{
	return append_packets(st, buf, len);
}

static void lost_pt(struct hwt_sw_stream *st, size_t len)
{
	(void)st;
	hwt_qemu_process_lost(HWT_LOST_TRACE_WRITE, 0, len);
}

static void lost_etm(struct hwt_etm4_sw_stream *st, size_t len)
{
	(void)st;
	hwt_qemu_process_lost(HWT_LOST_TRACE_WRITE, 0, len);
}

static const struct hwt_sw_stream_ops pt_ops = { write_pt, lost_pt };
static const struct hwt_etm4_sw_stream_ops etm_ops = { write_etm, lost_etm };

/* ---- the stream, in the guest's trace format ---- */

static inline bool enabled(const struct vcpu *v)
{
	return hwt_qemu_etm ? v->st.etm.enabled : v->st.pt.enabled;
}

static inline void stop(struct vcpu *v)
{
	if (hwt_qemu_etm)
		v->st.etm.enabled = 0;
	else
		v->st.pt.enabled = 0;
}

/* Timestamp/TSC when the clock moved, after dropped bytes OVF/Overflow. */
static inline void sync_clock(struct vcpu *v, uint64_t now, uint64_t ip)
{
	if (hwt_qemu_etm)
		hwt_etm4_sw_stream_sync(&v->st.etm, now, ip);
	else
		hwt_sw_stream_sync(&v->st.pt, now, ip);
}

static inline void sync_if_due(struct vcpu *v, uint64_t ip)
{
	if (hwt_qemu_etm)
		hwt_etm4_sw_stream_sync_if_due(&v->st.etm, ip);
	else
		hwt_sw_stream_psb_if_due(&v->st.pt, ip);
}

static void flush(struct vcpu *v)
{
	if (hwt_qemu_etm)
		hwt_etm4_sw_stream_flush(&v->st.etm);
	else
		hwt_sw_stream_flush(&v->st.pt);
}

static void open_stream(struct vcpu *v)
{
	int tid = gettid();

	snprintf(v->stream_name, sizeof(v->stream_name), "%s-%d.%s", hwt_qemu_process_name(), tid,
		 hwt_qemu_etm ? "etm" : "pt");
	/* A failure here shows as failed appends: LOST records and OVF. */
	if (!hwt_qemu_opts.no_etm)
		hwt_qemu_file_create("streams", v->stream_name, false);
	if (hwt_qemu_opts.debug_blocks) {
		snprintf(v->blocks_name, sizeof(v->blocks_name), "%s-%d.blk",
			 hwt_qemu_process_name(), tid);
		hwt_qemu_file_create("blocks", v->blocks_name, false);
		if (!v->blocks.entries)
			v->blocks.entries = malloc(HWT_SW_BLOCK_LOG_ENTRIES * sizeof(*v->blocks.entries));
		v->blocks.write = write_blocks;
	}
	v->open = true;
	v->prev = v->syscall = NULL;
	v->npending = 0;
	v->last_rep = 0;
	if (hwt_qemu_etm)
		hwt_etm4_sw_stream_start(&v->st.etm, v->buf, sizeof(v->buf), hwt_qemu_process_clock(),
					 (uint64_t)hwt_qemu_opts.psb_period, (uint32_t)tid, &etm_ops);
	else
		hwt_sw_stream_start(&v->st.pt, v->buf, sizeof(v->buf), hwt_qemu_process_clock(),
				    (uint64_t)hwt_qemu_opts.psb_period, &pt_ops);
}

/* Makes (or reuses) the calling thread's state, at its first block. */
static __attribute__((noinline)) struct vcpu *make_mine(void)
{
	struct vcpu *v = NULL;
	unsigned i;

	pthread_mutex_lock(&alloc_lock);
	for (i = 0; i < nall && all[i]->used; i++)
		;
	if (i < nall) {
		v = all[i];
		memset(v, 0, offsetof(struct vcpu, blocks));
		v->blocks.count = 0;
	} else if (nall < MAX_VCPUS && (v = calloc(1, sizeof(*v))) != NULL) {
		all[nall++] = v;
	}
	if (v)
		v->used = true;
	pthread_mutex_unlock(&alloc_lock);
	if (!v && !all_full) {
		all_full = true;
		hwt_qemu_process_lost(HWT_LOST_TRACE_WRITE, 0, 0);
	}
	return self = v;
}

/* The calling thread's state. */
static inline struct vcpu *mine(void)
{
	struct vcpu *v = self;

	return __builtin_expect(v != NULL, 1) ? v : make_mine();
}

/* Where the thread is: its last block's start (FUP after OVF). */
static inline uint64_t here(const struct vcpu *v)
{
	return v->prev ? v->prev->start : 0;
}

static void enable(struct vcpu *v, uint64_t ip)
{
	if (hwt_qemu_etm)
		hwt_etm4_sw_stream_enable(&v->st.etm, ip, hwt_qemu_process_clock());
	else
		hwt_sw_stream_enable(&v->st.pt, ip, hwt_qemu_process_clock());
}

/* A system call ends the last block (ETMv4 names where it returns to). */
static void disable(struct vcpu *v)
{
	if (hwt_qemu_etm)
		hwt_etm4_sw_stream_disable(&v->st.etm, v->prev ? v->prev->fallthrough : 0);
	else
		hwt_sw_stream_disable(&v->st.pt);
	v->prev = NULL;
}

/*
 * b's last instruction went to code that is not traced (plugin.c marks the
 * block untraced): its atom (ETMv4), TIP.PGD (PT), and tracing is off
 * until the thread comes back (a system call follows there).
 */
static void leave(struct vcpu *v, const struct hwt_qemu_block *b, uint64_t next)
{
	if (hwt_qemu_etm) {
		hwt_etm4_sw_stream_leave(&v->st.etm, b->branch, next, b->fallthrough);
	} else {
		/* TIP.PGD with the target, also after a conditional branch (where
		   the SDM suppresses it): libipt binds it with no filter configuration. */
		hwt_sw_stream_reserve(&v->st.pt);
		hwt_pt_tip_pgd(&v->st.pt.enc, next, 0);
		v->st.pt.enabled = 0;
	}
	v->prev = NULL;
}

/* An asynchronous event at ip: FUP, TIP.PGD (ETMv4: Exception). */
static void interrupt(struct vcpu *v, uint64_t ip)
{
	if (hwt_qemu_etm)
		hwt_etm4_sw_stream_interrupt(&v->st.etm, ip, hwt_qemu_process_clock());
	else
		hwt_sw_stream_interrupt(&v->st.pt, ip, hwt_qemu_process_clock());
	v->prev = NULL;
}

/* The packets of b's last instruction, which went to next (leads_to holds). */
static inline void branch(struct vcpu *v, const struct hwt_qemu_block *b, uint64_t next)
{
	if (hwt_qemu_etm)
		hwt_etm4_sw_stream_branch(&v->st.etm, b->branch, next, b->fallthrough);
	else
		hwt_sw_stream_branch(&v->st.pt, b->branch, next, b->fallthrough);
}

/* Can the last instruction of b lead to next? */
static inline bool leads_to(const struct hwt_qemu_block *b, uint64_t next)
{
	switch (b->branch) {
	case HWT_INSN_COND:
		return next == b->target || next == b->fallthrough;
	case HWT_INSN_JUMP:
	case HWT_INSN_CALL:
		return next == b->target;
	case HWT_INSN_JUMP_INDIRECT:
	case HWT_INSN_CALL_INDIRECT:
	case HWT_INSN_RETURN:
		return !is_handler(next);
	case HWT_INSN_FAR:
		return false;
	default:
		return next == b->fallthrough || (b->rep && next == b->insn);
	}
}

/*
 * A signal was delivered after block b: FUP where the thread was, TIP.PGD.
 * When b's last instruction went somewhere not known yet, the event goes
 * before that instruction, which rt_sigreturn replays.
 */
static void interrupted(struct vcpu *v, const struct hwt_qemu_block *b)
{
	uint64_t ip;

	switch (b->branch) {
	case HWT_INSN_JUMP:
	case HWT_INSN_CALL:
		/* Taken (ETMv4 traces it: an E atom), the event comes at its target. */
		branch(v, b, b->target);
		ip = b->target;
		break;
	case HWT_INSN_OTHER:
		if (!b->rep) {
			ip = b->fallthrough;
			break;
		}
		/* A REP instruction may be interrupted between iterations. */
		__attribute__((fallthrough));
	default:
		ip = b->insn;
		if (v->npending < MAX_PENDING)
			v->pending[v->npending++] = b;
		break;
	}
	interrupt(v, ip);
}

/*
 * The first block after tracing was disabled. After rt_sigreturn: the
 * branch a signal interrupted is replayed first. A block that does not
 * follow the system call that disabled tracing is a handler run by a
 * signal that came during the call: its rt_sigreturn replays nothing.
 */
static void resume(struct vcpu *v, uint64_t start)
{
	const struct hwt_qemu_block *syscall = v->syscall;

	v->syscall = NULL;
	if (v->sigreturn) {
		v->sigreturn = false;
		if (v->npending) {
			const struct hwt_qemu_block *b = v->pending[--v->npending];

			if (b && (leads_to(b, start) || b->branch == HWT_INSN_JUMP_INDIRECT ||
				  b->branch == HWT_INSN_CALL_INDIRECT || b->branch == HWT_INSN_RETURN)) {
				enable(v, b->insn);
				branch(v, b, start);
				return;
			}
		}
	} else if (syscall && start != syscall->fallthrough && v->npending < MAX_PENDING) {
		v->pending[v->npending++] = NULL;
	}
	enable(v, start);
}

static void log_block(struct vcpu *v, const struct hwt_qemu_block *b)
{
	/* A REP string instruction runs as a block per iteration: log it once. */
	if (b->rep && b->ninsns == 1 && b->start == v->last_rep)
		return;
	v->last_rep = b->rep ? b->insn : 0;
	if (v->blocks.entries)
		hwt_sw_block_log_add(&v->blocks, b->start, b->ninsns);
}

/*
 * The hot path of an x86-64 guest's encoding: the blocks from log[i] on,
 * as long as each one is the plain successor of the one before (its TNT
 * bit, its TIP, or nothing), the thread is traced, the clock has not moved
 * and no bytes were lost. The encoder's state lives in locals for the run
 * (stores through the byte buffer would otherwise reload it at every
 * packet) and the packets are the very bytes hwt_sw_stream_branch() would
 * write: hwt_pt_tnt's 47-bit long TNT, TNT before TIP, the shortest IP
 * form against the last IP; with --debug-blocks, the block log too. Returns the index of the first block left to
 * encode() (anything else: a signal, a system call's return, a PSB+ that
 * is due, a full buffer), having encoded those before it.
 */
static unsigned encode_pt_run(struct vcpu *v, unsigned i, unsigned n, uint64_t now)
{
	struct hwt_sw_stream *s = &v->st.pt;
	struct hwt_pt_encoder *e = &s->enc;
	const struct hwt_qemu_block *prev = v->prev;
	const bool any_handler = __atomic_load_n(&nhandlers, __ATOMIC_ACQUIRE) != 0;
	uint8_t *const buf = e->buf;
	size_t pos = e->pos;
	/* Room for a long TNT and a TIP after any block below limit. */
	const size_t limit = e->size - HWT_PT_MAX_WRITE;
	/* The PSB+ is due when pos reaches psb_pos. */
	const uint64_t psb_pos = s->psb_due - s->bytes_out;
	uint64_t bits = e->tnt_bits, last_ip = e->last_ip;
	uint32_t count = e->tnt_count;
	const unsigned first = i;
	const bool debug_blocks = hwt_qemu_opts.debug_blocks;

	if (!s->enabled || !prev || s->time != now || s->lost || (e->flags & HWT_PT_F_IP_RESET) ||
	    s->bytes_out + pos >= s->psb_due)
		return i;
	for (; i < n && pos < limit && pos < psb_pos; i++) {
		const struct hwt_qemu_block *b = v->log[i];
		const uint64_t next = b->start;

		if (__builtin_expect(b->untraced, 0))
			break;
		switch (prev->branch) {
		case HWT_INSN_COND:
			if (next != prev->fallthrough && next != prev->target)
				goto out;
			bits = bits << 1 | (next != prev->fallthrough);
			if (++count == HWT_PT_TNT_LONG_BITS) {
				uint64_t payload = 1ull << count | bits;

				buf[pos++] = 0x02; /* long TNT */
				buf[pos++] = 0xa3;
				for (unsigned k = 0; k < 6; k++, payload >>= 8)
					buf[pos++] = (uint8_t)payload;
				bits = 0;
				count = 0;
			}
			break;
		case HWT_INSN_JUMP_INDIRECT:
		case HWT_INSN_CALL_INDIRECT:
		case HWT_INSN_RETURN: {
			uint64_t diff = next ^ last_ip, top = next >> 47;
			unsigned ipc, len;

			if (__builtin_expect(any_handler, 0) && is_handler(next))
				goto out;
			if (count) {
				uint64_t payload = 1ull << count | bits;

				if (count <= HWT_PT_TNT_SHORT_BITS) {
					buf[pos++] = (uint8_t)(payload << 1);
				} else {
					buf[pos++] = 0x02;
					buf[pos++] = 0xa3;
					for (unsigned k = 0; k < 6; k++, payload >>= 8)
						buf[pos++] = (uint8_t)payload;
				}
				bits = 0;
				count = 0;
			}
			/* IPBytes: update 16, update 32, sign-extend 48, update 48, full. */
			if (!(diff >> 16))
				ipc = 1, len = 2;
			else if (!(diff >> 32))
				ipc = 2, len = 4;
			else if (top == 0 || top == 0x1ffffu)
				ipc = 3, len = 6;
			else if (!(diff >> 48))
				ipc = 4, len = 6;
			else
				ipc = 6, len = 8;
			buf[pos++] = (uint8_t)(0x0d | ipc << 5); /* TIP */
			for (unsigned k = 0; k < len; k++)
				buf[pos++] = (uint8_t)(next >> (8 * k));
			last_ip = next;
			break;
		}
		case HWT_INSN_JUMP:
		case HWT_INSN_CALL:
			if (next != prev->target)
				goto out;
			break;
		case HWT_INSN_OTHER:
			if (next != prev->fallthrough && !(prev->rep && next == prev->insn))
				goto out;
			break;
		default:
			goto out;
		}
		if (__builtin_expect(debug_blocks, 0))
			log_block(v, b);
		prev = b;
	}
out:
	e->pos = pos;
	e->tnt_bits = bits;
	e->tnt_count = count;
	e->last_ip = last_ip;
	if (i != first) {
		/* After the run's last block, as encode() does after each. */
		v->prev = prev;
		hwt_sw_stream_psb_if_due(s, prev->start);
	}
	return i;
}

static void encode(struct vcpu *v)
{
	unsigned n = v->nlog;
	/* Records other threads write meanwhile are not ordered with these blocks anyway. */
	uint64_t now = hwt_qemu_process_clock();
	bool debug_blocks = hwt_qemu_opts.debug_blocks;
	bool fast = !hwt_qemu_etm && hwt_qemu_opts.fast_encode;

	v->nlog = 0;
	if (n == 0)
		return;
	if (!v->open)
		open_stream(v);
	for (unsigned i = 0; i < n; i++) {
		const struct hwt_qemu_block *b, *prev;

		if (fast && (i = encode_pt_run(v, i, n, now)) == n)
			break;
		b = v->log[i];
		prev = v->prev;

		if (__builtin_expect(b->untraced, 0)) {
			if (!enabled(v) && v->sigreturn) {
				/* rt_sigreturn went back to untraced code: the branch a
				   signal interrupted (if any) left traced code. */
				const struct hwt_qemu_block *p =
					v->npending ? v->pending[--v->npending] : NULL;

				v->sigreturn = false;
				v->syscall = NULL;
				if (p) {
					enable(v, p->insn);
					v->prev = prev = p;
				}
			}
			if (enabled(v) && prev) {
				sync_clock(v, now, here(v));
				leave(v, prev, b->start);
			}
			continue;
		}
		if (__builtin_expect(debug_blocks, 0))
			log_block(v, b);
		if (__builtin_expect(!enabled(v), 0)) {
			resume(v, b->start);
		} else {
			sync_clock(v, now, here(v));
			if (__builtin_expect(!leads_to(prev, b->start), 0)) {
				interrupted(v, prev);
				resume(v, b->start);
			} else {
				branch(v, prev, b->start);
			}
		}
		v->prev = b;
		sync_if_due(v, b->start);
	}
}

/* A thread's first block (its state is made here): out of the hot path. */
static __attribute__((noinline)) void first_block(void *block)
{
	struct vcpu *v = make_mine();

	if (v)
		v->log[v->nlog++] = block;
}

/* Run for every traced block: kept to a few stores and no stack frame. */
void hwt_qemu_vcpu_block(unsigned index, void *block)
{
	struct vcpu *v = self;
	unsigned n;

	(void)index;
	if (__builtin_expect(v == NULL, 0)) {
		first_block(block);
		return;
	}
	n = v->nlog;
	v->log[n++] = block;
	v->nlog = n;
	if (__builtin_expect(n == LOG_ENTRIES, 0))
		encode(v);
}

void hwt_qemu_vcpu_outside(unsigned index, void *block)
{
	struct vcpu *v = mine();

	(void)index;
	if (__builtin_expect(v == NULL, 0))
		return;
	/* Only the first block out of traced code says something. */
	if (v->nlog && v->log[v->nlog - 1]->untraced)
		return;
	v->log[v->nlog++] = block;
	if (__builtin_expect(v->nlog == LOG_ENTRIES, 0))
		encode(v);
}

void hwt_qemu_vcpu_flush_self(void)
{
	if (self)
		encode(self);
}

void hwt_qemu_vcpu_syscall(bool sigreturn)
{
	struct vcpu *v = mine();

	if (!v)
		return;
	encode(v);
	v->syscall = v->prev;
	if (enabled(v))
		disable(v);
	v->sigreturn = sigreturn;
}

static void finish(struct vcpu *v)
{
	encode(v);
	if (!v->open)
		return;
	flush(v);
	hwt_sw_block_log_drain(&v->blocks);
	v->open = false;
	stop(v);
}

void hwt_qemu_vcpu_finish_self(void)
{
	struct vcpu *v = self;

	if (!v)
		return;
	finish(v);
	self = NULL;
	pthread_mutex_lock(&alloc_lock);
	v->used = false;
	pthread_mutex_unlock(&alloc_lock);
}

void hwt_qemu_vcpu_finish_all(void)
{
	struct vcpu *mine_was = self;

	/* QEMU has stopped the other threads: their state can be finished here
	   (finish() runs as the thread whose state it is, for the records). */
	for (unsigned i = 0; i < nall; i++)
		if (all[i]->used) {
			self = all[i];
			finish(all[i]);
		}
	self = mine_was;
}

void hwt_qemu_vcpu_die(void)
{
	struct vcpu *v = self;

	if (v) {
		encode(v);
		if (enabled(v) && v->prev) {
			/* Where in its last block the thread died is not known: none
			   of that block is claimed (the block log drops it too). */
			if (v->blocks.count &&
			    v->blocks.entries[v->blocks.count - 1].start == v->prev->start)
				v->blocks.count--;
			interrupt(v, v->prev->start);
		}
	}
	hwt_qemu_vcpu_finish_all();
}

void hwt_qemu_vcpu_drain_self(void)
{
	if (!self)
		return;
	encode(self);
	if (self->open) {
		flush(self);
		hwt_sw_block_log_drain(&self->blocks);
	}
}

unsigned hwt_qemu_vcpu_others_busy(void)
{
	unsigned n = 0;

	for (unsigned i = 0; i < nall; i++)
		if (all[i]->used && all[i] != self && all[i]->open)
			n++;
	return n;
}

void hwt_qemu_vcpu_forget_all(void)
{
	/* The child's only thread is the caller: the others' state is free. */
	pthread_mutex_init(&alloc_lock, NULL);
	for (unsigned i = 0; i < nall; i++) {
		struct vcpu *v = all[i];

		v->used = v == self;
		v->nlog = 0;
		v->blocks.count = 0;
		v->open = false;
		stop(v);
		v->prev = v->syscall = NULL;
		v->npending = 0;
		v->sigreturn = false;
	}
}
