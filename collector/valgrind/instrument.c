/*
 * Instrumentation: every way out of a translated block appends its entry
 * to the exit log (tool.h) just before it leaves, so exactly one entry is
 * added per executed block, naming the exit taken and, when that is not
 * constant, where it went. A block none of whose exits writes a packet is
 * left as it is (no entry), unless every block must be logged (the block
 * log of --hwt-debug-blocks, address filters). What the encoder will do for the exit (its
 * kind: TNT bit, TIP, nothing) is decided here, once per translation, so
 * the encoder reads nothing but the log for the common exits.
 *
 * `hwt record` runs Valgrind with --vex-guest-chase=no and
 * --vex-iropt-unroll-thresh=0, so a block is one run of straight-line code
 * ending at its first control transfer. The prefix bits below keep the
 * encoder right should a block ever pass conditional branches before an exit.
 */
#include "tool.h"
#include "x86_insn.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"

#define MAX_BLOCK_INSNS 512

struct insn_mark {
	Addr addr;
	UInt len;
	struct hwt_x86_insn insn;
	Bool decoded;
	UInt insns;      /* x86 instructions up to and including this mark */
};

/*
 * x86 instructions in one IMark: 1, except for Valgrind's client-request
 * preamble (four ROLs and an XCHG), which VEX marks as one 19-byte unit.
 */
static UInt insns_in_mark(Addr addr, UInt len)
{
	UInt n = 0, at = 0;

	while (at < len) {
		struct hwt_x86_insn insn;
		int l = hwt_x86_insn_decode((const uint8_t *)(addr + at), len - at, &insn);

		if (l <= 0)
			return n + 1;
		at += (UInt)l;
		n++;
	}
	return n ? n : 1;
}

static Bool leaves_user_mode(IRJumpKind jk)
{
	switch (jk) {
	case Ijk_Sys_syscall:
	case Ijk_Sys_int32:
	case Ijk_Sys_int128:
	case Ijk_Sys_int129:
	case Ijk_Sys_int130:
	case Ijk_Sys_int145:
	case Ijk_Sys_int210:
	case Ijk_Sys_sysenter:
	case Ijk_SigTRAP: /* int3: a far transfer into the kernel */
		return True;
	default:
		return False;
	}
}

struct hwt_vg_exit *hwt_vg_exits;
static UInt nexits, exits_size;

/* What the encoder does for exit, from its branch and whether its target is constant. */
static UChar exit_kind(const struct hwt_vg_exit *exit, Bool constant_target)
{
	if (exit->prefix_count)
		return HWT_VG_EXIT_SLOW;
	switch (exit->branch) {
	case HWT_X86_COND:
		if (!constant_target)
			return HWT_VG_EXIT_SLOW;
		return exit->target != exit->fallthrough ? HWT_VG_EXIT_TAKEN
							 : HWT_VG_EXIT_NOT_TAKEN;
	case HWT_X86_JUMP_INDIRECT:
	case HWT_X86_CALL_INDIRECT:
	case HWT_X86_RETURN:
		return HWT_VG_EXIT_TIP;
	case HWT_X86_FAR:
		return exit->leaves_user ? HWT_VG_EXIT_SLOW : HWT_VG_EXIT_QUIET;
	default:
		return HWT_VG_EXIT_QUIET;
	}
}

/* Describes, in *exit, the exit that leaves from marks[at] (at >= 0) for
   target (NULL: not constant). */
static void describe_exit(struct hwt_vg_exit *exit, const struct insn_mark *marks, Int at,
			  IRJumpKind jk, const IRConst *target)
{
	Int i;

	VG_(memset)(exit, 0, sizeof(*exit));
	exit->start = marks[0].addr;
	exit->insn = marks[at].addr;
	exit->fallthrough = marks[at].addr + marks[at].len;
	exit->ninsns = marks[at].insns;
	if (target) {
		tl_assert(target->tag == Ico_U64);
		exit->target = (Addr)target->Ico.U64;
	}
	if (marks[at].decoded) {
		exit->branch = marks[at].insn.branch;
		exit->rep = (marks[at].insn.flags & HWT_X86_REP) != 0;
	}
	exit->leaves_user = exit->branch == HWT_X86_FAR && leaves_user_mode(jk);
	/* Conditional branches passed on the way: their outcome is fixed by the path. */
	for (i = 0; i < at && exit->prefix_count < 64; i++) {
		if (marks[i].decoded && marks[i].insn.branch == HWT_X86_COND) {
			Bool taken = marks[i + 1].addr != marks[i].addr + marks[i].len;

			exit->prefix_bits |= (ULong)taken << exit->prefix_count;
			exit->prefix_count++;
		}
	}
	exit->kind = exit_kind(exit, target != NULL);
}

