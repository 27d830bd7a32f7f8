/*
 * One traced thread: its Intel PT stream and the packet encoder state.
 *
 * Translated code does not call into the tool per block: each block appends
 * {exit taken, target} to the exit log (a few stores, see instrument.c), and
 * the log is turned into packets in a tight loop when it fills, when the
 * thread stops running guest code, and before anything else is recorded. Tracing is "enabled" (PacketEn) while the thread runs
 * guest code; a system call or a signal delivery disables it (TIP.PGD) and
 * the next block the thread runs enables it again (TIP.PGE at its start),
 * as a user-mode-only hardware unit would.
 */
#include "tool.h"
#include "sw_block_log.h"
#include "sw_stream.h"
#include "x86_insn.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_vki.h"

struct hwt_vg_thread {
	Bool open;               /* stream file exists */
	HChar stream_name[64];   /* streams/<image>-<tid>.pt */
	HChar blocks_name[64];   /* blocks/<image>-<tid>.blk */
	Int os_tid;
	UChar *buf;              /* hwt_vg_opts.buffer_size bytes */
	struct hwt_sw_stream st; /* the packets, PacketEn, TSC, PSB+, OVF */
	Addr next_ip;            /* where the thread goes next (last exit's target) */
	Addr last_insn;          /* last instruction logged (REP iterations) */
	struct hwt_sw_block_log blocks; /* --debug-blocks */
};

static struct hwt_vg_thread *threads;
struct hwt_vg_thread *hwt_vg_thread_current;
static ULong total_bytes;

struct hwt_vg_log_entry hwt_vg_log[HWT_VG_LOG_ENTRIES + 1] __attribute__((aligned(64)));
struct hwt_vg_log_entry *hwt_vg_log_cursor = hwt_vg_log;

void hwt_vg_thread_init(void)
{
	threads = VG_(calloc)("hwt.threads", VG_N_THREADS, sizeof(*threads));
}

static void enable(struct hwt_vg_thread *t, Addr ip);

/*
 * Tracing resumes (TIP.PGE) where the scheduler resumes the thread, before
 * it runs a block: blocks that write no packets leave no log entry
 * (instrument.c), so the first entry after a system call or a signal need
 * not be the first block that ran. With address filters every block is
 * logged, and the first one inside the ranges enables (exit_filtered()).
 */
void hwt_vg_thread_set_current(ThreadId tid)
{
	struct hwt_vg_thread *t = &threads[tid];

	hwt_vg_thread_flush_log();
	hwt_vg_thread_current = t;
	if (!t->st.enabled && !hwt_vg_filter_active)
		enable(t, VG_(get_IP)(tid));
}

ULong hwt_vg_thread_bytes(void)
{
	return total_bytes;
}

static void write_blocks(struct hwt_sw_block_log *log, const void *buf, size_t len)
{
	struct hwt_vg_thread *t =
		(struct hwt_vg_thread *)((HChar *)log - offsetof(struct hwt_vg_thread, blocks));

	hwt_vg_file_append("blocks", t->blocks_name, buf, len);
}

static struct hwt_vg_thread *stream_thread(struct hwt_sw_stream *st)
{
	return (struct hwt_vg_thread *)((HChar *)st - offsetof(struct hwt_vg_thread, st));
}

/* The stream's ops: packets go to streams/<image>-<tid>.pt, a loss into the sideband. */
static int write_packets(struct hwt_sw_stream *st, const uint8_t *buf, size_t len)
{
	/* Past the run's cap: dropped as if written (no loss), the stream ends here. */
	if (hwt_vg_budget && !hwt_trace_budget_take(hwt_vg_budget, len))
		return 1;
	if (!hwt_vg_file_append("streams", stream_thread(st)->stream_name, buf, len))
		return 0;
	total_bytes += len;
	return 1;
}

static void lost_packets(struct hwt_sw_stream *st, size_t len)
{
	(void)st;
	hwt_vg_process_lost(HWT_LOST_TRACE_WRITE, 0, len);
}

static const struct hwt_sw_stream_ops stream_ops = { write_packets, lost_packets };

