/*
 * The software SPE unit (aarch64 guests, spe=INTERVAL): per thread, the
 * records an Arm Statistical Profiling Extension unit sampling EL0 would
 * write (common/spe_packet.h), into spe/<pid>.<gen>-<tid>.spe beside the
 * thread's ETMv4 stream.
 *
 * The sample counter counts operations, which here are instructions as
 * QEMU runs them. When it reaches zero the operation is sampled and the
 * counter is reloaded with the interval, its low bits perturbed at random
 * as PMSIRR_EL1.RND does on hardware (reload()); an interval of 1 samples
 * every operation, with no perturbation.
 *
 * A record is finished once the operation has completed: a branch's
 * target and outcome when the next block starts, a load's or store's data
 * address when QEMU's memory callback sees its first access. So the
 * samples of a block wait (pending) until the next block, a system call
 * or the thread's end.
 *
 * What a record holds, and what QEMU cannot know:
 * - Context (CONTEXTIDR_EL1 = the thread ID, as Linux sets it), the PC
 *   (EL0, non-secure), Operation Type (branch: conditional, indirect;
 *   load/store: store, SIMD&FP; other);
 * - Events: retired always; not taken for a conditional branch that fell
 *   through; exception generated for SVC, BRK and the like. Mispredicted
 *   is never set (QEMU has no branch predictor), nor cache or TLB events;
 * - Counters: a fixed total latency of 1 cycle and issue latency of 0
 *   (loads and stores: translation latency 0), as QEMU has no timing;
 * - the branch target, the data virtual address (no physical address:
 *   user mode has none);
 * - Timestamp: the sideband clock (the ETMv4 stream's timestamps), which
 *   ends the record.
 * A conditional or direct branch whose next block is neither its target
 * nor its fall-through (a signal was delivered in between) has no known
 * outcome: its record is left out.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "insn.h"
#include "qemu_plugin_api.h"
#include "spe_packet.h"
#include "unit.h"

#define SPE_BUFFER (64 * 1024)
/* QEMU's blocks hold at most 512 instructions. */
#define SPE_MAX_PENDING 512

/* spe_block.kind[] bits: what the instruction is, from its encoding. */
#define KIND_LDST      0x1u  /* the Arm ARM's "Loads and Stores" group: op0 x1x0 */
#define KIND_SIMD      0x2u  /* ... of SIMD&FP registers (V, bit 26) */
#define KIND_EXCEPTION 0x4u  /* SVC, HVC, SMC, BRK, HLT */

struct hwt_qemu_spe_block {
	const struct hwt_qemu_block *b;
	uint8_t kind[];      /* b->ninsns entries */
};

struct pending {
	uint64_t pc;
	uint64_t va;
	uint64_t time;
	uint8_t kind;
	uint8_t last;        /* the block's last instruction: its branch, if any */
	uint8_t has_va;
	uint8_t store;
};

struct spe_thread {
	struct spe_thread *next_all;
	bool used, open;
	uint32_t tid;
	char name[64];
	uint64_t left;       /* operations until the next sample (the sampled one included) */
	uint64_t rng;
	const struct hwt_qemu_block *block;  /* where the pending samples are */
	struct pending pending[SPE_MAX_PENDING];
	unsigned npending, mem_next;
	size_t pos;
	uint8_t buf[SPE_BUFFER];
};

static struct spe_thread *all;
static pthread_mutex_t all_lock = PTHREAD_MUTEX_INITIALIZER;
static __thread struct spe_thread *self __attribute__((tls_model("initial-exec")));

/* xorshift64: the perturbation needs no quality, only no pattern. */
static uint64_t random64(struct spe_thread *t)
{
	t->rng ^= t->rng << 13;
	t->rng ^= t->rng >> 7;
	t->rng ^= t->rng << 17;
	return t->rng;
}

/*
 * The next interval: hardware replaces the counter's low 8 bits with
 * random ones (PMSIRR_EL1.RND). Here the low j bits, j the smaller of 8
 * and one less than the interval's bit length, are randomised around the
 * interval (interval - 2^(j-1) + [0, 2^j)), so that the mean stays the
 * interval (less 1/2) and small intervals stay positive; 1, 2 and 3 are
 * exact.
 */
static uint64_t reload(struct spe_thread *t)
{
	uint64_t iv = (uint64_t)hwt_qemu_opts.spe_interval;
	unsigned j = 0;

	while (j < 8 && (4ull << j) <= iv)
		j++;
	if (!j)
		return iv;
	return iv - (1ull << (j - 1)) + (random64(t) & ((1ull << j) - 1));
}

static void drain(struct spe_thread *t)
{
	size_t len = t->pos;

	t->pos = 0;
	if (!len || !t->open)
		return;
	/* Past the run's cap: dropped as if written, as the ETMv4 stream does. */
	if (hwt_qemu_budget && !hwt_trace_budget_take(hwt_qemu_budget, len))
		return;
	if (!hwt_qemu_file_append("spe", t->name, t->buf, len))
		hwt_qemu_process_lost(HWT_LOST_TRACE_WRITE, 0, len);
}

