/*
 * A64 (AArch64) instruction branch classifier.
 *
 * Libc-free: compiled into hwt.ko, the software trace units and user space.
 * Every A64 instruction is one little-endian 32-bit word, so there is no
 * length to find: the classifier answers what kind of control transfer a
 * word is and, for direct branches, where it goes. These are the questions
 * an ETMv4 trace unit asks (its P0 elements are the branches) and that a
 * decoder asks when it walks an image.
 *
 * The architecture's names (Arm ARM, "A64 Base Instruction Descriptions")
 * are kept. Encodings that the architecture leaves unallocated inside the
 * branch groups (say BR with op4 != 0) are not branches: the PE raises an
 * Undefined Instruction exception on them, as it does on UDF.
 */
#ifndef HWT_A64_INSN_H
#define HWT_A64_INSN_H

#include "hwt_types.h"

/* The kind of control transfer an instruction performs. */
enum hwt_a64_branch {
	HWT_A64_OTHER = 0,          /* not a branch */
	HWT_A64_COND,               /* B.cond, BC.cond, CBZ, CBNZ, TBZ, TBNZ */
	HWT_A64_JUMP,               /* B */
	HWT_A64_CALL,               /* BL */
	HWT_A64_JUMP_INDIRECT,      /* BR, BRAA, BRAB, BRAAZ, BRABZ */
	HWT_A64_CALL_INDIRECT,      /* BLR, BLRAA, BLRAB, BLRAAZ, BLRABZ */
	HWT_A64_RETURN,             /* RET, RETAA, RETAB */
	HWT_A64_EXCEPTION_RETURN,   /* ERET, ERETAA, ERETAB */
	HWT_A64_EXCEPTION,          /* SVC, HVC, SMC, BRK, HLT: generate an exception */
};

/* The instruction itself, for listings and the oracle test. */
enum hwt_a64_op {
	HWT_A64_OP_NONE = 0,        /* not a branch or exception generating instruction */
	HWT_A64_OP_B,
	HWT_A64_OP_BL,
	HWT_A64_OP_B_COND,
	HWT_A64_OP_BC_COND,         /* FEAT_HBC: B.cond with a consistency hint */
	HWT_A64_OP_CBZ,
	HWT_A64_OP_CBNZ,
	HWT_A64_OP_TBZ,
	HWT_A64_OP_TBNZ,
	HWT_A64_OP_BR,
	HWT_A64_OP_BRAA,
	HWT_A64_OP_BRAB,
	HWT_A64_OP_BRAAZ,
	HWT_A64_OP_BRABZ,
	HWT_A64_OP_BLR,
	HWT_A64_OP_BLRAA,
	HWT_A64_OP_BLRAB,
	HWT_A64_OP_BLRAAZ,
	HWT_A64_OP_BLRABZ,
	HWT_A64_OP_RET,
	HWT_A64_OP_RETAA,
	HWT_A64_OP_RETAB,
	HWT_A64_OP_ERET,
	HWT_A64_OP_ERETAA,
	HWT_A64_OP_ERETAB,
	HWT_A64_OP_SVC,
	HWT_A64_OP_HVC,
	HWT_A64_OP_SMC,
	HWT_A64_OP_BRK,
	HWT_A64_OP_HLT,
};

/* Flags in hwt_a64_insn.flags. */
#define HWT_A64_HAS_TARGET 0x01u  /* direct branch: offset is valid */
#define HWT_A64_PAC        0x02u  /* pointer-authenticated form (FEAT_PAuth) */

struct hwt_a64_insn {
	uint8_t branch;    /* enum hwt_a64_branch */
	uint8_t op;        /* enum hwt_a64_op */
	uint8_t flags;     /* HWT_A64_* flags */
	uint8_t reg;       /* Rn of indirect branches (30 for a bare RET), Rt of CBZ/TBZ */
	uint16_t imm;      /* imm16 of SVC, HVC, SMC, BRK, HLT; the bit of TBZ/TBNZ */
	int64_t offset;    /* direct branches: target = pc + offset */
};

/* Every A64 instruction is 4 bytes, aligned to 4. */
#define HWT_A64_INSN_SIZE 4u

/*
 * Classifies one instruction word. Never fails: every word is some
 * instruction or "not a branch". Returns insn->branch.
 */
enum hwt_a64_branch hwt_a64_insn_decode(uint32_t word, struct hwt_a64_insn *insn);

/* The word at p, in the little-endian order of AArch64 Linux code. */
static inline uint32_t hwt_a64_insn_word(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Target of a direct branch at pc. Only valid with HWT_A64_HAS_TARGET. */
static inline uint64_t hwt_a64_insn_target(const struct hwt_a64_insn *insn, uint64_t pc)
{
	return pc + (uint64_t)insn->offset;
}

/* Human-readable names, for listings and errors. */
const char *hwt_a64_branch_name(enum hwt_a64_branch branch);
/* The mnemonic in lower case as disassemblers print it ("b.cond" for B.<cond>). */
const char *hwt_a64_op_name(enum hwt_a64_op op);

#endif /* HWT_A64_INSN_H */