static void open_stream(struct hwt_vg_thread *t)
{
	t->os_tid = VG_(gettid)();
	if (!t->buf)
		t->buf = VG_(malloc)("hwt.thread.buf", hwt_vg_opts.buffer_size);
	VG_(sprintf)(t->stream_name, "%s-%d.pt", hwt_vg_process_name(), t->os_tid);
	/* A failure here shows as failed appends: LOST records and OVF. */
	hwt_vg_file_create("streams", t->stream_name, False);
	if (hwt_vg_opts.debug_blocks) {
		VG_(sprintf)(t->blocks_name, "%s-%d.blk", hwt_vg_process_name(), t->os_tid);
		hwt_vg_file_create("blocks", t->blocks_name, False);
		if (!t->blocks.entries)
			t->blocks.entries = VG_(malloc)("hwt.thread.blocks", HWT_SW_BLOCK_LOG_ENTRIES *
							sizeof(*t->blocks.entries));
		t->blocks.write = write_blocks;
	}
	t->open = True;
	t->last_insn = 0;
	hwt_sw_stream_start(&t->st, t->buf, hwt_vg_opts.buffer_size, hwt_vg_process_clock,
			    hwt_vg_opts.psb_period, &stream_ops);
}

/* Packets that must precede anything else this thread writes now. */
static inline void sync_state(struct hwt_vg_thread *t)
{
	hwt_sw_stream_sync(&t->st, hwt_vg_process_clock, t->next_ip);
}

static void enable(struct hwt_vg_thread *t, Addr ip)
{
	if (!t->open)
		open_stream(t);
	hwt_sw_stream_enable(&t->st, ip, hwt_vg_process_clock);
}

/* The packets for one executed block, left by exit for target. */
static inline void exit_taken(struct hwt_vg_thread *t, const struct hwt_vg_exit *exit,
			      Addr target)
{
	UInt i;

	if (UNLIKELY(exit->ninsns == 0))
		return; /* a self-check exit before the first instruction: nothing ran */
	if (UNLIKELY(!t->st.enabled))
		enable(t, exit->start);
	else
		sync_state(t);

	for (i = 0; i < exit->prefix_count; i++) {
		hwt_sw_stream_reserve(&t->st);
		hwt_pt_tnt(&t->st.enc, (exit->prefix_bits >> i) & 1);
	}

	if (exit->branch == HWT_X86_FAR && exit->leaves_user)
		hwt_sw_stream_disable(&t->st);
	else
		hwt_sw_stream_branch(&t->st, exit->branch, target, exit->fallthrough);

	hwt_sw_stream_psb_if_due(&t->st, target);

	t->next_ip = target;
}

/*
 * With address filters (filter.c): a block outside every range produces
 * nothing; the first block inside enables tracing (TIP.PGE at its start,
 * in exit_taken); a block inside that leaves the ranges disables it with
 * TIP.PGD carrying the target, after the TNT bits of the branches before
 * it. The SDM suppresses that IP when a conditional branch leaves the
 * range, but then only a decoder told the filter configuration can bind the
 * PGD; with the target, libipt binds it to the branch with no
 * configuration, as it does for every other kind of branch.
 */
static void exit_filtered(struct hwt_vg_thread *t, const struct hwt_vg_exit *exit, Addr target)
{
	UInt i;

	if (UNLIKELY(exit->ninsns == 0))
		return;
	if (!hwt_vg_filter_in(exit->start)) {
		t->next_ip = target;
		return;
	}
	if (exit->leaves_user || hwt_vg_filter_in(target)) {
		exit_taken(t, exit, target);
		return;
	}
	if (!t->st.enabled)
		enable(t, exit->start);
	else
		sync_state(t);
	for (i = 0; i < exit->prefix_count; i++) {
		hwt_sw_stream_reserve(&t->st);
		hwt_pt_tnt(&t->st.enc, (exit->prefix_bits >> i) & 1);
	}
	hwt_sw_stream_reserve(&t->st);
	hwt_pt_tip_pgd(&t->st.enc, target, 0);
	t->st.enabled = 0;
	hwt_sw_stream_psb_if_due(&t->st, target);
	t->next_ip = target;
}

/* Packet bytes as common/pt_encoder.c writes them (Intel SDM): TIP's opcode
   and its IPBytes field (bits 7:5), the long TNT's two opcode bytes. */
#define TIP_OPCODE 0x0du
#define TIP_IPBYTES_16 (1u << 5)
#define TIP_IPBYTES_32 (2u << 5)
#define TNT_LONG_OPCODE 0x02u
#define TNT_LONG_EXT 0xa3u

