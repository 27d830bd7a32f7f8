/*
 * One traced thread (a QEMU vCPU): its Intel PT stream.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pt_encoder.h"
#include "unit.h"
#include "x86_insn.h"

#define LOG_ENTRIES 2048
#define MAX_VCPUS 4096
#define BUFFER_SIZE (64 * 1024)
#define BLOCK_LOG_ENTRIES 4096
#define MAX_PENDING 16
#define MAX_HANDLERS 64

/* One block-log entry (docs/bundle.md, "Block log"). */
struct block_entry {
	uint64_t start;
	uint32_t insns;
	uint32_t flags;
};

struct vcpu {
	const struct hwt_qemu_block *log[LOG_ENTRIES];
	unsigned nlog;
	bool open;               /* stream file exists */
	bool enabled;            /* PacketEn */
	bool lost;               /* writes failed: OVF next */
	bool sigreturn;          /* the last system call was rt_sigreturn */
	const struct hwt_qemu_block *syscall; /* block whose system call disabled tracing */
	int tid;
	char stream_name[64];
	char blocks_name[64];
	const struct hwt_qemu_block *prev; /* the last block encoded, while enabled */
	uint64_t last_rep;       /* REP instruction of the last logged block */
	uint64_t time;           /* sideband clock last written as TSC */
	uint64_t psb_due, bytes_out;
	/* Branches interrupted by a signal, replayed at rt_sigreturn (innermost last). */
	const struct hwt_qemu_block *pending[MAX_PENDING];
	unsigned npending;
	struct hwt_pt_encoder enc;
	uint8_t buf[BUFFER_SIZE];
	struct block_entry *blocks;
	unsigned nblocks;
};

static struct vcpu *vcpus[MAX_VCPUS];
static pthread_mutex_t alloc_lock = PTHREAD_MUTEX_INITIALIZER;
static __thread struct vcpu *self;
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

static void drain_blocks(struct vcpu *v)
{
	if (v->nblocks)
		hwt_qemu_file_append("blocks", v->blocks_name, v->blocks,
				     v->nblocks * sizeof(*v->blocks));
	v->nblocks = 0;
}

/* Writes the buffered packets; a failed write is recorded and marked by OVF. */
static void drain(struct vcpu *v)
{
	size_t n = v->enc.pos;

	if (n == 0)
		return;
	if (hwt_qemu_file_append("streams", v->stream_name, v->buf, n))
		v->bytes_out += n;
	else if (!v->lost) {
		v->lost = true;
		hwt_qemu_process_lost(HWT_LOST_TRACE_WRITE, 0, n);
	}
	hwt_pt_encoder_reset_buffer(&v->enc);
}

/* Makes sure one more encoder call fits. */
static inline void reserve(struct vcpu *v)
{
	if (__builtin_expect(hwt_pt_encoder_space(&v->enc) < HWT_PT_MAX_WRITE, 0))
		drain(v);
}

static void open_stream(struct vcpu *v)
{
	v->tid = gettid();
	hwt_pt_encoder_init(&v->enc, v->buf, sizeof(v->buf));
	snprintf(v->stream_name, sizeof(v->stream_name), "%s-%d.pt", hwt_qemu_process_name(),
		 v->tid);
	/* A failure here shows as failed appends: LOST records and OVF. */
	hwt_qemu_file_create("streams", v->stream_name, false);
	if (hwt_qemu_opts.debug_blocks) {
		snprintf(v->blocks_name, sizeof(v->blocks_name), "%s-%d.blk",
			 hwt_qemu_process_name(), v->tid);
		hwt_qemu_file_create("blocks", v->blocks_name, false);
		if (!v->blocks)
			v->blocks = malloc(BLOCK_LOG_ENTRIES * sizeof(*v->blocks));
	}
	v->open = true;
	v->enabled = false;
	v->prev = v->syscall = NULL;
	v->npending = 0;
	v->bytes_out = 0;
	v->lost = false;
	v->last_rep = 0;
	v->time = hwt_qemu_process_clock();
	/* A stream starts with PSB+ so that a decoder can synchronise. */
	hwt_pt_psb_plus(&v->enc, 0, 0, 1, v->time);
	v->psb_due = (uint64_t)hwt_qemu_opts.psb_period;
}

