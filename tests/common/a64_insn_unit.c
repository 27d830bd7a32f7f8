/*
 * Hand-picked A64 encodings with the class, instruction and target the
 * Arm ARM gives them: every branch form, the extremes of each immediate,
 * and unallocated neighbours that must not be branches. Runs without the
 * objdump oracle.
 */
#include <stdio.h>

#include "a64_insn.h"

struct ucase {
	const char *what;
	uint32_t word;
	enum hwt_a64_branch branch;
	enum hwt_a64_op op;
	unsigned int flags;
	int64_t offset;
	int reg;   /* -1: not checked */
	int imm;   /* -1: not checked */
};

#define T HWT_A64_HAS_TARGET
#define P HWT_A64_PAC

static const struct ucase cases[] = {
	{ "b +0x40", 0x14000010, HWT_A64_JUMP, HWT_A64_OP_B, T, 0x40, -1, -1 },
	{ "b -4", 0x17ffffff, HWT_A64_JUMP, HWT_A64_OP_B, T, -4, -1, -1 },
	{ "b -128 MiB", 0x16000000, HWT_A64_JUMP, HWT_A64_OP_B, T, -(1ll << 27), -1, -1 },
	{ "b +128 MiB - 4", 0x15ffffff, HWT_A64_JUMP, HWT_A64_OP_B, T, (1ll << 27) - 4, -1, -1 },
	{ "bl +8", 0x94000002, HWT_A64_CALL, HWT_A64_OP_BL, T, 8, -1, -1 },
	{ "bl -8", 0x97fffffe, HWT_A64_CALL, HWT_A64_OP_BL, T, -8, -1, -1 },
	{ "b.eq +8", 0x54000040, HWT_A64_COND, HWT_A64_OP_B_COND, T, 8, -1, -1 },
	{ "b.nv -1 MiB", 0x5480000f, HWT_A64_COND, HWT_A64_OP_B_COND, T, -(1ll << 20), -1, -1 },
	{ "bc.ne +8", 0x54000051, HWT_A64_COND, HWT_A64_OP_BC_COND, T, 8, -1, -1 },
	{ "b.cond o1=1: unallocated", 0x55000040, HWT_A64_OTHER, HWT_A64_OP_NONE, 0, 0, -1, -1 },
	{ "cbz w0 +8", 0x34000040, HWT_A64_COND, HWT_A64_OP_CBZ, T, 8, 0, -1 },
	{ "cbnz x30 -4", 0xb5fffffe, HWT_A64_COND, HWT_A64_OP_CBNZ, T, -4, 30, -1 },
	{ "tbz w1 #0 +8", 0x36000041, HWT_A64_COND, HWT_A64_OP_TBZ, T, 8, 1, 0 },
	{ "tbnz x2 #63 -32 KiB", 0xb7fc0002, HWT_A64_COND, HWT_A64_OP_TBNZ, T, -(1ll << 15), 2, 63 },
	{ "br x16", 0xd61f0200, HWT_A64_JUMP_INDIRECT, HWT_A64_OP_BR, 0, 0, 16, -1 },
	{ "br op4 != 0: unallocated", 0xd61f0201, HWT_A64_OTHER, HWT_A64_OP_NONE, 0, 0, -1, -1 },
	{ "braa x1, x2", 0xd71f0822, HWT_A64_JUMP_INDIRECT, HWT_A64_OP_BRAA, P, 0, 1, -1 },
	{ "brab x1, sp", 0xd71f0c3f, HWT_A64_JUMP_INDIRECT, HWT_A64_OP_BRAB, P, 0, 1, -1 },
	{ "braaz x3", 0xd61f087f, HWT_A64_JUMP_INDIRECT, HWT_A64_OP_BRAAZ, P, 0, 3, -1 },
	{ "brabz x4", 0xd61f0c9f, HWT_A64_JUMP_INDIRECT, HWT_A64_OP_BRABZ, P, 0, 4, -1 },
	{ "braaz op4 != 11111: unallocated", 0xd61f087e, HWT_A64_OTHER, HWT_A64_OP_NONE, 0, 0, -1, -1 },
	{ "blr x8", 0xd63f0100, HWT_A64_CALL_INDIRECT, HWT_A64_OP_BLR, 0, 0, 8, -1 },
	{ "blraa x9, x10", 0xd73f092a, HWT_A64_CALL_INDIRECT, HWT_A64_OP_BLRAA, P, 0, 9, -1 },
	{ "blrab x9, x10", 0xd73f0d2a, HWT_A64_CALL_INDIRECT, HWT_A64_OP_BLRAB, P, 0, 9, -1 },
	{ "blraaz x12", 0xd63f099f, HWT_A64_CALL_INDIRECT, HWT_A64_OP_BLRAAZ, P, 0, 12, -1 },
	{ "blrabz x13", 0xd63f0dbf, HWT_A64_CALL_INDIRECT, HWT_A64_OP_BLRABZ, P, 0, 13, -1 },
	{ "ret", 0xd65f03c0, HWT_A64_RETURN, HWT_A64_OP_RET, 0, 0, 30, -1 },
	{ "ret x0", 0xd65f0000, HWT_A64_RETURN, HWT_A64_OP_RET, 0, 0, 0, -1 },
	{ "retaa", 0xd65f0bff, HWT_A64_RETURN, HWT_A64_OP_RETAA, P, 0, 30, -1 },
	{ "retab", 0xd65f0fff, HWT_A64_RETURN, HWT_A64_OP_RETAB, P, 0, 30, -1 },
	{ "retaa Rn != 11111: unallocated", 0xd65f0bdf, HWT_A64_OTHER, HWT_A64_OP_NONE, 0, 0, -1, -1 },
	{ "eret", 0xd69f03e0, HWT_A64_EXCEPTION_RETURN, HWT_A64_OP_ERET, 0, 0, 31, -1 },
	{ "eretaa", 0xd69f0bff, HWT_A64_EXCEPTION_RETURN, HWT_A64_OP_ERETAA, P, 0, 31, -1 },
	{ "eretab", 0xd69f0fff, HWT_A64_EXCEPTION_RETURN, HWT_A64_OP_ERETAB, P, 0, 31, -1 },
	{ "eret Rn != 11111: unallocated", 0xd69f0000, HWT_A64_OTHER, HWT_A64_OP_NONE, 0, 0, -1, -1 },
	{ "drps: Debug state only", 0xd6bf03e0, HWT_A64_OTHER, HWT_A64_OP_NONE, 0, 0, -1, -1 },
	{ "svc #0", 0xd4000001, HWT_A64_EXCEPTION, HWT_A64_OP_SVC, 0, 0, -1, 0 },
	{ "svc #0xffff", 0xd41fffe1, HWT_A64_EXCEPTION, HWT_A64_OP_SVC, 0, 0, -1, 0xffff },
	{ "hvc #1", 0xd4000022, HWT_A64_EXCEPTION, HWT_A64_OP_HVC, 0, 0, -1, 1 },
	{ "smc #2", 0xd4000043, HWT_A64_EXCEPTION, HWT_A64_OP_SMC, 0, 0, -1, 2 },
	{ "brk #0x3e8", 0xd4207d00, HWT_A64_EXCEPTION, HWT_A64_OP_BRK, 0, 0, -1, 0x3e8 },
	{ "hlt #0xf000", 0xd45e0000, HWT_A64_EXCEPTION, HWT_A64_OP_HLT, 0, 0, -1, 0xf000 },
	{ "svc LL=00: unallocated", 0xd4000000, HWT_A64_OTHER, HWT_A64_OP_NONE, 0, 0, -1, -1 },
	{ "dcps1: Debug state only", 0xd4a00001, HWT_A64_OTHER, HWT_A64_OP_NONE, 0, 0, -1, -1 },
	{ "udf #0", 0x00000000, HWT_A64_OTHER, HWT_A64_OP_NONE, 0, 0, -1, -1 },
	{ "nop", 0xd503201f, HWT_A64_OTHER, HWT_A64_OP_NONE, 0, 0, -1, -1 },
	{ "bti c", 0xd503245f, HWT_A64_OTHER, HWT_A64_OP_NONE, 0, 0, -1, -1 },
	{ "adrp x0", 0x90000000, HWT_A64_OTHER, HWT_A64_OP_NONE, 0, 0, -1, -1 },
};

