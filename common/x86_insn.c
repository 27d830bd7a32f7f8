/*
 * x86-64 instruction length decoder and branch classifier.
 *
 * Only 64-bit mode. The decoder walks prefixes, the opcode, ModRM/SIB,
 * displacement and immediate, and never looks at operands beyond what the
 * length needs. Encodings that are #UD in 64-bit mode whatever follows them
 * (the opcodes removed by AMD64, LES/LDS, BOUND) are rejected; otherwise it is
 * permissive: an undefined opcode in a defined row still gets a length.
 *
 * Conventions, chosen to match Intel hardware (and Zydis, the test oracle):
 * - 66 does not shrink the rel32 of E8, E9 and 0F 80..8F: Intel forces a
 *   64-bit operand size on near branches in 64-bit mode (AMD would take a
 *   rel16 instead).
 * - A REX prefix followed by a legacy prefix is ignored.
 * - The last F2/F3 is the mandatory prefix; it hides 66.
 */
#include "x86_insn.h"

/* Opcode table entries: which bytes follow the opcode. */
#define OPC_IMM_MASK	0x0fu
#define OPC_MODRM	0x10u	/* a ModRM byte (maybe SIB, displacement) */
#define OPC_INVALID	0x20u	/* #UD in 64-bit mode */
#define OPC_SPECIAL	0x40u	/* needs code: escapes, groups, mandatory prefixes */
#define OPC_REGFORM	0x80u	/* ModRM always names registers (MOV CRn/DRn) */

enum imm_kind {
	IMM_NONE = 0,
	IMM_8,		/* imm8 or rel8 */
	IMM_16,		/* imm16 */
	IMM_Z,		/* imm16 with 66, else imm32 (REX.W keeps imm32) */
	IMM_V,		/* MOV r, imm: imm16, imm32 or imm64 with REX.W */
	IMM_32,		/* rel32 of near branches: 66 is ignored in 64-bit mode */
	IMM_MOFFS,	/* A0..A3 absolute address: 8 bytes, 4 with 67 */
	IMM_16_8,	/* ENTER: imm16, imm8 */
};

/* Short names keep the 16-column rows readable; undefined after the tables. */
#define NO	IMM_NONE
#define IB	IMM_8
#define IW	IMM_16
#define IZ	IMM_Z
#define IV	IMM_V
#define ID	IMM_32
#define AO	IMM_MOFFS
#define EN	IMM_16_8
#define MR	OPC_MODRM
#define MB	(OPC_MODRM | IMM_8)
#define MZ	(OPC_MODRM | IMM_Z)
#define CR	(OPC_MODRM | OPC_REGFORM)
#define XX	OPC_INVALID
#define SP	OPC_SPECIAL

/* One-byte map, 64-bit mode. Prefixes and REX never reach it. */
static const uint8_t map0[256] = {
/*	 0   1   2   3   4   5   6   7   8   9   a   b   c   d   e   f */
/* 0 */	MR, MR, MR, MR, IB, IZ, XX, XX, MR, MR, MR, MR, IB, IZ, XX, SP,
/* 1 */	MR, MR, MR, MR, IB, IZ, XX, XX, MR, MR, MR, MR, IB, IZ, XX, XX,
/* 2 */	MR, MR, MR, MR, IB, IZ, SP, XX, MR, MR, MR, MR, IB, IZ, SP, XX,
/* 3 */	MR, MR, MR, MR, IB, IZ, SP, XX, MR, MR, MR, MR, IB, IZ, SP, XX,
/* 4 */	SP, SP, SP, SP, SP, SP, SP, SP, SP, SP, SP, SP, SP, SP, SP, SP,
/* 5 */	NO, NO, NO, NO, NO, NO, NO, NO, NO, NO, NO, NO, NO, NO, NO, NO,
/* 6 */	XX, XX, SP, MR, SP, SP, SP, SP, IZ, MZ, IB, MB, NO, NO, NO, NO,
/* 7 */	IB, IB, IB, IB, IB, IB, IB, IB, IB, IB, IB, IB, IB, IB, IB, IB,
/* 8 */	MB, MZ, XX, MB, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, SP,
/* 9 */	NO, NO, NO, NO, NO, NO, NO, NO, NO, NO, XX, NO, NO, NO, NO, NO,
/* a */	AO, AO, AO, AO, NO, NO, NO, NO, IB, IZ, NO, NO, NO, NO, NO, NO,
/* b */	IB, IB, IB, IB, IB, IB, IB, IB, IV, IV, IV, IV, IV, IV, IV, IV,
/* c */	MB, MB, IW, NO, SP, SP, SP, SP, EN, NO, IW, NO, NO, IB, XX, NO,
/* d */	MR, MR, MR, MR, XX, XX, XX, NO, MR, MR, MR, MR, MR, MR, MR, MR,
/* e */	IB, IB, IB, IB, IB, IB, IB, IB, ID, ID, XX, IB, NO, NO, NO, NO,
/* f */	SP, NO, SP, SP, NO, NO, SP, SP, NO, NO, NO, NO, NO, NO, SP, SP,
};