static struct vcpu *get(unsigned index)
{
	struct vcpu *v;

	if (index >= MAX_VCPUS)
		return NULL;
	v = __atomic_load_n(&vcpus[index], __ATOMIC_ACQUIRE);
	if (!v) {
		pthread_mutex_lock(&alloc_lock);
		v = vcpus[index];
		if (!v && (v = calloc(1, sizeof(*v))) != NULL)
			__atomic_store_n(&vcpus[index], v, __ATOMIC_RELEASE);
		pthread_mutex_unlock(&alloc_lock);
	}
	return v;
}

/* Packets that must precede anything else this thread writes now. */
static inline void sync_state(struct vcpu *v)
{
	uint64_t now = hwt_qemu_process_clock();

	if (__builtin_expect(v->time != now, 0)) {
		/* The sideband moved on: place this thread in time, after what came before. */
		reserve(v);
		hwt_pt_flush_tnt(&v->enc);
		reserve(v);
		v->time = now;
		hwt_pt_tsc(&v->enc, now);
	}
	if (__builtin_expect(v->lost, 0)) {
		reserve(v);
		hwt_pt_ovf(&v->enc);
		v->lost = false;
		if (v->enabled) {
			/* SDM: after OVF, FUP says where the thread is. */
			reserve(v);
			hwt_pt_fup(&v->enc, v->prev ? v->prev->start : 0);
		}
	}
}

static void enable(struct vcpu *v, uint64_t ip)
{
	sync_state(v);
	reserve(v);
	hwt_pt_tip_pge(&v->enc, ip);
	v->enabled = true;
}

static void disable(struct vcpu *v)
{
	reserve(v);
	hwt_pt_tip_pgd(&v->enc, 0, 1);
	v->enabled = false;
	v->prev = NULL;
}

/* A PSB+ every psb_period bytes, so that a decoder can start anywhere; ip is where the thread is. */
static inline void psb_if_due(struct vcpu *v, uint64_t ip)
{
	if (__builtin_expect(v->bytes_out + v->enc.pos >= v->psb_due, 0)) {
		reserve(v);
		hwt_pt_psb_plus(&v->enc, v->enabled, ip, 1, v->time);
		v->psb_due = v->bytes_out + v->enc.pos + (uint64_t)hwt_qemu_opts.psb_period;
	}
}

/* Can the last instruction of b lead to next? */
static bool leads_to(const struct hwt_qemu_block *b, uint64_t next)
{
	switch (b->branch) {
	case HWT_X86_COND:
		return next == b->target || next == b->fallthrough;
	case HWT_X86_JUMP:
	case HWT_X86_CALL:
		return next == b->target;
	case HWT_X86_JUMP_INDIRECT:
	case HWT_X86_CALL_INDIRECT:
	case HWT_X86_RETURN:
		return !is_handler(next);
	case HWT_X86_FAR:
		return false;
	default:
		return next == b->fallthrough || (b->rep && next == b->insn);
	}
}

