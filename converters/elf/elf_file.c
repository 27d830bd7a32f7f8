/*
 * Executable files: mapped bytes, build-id, PT_LOAD segments, function
 * symbols (elf_file.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_file.h"
#include "elf_note.h"
#include "grow.h"

/* Reads the GNU build-id from the notes in data[offset .. offset + size). */
static void read_build_id(struct hwt_elf_file *file, uint64_t offset, uint64_t size)
{
	const uint8_t *desc;
	uint32_t n;

	if (offset > file->size || size > file->size - offset)
		return;
	n = hwt_elf_note_build_id(file->data + offset, size, sizeof(file->build_id), &desc);
	if (n) {
		memcpy(file->build_id, desc, n);
		file->build_id_size = n;
	}
}

static int read_segments(struct hwt_elf_file *file, Elf *elf, size_t n)
{
	file->loads = calloc(n ? n : 1, sizeof(*file->loads));
	if (!file->loads)
		return -hee_nomem;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr phdr;

		if (!gelf_getphdr(elf, (int)i, &phdr))
			continue;
		if (phdr.p_type == PT_LOAD) {
			struct hwt_elf_load *l = &file->loads[file->load_count++];

			l->offset = phdr.p_offset;
			l->filesz = phdr.p_filesz;
			l->vaddr = phdr.p_vaddr;
			l->flags = phdr.p_flags;
		} else if (phdr.p_type == PT_NOTE && !file->build_id_size) {
			read_build_id(file, phdr.p_offset, phdr.p_filesz);
		}
	}
	return 0;
}

/*
 * .gnu_debuglink (data[offset .. offset + size)): a file name, its NUL,
 * padding to 4 bytes, then the CRC32 of the debug file in the file's byte
 * order. Left unset when malformed.
 */
static void read_debuglink(struct hwt_elf_file *file, Elf *elf, uint64_t offset, uint64_t size)
{
	const uint8_t *p;
	const char *name;
	size_t len, at;
	GElf_Ehdr ehdr;

	if (offset > file->size || size > file->size - offset || !gelf_getehdr(elf, &ehdr))
		return;
	name = (const char *)file->data + offset;
	len = strnlen(name, size);
	at = (len + 4) & ~(size_t)3;
	if (!len || len == size || at + 4 > size)
		return;
	p = file->data + offset + at;
	if (ehdr.e_ident[EI_DATA] == ELFDATA2MSB)
		file->debuglink_crc = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
				      (uint32_t)p[2] << 8 | p[3];
	else
		file->debuglink_crc = (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 |
				      (uint32_t)p[1] << 8 | p[0];
	file->debuglink = name;
}

/* Whether there is a symbol table and DWARF; the build-id of a note section
   when no segment has one (a file that is not loaded as it is); the debug
   link. */
static void read_sections(struct hwt_elf_file *file, Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int have_names = elf_getshdrstrndx(elf, &shstrndx) == 0;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr shdr;

		if (!gelf_getshdr(scn, &shdr))
			continue;
		if (shdr.sh_type == SHT_SYMTAB)
			file->has_symtab = 1;
		if (have_names && shdr.sh_type != SHT_NOBITS && shdr.sh_size) {
			const char *name = elf_strptr(elf, shstrndx, shdr.sh_name);

			if (name && !strcmp(name, ".debug_info"))
				file->has_debug_info = 1;
			if (name && !strcmp(name, ".gnu_debuglink") && shdr.sh_type == SHT_PROGBITS)
				read_debuglink(file, elf, shdr.sh_offset, shdr.sh_size);
		}
		if (shdr.sh_type == SHT_NOTE && !file->build_id_size)
			read_build_id(file, shdr.sh_offset, shdr.sh_size);
	}
}

static int read_headers(struct hwt_elf_file *file)
{
	Elf *elf;
	size_t n;
	int status;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return 0;
	elf = elf_memory((char *)file->data, file->size);
	if (!elf)
		return 0;
	if (elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &n) != 0) {
		elf_end(elf);
		return 0;
	}
	status = read_segments(file, elf, n);
	if (status < 0) {
		elf_end(elf);
		return status;
	}
	read_sections(file, elf);
	{
		GElf_Ehdr ehdr;

		if (gelf_getehdr(elf, &ehdr)) {
			file->machine = ehdr.e_machine;
			file->type = ehdr.e_type;
			file->entry = ehdr.e_entry;
		}
	}
	file->elf = elf;
	file->is_elf = 1;
	return 0;
}