/* Keeps a described exit for the log to name; returns its log word, without
   the target flag. */
static UInt keep_exit(const struct hwt_vg_exit *exit)
{
	if (nexits == exits_size) {
		if (exits_size >= HWT_VG_EXITS_MAX / 2)
			VG_(tool_panic)("hwt: more translated block exits than the exit log can name");
		exits_size = exits_size ? 2 * exits_size : 4096;
		hwt_vg_exits = VG_(realloc)("hwt.exits", hwt_vg_exits,
					    exits_size * sizeof(*hwt_vg_exits));
	}
	hwt_vg_exits[nexits] = *exit;
	return nexits++ << HWT_VG_LOG_INDEX_SHIFT | exit->kind;
}

static IRExpr *word(HWord w)
{
	return mkIRExpr_HWord(w);
}

/* Binds e to a new temporary of out and returns the temporary. */
static IRExpr *bind(IRSB *out, IRType ty, IRExpr *e)
{
	IRTemp t = newIRTemp(out->tyenv, ty);

	addStmtToIRSB(out, IRStmt_WrTmp(t, e));
	return IRExpr_RdTmp(t);
}

/*
 * Appends the entry of an exit at cursor: its word (with the unused half,
 * zero: one 64-bit store of an immediate), its target unless constant (a
 * TIP's always) and, for the block's first logged exit (move_cursor), moves
 * the log's cursor past it. Before a guarded exit the cursor moves whether
 * or not the exit is taken: when it is not, the block's next exit writes
 * its own entry at the same place (cursor is the block's temporary, not
 * the variable), and the cursor already points past it: a block leaves
 * one entry, whichever exit it takes.
 */
static void log_exit(IRSB *out, IRExpr *cursor, UInt entry, IRExpr *target, Bool move_cursor)
{
	Bool with_target = (entry & HWT_VG_LOG_KIND) == HWT_VG_EXIT_TIP ||
			   target->tag != Iex_Const;

	addStmtToIRSB(out, IRStmt_Store(Iend_LE, cursor,
		IRExpr_Const(IRConst_U64(entry | (with_target ? HWT_VG_LOG_TARGET : 0)))));
	if (with_target)
		addStmtToIRSB(out, IRStmt_Store(Iend_LE,
			bind(out, Ity_I64, IRExpr_Binop(Iop_Add64, cursor,
				word(offsetof(struct hwt_vg_log_entry, target)))), target));
	if (move_cursor)
		addStmtToIRSB(out, IRStmt_Store(Iend_LE, word((HWord)&hwt_vg_log_cursor),
			bind(out, Ity_I64, IRExpr_Binop(Iop_Add64, cursor,
						       word(sizeof(struct hwt_vg_log_entry))))));
}

/*
 * At block entry: turns the log into packets when it is full, and returns
 * the cursor that the block's exits write at (the start of the log after
 * a flush, which always empties it).
 */
static IRExpr *flush_when_full(IRSB *out)
{
	IRExpr *cursor = bind(out, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64,
							 word((HWord)&hwt_vg_log_cursor)));
	IRExpr *full = bind(out, Ity_I1, IRExpr_Binop(Iop_CmpLE64U,
			word((HWord)&hwt_vg_log[HWT_VG_LOG_ENTRIES]), cursor));
	IRDirty *di = unsafeIRDirty_0_N(0, "hwt_vg_thread_flush_log",
					VG_(fnptr_to_fnentry)((void *)&hwt_vg_thread_flush_log),
					mkIRExprVec_0());

	di->guard = full;
	di->mFx = Ifx_Modify;
	di->mAddr = word((HWord)&hwt_vg_log_cursor);
	di->mSize = sizeof(hwt_vg_log_cursor);
	addStmtToIRSB(out, IRStmt_Dirty(di));
	/* Loaded again rather than chosen with the guard: VEX then tests the
	   guard in the flags for the call alone. */
	return bind(out, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, word((HWord)&hwt_vg_log_cursor)));
}

/* The constant target of the block's last exit, NULL when it is computed. */
static const IRConst *next_target(const IRSB *in)
{
	return in->next->tag == Iex_Const ? in->next->Iex.Const.con : NULL;
}