static struct spe_thread *make_mine(void)
{
	struct spe_thread *t;

	pthread_mutex_lock(&all_lock);
	for (t = all; t && t->used; t = t->next_all)
		;
	if (!t && (t = malloc(sizeof(*t))) != NULL) {
		t->next_all = all;
		all = t;
	}
	if (t) {
		t->used = true;
		t->open = false;
		t->npending = t->mem_next = 0;
		t->pos = 0;
		t->block = NULL;
	}
	pthread_mutex_unlock(&all_lock);
	if (!t) {
		hwt_qemu_process_lost(HWT_LOST_TRACE_WRITE, 0, 0);
		return NULL;
	}
	t->tid = (uint32_t)gettid();
	t->rng = 0x9e3779b97f4a7c15ull ^ t->tid;
	t->left = reload(t);
	snprintf(t->name, sizeof(t->name), "%s-%u.spe", hwt_qemu_process_name(), t->tid);
	t->open = hwt_qemu_file_create("spe", t->name, false);
	if (!t->open)
		hwt_qemu_process_lost(HWT_LOST_TRACE_WRITE, 0, 0);
	return self = t;
}

/* The record of sample p, whose block went on to next (0: not known). */
static void write_record(struct spe_thread *t, const struct pending *p, uint64_t next)
{
	const struct hwt_qemu_block *b = t->block;
	struct hwt_spe_record r;
	int n;

	hwt_spe_record_clear(&r);
	r.has = HWT_SPE_HAS_CONTEXT | HWT_SPE_HAS_ADDR(HWT_SPE_ADDR_PC) | HWT_SPE_HAS_OP |
		HWT_SPE_HAS_EVENTS | HWT_SPE_HAS_COUNT(HWT_SPE_COUNT_TOTAL) |
		HWT_SPE_HAS_COUNT(HWT_SPE_COUNT_ISSUE) | HWT_SPE_HAS_TIMESTAMP;
	r.context = t->tid;
	r.addr[HWT_SPE_ADDR_PC] = hwt_spe_addr_payload(p->pc, 0, 1);
	r.events = HWT_SPE_EV_RETIRED;
	r.count[HWT_SPE_COUNT_TOTAL] = 1;
	r.timestamp = p->time;
	if (p->last && b->branch != HWT_INSN_OTHER && b->branch != HWT_INSN_FAR) {
		r.op_class = HWT_SPE_OP_BRANCH;
		switch (b->branch) {
		case HWT_INSN_COND:
			if (next != b->target && next != b->fallthrough)
				return; /* a signal came between: outcome unknown */
			r.op = HWT_SPE_OP_COND;
			/* As the ETMv4 stream's atom: not taken when it went on to the next
			   instruction (a branch to there is not told apart). */
			if (next == b->fallthrough)
				r.events |= HWT_SPE_EV_NOT_TAKEN;
			break;
		case HWT_INSN_JUMP:
		case HWT_INSN_CALL:
			if (next != b->target)
				return;
			break;
		default: /* indirect jumps and calls, returns */
			if (!next)
				return;
			r.op = HWT_SPE_OP_BR_INDIRECT;
			break;
		}
		r.has |= HWT_SPE_HAS_ADDR(HWT_SPE_ADDR_TARGET);
		r.addr[HWT_SPE_ADDR_TARGET] = hwt_spe_addr_payload(next, 0, 1);
	} else if (p->kind & KIND_LDST) {
		r.op_class = HWT_SPE_OP_LDST;
		r.op = (uint8_t)((p->store ? HWT_SPE_OP_ST : 0) | (p->kind & KIND_SIMD ? 0x4 : 0));
		r.has |= HWT_SPE_HAS_COUNT(HWT_SPE_COUNT_XLAT);
		if (p->has_va) {
			r.has |= HWT_SPE_HAS_ADDR(HWT_SPE_ADDR_DATA_VA);
			r.addr[HWT_SPE_ADDR_DATA_VA] = p->va & HWT_SPE_ADDR_MASK;
		}
	} else {
		r.op_class = HWT_SPE_OP_OTHER;
		if (p->kind & KIND_EXCEPTION || (p->last && b->branch == HWT_INSN_FAR))
			r.events |= HWT_SPE_EV_EXCEPTION;
	}
	if (t->pos + HWT_SPE_RECORD_ENCODED_MAX > sizeof(t->buf))
		drain(t);
	n = hwt_spe_record_encode(&r, t->buf + t->pos, sizeof(t->buf) - t->pos);
	if (n > 0)
		t->pos += (size_t)n;
}

/* Writes the pending samples; their block went on to next (0: not known). */
static void finish_pending(struct spe_thread *t, uint64_t next)
{
	for (unsigned i = 0; i < t->npending; i++)
		write_record(t, &t->pending[i], next);
	t->npending = t->mem_next = 0;
	t->block = NULL;
}