int hwt_elf_file_open(struct hwt_elf_file *file, const char *path)
{
	struct stat st;
	int fd, status;

	if (!file)
		return -hee_invalid;
	memset(file, 0, sizeof(*file));
	if (!path)
		return -hee_invalid;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -hee_io;
	if (fstat(fd, &st) < 0) {
		int saved = errno;

		close(fd);
		errno = saved;
		return -hee_io;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return -hee_io;
	}
	file->mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000ull + (uint64_t)st.st_mtim.tv_nsec;
	if (st.st_size > 0) {
		void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);

		if (p == MAP_FAILED) {
			close(fd);
			return -hee_io;
		}
		file->data = p;
		file->size = (size_t)st.st_size;
	}
	close(fd);
	if (!file->data)
		return 0;
	status = read_headers(file);
	if (status < 0) {
		hwt_elf_file_close(file);
		errno = ENOMEM;
	}
	return status;
}

void hwt_elf_file_close(struct hwt_elf_file *file)
{
	if (!file)
		return;
	if (file->elf)
		elf_end(file->elf);
	if (file->data)
		munmap((void *)file->data, file->size);
	free(file->loads);
	free(file->symbols);
	memset(file, 0, sizeof(*file));
}

uint64_t hwt_elf_file_vaddr(const struct hwt_elf_file *file, uint64_t offset)
{
	for (size_t i = 0; i < file->load_count; i++) {
		const struct hwt_elf_load *l = &file->loads[i];

		if (offset >= l->offset && offset - l->offset < l->filesz)
			return l->vaddr + (offset - l->offset);
	}
	return offset;
}

const uint8_t *hwt_elf_file_code(const struct hwt_elf_file *file, uint64_t vaddr, size_t *avail)
{
	for (size_t i = 0; i < file->load_count; i++) {
		const struct hwt_elf_load *l = &file->loads[i];
		uint64_t off;

		if (!(l->flags & PF_X) || vaddr < l->vaddr || vaddr - l->vaddr >= l->filesz)
			continue;
		off = l->offset + (vaddr - l->vaddr);
		if (off >= file->size)
			return NULL;
		*avail = (size_t)(l->filesz - (vaddr - l->vaddr));
		if (*avail > file->size - off)
			*avail = file->size - off;
		return file->data + off;
	}
	return NULL;
}

/* ----- Function symbols ---------------------------------------------------- */

static int cmp_symbol(const void *a, const void *b)
{
	const struct hwt_elf_symbol *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Appends the defined function symbols of symbol table scn. */
static int add_symbols(struct hwt_elf_file *file, Elf_Scn *scn, const GElf_Shdr *shdr,
		       size_t *cap)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = shdr->sh_size / shdr->sh_entsize;

	for (size_t i = 0; data && i < n; i++) {
		struct hwt_elf_symbol *syms;
		const char *name;
		GElf_Sym sym;

		int type;

		if (!gelf_getsym(data, (int)i, &sym))
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF ||
		    !sym.st_value)
			continue;
		name = elf_strptr(file->elf, shdr->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		syms = hwt_grow_array(file->symbols, cap, file->symbol_count + 1, sizeof(*syms));
		if (!syms)
			return -hee_nomem;
		file->symbols = syms;
		syms[file->symbol_count] = (struct hwt_elf_symbol){
			sym.st_value, sym.st_size, name,
			(GELF_ST_BIND(sym.st_info) == STB_GLOBAL ? HWT_ELF_SYMBOL_GLOBAL : 0) |
				(type == STT_GNU_IFUNC ? HWT_ELF_SYMBOL_IFUNC : 0)
		};
		file->symbol_count++;
	}
	return 0;
}