/* Two-byte map (0F xx). */
static const uint8_t map1[256] = {
/*	 0   1   2   3   4   5   6   7   8   9   a   b   c   d   e   f */
/* 0 */	MR, MR, MR, MR, XX, NO, NO, NO, NO, NO, XX, NO, XX, MR, NO, SP,
/* 1 */	MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR,
/* 2 */	CR, CR, CR, CR, XX, XX, XX, XX, MR, MR, MR, MR, MR, MR, MR, MR,
/* 3 */	NO, NO, NO, NO, NO, NO, XX, NO, SP, XX, SP, XX, XX, XX, XX, XX,
/* 4 */	MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR,
/* 5 */	MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR,
/* 6 */	MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR,
/* 7 */	MB, MB, MB, MB, MR, MR, MR, NO, SP, SP, XX, XX, MR, MR, MR, MR,
/* 8 */	ID, ID, ID, ID, ID, ID, ID, ID, ID, ID, ID, ID, ID, ID, ID, ID,
/* 9 */	MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR,
/* a */	NO, NO, NO, MR, MB, MR, MR, MR, NO, NO, NO, MR, MB, MR, MR, MR,
/* b */	MR, MR, MR, MR, MR, MR, MR, MR, SP, MR, MB, MR, MR, MR, MR, MR,
/* c */	MR, MR, MB, MR, MB, MB, MB, MR, NO, NO, NO, NO, NO, NO, NO, NO,
/* d */	MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR,
/* e */	MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR,
/* f */	MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR, MR,
};

#undef NO
#undef IB
#undef IW
#undef IZ
#undef IV
#undef ID
#undef AO
#undef EN
#undef MR
#undef MB
#undef MZ
#undef CR
#undef XX
#undef SP

/* Opcode maps as numbered by the map field of VEX, EVEX and XOP. */
enum {
	MAP_0F = 1,
	MAP_0F38 = 2,
	MAP_0F3A = 3,
	MAP_EVEX4 = 4,	/* APX, not in any CPU this decoder knows */
	MAP_EVEX5 = 5,	/* AVX512-FP16 */
	MAP_EVEX6 = 6,	/* AVX512-FP16 */
	MAP_XOP8 = 8,	/* XOP: imm8 */
	MAP_XOP9 = 9,	/* XOP: no immediate */
	MAP_XOPA = 10,	/* XOP: imm32 */
};

/* Decoding state, on the stack: the code keeps no mutable globals. */
struct dec {
	const uint8_t *p;
	size_t size;		/* bytes available, may exceed HWT_X86_MAX_LEN */
	unsigned int pos;
	uint8_t rex;		/* REX byte right before the opcode, or 0 */
	uint8_t rep;		/* last F2/F3, or 0 */
	uint8_t osize;		/* 66 seen */
	uint8_t asize;		/* 67 seen */
	uint8_t lock;		/* F0 seen */
};

/*
 * Checks that n more bytes exist. Past 15 bytes the instruction is invalid
 * whatever follows; before that, running out of input is truncation.
 */
static int dec_need(const struct dec *d, unsigned int n)
{
	if (d->pos + n > HWT_X86_MAX_LEN)
		return HWT_X86_ERR_INVALID;
	if (d->pos + n > d->size)
		return HWT_X86_ERR_TRUNCATED;
	return 0;
}

