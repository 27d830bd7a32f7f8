/*
 * The test oracle: Zydis (Debian's libzydis 4.0) decodes an instruction and
 * its answer is mapped onto hwt's branch classes. Nothing here shares code or
 * tables with common/x86_insn.c.
 */
#ifndef HWT_TEST_ZYDIS_ORACLE_H
#define HWT_TEST_ZYDIS_ORACLE_H

#include <stddef.h>
#include <stdint.h>

struct oracle_insn {
	int length;
	int branch;		/* enum hwt_x86_branch */
	int rep;		/* F2/F3 acting as REP on a string instruction */
	int has_target;
	int64_t displacement;
	const char *allowed;	/* set when the instruction is on the allow-list: why */
	char text[96];		/* mnemonic, for messages */
};

int oracle_init(void);
/* Returns the length, or -1 when Zydis rejects the bytes. */
int oracle_decode(const uint8_t *bytes, size_t size, uint64_t ip, struct oracle_insn *o);

#endif
