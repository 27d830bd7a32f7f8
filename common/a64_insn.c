/*
 * A64 branch classifier. The encoding groups and field names are those of
 * the Arm ARM's "Branches, Exception Generating and System instructions"
 * tables; each group is recognised by its fixed bits, then its fields.
 */
#include "a64_insn.h"

/* Sign-extends the low `bits` bits of v. */
static int64_t sext(uint32_t v, unsigned int bits)
{
	uint64_t m = 1ull << (bits - 1);

	v &= (uint32_t)((1ull << bits) - 1);
	return (int64_t)(((uint64_t)v ^ m) - m);
}

static enum hwt_a64_branch set(struct hwt_a64_insn *insn, enum hwt_a64_branch branch,
			       enum hwt_a64_op op)
{
	insn->branch = (uint8_t)branch;
	insn->op = (uint8_t)op;
	return branch;
}

static enum hwt_a64_branch direct(struct hwt_a64_insn *insn, enum hwt_a64_branch branch,
				  enum hwt_a64_op op, int64_t words)
{
	insn->flags |= HWT_A64_HAS_TARGET;
	insn->offset = words * (int64_t)HWT_A64_INSN_SIZE;
	return set(insn, branch, op);
}

/*
 * Unconditional branch (register): 1101011 opc(24:21) op2(20:16) op3(15:10)
 * Rn(9:5) op4(4:0). op2 is always 11111. op3 is 000000 for the plain forms
 * and 00001M for the authenticated ones (M: key B), which name their
 * modifier in op4 (BRAA, BLRAA) or take zero (op4 11111: the ...Z forms).
 */
static enum hwt_a64_branch branch_register(uint32_t w, struct hwt_a64_insn *insn)
{
	unsigned int opc = (w >> 21) & 0xfu, op2 = (w >> 16) & 0x1fu;
	unsigned int op3 = (w >> 10) & 0x3fu, rn = (w >> 5) & 0x1fu, op4 = w & 0x1fu;
	int plain = op3 == 0 && op4 == 0, auth_zero = (op3 & 0x3eu) == 0x02u && op4 == 0x1fu;
	int key_b = op3 & 1u;

	if (op2 != 0x1fu)
		return HWT_A64_OTHER;
	insn->reg = (uint8_t)rn;
	switch (opc) {
	case 0x0: /* BR, BRAAZ, BRABZ */
		if (plain)
			return set(insn, HWT_A64_JUMP_INDIRECT, HWT_A64_OP_BR);
		if (!auth_zero)
			break;
		insn->flags |= HWT_A64_PAC;
		return set(insn, HWT_A64_JUMP_INDIRECT, key_b ? HWT_A64_OP_BRABZ : HWT_A64_OP_BRAAZ);
	case 0x1: /* BLR, BLRAAZ, BLRABZ */
		if (plain)
			return set(insn, HWT_A64_CALL_INDIRECT, HWT_A64_OP_BLR);
		if (!auth_zero)
			break;
		insn->flags |= HWT_A64_PAC;
		return set(insn, HWT_A64_CALL_INDIRECT, key_b ? HWT_A64_OP_BLRABZ : HWT_A64_OP_BLRAAZ);
	case 0x2: /* RET, RETAA, RETAB (these two on x30 only, Rn = 11111) */
		if (plain)
			return set(insn, HWT_A64_RETURN, HWT_A64_OP_RET);
		if (!auth_zero || rn != 0x1fu)
			break;
		insn->flags |= HWT_A64_PAC;
		insn->reg = 30;
		return set(insn, HWT_A64_RETURN, key_b ? HWT_A64_OP_RETAB : HWT_A64_OP_RETAA);
	case 0x4: /* ERET, ERETAA, ERETAB: Rn = 11111, the ELR is the target */
		if (rn != 0x1fu)
			break;
		if (plain)
			return set(insn, HWT_A64_EXCEPTION_RETURN, HWT_A64_OP_ERET);
		if (!auth_zero)
			break;
		insn->flags |= HWT_A64_PAC;
		return set(insn, HWT_A64_EXCEPTION_RETURN,
			   key_b ? HWT_A64_OP_ERETAB : HWT_A64_OP_ERETAA);
	case 0x8: /* BRAA, BRAB: modifier in op4 (any register, SP included) */
		if ((op3 & 0x3eu) != 0x02u)
			break;
		insn->flags |= HWT_A64_PAC;
		return set(insn, HWT_A64_JUMP_INDIRECT, key_b ? HWT_A64_OP_BRAB : HWT_A64_OP_BRAA);
	case 0x9: /* BLRAA, BLRAB */
		if ((op3 & 0x3eu) != 0x02u)
			break;
		insn->flags |= HWT_A64_PAC;
		return set(insn, HWT_A64_CALL_INDIRECT, key_b ? HWT_A64_OP_BLRAB : HWT_A64_OP_BLRAA);
	default:
		/* 0101 is DRPS, valid only in Debug state: elsewhere it is undefined. */
		break;
	}
	insn->flags = 0;
	insn->reg = 0;
	return HWT_A64_OTHER;
}

/*
 * Exception generation: 11010100 opc(23:21) imm16(20:5) op2(4:2) LL(1:0).
 * DCPS1..3 (opc 101) are valid only in Debug state and TCANCEL (opc 011)
 * ends a transaction, not the code stream: neither is classified here.
 */
static enum hwt_a64_branch exception(uint32_t w, struct hwt_a64_insn *insn)
{
	unsigned int opc = (w >> 21) & 0x7u, op2 = (w >> 2) & 0x7u, ll = w & 0x3u;
	enum hwt_a64_op op = HWT_A64_OP_NONE;