static int dec_byte(struct dec *d, uint8_t *b)
{
	int err = dec_need(d, 1);

	if (err)
		return err;
	*b = d->p[d->pos++];
	return 0;
}

/* Little-endian signed value of n (1, 2 or 4) bytes at pos, no bounds check. */
static int64_t dec_signed(const struct dec *d, unsigned int at, unsigned int n)
{
	uint32_t v = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		v |= (uint32_t)d->p[at + i] << (8 * i);
	if (n == 1)
		return (int8_t)v;
	if (n == 2)
		return (int16_t)v;
	return (int32_t)v;
}

/*
 * Consumes ModRM, SIB and displacement. 64- and 32-bit addressing share one
 * layout, so 67 changes nothing here (16-bit addressing does not exist in
 * 64-bit mode). mod=00 rm=101 is RIP-relative with disp32.
 */
static int dec_modrm(struct dec *d, int regform, uint8_t *modrm)
{
	unsigned int mod, rm, disp = 0;
	uint8_t sib;
	int err;

	err = dec_byte(d, modrm);
	if (err)
		return err;
	mod = *modrm >> 6;
	rm = *modrm & 7;
	if (mod == 3 || regform)
		return 0;
	if (rm == 4) {
		err = dec_byte(d, &sib);
		if (err)
			return err;
		if (mod == 0 && (sib & 7) == 5)
			disp = 4;
	} else if (mod == 0 && rm == 5) {
		disp = 4;
	}
	if (mod == 1)
		disp = 1;
	else if (mod == 2)
		disp = 4;
	err = dec_need(d, disp);
	if (err)
		return err;
	d->pos += disp;
	return 0;
}

static unsigned int imm_size(const struct dec *d, unsigned int kind)
{
	int w = d->rex & 0x08;

	switch (kind) {
	case IMM_8:
		return 1;
	case IMM_16:
		return 2;
	case IMM_Z:
		return (d->osize && !w) ? 2 : 4;
	case IMM_V:
		return w ? 8 : d->osize ? 2 : 4;
	case IMM_32:
		return 4;
	case IMM_MOFFS:
		return d->asize ? 4 : 8;
	case IMM_16_8:
		return 3;
	default:
		return 0;
	}
}

static int dec_skip(struct dec *d, unsigned int n)
{
	int err = dec_need(d, n);

	if (err)
		return err;
	d->pos += n;
	return 0;
}

/* The mandatory prefix of legacy SSE-style opcodes: last F2/F3, else 66. */
static uint8_t mandatory_prefix(const struct dec *d)
{
	if (d->rep)
		return d->rep;
	return d->osize ? 0x66 : 0;
}

/*
 * VEX (C4, C5), EVEX (62) and XOP (8F): the prefix carries the map; every
 * opcode but VZEROUPPER/VZEROALL has ModRM. 66, F2, F3, F0 and REX before
 * them are #UD.
 */
static int dec_vex(struct dec *d, uint8_t esc)
{
	unsigned int map, imm = 0;
	uint8_t p0, p1, op, modrm;
	int err;

	if (d->rex || d->osize || d->rep || d->lock)
		return HWT_X86_ERR_INVALID;
	err = dec_byte(d, &p0);
	if (err)
		return err;
	switch (esc) {
	case 0xc5:
		map = MAP_0F;
		break;
	case 0xc4:
		map = p0 & 0x1f;
		if (map < MAP_0F || map > MAP_0F3A)
			return HWT_X86_ERR_INVALID;
		err = dec_byte(d, &p1);
		break;
	case 0x8f:
		map = p0 & 0x1f;
		if (map < MAP_XOP8 || map > MAP_XOPA)
			return HWT_X86_ERR_INVALID;
		err = dec_byte(d, &p1);
		break;
	default: /* 0x62 */
		map = p0 & 0x07;
		/*
		 * P0 bit 3 is reserved zero; P1 bit 2 is fixed one (zero was
		 * Knights Corner's MVEX).
		 */
		if ((p0 & 0x08) || map < MAP_0F || map == MAP_EVEX4 || map > MAP_EVEX6)
			return HWT_X86_ERR_INVALID;
		err = dec_byte(d, &p1);
		if (!err && !(p1 & 0x04))
			return HWT_X86_ERR_INVALID;
		if (!err)
			err = dec_skip(d, 1);	/* P2 */
		break;
	}
	if (err)
		return err;
	err = dec_byte(d, &op);
	if (err)
		return err;
	if (map == MAP_0F && esc != 0x62) {
		if (op == 0x77)
			return 0;	/* VZEROUPPER, VZEROALL */
		/* Knights Corner's JKZD/JKNZD: #UD on every CPU with VEX. */
		if (op == 0x84 || op == 0x85)
			return HWT_X86_ERR_INVALID;
	}
	err = dec_modrm(d, 0, &modrm);
	if (err)
		return err;
	switch (map) {
	case MAP_0F:
		switch (op) {
		case 0x70: case 0x71: case 0x72: case 0x73:
		case 0xc2: case 0xc4: case 0xc5: case 0xc6:
			imm = 1;
			break;
		}
		break;
	case MAP_0F3A:
	case MAP_XOP8:
		imm = 1;
		break;
	case MAP_XOPA:
		imm = 4;
		break;
	}
	return dec_skip(d, imm);
}

