/*
 * Oracle test of the A64 classifier: binutils' aarch64 objdump disassembles,
 * and hwt's class, instruction, register, immediate and branch target must
 * agree with it on every instruction word.
 *
 *   a64_insn_objdump OBJDUMP FILE...     every word objdump -d shows in FILEs
 *   a64_insn_objdump OBJDUMP --random N  N generated words: random ones and
 *                                        random fields in the branch groups
 *
 * Words objdump cannot decode (".inst ... ; undefined", data in .text) must
 * be "not a branch" for hwt too. Exits 77 (skipped) when OBJDUMP is not
 * installed, 1 on any disagreement.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "a64_insn.h"

#define NCLASS (HWT_A64_EXCEPTION + 1)
#define NOP (HWT_A64_OP_HLT + 1)
#define SHOW_MAX 20

struct counts {
	unsigned long words;
	unsigned long undefined;	/* objdump: undefined; hwt: not a branch */
	unsigned long per_class[NCLASS];
	unsigned long per_op[NOP];
	unsigned long targets;
	unsigned long bad;
};

/* What objdump says about one word. */
struct expect {
	enum hwt_a64_op op;
	int has_target;
	uint64_t target;
	int reg;		/* -1: not compared */
	int imm;		/* -1: not compared */
};

static enum hwt_a64_op op_of(const char *mn)
{
	int op;

	if (!strncmp(mn, "b.", 2))
		return HWT_A64_OP_B_COND;
	if (!strncmp(mn, "bc.", 3))
		return HWT_A64_OP_BC_COND;
	for (op = HWT_A64_OP_B; op < NOP; op++)
		if (!strcmp(mn, hwt_a64_op_name((enum hwt_a64_op)op)))
			return (enum hwt_a64_op)op;
	return HWT_A64_OP_NONE;
}

/* The class each instruction belongs to, independently of the classifier. */
static enum hwt_a64_branch class_of(enum hwt_a64_op op)
{
	switch (op) {
	case HWT_A64_OP_NONE:
		return HWT_A64_OTHER;
	case HWT_A64_OP_B:
		return HWT_A64_JUMP;
	case HWT_A64_OP_BL:
		return HWT_A64_CALL;
	case HWT_A64_OP_B_COND:
	case HWT_A64_OP_BC_COND:
	case HWT_A64_OP_CBZ:
	case HWT_A64_OP_CBNZ:
	case HWT_A64_OP_TBZ:
	case HWT_A64_OP_TBNZ:
		return HWT_A64_COND;
	case HWT_A64_OP_BR:
	case HWT_A64_OP_BRAA:
	case HWT_A64_OP_BRAB:
	case HWT_A64_OP_BRAAZ:
	case HWT_A64_OP_BRABZ:
		return HWT_A64_JUMP_INDIRECT;
	case HWT_A64_OP_BLR:
	case HWT_A64_OP_BLRAA:
	case HWT_A64_OP_BLRAB:
	case HWT_A64_OP_BLRAAZ:
	case HWT_A64_OP_BLRABZ:
		return HWT_A64_CALL_INDIRECT;
	case HWT_A64_OP_RET:
	case HWT_A64_OP_RETAA:
	case HWT_A64_OP_RETAB:
		return HWT_A64_RETURN;
	case HWT_A64_OP_ERET:
	case HWT_A64_OP_ERETAA:
	case HWT_A64_OP_ERETAB:
		return HWT_A64_EXCEPTION_RETURN;
	case HWT_A64_OP_SVC:
	case HWT_A64_OP_HVC:
	case HWT_A64_OP_SMC:
	case HWT_A64_OP_BRK:
	case HWT_A64_OP_HLT:
		return HWT_A64_EXCEPTION;
	}
	return HWT_A64_OTHER;
}

static int pac_of(enum hwt_a64_op op)
{
	const char *n = hwt_a64_op_name(op);
	size_t len = strlen(n);

	/* The authenticated forms end in the key: ...aa, ...ab, ...aaz, ...abz. */
	return op != HWT_A64_OP_BL && op != HWT_A64_OP_B && len > 3 &&
	       (!strcmp(n + len - 2, "aa") || !strcmp(n + len - 2, "ab") ||
		!strcmp(n + len - 3, "aaz") || !strcmp(n + len - 3, "abz"));
}

/* "x17", "w0", "xzr", "sp" -> register number; -1 if none. */
static int parse_reg(const char *s)
{
	while (*s == ' ')
		s++;
	if (!strncmp(s, "xzr", 3) || !strncmp(s, "wzr", 3) || !strncmp(s, "sp", 2))
		return 31;
	if ((*s == 'x' || *s == 'w') && isdigit((unsigned char)s[1]))
		return atoi(s + 1);
	return -1;
}