	if (op2 != 0)
		return HWT_A64_OTHER;
	if (opc == 0 && ll == 1)
		op = HWT_A64_OP_SVC;
	else if (opc == 0 && ll == 2)
		op = HWT_A64_OP_HVC;
	else if (opc == 0 && ll == 3)
		op = HWT_A64_OP_SMC;
	else if (opc == 1 && ll == 0)
		op = HWT_A64_OP_BRK;
	else if (opc == 2 && ll == 0)
		op = HWT_A64_OP_HLT;
	else
		return HWT_A64_OTHER;
	insn->imm = (uint16_t)((w >> 5) & 0xffffu);
	return set(insn, HWT_A64_EXCEPTION, op);
}

enum hwt_a64_branch hwt_a64_insn_decode(uint32_t w, struct hwt_a64_insn *insn)
{
	insn->branch = HWT_A64_OTHER;
	insn->op = HWT_A64_OP_NONE;
	insn->flags = 0;
	insn->reg = 0;
	insn->imm = 0;
	insn->offset = 0;

	/* B, BL: x00101 imm26. */
	if ((w & 0x7c000000u) == 0x14000000u)
		return direct(insn, (w >> 31) ? HWT_A64_CALL : HWT_A64_JUMP,
			      (w >> 31) ? HWT_A64_OP_BL : HWT_A64_OP_B, sext(w, 26));
	/* B.cond, BC.cond: 0101010 o1(24) imm19 o0(4) cond; o1 = 1 is unallocated. */
	if ((w & 0xff000000u) == 0x54000000u)
		return direct(insn, HWT_A64_COND, (w & 0x10u) ? HWT_A64_OP_BC_COND : HWT_A64_OP_B_COND,
			      sext(w >> 5, 19));
	/* CBZ, CBNZ: sf 011010 op(24) imm19 Rt. */
	if ((w & 0x7e000000u) == 0x34000000u) {
		insn->reg = (uint8_t)(w & 0x1fu);
		return direct(insn, HWT_A64_COND, (w & 0x01000000u) ? HWT_A64_OP_CBNZ : HWT_A64_OP_CBZ,
			      sext(w >> 5, 19));
	}
	/* TBZ, TBNZ: b5 011011 op(24) b40(23:19) imm14 Rt. */
	if ((w & 0x7e000000u) == 0x36000000u) {
		insn->reg = (uint8_t)(w & 0x1fu);
		insn->imm = (uint16_t)(((w >> 26) & 0x20u) | ((w >> 19) & 0x1fu));
		return direct(insn, HWT_A64_COND, (w & 0x01000000u) ? HWT_A64_OP_TBNZ : HWT_A64_OP_TBZ,
			      sext(w >> 5, 14));
	}
	if ((w & 0xfe000000u) == 0xd6000000u)
		return branch_register(w, insn);
	if ((w & 0xff000000u) == 0xd4000000u)
		return exception(w, insn);
	return HWT_A64_OTHER;
}

const char *hwt_a64_branch_name(enum hwt_a64_branch branch)
{
	switch (branch) {
	case HWT_A64_OTHER:
		return "other";
	case HWT_A64_COND:
		return "cond";
	case HWT_A64_JUMP:
		return "jump";
	case HWT_A64_CALL:
		return "call";
	case HWT_A64_JUMP_INDIRECT:
		return "jump-indirect";
	case HWT_A64_CALL_INDIRECT:
		return "call-indirect";
	case HWT_A64_RETURN:
		return "return";
	case HWT_A64_EXCEPTION_RETURN:
		return "exception-return";
	case HWT_A64_EXCEPTION:
		return "exception";
	}
	return "unknown";
}

const char *hwt_a64_op_name(enum hwt_a64_op op)
{
	switch (op) {
	case HWT_A64_OP_NONE:
		return "other";
	case HWT_A64_OP_B:
		return "b";
	case HWT_A64_OP_BL:
		return "bl";
	case HWT_A64_OP_B_COND:
		return "b.cond";
	case HWT_A64_OP_BC_COND:
		return "bc.cond";
	case HWT_A64_OP_CBZ:
		return "cbz";
	case HWT_A64_OP_CBNZ:
		return "cbnz";
	case HWT_A64_OP_TBZ:
		return "tbz";
	case HWT_A64_OP_TBNZ:
		return "tbnz";
	case HWT_A64_OP_BR:
		return "br";
	case HWT_A64_OP_BRAA:
		return "braa";
	case HWT_A64_OP_BRAB:
		return "brab";
	case HWT_A64_OP_BRAAZ:
		return "braaz";
	case HWT_A64_OP_BRABZ:
		return "brabz";
	case HWT_A64_OP_BLR:
		return "blr";
	case HWT_A64_OP_BLRAA:
		return "blraa";
	case HWT_A64_OP_BLRAB:
		return "blrab";
	case HWT_A64_OP_BLRAAZ:
		return "blraaz";
	case HWT_A64_OP_BLRABZ:
		return "blrabz";
	case HWT_A64_OP_RET:
		return "ret";
	case HWT_A64_OP_RETAA:
		return "retaa";
	case HWT_A64_OP_RETAB:
		return "retab";
	case HWT_A64_OP_ERET:
		return "eret";
	case HWT_A64_OP_ERETAA:
		return "eretaa";
	case HWT_A64_OP_ERETAB:
		return "eretab";
	case HWT_A64_OP_SVC:
		return "svc";
	case HWT_A64_OP_HVC:
		return "hvc";
	case HWT_A64_OP_SMC:
		return "smc";
	case HWT_A64_OP_BRK:
		return "brk";
	case HWT_A64_OP_HLT:
		return "hlt";
	}
	return "unknown";
}