/* Class of a one-byte-map opcode; modrm is valid when the opcode has one. */
static void classify_map0(const struct dec *d, uint8_t op, uint8_t modrm,
			  unsigned int imm_at, struct hwt_x86_insn *insn)
{
	switch (op) {
	case 0x70: case 0x71: case 0x72: case 0x73:
	case 0x74: case 0x75: case 0x76: case 0x77:
	case 0x78: case 0x79: case 0x7a: case 0x7b:
	case 0x7c: case 0x7d: case 0x7e: case 0x7f:
	case 0xe0: case 0xe1: case 0xe2: case 0xe3:
		insn->branch = HWT_X86_COND;
		break;
	case 0xeb:
	case 0xe9:
		insn->branch = HWT_X86_JUMP;
		break;
	case 0xe8:
		insn->branch = HWT_X86_CALL;
		break;
	case 0xc2:
	case 0xc3:
		insn->branch = HWT_X86_RETURN;
		return;
	case 0xca: case 0xcb: case 0xcc: case 0xcd: case 0xcf: case 0xf1:
		insn->branch = HWT_X86_FAR;
		return;
	case 0xff:
		switch ((modrm >> 3) & 7) {
		case 2:
			insn->branch = HWT_X86_CALL_INDIRECT;
			break;
		case 4:
			insn->branch = HWT_X86_JUMP_INDIRECT;
			break;
		case 3:
		case 5:
			insn->branch = HWT_X86_FAR;
			break;
		}
		return;
	case 0x6c: case 0x6d: case 0x6e: case 0x6f:
	case 0xa4: case 0xa5: case 0xa6: case 0xa7:
	case 0xaa: case 0xab: case 0xac: case 0xad: case 0xae: case 0xaf:
		if (d->rep)
			insn->flags |= HWT_X86_REP;
		return;
	default:
		return;
	}
	/* Direct branches: the displacement is the immediate. */
	insn->flags |= HWT_X86_HAS_TARGET;
	insn->displacement = dec_signed(d, imm_at, d->pos - imm_at);
}

/* 0F 01 with mod=11 forms that enter or leave a VM, SMM, enclave or TD. */
static int is_far_0f01(const struct dec *d, uint8_t modrm)
{
	uint8_t mp = mandatory_prefix(d);

	switch (modrm) {
	case 0xc1:	/* VMCALL */
	case 0xc2:	/* VMLAUNCH */
	case 0xc3:	/* VMRESUME */
	case 0xd8:	/* VMRUN */
	case 0xd9:	/* VMMCALL, VMGEXIT (F2/F3) */
	case 0xde:	/* SKINIT */
		return 1;
	case 0xd7:	/* ENCLU: EENTER, ERESUME, EEXIT */
		return mp == 0;
	case 0xcc:	/* TDCALL */
	case 0xcd:	/* SEAMRET */
	case 0xcf:	/* SEAMCALL (ENCLS without 66) */
		return mp == 0x66;
	case 0xec:	/* UIRET */
		return mp == 0xf3;
	default:
		return 0;
	}
}