/*
 * The common case, kept tight: the thread is traced, nothing else is due
 * and no block log is kept. It reads only the log, not the exits'
 * descriptions: the kind in the entry's word says what to write. The
 * encoder's state stays in locals (stores into the packet buffer could
 * alias it otherwise), and the usual packets are written here: TNT bits,
 * the long TNT that 47 of them fill, and TIP with 16- or 32-bit IP
 * compression after at most a short TNT; the bytes are those of
 * common/pt_encoder.c, which writes the other cases. Returns where it
 * stopped: at end, or at the first entry that needs exit_taken().
 */
static const struct hwt_vg_log_entry *encode_fast(struct hwt_vg_thread *t,
						  const struct hwt_vg_log_entry *e,
						  const struct hwt_vg_log_entry *end)
{
	struct hwt_pt_encoder *enc = &t->st.enc;
	UChar *buf = enc->buf;
	SizeT pos = enc->pos;
	/* Room for one more encoder call while pos <= limit (HWT_PT_MAX_WRITE free). */
	SizeT limit = enc->size - HWT_PT_MAX_WRITE;
	/* A PSB+ is due once pos reaches psb_at: a TIP then takes the slow path. */
	Long psb_at = (Long)(t->st.psb_due - t->st.bytes_out);
	ULong bits = enc->tnt_bits, last_ip = enc->last_ip;
	UInt count = enc->tnt_count;

	for (; e < end; e++) {
		UInt kind = e->word & HWT_VG_LOG_KIND;
		ULong ip, diff, payload;

		if (kind == HWT_VG_EXIT_QUIET)
			continue;
		if (kind == HWT_VG_EXIT_NOT_TAKEN || kind == HWT_VG_EXIT_TAKEN) {
			if (UNLIKELY(pos > limit))
				break;
			bits = bits << 1 | (kind == HWT_VG_EXIT_TAKEN);
			if (UNLIKELY(++count == HWT_PT_TNT_LONG_BITS)) {
				/* Long TNT: the stop bit above the oldest bit, 6 payload bytes. */
				payload = 1ull << count | bits;
				buf[pos] = TNT_LONG_OPCODE;
				buf[pos + 1] = TNT_LONG_EXT;
				__builtin_memcpy(buf + pos + 2, &payload, 6);
				pos += 8;
				bits = 0;
				count = 0;
			}
			continue;
		}
		if (kind != HWT_VG_EXIT_TIP)
			break;
		if (UNLIKELY(pos > limit || (Long)pos >= psb_at))
			break;
		ip = e->target;
		diff = ip ^ last_ip;
		if (UNLIKELY((diff >> 32) != 0 || (enc->flags & HWT_PT_F_IP_RESET) != 0 ||
			     count > HWT_PT_TNT_SHORT_BITS)) {
			enc->pos = pos;
			enc->tnt_bits = bits;
			enc->tnt_count = count;
			enc->last_ip = last_ip;
			hwt_pt_tip(enc, ip);
			pos = enc->pos;
			bits = enc->tnt_bits;
			count = enc->tnt_count;
			last_ip = enc->last_ip;
			continue;
		}
		if (count) {
			/* Short TNT: the stop bit above the oldest bit, shifted past bit 0. */
			buf[pos++] = (UChar)((1ull << count | bits) << 1);
			bits = 0;
			count = 0;
		}
		__builtin_memcpy(buf + pos + 1, &ip, sizeof(ip)); /* bytes past the IP: not counted */
		if (!(diff >> 16)) {
			buf[pos] = TIP_OPCODE | TIP_IPBYTES_16;
			pos += 3;
		} else {
			buf[pos] = TIP_OPCODE | TIP_IPBYTES_32;
			pos += 5;
		}
		last_ip = ip;
	}
	enc->pos = pos;
	enc->tnt_bits = bits;
	enc->tnt_count = count;
	enc->last_ip = last_ip;
	return e;
}

