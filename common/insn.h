/*
 * One instruction of either architecture hwt traces, as far as the trace
 * units and the converters need it: its length, the kind of control
 * transfer it makes and, for a direct branch, its target.
 *
 * Libc-free. The architectures are named by their ELF e_machine values, so
 * a converter passes what the image's ELF header says. The kinds are those
 * of common/x86_insn.h in its order (an enum hwt_x86_branch is a kind as
 * it is); the A64 classes map onto them (a64_insn.h): exception generating
 * instructions and exception returns are far transfers.
 */
#ifndef HWT_INSN_H
#define HWT_INSN_H

#include "hwt_types.h"

/* ELF e_machine values (elf.h's EM_X86_64 and EM_AARCH64). */
#define HWT_INSN_X86_64  62u
#define HWT_INSN_AARCH64 183u

enum hwt_insn_kind {
	HWT_INSN_OTHER = 0,        /* not a control transfer */
	HWT_INSN_COND,             /* taken or not */
	HWT_INSN_JUMP,             /* direct jump */
	HWT_INSN_CALL,             /* direct call */
	HWT_INSN_JUMP_INDIRECT,
	HWT_INSN_CALL_INDIRECT,
	HWT_INSN_RETURN,
	HWT_INSN_FAR,              /* leaves the code stream: system calls, traps, far
	                              transfers, exception returns */
};

/* Flags in hwt_insn.flags. */
#define HWT_INSN_REP        0x01u  /* x86 REP string instruction: one execution, many iterations */
#define HWT_INSN_HAS_TARGET 0x02u  /* direct branch: displacement is valid */

struct hwt_insn {
	uint8_t length;        /* bytes */
	uint8_t kind;          /* enum hwt_insn_kind */
	uint8_t flags;         /* HWT_INSN_* */
	int64_t displacement;  /* direct branches: target = ip + displacement */
};

/* Longest instruction of any architecture here (x86-64's 15 bytes). */
#define HWT_INSN_MAX_LEN 15u

/* Error codes (negative return values). */
#define HWT_INSN_ERR_TRUNCATED (-1)  /* fewer bytes than the instruction needs */
#define HWT_INSN_ERR_INVALID   (-2)  /* not an instruction (x86), misaligned input */
#define HWT_INSN_ERR_MACHINE   (-3)  /* an architecture hwt does not decode */

/*
 * Decodes the instruction at bytes[0..size) of architecture machine (an
 * e_machine value). Returns its length and fills *insn, or a negative
 * HWT_INSN_ERR_*. Reads no byte at or past bytes[size].
 */
int hwt_insn_decode(unsigned int machine, const uint8_t *bytes, size_t size,
		    struct hwt_insn *insn);

static inline uint64_t hwt_insn_target(const struct hwt_insn *insn, uint64_t ip)
{
	return ip + (uint64_t)insn->displacement;
}

/* 1 when hwt_insn_decode knows machine. */
int hwt_insn_machine_known(unsigned int machine);

#endif /* HWT_INSN_H */