/*
 * Whether a block whose exits all write no packet (direct jumps and calls,
 * straight-line code) may go without instrumentation: the encoder needs
 * nothing from it. Tracing resumes (TIP.PGE) where the scheduler resumes
 * the thread (thread.c), not at the first logged block. Only the block log
 * (--hwt-debug-blocks) and the address filters, which look at the start
 * of every block, need them all.
 */
static Bool quiet_blocks_unlogged(void)
{
	return !hwt_vg_opts.debug_blocks && !hwt_vg_filter_active;
}

/*
 * Whether any exit of the block writes a packet (a kind other than QUIET).
 * Exits before the first instruction (self-checks) ran nothing: not counted.
 */
static Bool writes_packets(const IRSB *in, const struct insn_mark *marks, Int nmarks)
{
	struct hwt_vg_exit exit;
	Int i, at = -1;

	for (i = 0; i < in->stmts_used; i++) {
		const IRStmt *st = in->stmts[i];

		if (st->tag == Ist_IMark)
			at++;
		else if (st->tag == Ist_Exit && at >= 0) {
			describe_exit(&exit, marks, at, st->Ist.Exit.jk, st->Ist.Exit.dst);
			if (exit.kind != HWT_VG_EXIT_QUIET)
				return True;
		}
	}
	if (nmarks == 0)
		return False;
	describe_exit(&exit, marks, nmarks - 1, in->jumpkind, next_target(in));
	return exit.kind != HWT_VG_EXIT_QUIET;
}

IRSB *hwt_vg_instrument(VgCallbackClosure *closure, IRSB *in, const VexGuestLayout *layout,
			const VexGuestExtents *vge, const VexArchInfo *archinfo_host,
			IRType gWordTy, IRType hWordTy)
{
	static struct insn_mark marks[MAX_BLOCK_INSNS];
	struct hwt_vg_exit exit;
	IRSB *out;
	IRExpr *cursor = NULL;
	Bool cursor_moved = False;
	Int i, nmarks = 0, at = -1;

	(void)closure;
	(void)layout;
	(void)vge;
	(void)archinfo_host;
	if (gWordTy != hWordTy || gWordTy != Ity_I64)
		VG_(tool_panic)("hwt: only amd64 guests on amd64 hosts are supported");

	for (i = 0; i < in->stmts_used && nmarks < MAX_BLOCK_INSNS; i++) {
		IRStmt *st = in->stmts[i];

		if (st->tag == Ist_IMark) {
			struct insn_mark *m = &marks[nmarks++];

			m->addr = (Addr)st->Ist.IMark.addr + st->Ist.IMark.delta;
			m->len = st->Ist.IMark.len;
			m->decoded = m->len > 0 &&
				hwt_x86_insn_decode((const uint8_t *)m->addr, m->len, &m->insn) ==
					(int)m->len;
			m->insns = (nmarks > 1 ? marks[nmarks - 2].insns : 0) +
				   (m->decoded ? 1 : insns_in_mark(m->addr, m->len));
		}
	}
	if (nmarks == MAX_BLOCK_INSNS)
		VG_(tool_panic)("hwt: translated block with too many instructions");

	/* About a third of the blocks of an interpreter's run: no stores, no
	   fullness check, the floor's own code. */
	if (quiet_blocks_unlogged() && !writes_packets(in, marks, nmarks))
		return in;

	out = deepCopyIRSBExceptStmts(in);
	for (i = 0; i < in->stmts_used; i++) {
		IRStmt *st = in->stmts[i];

		/* Exits before the first instruction (self-checks) ran nothing: not logged. */
		if (st->tag == Ist_Exit && at >= 0) {
			describe_exit(&exit, marks, at, st->Ist.Exit.jk, st->Ist.Exit.dst);
			log_exit(out, cursor, keep_exit(&exit), IRExpr_Const(st->Ist.Exit.dst),
				 !cursor_moved);
			cursor_moved = True;
		}
		addStmtToIRSB(out, st);
		if (st->tag == Ist_IMark && ++at == 0)
			cursor = flush_when_full(out);
	}
	if (nmarks > 0) {
		describe_exit(&exit, marks, nmarks - 1, in->jumpkind, next_target(in));
		log_exit(out, cursor, keep_exit(&exit), in->next, !cursor_moved);
	}
	return out;
}
