/*
 * Instrumentation: every way out of a translated block gets a call to the
 * exit helper, guarded like the exit itself, so exactly one call runs per
 * executed block and it knows which exit was taken and where it went.
 *
 * `hwt record` runs Valgrind with --vex-guest-chase=no and
 * --vex-iropt-unroll-thresh=0, so a block is one run of straight-line code
 * ending at its first control transfer. The prefix bits below keep the
 * helper right should a block ever pass conditional branches before an exit.
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

/* Describes the exit that leaves from marks[at] (at < 0: before any instruction). */
static const struct hwt_vg_exit *describe_exit(const struct insn_mark *marks, Int at,
					       IRJumpKind jk)
{
	struct hwt_vg_exit *exit = VG_(calloc)("hwt.exit", 1, sizeof(*exit));
	Int i;

	if (at < 0)
		return exit; /* ninsns == 0: the helper ignores it */
	exit->start = marks[0].addr;
	exit->insn = marks[at].addr;
	exit->fallthrough = marks[at].addr + marks[at].len;
	exit->ninsns = marks[at].insns;
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
	return exit;
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
 * Appends {exit, target} to the exit log; with a guard, the cursor only
 * moves when the guard holds (the entry is written either way and simply
 * overwritten next time).
 */
static void log_exit(IRSB *out, const struct hwt_vg_exit *exit, IRExpr *target, IRExpr *guard)
{
	IRExpr *cursor = bind(out, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64,
							 word((HWord)&hwt_vg_log_cursor)));
	IRExpr *next = bind(out, Ity_I64, IRExpr_Binop(Iop_Add64, cursor,
						       word(sizeof(struct hwt_vg_log_entry))));
	IRExpr *target_at = bind(out, Ity_I64, IRExpr_Binop(Iop_Add64, cursor,
			word(offsetof(struct hwt_vg_log_entry, target))));

	addStmtToIRSB(out, IRStmt_Store(Iend_LE, cursor, word((HWord)exit)));
	addStmtToIRSB(out, IRStmt_Store(Iend_LE, target_at, target));
	if (guard)
		next = bind(out, Ity_I64, IRExpr_ITE(guard, next, cursor));
	addStmtToIRSB(out, IRStmt_Store(Iend_LE, word((HWord)&hwt_vg_log_cursor), next));
}

/* At block entry: turn the log into packets when it is full. */
static void flush_when_full(IRSB *out)
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
}

static IRExpr *const_target(const IRConst *dst)
{
	tl_assert(dst->tag == Ico_U64);
	return word((HWord)dst->Ico.U64);
}

IRSB *hwt_vg_instrument(VgCallbackClosure *closure, IRSB *in, const VexGuestLayout *layout,
			const VexGuestExtents *vge, const VexArchInfo *archinfo_host,
			IRType gWordTy, IRType hWordTy)
{
	static struct insn_mark marks[MAX_BLOCK_INSNS];
	IRSB *out;
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

	out = deepCopyIRSBExceptStmts(in);
	for (i = 0; i < in->stmts_used; i++) {
		IRStmt *st = in->stmts[i];

		/* Exits before the first instruction (self-checks) ran nothing: not logged. */
		if (st->tag == Ist_Exit && at >= 0)
			log_exit(out, describe_exit(marks, at, st->Ist.Exit.jk),
				 const_target(st->Ist.Exit.dst), st->Ist.Exit.guard);
		addStmtToIRSB(out, st);
		if (st->tag == Ist_IMark && ++at == 0)
			flush_when_full(out);
	}
	if (nmarks > 0)
		log_exit(out, describe_exit(marks, nmarks - 1, in->jumpkind), in->next, NULL);
	return out;
}