/* The packets of b's last instruction, which went to next (leads_to holds). */
static inline void branch(struct vcpu *v, const struct hwt_qemu_block *b, uint64_t next)
{
	reserve(v);
	switch (b->branch) {
	case HWT_X86_COND:
		hwt_pt_tnt(&v->enc, next != b->fallthrough);
		break;
	case HWT_X86_JUMP_INDIRECT:
	case HWT_X86_CALL_INDIRECT:
	case HWT_X86_RETURN:
		hwt_pt_tip(&v->enc, next);
		break;
	default:
		break;
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
	case HWT_X86_JUMP:
	case HWT_X86_CALL:
		ip = b->target;
		break;
	case HWT_X86_OTHER:
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
	sync_state(v);
	reserve(v);
	hwt_pt_fup(&v->enc, ip);
	disable(v);
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

			if (b && (leads_to(b, start) || b->branch == HWT_X86_JUMP_INDIRECT ||
				  b->branch == HWT_X86_CALL_INDIRECT || b->branch == HWT_X86_RETURN)) {
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
	struct block_entry *e;

	/* A REP string instruction runs as a block per iteration: log it once. */
	if (b->rep && b->ninsns == 1 && b->start == v->last_rep)
		return;
	v->last_rep = b->rep ? b->insn : 0;
	if (!v->blocks)
		return;
	if (v->nblocks == BLOCK_LOG_ENTRIES)
		drain_blocks(v);
	e = &v->blocks[v->nblocks++];
	e->start = b->start;
	e->insns = b->ninsns;
	e->flags = 0;
}

static void encode(struct vcpu *v)
{
	unsigned n = v->nlog;

	v->nlog = 0;
	if (n == 0)
		return;
	if (!v->open)
		open_stream(v);
	for (unsigned i = 0; i < n; i++) {
		const struct hwt_qemu_block *b = v->log[i], *prev = v->prev;

		if (__builtin_expect(hwt_qemu_opts.debug_blocks, 0))
			log_block(v, b);
		if (__builtin_expect(!v->enabled, 0)) {
			resume(v, b->start);
		} else {
			sync_state(v);
			if (__builtin_expect(!leads_to(prev, b->start), 0)) {
				interrupted(v, prev);
				resume(v, b->start);
			} else {
				branch(v, prev, b->start);
			}
		}
		v->prev = b;
		psb_if_due(v, b->start);
	}
}

void hwt_qemu_vcpu_block(unsigned index, void *block)
{
	struct vcpu *v = index < MAX_VCPUS ? vcpus[index] : NULL;

	if (__builtin_expect(v == NULL, 0)) {
		v = get(index);
		if (!v)
			return;
	}
	self = v;
	v->log[v->nlog++] = block;
	if (__builtin_expect(v->nlog == LOG_ENTRIES, 0))
		encode(v);
}

void hwt_qemu_vcpu_flush_self(void)
{
	if (self)
		encode(self);
}

void hwt_qemu_vcpu_syscall(unsigned index, bool sigreturn)
{
	struct vcpu *v = get(index);

	if (!v)
		return;
	self = v;
	encode(v);
	v->syscall = v->prev;
	if (v->enabled)
		disable(v);
	v->sigreturn = sigreturn;
}

static void finish(struct vcpu *v)
{
	encode(v);
	if (!v->open)
		return;
	reserve(v);
	hwt_pt_flush_tnt(&v->enc);
	drain(v);
	drain_blocks(v);
	v->open = v->enabled = false;
}

void hwt_qemu_vcpu_finish(unsigned index)
{
	struct vcpu *v = get(index);

	if (v)
		finish(v);
}

void hwt_qemu_vcpu_finish_all(void)
{
	for (unsigned i = 0; i < MAX_VCPUS; i++)
		if (vcpus[i]) {
			self = vcpus[i];
			finish(vcpus[i]);
		}
	self = NULL;
}

void hwt_qemu_vcpu_die(void)
{
	struct vcpu *v = self;

	if (v) {
		encode(v);
		if (v->enabled && v->prev) {
			/* Where in its last block the thread died is not known: none
			   of that block is claimed (the block log drops it too). */
			sync_state(v);
			reserve(v);
			hwt_pt_fup(&v->enc, v->prev->start);
			if (v->nblocks && v->blocks[v->nblocks - 1].start == v->prev->start)
				v->nblocks--;
			disable(v);
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
		reserve(self);
		hwt_pt_flush_tnt(&self->enc);
		drain(self);
		drain_blocks(self);
	}
}

unsigned hwt_qemu_vcpu_others_busy(void)
{
	unsigned n = 0;

	for (unsigned i = 0; i < MAX_VCPUS; i++)
		if (vcpus[i] && vcpus[i] != self && vcpus[i]->open)
			n++;
	return n;
}

void hwt_qemu_vcpu_forget_all(void)
{
	for (unsigned i = 0; i < MAX_VCPUS; i++) {
		struct vcpu *v = vcpus[i];

		if (!v)
			continue;
		v->nlog = 0;
		v->nblocks = 0;
		v->open = v->enabled = false;
		v->prev = v->syscall = NULL;
		v->npending = 0;
		v->sigreturn = false;
	}
}