/* Splits operands at ", " into at most 4 fields (the "<sym>" and "//" tails cut). */
static int split_operands(char *ops, char *field[4])
{
	int n = 0;
	char *p;

	if ((p = strstr(ops, " //")))
		*p = 0;
	if ((p = strstr(ops, " <")))
		*p = 0;
	while (n < 4 && *ops) {
		while (*ops == ' ')
			ops++;
		field[n++] = ops;
		if (!(p = strchr(ops, ',')))
			break;
		*p = 0;
		ops = p + 1;
	}
	return n;
}

static void expect_from(const char *mn, char *ops, struct expect *e)
{
	char *f[4];
	int n;

	e->op = op_of(mn);
	e->has_target = 0;
	e->target = 0;
	e->reg = -1;
	e->imm = -1;
	n = split_operands(ops, f);
	switch (e->op) {
	case HWT_A64_OP_B:
	case HWT_A64_OP_BL:
	case HWT_A64_OP_B_COND:
	case HWT_A64_OP_BC_COND:
	case HWT_A64_OP_CBZ:
	case HWT_A64_OP_CBNZ:
	case HWT_A64_OP_TBZ:
	case HWT_A64_OP_TBNZ:
		if (n < 1)
			break;
		e->has_target = 1;
		e->target = strtoull(f[n - 1], NULL, 16);
		if (e->op == HWT_A64_OP_CBZ || e->op == HWT_A64_OP_CBNZ || e->op == HWT_A64_OP_TBZ ||
		    e->op == HWT_A64_OP_TBNZ)
			e->reg = parse_reg(f[0]);
		if ((e->op == HWT_A64_OP_TBZ || e->op == HWT_A64_OP_TBNZ) && n == 3)
			e->imm = (int)strtol(f[1] + 1, NULL, 0);
		break;
	case HWT_A64_OP_RET:
		e->reg = n ? parse_reg(f[0]) : 30;
		break;
	case HWT_A64_OP_RETAA:
	case HWT_A64_OP_RETAB:
		e->reg = 30;
		break;
	case HWT_A64_OP_ERET:
	case HWT_A64_OP_ERETAA:
	case HWT_A64_OP_ERETAB:
		e->reg = 31;
		break;
	case HWT_A64_OP_SVC:
	case HWT_A64_OP_HVC:
	case HWT_A64_OP_SMC:
	case HWT_A64_OP_BRK:
	case HWT_A64_OP_HLT:
		if (n)
			e->imm = (int)strtol(f[0] + 1, NULL, 0);
		break;
	case HWT_A64_OP_NONE:
		break;
	default: /* the other register branches name Rn first */
		if (n)
			e->reg = parse_reg(f[0]);
		break;
	}
}

static void check_word(const char *where, uint64_t addr, uint32_t w, const char *mn,
		       char *ops, struct counts *c)
{
	char ops_copy[256];
	struct hwt_a64_insn h;
	struct expect e;
	const char *why = NULL;

	snprintf(ops_copy, sizeof(ops_copy), "%s", ops);
	hwt_a64_insn_decode(w, &h);
	c->words++;
	if (!strcmp(mn, ".inst") || !strcmp(mn, ".word")) {
		/* objdump could not decode it: no instruction of any class. */
		c->undefined++;
		if (h.branch != HWT_A64_OTHER)
			why = "undefined";
	} else {
		expect_from(mn, ops, &e);
		if (h.op != e.op)
			why = "instruction";
		else if (h.branch != class_of(e.op))
			why = "class";
		else if (!!(h.flags & HWT_A64_PAC) != pac_of(e.op))
			why = "pac";
		else if (!!(h.flags & HWT_A64_HAS_TARGET) != e.has_target ||
			 (e.has_target && hwt_a64_insn_target(&h, addr) != e.target))
			why = "target";
		else if (e.reg >= 0 && h.reg != e.reg)
			why = "register";
		else if (e.imm >= 0 && h.imm != e.imm)
			why = "immediate";
	}
	if (why) {
		if (c->bad++ < SHOW_MAX)
			printf("DISAGREE %s 0x%" PRIx64 " %08x %s: objdump \"%s %s\" | hwt %s %s"
			       " reg %u imm %u target 0x%" PRIx64 "\n",
			       where, addr, w, why, mn, ops_copy, hwt_a64_branch_name(h.branch),
			       hwt_a64_op_name(h.op), h.reg, h.imm, hwt_a64_insn_target(&h, addr));
		return;
	}
	c->per_class[h.branch]++;
	c->per_op[h.op]++;
	c->targets += !!(h.flags & HWT_A64_HAS_TARGET);
}

/*
 * Reads objdump -d output: "  addr:\tword \tmnemonic\toperands". Lines of
 * other shapes (headers, symbols, "..." for zeros skipped) are ignored.
 */