void hwt_qemu_spe_block(unsigned vcpu, void *userdata)
{
	const struct hwt_qemu_spe_block *sb = userdata;
	const struct hwt_qemu_block *b = sb->b;
	struct spe_thread *t = self;
	uint64_t n = b->ninsns, k = 0, now;

	(void)vcpu;
	if (__builtin_expect(!t, 0) && !(t = make_mine()))
		return;
	if (t->npending)
		finish_pending(t, b->start);
	if (__builtin_expect(t->left > n, 1)) {
		t->left -= n;
		return;
	}
	now = hwt_qemu_process_clock();
	t->block = b;
	while (t->left <= n - k) {
		uint64_t i = k + t->left - 1;
		struct pending *p = &t->pending[t->npending++];

		p->pc = b->start + 4 * i;
		p->kind = sb->kind[i];
		p->last = i == n - 1;
		p->has_va = p->store = 0;
		p->time = now;
		k = i + 1;
		t->left = reload(t);
	}
	t->left -= n - k;
}

void hwt_qemu_spe_mem(unsigned vcpu, uint32_t info, uint64_t vaddr, void *userdata)
{
	struct spe_thread *t = self;
	uint64_t pc = (uint64_t)(uintptr_t)userdata;

	(void)vcpu;
	if (!t || t->mem_next >= t->npending)
		return;
	/* The block's instructions run in order: pending samples too. */
	for (unsigned i = t->mem_next; i < t->npending; i++) {
		struct pending *p = &t->pending[i];

		if (p->pc == pc) {
			if (!p->has_va) {
				p->va = vaddr;
				p->has_va = 1;
				p->store = qemu_plugin_mem_is_store(info);
			}
			t->mem_next = i; /* a second access (LDP) comes to the same one */
			return;
		}
		if (p->pc > pc)
			return;
	}
}

struct hwt_qemu_spe_block *hwt_qemu_spe_translate(const struct hwt_qemu_block *b,
						  struct qemu_plugin_tb *tb)
{
	struct hwt_qemu_spe_block *sb = malloc(sizeof(*sb) + b->ninsns);

	if (!sb)
		return NULL;
	sb->b = b;
	for (uint32_t i = 0; i < b->ninsns; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		const uint8_t *p = qemu_plugin_insn_data(insn);
		uint32_t w = qemu_plugin_insn_size(insn) == 4 ?
				     (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
					     (uint32_t)p[3] << 24 :
				     0;
		uint8_t kind = 0;

		if ((w & 0x0a000000u) == 0x08000000u) {
			kind = KIND_LDST | ((w >> 26) & 1u ? KIND_SIMD : 0);
			/* The memory callback gets the instruction's address. */
			qemu_plugin_register_vcpu_mem_cb(insn, hwt_qemu_spe_mem,
							 QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW,
							 (void *)(uintptr_t)qemu_plugin_insn_vaddr(insn));
		} else if ((w & 0xff000000u) == 0xd4000000u) {
			kind = KIND_EXCEPTION;
		}
		sb->kind[i] = kind;
	}
	return sb;
}

void hwt_qemu_spe_start(void)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/spe", hwt_qemu_opts.bundle);
	/* Every process of the run makes it, or finds it made. */
	mkdir(path, 0755);
}

void hwt_qemu_spe_syscall(void)
{
	/* The block ended at the system call: its samples have completed. */
	if (self && self->npending)
		finish_pending(self, 0);
}

void hwt_qemu_spe_drain_self(void)
{
	if (!self)
		return;
	finish_pending(self, 0);
	drain(self);
}

void hwt_qemu_spe_finish_self(void)
{
	struct spe_thread *t = self;

	if (!t)
		return;
	finish_pending(t, 0);
	drain(t);
	self = NULL;
	pthread_mutex_lock(&all_lock);
	t->used = false;
	pthread_mutex_unlock(&all_lock);
}

void hwt_qemu_spe_finish_all(void)
{
	struct spe_thread *mine_was = self;

	/* QEMU has stopped the other threads (at exit, or a fatal signal). */
	for (struct spe_thread *t = all; t; t = t->next_all)
		if (t->used) {
			self = t;
			finish_pending(t, 0);
			drain(t);
		}
	self = mine_was;
}

void hwt_qemu_spe_forget_all(void)
{
	/* A fork child: the parent writes what its threads sampled. */
	pthread_mutex_init(&all_lock, NULL);
	for (struct spe_thread *t = all; t; t = t->next_all) {
		t->used = t == self;
		t->npending = t->mem_next = 0;
		t->pos = 0;
		t->open = false;
	}
	if (self) {
		/* Its stream is a new file of the child's image. */
		self->tid = (uint32_t)gettid();
		snprintf(self->name, sizeof(self->name), "%s-%u.spe", hwt_qemu_process_name(),
			 self->tid);
		self->open = hwt_qemu_file_create("spe", self->name, false);
	}
}