static void classify_map1(const struct dec *d, uint8_t op, uint8_t modrm,
			  unsigned int imm_at, struct hwt_x86_insn *insn)
{
	if (op >= 0x80 && op <= 0x8f) {
		insn->branch = HWT_X86_COND;
		insn->flags |= HWT_X86_HAS_TARGET;
		insn->displacement = dec_signed(d, imm_at, 4);
		return;
	}
	switch (op) {
	case 0x05:	/* SYSCALL */
	case 0x07:	/* SYSRET */
	case 0x0b:	/* UD2 */
	case 0x34:	/* SYSENTER */
	case 0x35:	/* SYSEXIT */
	case 0xaa:	/* RSM */
	case 0xb9:	/* UD1 */
	case 0xff:	/* UD0 */
		insn->branch = HWT_X86_FAR;
		break;
	case 0x01:
		if (is_far_0f01(d, modrm))
			insn->branch = HWT_X86_FAR;
		break;
	case 0xa6:	/* VIA PadLock: REP XSHA*, REP MONTMUL */
	case 0xa7:	/* REP XSTORE, REP XCRYPT*: they repeat like strings */
		if (d->rep && (modrm >> 6) == 3)
			insn->flags |= HWT_X86_REP;
		break;
	}
}

/* Legacy escape maps 0F, 0F 38, 0F 3A and 3DNow!. pos is past 0F. */
static int dec_map1(struct dec *d, struct hwt_x86_insn *insn)
{
	unsigned int entry, imm_at;
	uint8_t op, modrm = 0, mp;
	int err;

	err = dec_byte(d, &op);
	if (err)
		return err;
	if (op == 0x38 || op == 0x3a) {
		/* Every 0F 38 opcode has ModRM; every 0F 3A one also an imm8. */
		uint8_t op3;

		err = dec_byte(d, &op3);
		if (!err)
			err = dec_modrm(d, 0, &modrm);
		if (!err && op == 0x3a)
			err = dec_skip(d, 1);
		return err;
	}
	entry = map1[op];
	if (entry & OPC_INVALID)
		return HWT_X86_ERR_INVALID;
	mp = mandatory_prefix(d);
	if (entry & OPC_SPECIAL) {
		switch (op) {
		case 0x0f:	/* 3DNow!: ModRM, then the opcode byte */
			err = dec_modrm(d, 0, &modrm);
			return err ? err : dec_skip(d, 1);
		case 0x78:	/* VMREAD; 66: EXTRQ ib, ib; F2: INSERTQ ib, ib */
			if (mp == 0xf3)
				return HWT_X86_ERR_INVALID;
			err = dec_modrm(d, 0, &modrm);
			return err ? err : dec_skip(d, mp ? 2 : 0);
		case 0x79:	/* VMWRITE; 66: EXTRQ; F2: INSERTQ */
			if (mp == 0xf3)
				return HWT_X86_ERR_INVALID;
			return dec_modrm(d, 0, &modrm);
		case 0xb8:	/* POPCNT needs F3; plain 0F B8 is JMPE (IA-64) */
			if (mp != 0xf3)
				return HWT_X86_ERR_INVALID;
			return dec_modrm(d, 0, &modrm);
		}
		return HWT_X86_ERR_INVALID;
	}
	if (entry & OPC_MODRM) {
		err = dec_modrm(d, !!(entry & OPC_REGFORM), &modrm);
		if (err)
			return err;
	}
	imm_at = d->pos;
	err = dec_skip(d, imm_size(d, entry & OPC_IMM_MASK));
	if (err)
		return err;
	classify_map1(d, op, modrm, imm_at, insn);
	return 0;
}

