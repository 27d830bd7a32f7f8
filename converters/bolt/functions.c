/*
 * The functions of a binary as llvm-bolt names them: a global or weak
 * symbol by its name, a local one by NAME/N, N counting (from 1) the local
 * function symbols called NAME in symbol table order, as BOLT makes local
 * names unique. Aliases (several symbols at one address) keep the first
 * global name, else the first; a symbol of size 0 spans up to the next one
 * (at most to its section's end). PLT entries (.plt, .plt.sec and
 * .plt.got) are functions too, NAME@PLT as BOLT names them.
 */
#include <gelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bolt_int.h"
#include "hwt_bolt.h"

/* A symbol while the table is read. */
struct candidate {
	struct hwt_bolt_function fn;
	int local;
	size_t index;         /* in the symbol table */
	uint64_t section_end; /* symbols of size 0: the end of their section */
};

/* A local name seen so far, with how many times. */
struct seen {
	const char *name;
	unsigned n;
};

/* By address, globals first, then table order. */
static int cmp_candidate(const void *a, const void *b)
{
	const struct candidate *x = a, *y = b;

	if (x->fn.addr != y->fn.addr)
		return x->fn.addr < y->fn.addr ? -1 : 1;
	if (x->local != y->local)
		return x->local - y->local;
	return x->index < y->index ? -1 : x->index > y->index;
}

static int cmp_seen(const void *a, const void *b)
{
	return strcmp(((const struct seen *)a)->name, ((const struct seen *)b)->name);
}

/*
 * The next number of a local name: seen is kept sorted by name (it has
 * room for every symbol of the table).
 */