/* The block log (tests): what ran, independent of the packets that say so. */
static void log_blocks(struct hwt_vg_thread *t, const struct hwt_vg_log_entry *e,
		       const struct hwt_vg_log_entry *end)
{
	for (; e < end; e++) {
		const struct hwt_vg_exit *exit = hwt_vg_log_exit(e);

		/* A REP string instruction runs as a block per iteration: log it once. */
		if (!(exit->rep && exit->ninsns == 1 && exit->start == t->last_insn) &&
		    (!hwt_vg_filter_active || (exit->ninsns > 0 && hwt_vg_filter_in(exit->start))))
			hwt_sw_block_log_add(&t->blocks, exit->start, exit->ninsns);
		t->last_insn = exit->insn;
	}
}

void hwt_vg_thread_flush_log(void)
{
	struct hwt_vg_thread *t = hwt_vg_thread_current;
	const struct hwt_vg_log_entry *e = hwt_vg_log, *end = hwt_vg_log_cursor, *stop;

	hwt_vg_log_cursor = hwt_vg_log;
	if (!t || e == end)
		return;
	if (UNLIKELY(!t->open))
		open_stream(t);
	if (UNLIKELY(t->blocks.entries != NULL))
		log_blocks(t, e, end);
	if (UNLIKELY(hwt_vg_filter_active)) {
		for (; e < end; e++)
			exit_filtered(t, hwt_vg_log_exit(e), hwt_vg_log_target(e));
		return;
	}
	while (e < end) {
		if (t->st.enabled && !t->st.lost && t->st.time == hwt_vg_process_clock) {
			stop = encode_fast(t, e, end);
			if (stop != e)
				t->next_ip = hwt_vg_log_target(stop - 1);
			e = stop;
			if (e == end)
				break;
		}
		exit_taken(t, hwt_vg_log_exit(e), hwt_vg_log_target(e));
		e++;
	}
}

/* Instructions from ip up to (not including) stop, walked with the classifier. */
static UInt count_insns(Addr ip, Addr stop)
{
	UInt n = 0;

	while (ip < stop && n < 1000) {
		struct hwt_x86_insn insn;

		if (hwt_x86_insn_decode((const uint8_t *)ip, 15, &insn) <= 0)
			break;
		ip += insn.length;
		n++;
	}
	return n;
}

void hwt_vg_thread_interrupt(ThreadId tid, Addr ip)
{
	struct hwt_vg_thread *t = &threads[tid];

	hwt_vg_thread_flush_log();
	if (!t->st.enabled)
		return; /* already out of user mode (a system call): nothing to mark */
	/* A fault in the middle of a block: the instructions before ip ran. */
	if (t->blocks.entries && ip != t->next_ip) {
		UInt n = count_insns(t->next_ip, ip);

		if (n)
			hwt_sw_block_log_add(&t->blocks, t->next_ip, n);
	}
	hwt_sw_stream_interrupt(&t->st, ip, hwt_vg_process_clock);
}

void hwt_vg_thread_interrupt_all(void)
{
	UInt i;

	for (i = 1; i < VG_N_THREADS; i++)
		if (threads[i].st.enabled)
			hwt_vg_thread_interrupt(i, VG_(get_IP)(i));
}

void hwt_vg_thread_drain_all(void)
{
	UInt i;

	hwt_vg_thread_flush_log();
	for (i = 0; i < VG_N_THREADS; i++) {
		if (threads[i].open) {
			if (threads[i].st.enc.pos)
				hwt_sw_stream_drain(&threads[i].st);
			hwt_sw_block_log_drain(&threads[i].blocks);
		}
	}
}

void hwt_vg_thread_finish(ThreadId tid)
{
	struct hwt_vg_thread *t = &threads[tid];

	hwt_vg_thread_flush_log();
	if (!t->open)
		return;
	hwt_sw_stream_flush(&t->st);
	hwt_sw_block_log_drain(&t->blocks);
	t->open = False;
	t->st.enabled = 0;
}

void hwt_vg_thread_finish_all(void)
{
	UInt i;

	for (i = 0; i < VG_N_THREADS; i++)
		hwt_vg_thread_finish(i);
}

void hwt_vg_thread_forget_all(void)
{
	UInt i;

	hwt_vg_log_cursor = hwt_vg_log; /* the parent's blocks, not ours */
	for (i = 0; i < VG_N_THREADS; i++) {
		struct hwt_vg_thread *t = &threads[i];

		t->open = False;
		t->st.enabled = 0;
		t->blocks.count = 0;
	}
	total_bytes = 0;
}