static int run_objdump(const char *cmd, const char *where, struct counts *c)
{
	char line[1024];
	unsigned long lines = 0;
	FILE *p = popen(cmd, "r");

	if (!p) {
		perror(cmd);
		return -1;
	}
	while (fgets(line, sizeof(line), p)) {
		char *tab1, *tab2, *tab3, *end, *nl;
		uint64_t addr;
		uint32_t w;

		addr = strtoull(line, &end, 16);
		if (end == line || *end != ':' || end[1] != '\t')
			continue;
		tab1 = end + 2;
		w = (uint32_t)strtoul(tab1, &end, 16);
		if (end - tab1 != 8 || *end != ' ')
			continue;
		if (!(tab2 = strchr(end, '\t')))
			continue;
		tab2++;
		if ((nl = strchr(tab2, '\n')))
			*nl = 0;
		tab3 = strchr(tab2, '\t');
		if (tab3)
			*tab3++ = 0;
		/* ".inst\t0x...; undefined": the mnemonic may carry trailing blanks. */
		end = tab2 + strlen(tab2);
		while (end > tab2 && end[-1] == ' ')
			*--end = 0;
		check_word(where, addr, w, tab2, tab3 ? tab3 : (char *)"", c);
		lines++;
	}
	if (pclose(p) != 0) {
		fprintf(stderr, "%s: failed\n", cmd);
		return -1;
	}
	if (!lines) {
		fprintf(stderr, "%s: no instructions listed\n", cmd);
		return -1;
	}
	return 0;
}

/* xorshift64*: deterministic, so a failure can be reproduced. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

/*
 * Random words, most of them with the fixed bits of a branch or exception
 * group and random fields, so that every unallocated corner is visited.
 */
static int write_random(const char *path, unsigned long n)
{
	static const uint32_t group_mask[] = { 0x7c000000u, 0xff000000u, 0x7e000000u, 0x7e000000u,
					       0xfe000000u, 0xfe1f0000u, 0xff000000u, 0x00000000u };
	static const uint32_t group_bits[] = { 0x14000000u, 0x54000000u, 0x34000000u, 0x36000000u,
					       0xd6000000u, 0xd61f0000u, 0xd4000000u, 0x00000000u };
	uint64_t s = 0x9e3779b97f4a7c15ull;
	unsigned long i;
	FILE *f = fopen(path, "wb");

	if (!f) {
		perror(path);
		return -1;
	}
	for (i = 0; i < n; i++) {
		uint64_t r = rnd(&s);
		unsigned int g = (unsigned int)(r >> 61);
		uint32_t w = (uint32_t)r;
		uint8_t b[4];

		w = (w & ~group_mask[g]) | group_bits[g];
		/* In the register branch group, favour the op3/op4 values that are allocated. */
		if (g == 5 && (r & 0x100000000ull)) {
			w &= ~0xfc1fu;
			w |= (uint32_t)((r >> 33) & 1u) << 11 | (uint32_t)((r >> 34) & 1u) << 10;
			if (r & 0x800000000ull)
				w |= 0x1fu;
		}
		b[0] = (uint8_t)w;
		b[1] = (uint8_t)(w >> 8);
		b[2] = (uint8_t)(w >> 16);
		b[3] = (uint8_t)(w >> 24);
		if (fwrite(b, 1, 4, f) != 4) {
			perror(path);
			fclose(f);
			return -1;
		}
	}
	return fclose(f);
}

int main(int argc, char **argv)
{
	struct counts c;
	char cmd[4096];
	int i, op, rc = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: %s OBJDUMP FILE... | OBJDUMP --random N\n", argv[0]);
		return 2;
	}
	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null", argv[1]);
	if (system(cmd) != 0) {
		printf("SKIP: %s is not installed (scripts/setup.sh --tests installs binutils-aarch64-linux-gnu)\n",
		       argv[1]);
		return 77;
	}
	memset(&c, 0, sizeof(c));
	if (!strcmp(argv[2], "--random")) {
		char path[] = "/tmp/a64_insn_random_XXXXXX";
		unsigned long n = argc > 3 ? strtoul(argv[3], NULL, 0) : 1000000;
		int fd = mkstemp(path);

		if (fd < 0) {
			perror("mkstemp");
			return 1;
		}
		close(fd);
		if (write_random(path, n) == 0) {
			snprintf(cmd, sizeof(cmd), "%s -D -b binary -m aarch64 %s", argv[1], path);
			rc = run_objdump(cmd, "random", &c);
		} else {
			rc = -1;
		}
		unlink(path);
	} else {
		for (i = 2; i < argc && rc == 0; i++) {
			snprintf(cmd, sizeof(cmd), "%s -d '%s'", argv[1], argv[i]);
			rc = run_objdump(cmd, argv[i], &c);
		}
	}
	if (rc)
		return 1;
	printf("%lu words, %lu undefined for objdump, %lu disagreements, %lu direct targets\n",
	       c.words, c.undefined, c.bad, c.targets);
	for (i = 0; i < NCLASS; i++)
		printf("  %-17s %lu\n", hwt_a64_branch_name((enum hwt_a64_branch)i), c.per_class[i]);
	for (op = HWT_A64_OP_B; op < NOP; op++)
		if (c.per_op[op])
			printf("    %-8s %lu\n", hwt_a64_op_name((enum hwt_a64_op)op), c.per_op[op]);
	return c.bad ? 1 : 0;
}