static unsigned next_local(struct seen *seen, size_t *nseen, const char *name)
{
	struct seen key = { name, 0 }, *s = bsearch(&key, seen, *nseen, sizeof(*seen), cmp_seen);
	size_t lo = 0, hi = *nseen;

	if (s)
		return ++s->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(seen[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(seen + lo + 1, seen + lo, (*nseen - lo) * sizeof(*seen));
	seen[lo] = (struct seen){ name, 1 };
	(*nseen)++;
	return 1;
}

/* The function symbols of one table into cands (room for all); their count. */
static int read_table(const struct hwt_elf_file *file, Elf_Scn *scn, const GElf_Shdr *shdr,
		      struct candidate *cands, size_t *ncands)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = shdr->sh_size / shdr->sh_entsize, i, nseen = 0;
	struct seen *seen = calloc(n + 1, sizeof(*seen));

	if (!seen)
		return -hboe_nomem;
	for (i = 0; data && i < n; i++) {
		struct candidate *c = &cands[*ncands];
		const char *name;
		unsigned local = 0;
		int type, bind;
		size_t len;
		GElf_Sym sym;

		if (!gelf_getsym(data, (int)i, &sym))
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		bind = GELF_ST_BIND(sym.st_info);
		name = elf_strptr(file->elf, shdr->sh_link, sym.st_name);
		if (!name || !*name || sym.st_shndx == SHN_UNDEF ||
		    (type != STT_FUNC && type != STT_GNU_IFUNC))
			continue;
		if (bind == STB_LOCAL)
			local = next_local(seen, &nseen, name);
		if (!sym.st_value)
			continue;
		len = strlen(name) + 16;
		c->fn.name = malloc(len);
		if (!c->fn.name) {
			free(seen);
			return -hboe_nomem;
		}
		if (local)
			snprintf(c->fn.name, len, "%s/%u", name, local);
		else
			snprintf(c->fn.name, len, "%s", name);
		c->fn.addr = sym.st_value;
		c->fn.end = sym.st_value + sym.st_size;
		if (!sym.st_size) {
			/* Hand-written code (_init): at most to its section's end. */
			Elf_Scn *in = elf_getscn(file->elf, sym.st_shndx);
			GElf_Shdr sh;

			c->section_end = in && gelf_getshdr(in, &sh) ? sh.sh_addr + sh.sh_size : 0;
		}
		c->local = local != 0;
		c->index = i;
		(*ncands)++;
	}
	free(seen);
	return 0;
}

/* Appends the PLT entries (NAME@PLT) to *cands, growing it. */
static int add_plt(const struct hwt_elf_file *file, struct candidate **cands, size_t *ncands)
{
	struct hwt_elf_symbol *plt = NULL;
	struct candidate *grown;
	size_t n = 0, i;

	if (hwt_elf_file_plt(file, &plt, &n) < 0)
		return -hboe_nomem;
	if (!n) {
		free(plt);
		return 0;
	}
	grown = realloc(*cands, (*ncands + n) * sizeof(*grown));
	if (!grown) {
		free(plt);
		return -hboe_nomem;
	}
	*cands = grown;
	for (i = 0; i < n; i++) {
		struct candidate *c = &grown[*ncands];
		size_t len = strlen(plt[i].name) + 5;

		c->fn.name = malloc(len);
		if (!c->fn.name) {
			free(plt);
			return -hboe_nomem;
		}
		snprintf(c->fn.name, len, "%s@PLT", plt[i].name);
		c->fn.addr = plt[i].addr;
		c->fn.end = plt[i].addr + (plt[i].size ? plt[i].size : 16);
		c->local = 0;
		c->index = SIZE_MAX - n + i; /* after every symbol at the address */
		c->section_end = 0;
		(*ncands)++;
	}
	free(plt);
	return 0;
}

/* The section called name, or NULL. */
static Elf_Scn *section_named(Elf *elf, const char *name, GElf_Shdr *shdr)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		const char *n;

		if (gelf_getshdr(scn, shdr) && (n = elf_strptr(elf, shstrndx, shdr->sh_name)) &&
		    !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/* The dynamic symbol a .rela.dyn relocation at GOT slot got names, or NULL. */
static const char *got_symbol(Elf *elf, uint64_t got)
{
	GElf_Shdr rela_sh, sym_sh;
	Elf_Scn *rela = section_named(elf, ".rela.dyn", &rela_sh), *syms;
	Elf_Data *rd, *sd;
	size_t i, n;

	if (!rela || rela_sh.sh_type != SHT_RELA || !rela_sh.sh_entsize ||
	    !(syms = elf_getscn(elf, rela_sh.sh_link)) || !gelf_getshdr(syms, &sym_sh) ||
	    !(rd = elf_getdata(rela, NULL)) || !(sd = elf_getdata(syms, NULL)))
		return NULL;
	n = rela_sh.sh_size / rela_sh.sh_entsize;
	for (i = 0; i < n; i++) {
		GElf_Rela r;
		GElf_Sym sym;

		if (gelf_getrela(rd, (int)i, &r) && r.r_offset == got && GELF_R_SYM(r.r_info) &&
		    gelf_getsym(sd, (int)GELF_R_SYM(r.r_info), &sym))
			return elf_strptr(elf, sym_sh.sh_link, sym.st_name);
	}
	return NULL;
}

/*
 * Appends the entries of x86-64's .plt.got (functions bound at load time
 * whose address is taken too, __cxa_finalize in a PIE): each a `jmp
 * *GOT(%rip)` (after an endbr64 with IBT), named by the GOT slot's
 * relocation, NAME@PLT as BOLT names them.
 */
static int add_plt_got(const struct hwt_elf_file *file, struct candidate **cands, size_t *ncands)
{
	GElf_Shdr sh;
	Elf_Scn *scn = section_named(file->elf, ".plt.got", &sh);
	Elf_Data *data;
	uint64_t size, at;

	if (!scn || file->machine != EM_X86_64 || sh.sh_type != SHT_PROGBITS ||
	    !(data = elf_getdata(scn, NULL)) || !data->d_buf)
		return 0;
	size = sh.sh_entsize == 8 || sh.sh_entsize == 16 ? sh.sh_entsize : 8;
	for (at = 0; at + size <= data->d_size && at + size <= sh.sh_size; at += size) {
		const uint8_t *e = (const uint8_t *)data->d_buf + at;
		const char *name = NULL;
		struct candidate *grown;
		uint64_t k;

		/* jmp *disp32(%rip): ff 25 disp32, after an endbr64 and a bnd prefix. */
		for (k = 0; k + 6 <= size && !name; k++)
			if (e[k] == 0xff && e[k + 1] == 0x25) {
				int32_t disp = (int32_t)((uint32_t)e[k + 2] | (uint32_t)e[k + 3] << 8 |
							 (uint32_t)e[k + 4] << 16 |
							 (uint32_t)e[k + 5] << 24);

				name = got_symbol(file->elf, sh.sh_addr + at + k + 6 + (uint64_t)(int64_t)disp);
			}
		if (!name || !*name)
			continue;
		grown = realloc(*cands, (*ncands + 1) * sizeof(*grown));
		if (!grown)
			return -hboe_nomem;
		*cands = grown;
		grown[*ncands] = (struct candidate){ { sh.sh_addr + at, sh.sh_addr + at + size, NULL },
						     0, SIZE_MAX, 0 };
		grown[*ncands].fn.name = malloc(strlen(name) + 5);
		if (!grown[*ncands].fn.name)
			return -hboe_nomem;
		sprintf(grown[*ncands].fn.name, "%s@PLT", name);
		(*ncands)++;
	}
	return 0;
}

void hwt_bolt_functions_clear(struct hwt_bolt_functions *fns)
{
	size_t i;

	for (i = 0; i < fns->count; i++)
		free(fns->items[i].name);
	free(fns->items);
	fns->items = NULL;
	fns->count = 0;
}

int hwt_bolt_functions_read(const struct hwt_elf_file *file, struct hwt_bolt_functions *fns)
{
	struct candidate *cands = NULL;
	size_t ncands = 0, i, out;
	int pass, rc = 0;

	memset(fns, 0, sizeof(*fns));
	if (!file->elf)
		return -hboe_not_elf;
	for (pass = 0; pass < 2 && !ncands && rc == 0; pass++) {
		Elf32_Word want = pass == 0 ? SHT_SYMTAB : SHT_DYNSYM;
		Elf_Scn *scn = NULL;

		while (!ncands && rc == 0 && (scn = elf_nextscn(file->elf, scn)) != NULL) {
			GElf_Shdr shdr;

			if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != want || !shdr.sh_entsize)
				continue;
			free(cands);
			cands = calloc(shdr.sh_size / shdr.sh_entsize + 1, sizeof(*cands));
			if (!cands)
				return -hboe_nomem;
			rc = read_table(file, scn, &shdr, cands, &ncands);
		}
	}
	if (rc == 0 && !ncands)
		rc = -hboe_no_symbols;
	if (rc == 0)
		rc = add_plt(file, &cands, &ncands);
	if (rc == 0)
		rc = add_plt_got(file, &cands, &ncands);
	if (rc == 0) {
		fns->items = calloc(ncands, sizeof(*fns->items));
		if (!fns->items)
			rc = -hboe_nomem;
	}
	if (rc < 0) {
		for (i = 0; i < ncands; i++)
			free(cands[i].fn.name);
		free(cands);
		return rc;
	}
	qsort(cands, ncands, sizeof(*cands), cmp_candidate);
	for (i = 0, out = 0; i < ncands; i++) {
		if (out && fns->items[out - 1].addr == cands[i].fn.addr) {
			/* An alias: the span is the longest of them. */
			if (cands[i].fn.end > fns->items[out - 1].end)
				fns->items[out - 1].end = cands[i].fn.end;
			free(cands[i].fn.name);
			continue;
		}
		if (cands[i].fn.end <= cands[i].fn.addr) {
			uint64_t next = cands[i].fn.addr + 1;
			size_t j = i + 1;

			while (j < ncands && cands[j].fn.addr == cands[i].fn.addr)
				j++;
			if (j < ncands)
				next = cands[j].fn.addr;

			if (cands[i].section_end > cands[i].fn.addr && cands[i].section_end < next)
				next = cands[i].section_end;
			cands[i].fn.end = next;
		}
		fns->items[out++] = cands[i].fn;
	}
	free(cands);
	fns->count = out;
	return 0;
}

const struct hwt_bolt_function *hwt_bolt_function_at(const struct hwt_bolt_functions *fns,
						     uint64_t vaddr)
{
	size_t lo = 0, hi = fns->count;

	/* The last function whose entry is at or before vaddr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (fns->items[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || vaddr >= fns->items[lo - 1].end)
		return NULL;
	return &fns->items[lo - 1];
}

/* Whether the dynamic section of elf names a DT_SONAME: a shared library's. */
static int has_soname(Elf *elf)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Dyn dyn;

			if (gelf_getdyn(data, (int)i, &dyn) && dyn.d_tag == DT_SONAME)
				return 1;
		}
	}
	return 0;
}

/*
 * A program: ET_EXEC, or a PIE (ET_DYN with an interpreter). glibc's
 * libc.so.6 has an interpreter too (it runs to print its version): a
 * file with a DT_SONAME is a library, whatever else it has.
 */
int hwt_bolt_is_program(const char *path)
{
	struct hwt_elf_file file;
	int program = 0;
	size_t n = 0, i;

	if (hwt_elf_file_open(&file, path) < 0)
		return 0;
	if (file.elf && file.type == ET_EXEC)
		program = 1;
	else if (file.elf && file.type == ET_DYN && elf_getphdrnum(file.elf, &n) == 0) {
		for (i = 0; i < n && !program; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(file.elf, (int)i, &ph) && ph.p_type == PT_INTERP)
				program = 1;
		}
		if (program && has_soname(file.elf))
			program = 0;
	}
	hwt_elf_file_close(&file);
	return program;
}