/* One-byte map opcodes that need code: groups whose length depends on ModRM.reg. */
static int dec_map0_special(struct dec *d, uint8_t op, uint8_t *modrm)
{
	unsigned int reg;
	int err;

	switch (op) {
	case 0x8f:	/* POP r/m (/0), or XOP when the map field is >= 8 */
		err = dec_need(d, 1);
		if (err)
			return err;
		if ((d->p[d->pos] & 0x1f) >= MAP_XOP8)
			return dec_vex(d, op);
		err = dec_modrm(d, 0, modrm);
		if (err)
			return err;
		return ((*modrm >> 3) & 7) ? HWT_X86_ERR_INVALID : 0;
	case 0xc4:
	case 0xc5:
	case 0x62:
		return dec_vex(d, op);
	case 0xc6:	/* MOV r/m8, imm8 (/0); XABORT imm8 (C6 F8) */
	case 0xc7:	/* MOV r/m, imm (/0); XBEGIN rel (C7 F8) */
		err = dec_modrm(d, 0, modrm);
		if (err)
			return err;
		reg = (*modrm >> 3) & 7;
		if (reg != 0 && *modrm != 0xf8)
			return HWT_X86_ERR_INVALID;
		return dec_skip(d, imm_size(d, op == 0xc6 ? IMM_8 : IMM_Z));
	case 0xf6:	/* TEST r/m8, imm8 (/0, /1) and unary group 3 */
	case 0xf7:
		err = dec_modrm(d, 0, modrm);
		if (err)
			return err;
		reg = (*modrm >> 3) & 7;
		if (reg > 1)
			return 0;
		return dec_skip(d, imm_size(d, op == 0xf6 ? IMM_8 : IMM_Z));
	case 0xfe:	/* INC/DEC r/m8 only */
		err = dec_modrm(d, 0, modrm);
		if (err)
			return err;
		return ((*modrm >> 3) & 7) > 1 ? HWT_X86_ERR_INVALID : 0;
	case 0xff:
		err = dec_modrm(d, 0, modrm);
		if (err)
			return err;
		reg = (*modrm >> 3) & 7;
		if (reg == 7)
			return HWT_X86_ERR_INVALID;
		/* Far CALL/JMP take a memory operand only. */
		if ((reg == 3 || reg == 5) && (*modrm >> 6) == 3)
			return HWT_X86_ERR_INVALID;
		return 0;
	}
	return HWT_X86_ERR_INVALID;
}

int hwt_x86_insn_decode(const uint8_t *bytes, size_t size, struct hwt_x86_insn *insn)
{
	struct dec d = { .p = bytes, .size = size };
	unsigned int entry, imm_at;
	uint8_t op, modrm = 0;
	int err;

	insn->length = 0;
	insn->branch = HWT_X86_OTHER;
	insn->flags = 0;
	insn->displacement = 0;

	/* Legacy prefixes and REX, any order, repeats allowed. */
	for (;;) {
		err = dec_byte(&d, &op);
		if (err)
			return err;
		switch (op) {
		case 0x66:
			d.osize = 1;
			break;
		case 0x67:
			d.asize = 1;
			break;
		case 0xf2:
		case 0xf3:
			d.rep = op;
			break;
		case 0xf0:
			d.lock = 1;
			break;
		case 0x26: case 0x2e: case 0x36: case 0x3e: case 0x64: case 0x65:
			break;
		default:
			if ((op & 0xf0) == 0x40) {
				d.rex = op;
				continue;
			}
			goto opcode;
		}
		/* A REX prefix counts only right before the opcode. */
		d.rex = 0;
	}
opcode:
	if (op == 0x0f) {
		err = dec_map1(&d, insn);
	} else {
		entry = map0[op];
		if (entry & OPC_INVALID)
			return HWT_X86_ERR_INVALID;
		if (entry & OPC_SPECIAL) {
			err = dec_map0_special(&d, op, &modrm);
			imm_at = d.pos;
		} else {
			err = 0;
			if (entry & OPC_MODRM)
				err = dec_modrm(&d, 0, &modrm);
			imm_at = d.pos;
			if (!err)
				err = dec_skip(&d, imm_size(&d, entry & OPC_IMM_MASK));
		}
		if (!err)
			classify_map0(&d, op, modrm, imm_at, insn);
	}
	if (err)
		return err;
	insn->length = (uint8_t)d.pos;
	return (int)d.pos;
}

const char *hwt_x86_branch_name(enum hwt_x86_branch branch)
{
	switch (branch) {
	case HWT_X86_OTHER:
		return "other";
	case HWT_X86_COND:
		return "cond";
	case HWT_X86_JUMP:
		return "jump";
	case HWT_X86_CALL:
		return "call";
	case HWT_X86_JUMP_INDIRECT:
		return "jump-indirect";
	case HWT_X86_CALL_INDIRECT:
		return "call-indirect";
	case HWT_X86_RETURN:
		return "return";
	case HWT_X86_FAR:
		return "far";
	}
	return "unknown";
}
