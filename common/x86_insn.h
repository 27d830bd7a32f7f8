/*
 * x86-64 instruction length decoder and branch classifier.
 *
 * Libc-free: compiled into hwt.ko, the Valgrind tool and user space. It
 * answers the two questions a branch tracer asks of an instruction: how long
 * is it, and what kind of control transfer is it. It does not produce
 * operands or mnemonics.
 */
#ifndef HWT_X86_INSN_H
#define HWT_X86_INSN_H

#include "hwt_types.h"

/* The kind of control transfer an instruction performs. */
enum hwt_x86_branch {
	HWT_X86_OTHER = 0,        /* not a control transfer */
	HWT_X86_COND,             /* Jcc, JrCXZ, LOOP/LOOPcc: taken or not */
	HWT_X86_JUMP,             /* direct near JMP rel8/rel32 */
	HWT_X86_CALL,             /* direct near CALL rel32 */
	HWT_X86_JUMP_INDIRECT,    /* near JMP r/m (also with BND/notrack) */
	HWT_X86_CALL_INDIRECT,    /* near CALL r/m */
	HWT_X86_RETURN,           /* near RET, RET imm16 */
	HWT_X86_FAR,              /* far JMP/CALL/RET, SYSCALL, SYSENTER, SYSEXIT,
	                             SYSRET, INT n, INT3, INTO, INT1, IRET, UD0/1/2,
	                             VMCALL-class: leaves the current code stream */
};

/* Flags in hwt_x86_insn.flags. */
#define HWT_X86_REP        0x01u  /* F2/F3 prefix on a string instruction */
#define HWT_X86_HAS_TARGET 0x02u  /* direct branch: target is valid */

struct hwt_x86_insn {
	uint8_t length;        /* 1..15 */
	uint8_t branch;        /* enum hwt_x86_branch */
	uint8_t flags;         /* HWT_X86_* flags */
	int64_t displacement;  /* direct branches: target = ip + length + displacement */
};

/* The architectural limit: longer encodings raise #GP, hwt calls them invalid. */
#define HWT_X86_MAX_LEN 15

/* Error codes (negative return values). */
#define HWT_X86_ERR_TRUNCATED  (-1)  /* fewer bytes than the instruction needs */
#define HWT_X86_ERR_INVALID    (-2)  /* not a valid 64-bit mode instruction */

/*
 * Decodes the instruction at bytes[0..size) in 64-bit mode.
 * Returns its length (1..15) and fills *insn, or a negative HWT_X86_ERR_*.
 * Reads no byte at or past bytes[size]. Follows Intel where vendors differ:
 * 66 does not shrink the rel32 of near branches.
 */
int hwt_x86_insn_decode(const uint8_t *bytes, size_t size, struct hwt_x86_insn *insn);

/* Target of a direct branch decoded at ip. Only valid with HWT_X86_HAS_TARGET. */
static inline uint64_t hwt_x86_insn_target(const struct hwt_x86_insn *insn, uint64_t ip)
{
	return ip + insn->length + (uint64_t)insn->displacement;
}

/* Human-readable name of a branch class, for listings and errors. */
const char *hwt_x86_branch_name(enum hwt_x86_branch branch);

#endif /* HWT_X86_INSN_H */