/* Reads the function symbols of .symtab (or .dynsym when there is none). */
static int read_symbols(struct hwt_elf_file *file)
{
	size_t cap = 0;

	file->symbols_read = 1;
	for (int pass = 0; pass < 2 && file->elf && !file->symbol_count; pass++) {
		Elf32_Word want = pass == 0 ? SHT_SYMTAB : SHT_DYNSYM;
		Elf_Scn *scn = NULL;

		while ((scn = elf_nextscn(file->elf, scn)) != NULL) {
			GElf_Shdr shdr;

			if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != want || !shdr.sh_entsize)
				continue;
			if (add_symbols(file, scn, &shdr, &cap) < 0) {
				free(file->symbols);
				file->symbols = NULL;
				file->symbol_count = 0;
				return -hee_nomem;
			}
		}
	}
	if (file->symbol_count)
		qsort(file->symbols, file->symbol_count, sizeof(*file->symbols), cmp_symbol);
	return 0;
}

uint64_t hwt_elf_file_function_in(struct hwt_elf_file *file, const char *name, uint64_t begin,
				  uint64_t end)
{
	size_t lo = 0, hi;

	if (!file->symbols_read && read_symbols(file) < 0)
		return 0;
	hi = file->symbol_count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (file->symbols[mid].addr < begin)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* A function split in parts has a symbol of its own name at its entry
	   only (gcc names the other part foo.cold, clang foo.__part.N). */
	for (; lo < file->symbol_count && file->symbols[lo].addr < end; lo++)
		if (!(file->symbols[lo].flags & HWT_ELF_SYMBOL_IFUNC) &&
		    !strcmp(file->symbols[lo].name, name))
			return file->symbols[lo].addr;
	return 0;
}

int hwt_elf_file_symbols(struct hwt_elf_file *file, const struct hwt_elf_symbol **symbols,
			 size_t *count)
{
	int status = file->symbols_read ? 0 : read_symbols(file);

	*symbols = file->symbols;
	*count = file->symbol_count;
	return status;
}

uint64_t hwt_elf_file_offset(const struct hwt_elf_file *file, uint64_t vaddr)
{
	for (size_t i = 0; i < file->load_count; i++) {
		const struct hwt_elf_load *l = &file->loads[i];

		if (vaddr >= l->vaddr && vaddr - l->vaddr < l->filesz)
			return l->offset + (vaddr - l->vaddr);
	}
	return vaddr;
}

/* ----- PLT entries --------------------------------------------------------- */

/*
 * The GOT slot an x86-64 .plt.got entry jumps through: its
 * "jmp *disp32(%rip)" (after an endbr64 and a bnd prefix, when there are
 * some); 0 when the entry is not one.
 */
static uint64_t plt_got_slot(const struct hwt_elf_file *file, uint64_t entry)
{
	static const uint8_t endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	size_t avail, n = 0;
	const uint8_t *p = hwt_elf_file_code(file, entry, &avail);
	int32_t disp;

	if (!p)
		return 0;
	if (avail >= sizeof(endbr64) && !memcmp(p, endbr64, sizeof(endbr64)))
		n += sizeof(endbr64);
	if (n < avail && p[n] == 0xf2)
		n++;
	if (n + 6 > avail || p[n] != 0xff || p[n + 1] != 0x25)
		return 0;
	memcpy(&disp, p + n + 2, sizeof(disp));
	return entry + n + 6 + (uint64_t)(int64_t)disp;
}

/* The name of the dynamic symbol that relocation section rela (.rela.dyn) binds at slot. */
static const char *slot_symbol(const struct hwt_elf_file *file, Elf_Scn *rela,
			       const GElf_Shdr *rsh, uint64_t slot)
{
	Elf_Scn *dynsym = elf_getscn(file->elf, rsh->sh_link);
	Elf_Data *rdata = elf_getdata(rela, NULL), *sdata;
	GElf_Shdr dsh;

	if (!dynsym || !gelf_getshdr(dynsym, &dsh) || !rdata || !rsh->sh_entsize ||
	    !(sdata = elf_getdata(dynsym, NULL)))
		return NULL;
	for (size_t i = 0; i < rsh->sh_size / rsh->sh_entsize; i++) {
		GElf_Rela r;
		GElf_Sym sym;
		const char *name;

		if (gelf_getrela(rdata, (int)i, &r) && r.r_offset == slot && GELF_R_SYM(r.r_info) &&
		    gelf_getsym(sdata, (int)GELF_R_SYM(r.r_info), &sym) &&
		    (name = elf_strptr(file->elf, dsh.sh_link, sym.st_name)) && *name)
			return name;
	}
	return NULL;
}

