/*
 * Oracle test: walks every executable section of ELF files linearly and
 * compares hwt's length, class, REP flag and branch target with Zydis' for
 * every instruction.
 *
 * Sections hold data too (padding, jump tables in .text): where Zydis
 * rejects a byte, the walk counts it and moves one byte on; on a
 * disagreement it moves on by Zydis' length, so one error cannot hide the
 * next. Exits non-zero on any disagreement.
 *
 * usage: x86_insn_elf FILE...
 */
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "x86_insn.h"
#include "zydis_oracle.h"

#define NCLASS (HWT_X86_FAR + 1)
#define SHOW_MAX 10

struct counts {
	unsigned long insns;
	unsigned long per_class[NCLASS];
	unsigned long rep;
	unsigned long targets;
	unsigned long rejected;		/* bytes Zydis rejects (data, padding) */
	unsigned long rejected_both;	/* ... that hwt rejects too */
	unsigned long allowed;
	unsigned long bad;
};

static unsigned long shown;

static void show(const char *file, const char *sec, uint64_t addr, const uint8_t *p,
		 size_t avail, const char *why, const struct oracle_insn *o, int hl,
		 const struct hwt_x86_insn *h)
{
	unsigned int i, n = o->length > 0 ? (unsigned int)o->length : 15;

	if (shown++ >= SHOW_MAX)
		return;
	if (n > avail)
		n = (unsigned int)avail;
	printf("DISAGREE %s %s 0x%" PRIx64 " %s: ", file, sec, addr, why);
	for (i = 0; i < n; i++)
		printf("%02x ", p[i]);
	printf("| zydis len %d %s disp %" PRId64 " rep %d (%s) | hwt ", o->length,
	       hwt_x86_branch_name(o->branch), o->displacement, o->rep, o->text);
	if (hl < 0)
		printf("error %d\n", hl);
	else
		printf("len %d %s disp %" PRId64 " rep %d\n", hl, hwt_x86_branch_name(h->branch),
		       h->displacement, !!(h->flags & HWT_X86_REP));
}

static void check_section(const char *file, const char *sec, uint64_t addr,
			  const uint8_t *p, size_t size, struct counts *c)
{
	size_t off = 0;

	while (off < size) {
		struct oracle_insn o;
		struct hwt_x86_insn h;
		const char *why = NULL;
		int ol, hl;

		ol = oracle_decode(p + off, size - off, addr + off, &o);
		hl = hwt_x86_insn_decode(p + off, size - off, &h);
		if (ol < 0) {
			c->rejected++;
			if (hl < 0)
				c->rejected_both++;
			off++;
			continue;
		}
		if (o.allowed) {
			c->allowed++;
			off += (size_t)ol;
			continue;
		}
		c->insns++;
		if (hl != ol)
			why = hl < 0 ? "hwt-rejects" : "length";
		else if (h.branch != o.branch)
			why = "class";
		else if (!!(h.flags & HWT_X86_REP) != o.rep)
			why = "rep";
		else if (!!(h.flags & HWT_X86_HAS_TARGET) != o.has_target ||
			 (o.has_target && h.displacement != o.displacement))
			why = "target";
		if (why) {
			c->bad++;
			show(file, sec, addr + off, p + off, size - off, why, &o, hl, &h);
		} else {
			c->per_class[h.branch]++;
			c->rep += !!(h.flags & HWT_X86_REP);
			c->targets += !!(h.flags & HWT_X86_HAS_TARGET);
		}
		off += (size_t)ol;
	}
}

static int check_file(const char *path, struct counts *c)
{
	char real[PATH_MAX];
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int fd, nsec = 0;
	Elf *elf;

	if (!realpath(path, real)) {
		perror(path);
		return -1;
	}
	fd = open(real, O_RDONLY);
	if (fd < 0) {
		perror(real);
		return -1;
	}
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx)) {
		fprintf(stderr, "%s: not an ELF file: %s\n", real, elf_errmsg(-1));
		if (elf)
			elf_end(elf);
		close(fd);
		return -1;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf)
			continue;
		check_section(real, name ? name : "?", sh.sh_addr, data->d_buf, data->d_size, c);
		nsec++;
	}
	elf_end(elf);
	close(fd);
	if (!nsec) {
		fprintf(stderr, "%s: no executable section\n", real);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long total_bad = 0, total = 0;
	int i, k, fail = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE...\n", argv[0]);
		return 2;
	}
	if (elf_version(EV_CURRENT) == EV_NONE || oracle_init()) {
		fprintf(stderr, "cannot initialise libelf or Zydis\n");
		return 2;
	}
	for (i = 1; i < argc; i++) {
		struct counts c;

		memset(&c, 0, sizeof(c));
		if (check_file(argv[i], &c)) {
			fail = 1;
			continue;
		}
		printf("%s: %lu instructions checked, %lu disagreements;", argv[i], c.insns, c.bad);
		for (k = 0; k < NCLASS; k++)
			printf(" %s %lu", hwt_x86_branch_name(k), c.per_class[k]);
		printf("; rep %lu, direct targets %lu; %lu bytes zydis rejects (%lu rejected by hwt "
		       "too); %lu allow-listed\n", c.rep, c.targets, c.rejected, c.rejected_both,
		       c.allowed);
		if (!c.insns)
			fail = 1;
		total += c.insns;
		total_bad += c.bad;
	}
	printf("total: %lu instructions, %lu disagreements\n", total, total_bad);
	return fail || total_bad ? 1 : 0;
}