int main(void)
{
	unsigned int i, bad = 0;
	uint8_t le[4] = { 0xc0, 0x03, 0x5f, 0xd6 };

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct ucase *c = &cases[i];
		struct hwt_a64_insn h;
		enum hwt_a64_branch b = hwt_a64_insn_decode(c->word, &h);

		if (b != c->branch || h.branch != c->branch || h.op != c->op || h.flags != c->flags ||
		    h.offset != c->offset || (c->reg >= 0 && h.reg != c->reg) ||
		    (c->imm >= 0 && h.imm != c->imm)) {
			printf("FAIL %s (%08x): got %s %s flags %u offset %lld reg %u imm %u\n", c->what,
			       c->word, hwt_a64_branch_name(h.branch), hwt_a64_op_name(h.op), h.flags,
			       (long long)h.offset, h.reg, h.imm);
			bad++;
		}
	}
	if (hwt_a64_insn_word(le) != 0xd65f03c0u) {
		printf("FAIL hwt_a64_insn_word: not little-endian\n");
		bad++;
	}
	{
		struct hwt_a64_insn h;

		hwt_a64_insn_decode(0x17ffffff, &h);
		if (hwt_a64_insn_target(&h, 0x400000) != 0x3ffffc) {
			printf("FAIL hwt_a64_insn_target\n");
			bad++;
		}
	}
	printf("%u cases, %u failed\n", i, bad);
	return bad ? 1 : 0;
}