int hwt_elf_file_plt(const struct hwt_elf_file *file, struct hwt_elf_symbol **entries,
		     size_t *count)
{
	Elf_Scn *scn = NULL, *rela = NULL, *rela_dyn = NULL, *dynsym;
	GElf_Shdr plt = { 0 }, plt_sec = { 0 }, plt_got = { 0 }, rsh = { 0 }, dynsh = { 0 }, dsh;
	Elf_Data *rdata, *sdata;
	int have_plt = 0, have_sec = 0, have_got = 0;
	size_t shstrndx, n = 0, header, ngot = 0;

	*entries = NULL;
	*count = 0;
	if (!file->elf || elf_getshdrstrndx(file->elf, &shstrndx) != 0)
		return 0;
	while ((scn = elf_nextscn(file->elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) ||
		    !(name = elf_strptr(file->elf, shstrndx, sh.sh_name)))
			continue;
		if (!strcmp(name, ".plt")) {
			plt = sh;
			have_plt = 1;
		} else if (!strcmp(name, ".plt.sec")) {
			plt_sec = sh;
			have_sec = 1;
		} else if (!strcmp(name, ".plt.got")) {
			plt_got = sh;
			have_got = file->machine == EM_X86_64 && sh.sh_entsize;
		} else if (!strcmp(name, ".rela.plt")) {
			rela = scn;
			rsh = sh;
		} else if (!strcmp(name, ".rela.dyn")) {
			rela_dyn = scn;
			dynsh = sh;
		}
	}
	if (rela && rsh.sh_entsize)
		n = rsh.sh_size / rsh.sh_entsize;
	if (have_got)
		ngot = plt_got.sh_size / plt_got.sh_entsize;
	/* The entries follow the first one, the resolver's call: 16 bytes on
	   x86-64, 32 on aarch64 (then 16 each on both). */
	header = file->machine == EM_AARCH64 ? 32 : 16;
	*entries = calloc(n + ngot + 1, sizeof(**entries));
	if (!*entries)
		return -hee_nomem;
	/* The lazy-binding header (PLT0), named ".plt" as Linux perf (6.3 and
	   later) names it; with .plt.sec (IBT), the whole .plt: its entries
	   are the lazy stubs that jump to PLT0. A .plt of exactly one entry
	   per relocation has no header (perf's rule too). */
	if (have_plt && (have_sec || n * 16 != plt.sh_size))
		(*entries)[(*count)++] = (struct hwt_elf_symbol){
			plt.sh_addr, have_sec ? plt.sh_size : header, ".plt",
			HWT_ELF_SYMBOL_GLOBAL | HWT_ELF_SYMBOL_PLT_HEADER
		};
	/* .plt.got (x86-64): the stubs of functions whose address is also
	   taken (__cxa_finalize in a PIE), named by the GOT slot they jump through. */
	for (size_t i = 0; i < ngot && rela_dyn; i++) {
		uint64_t at = plt_got.sh_addr + i * plt_got.sh_entsize;
		uint64_t slot = plt_got_slot(file, at);
		const char *name = slot ? slot_symbol(file, rela_dyn, &dynsh, slot) : NULL;

		if (name)
			(*entries)[(*count)++] = (struct hwt_elf_symbol){
				at, plt_got.sh_entsize, name, HWT_ELF_SYMBOL_GLOBAL
			};
	}
	if (!n || (!have_plt && !have_sec))
		return 0;
	dynsym = elf_getscn(file->elf, rsh.sh_link);
	if (!dynsym || !gelf_getshdr(dynsym, &dsh))
		return 0;
	rdata = elf_getdata(rela, NULL);
	sdata = elf_getdata(dynsym, NULL);
	if (!rdata || !sdata)
		return 0;
	for (size_t i = 0; i < n; i++) {
		GElf_Rela r;
		GElf_Sym sym;
		const char *name;

		if (!gelf_getrela(rdata, (int)i, &r) ||
		    !gelf_getsym(sdata, (int)GELF_R_SYM(r.r_info), &sym) ||
		    !(name = elf_strptr(file->elf, dsh.sh_link, sym.st_name)) || !*name)
			continue;
		(*entries)[(*count)++] = (struct hwt_elf_symbol){
			have_sec ? plt_sec.sh_addr + 16 * i : plt.sh_addr + header + 16 * i, 16, name,
			HWT_ELF_SYMBOL_GLOBAL
		};
	}
	return 0;
}
