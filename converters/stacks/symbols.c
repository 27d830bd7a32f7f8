/*
 * struct hwt_stacks_symbols: the functions of every image a decode saw,
 * read on first use and kept for the decode.
 *
 * Per image: the function symbols of its ELF file (.symtab, else .dynsym),
 * the PLT entries named after their relocations ("puts@plt", as objdump
 * names them), the ELF entry point, and with HWT_SYMBOLS_INLINE (or where
 * the ELF file has no symbols) the DWARF of the file: function names and
 * inline chains. Lookups take file offsets (the profile's keys): the
 * PT_LOAD program headers turn them into the virtual addresses symbols use.
 *
 * Names are as the files have them (mangled); the builder demangles them.
 */
#include <fcntl.h>
#include <gelf.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grow.h"
#include "hwt_afdo.h"
#include "stacks_int.h"

struct symbol {
	uint64_t vaddr, size;  /* size 0: up to the next symbol */
	char *name;            /* demangled, owned */
	int global;
};

struct load {
	uint64_t offset, filesz, vaddr;
};

struct image_symbols {
	int loaded;
	int failed;
	struct symbol *syms;   /* sorted by vaddr, one per address */
	size_t count;
	struct load loads[16];
	size_t nloads;
	uint64_t entry;        /* e_entry */
	int has_entry;
	struct hwt_afdo_debug *debug; /* NULL: no DWARF (or not read) */
	char *module;
};

struct hwt_stacks_symbols {
	const struct hwt_profile *profile;
	char *bundle_dir;
	uint32_t flags;
	pthread_mutex_t lock;
	struct image_symbols *images;
	size_t count;
	size_t failures;
};

struct hwt_stacks_symbols *hwt_stacks_symbols_alloc(const struct hwt_profile *profile,
						    const char *bundle_dir, uint32_t flags)
{
	struct hwt_stacks_symbols *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->profile = profile;
	s->flags = flags;
	s->bundle_dir = strdup(bundle_dir ? bundle_dir : ".");
	if (!s->bundle_dir) {
		free(s);
		return NULL;
	}
	pthread_mutex_init(&s->lock, NULL);
	return s;
}

void hwt_stacks_symbols_free(struct hwt_stacks_symbols *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->count; i++) {
		struct image_symbols *im = &s->images[i];

		for (size_t k = 0; k < im->count; k++)
			free(im->syms[k].name);
		free(im->syms);
		hwt_afdo_debug_free(im->debug);
		free(im->module);
	}
	free(s->images);
	free(s->bundle_dir);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

static int sym_cmp(const void *pa, const void *pb)
{
	const struct symbol *a = pa, *b = pb;

	if (a->vaddr != b->vaddr)
		return a->vaddr < b->vaddr ? -1 : 1;
	/* Aliases: a global name first, then the shorter, then by name. */
	if (a->global != b->global)
		return b->global - a->global;
	if (strlen(a->name) != strlen(b->name))
		return strlen(a->name) < strlen(b->name) ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int add_symbol(struct image_symbols *im, size_t *capacity, uint64_t vaddr, uint64_t size,
		      const char *name, int global)
{
	void *p = hwt_grow_array(im->syms, capacity, im->count + 1, sizeof(*im->syms));

	if (!p)
		return -1;
	im->syms = p;
	im->syms[im->count].name = strdup(name);
	if (!im->syms[im->count].name)
		return -1;
	im->syms[im->count].vaddr = vaddr;
	im->syms[im->count].size = size;
	im->syms[im->count].global = global;
	im->count++;
	return 0;
}

/* Function symbols of one symbol table section. */
static int read_symtab(Elf *elf, Elf_Scn *scn, GElf_Shdr *sh, struct image_symbols *im,
		       size_t *capacity)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	for (size_t i = 0; data && i < n; i++) {
		GElf_Sym sym;
		const char *name;
		int type;

		if (!gelf_getsym(data, (int)i, &sym))
			break;
		type = GELF_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF ||
		    !sym.st_value)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		if (add_symbol(im, capacity, sym.st_value, sym.st_size, name,
			       GELF_ST_BIND(sym.st_info) == STB_GLOBAL) < 0)
			return -1;
	}
	return 0;
}

/*
 * PLT entries, named "SYMBOL@plt" after the .rela.plt relocation each one
 * jumps through: 16-byte entries in .plt.sec when there is one (IBT), else
 * in .plt after its first (the resolver's) entry.
 */
static int read_plt(Elf *elf, size_t shstrndx, struct image_symbols *im, size_t *capacity)
{
	Elf_Scn *scn = NULL, *rela = NULL;
	GElf_Shdr plt = { 0 }, plt_sec = { 0 }, rsh = { 0 }, dynsym = { 0 };
	Elf_Data *rdata, *sdata;
	Elf_Scn *dynsym_scn = NULL;
	int have_plt = 0, have_sec = 0;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name)
			continue;
		if (!strcmp(name, ".plt")) {
			plt = sh;
			have_plt = 1;
		} else if (!strcmp(name, ".plt.sec")) {
			plt_sec = sh;
			have_sec = 1;
		} else if (!strcmp(name, ".rela.plt")) {
			rela = scn;
			rsh = sh;
		}
	}
	if (!rela || (!have_plt && !have_sec))
		return 0;
	dynsym_scn = elf_getscn(elf, rsh.sh_link);
	if (!dynsym_scn || !gelf_getshdr(dynsym_scn, &dynsym))
		return 0;
	rdata = elf_getdata(rela, NULL);
	sdata = elf_getdata(dynsym_scn, NULL);
	if (!rdata || !sdata || !rsh.sh_entsize)
		return 0;
	for (size_t i = 0; i < rsh.sh_size / rsh.sh_entsize; i++) {
		GElf_Rela r;
		GElf_Sym sym;
		const char *name;
		char *plt_name;
		uint64_t at;
		int status;

		if (!gelf_getrela(rdata, (int)i, &r) ||
		    !gelf_getsym(sdata, (int)GELF_R_SYM(r.r_info), &sym))
			continue;
		name = elf_strptr(elf, dynsym.sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		at = have_sec ? plt_sec.sh_addr + 16 * i : plt.sh_addr + 16 * (i + 1);
		plt_name = malloc(strlen(name) + 5);
		if (!plt_name)
			return -1;
		strcpy(plt_name, name);
		strcat(plt_name, "@plt");
		status = add_symbol(im, capacity, at, 16, plt_name, 1);
		free(plt_name);
		if (status < 0)
			return -1;
	}
	return 0;
}

static const char *image_path(struct hwt_stacks_symbols *s, int32_t image, char **owned)
{
	const struct hwt_profile_image *img = hwt_profile_image_at(s->profile, (size_t)image);

	*owned = NULL;
	if (!img || !img->path)
		return NULL;
	if (img->path[0] == '/')
		return img->path;
	*owned = malloc(strlen(s->bundle_dir) + strlen(img->path) + 2);
	if (!*owned)
		return NULL;
	strcpy(*owned, s->bundle_dir);
	strcat(*owned, "/");
	strcat(*owned, img->path);
	return *owned;
}

/* /usr/lib/debug/.build-id/xx/yyyy.debug of a build-id, when it exists; malloc'd. */
static char *debug_file(const struct hwt_profile_image *img)
{
	char path[128];
	size_t n;

	if (!img->build_id_size)
		return NULL;
	n = (size_t)snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%02x/", img->build_id[0]);
	for (uint32_t i = 1; i < img->build_id_size && n + 3 < sizeof(path); i++)
		n += (size_t)snprintf(path + n, sizeof(path) - n, "%02x", img->build_id[i]);
	if (n + 7 > sizeof(path))
		return NULL;
	strcat(path, ".debug");
	return access(path, R_OK) == 0 ? strdup(path) : NULL;
}

/*
 * The symbols of one ELF file: program headers and the entry point (main
 * only), function symbols (.symtab, else .dynsym), PLT names (main only).
 * *has_dwarf, *has_symtab: what the file holds. 0, or -1 when it cannot
 * be read as ELF (-2: out of memory).
 */
static int read_file(const char *path, int main, struct image_symbols *im, size_t *capacity,
		     int *has_dwarf, int *has_symtab)
{
	size_t shstrndx, phnum;
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL;
	GElf_Shdr symtab_sh, dynsym_sh;
	GElf_Ehdr eh;
	Elf *elf = NULL;
	int fd, status = -1;

	*has_dwarf = *has_symtab = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) ||
	    elf_getshdrstrndx(elf, &shstrndx) < 0 || elf_getphdrnum(elf, &phnum) < 0)
		goto out;
	if (main) {
		im->entry = eh.e_entry;
		im->has_entry = eh.e_type == ET_EXEC || eh.e_type == ET_DYN;
		for (size_t i = 0; i < phnum && im->nloads < 16; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
				im->loads[im->nloads++] =
					(struct load){ ph.p_offset, ph.p_filesz, ph.p_vaddr };
		}
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB) {
			symtab = scn;
			symtab_sh = sh;
		} else if (sh.sh_type == SHT_DYNSYM) {
			dynsym = scn;
			dynsym_sh = sh;
		}
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, ".debug_info") && sh.sh_type != SHT_NOBITS)
			*has_dwarf = 1;
	}
	*has_symtab = symtab != NULL;
	status = -2;
	if ((symtab && read_symtab(elf, symtab, &symtab_sh, im, capacity) < 0) ||
	    (!symtab && dynsym && read_symtab(elf, dynsym, &dynsym_sh, im, capacity) < 0) ||
	    (main && read_plt(elf, shstrndx, im, capacity) < 0))
		goto out;
	status = 0;
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return status;
}

static void load_image(struct hwt_stacks_symbols *s, int32_t image, struct image_symbols *im)
{
	const struct hwt_profile_image *img = hwt_profile_image_at(s->profile, (size_t)image);
	char *owned, *dbg = NULL;
	const char *path = image_path(s, image, &owned);
	const char *base, *dwarf_path;
	size_t capacity = 0, n = 0;
	int has_dwarf, has_symtab, dbg_dwarf = 0, dbg_symtab = 0;

	im->loaded = 1;
	base = img && img->path ? strrchr(img->path, '/') : NULL;
	im->module = strdup(base ? base + 1 : img && img->path ? img->path : "");
	if (!path || (img->flags & (HWT_PROFILE_IMAGE_MISSING | HWT_PROFILE_IMAGE_REPLACED)) ||
	    read_file(path, 1, im, &capacity, &has_dwarf, &has_symtab) < 0)
		goto fail;
	/* A detached debug file (Debian's -dbg packages) adds local symbols and DWARF. */
	dbg = debug_file(img);
	if (dbg && read_file(dbg, 0, im, &capacity, &dbg_dwarf, &dbg_symtab) < 0) {
		free(dbg);
		dbg = NULL;
	}
	qsort(im->syms, im->count, sizeof(*im->syms), sym_cmp);
	/* One symbol per address: the first after sorting (the preferred alias). */
	for (size_t i = 0; i < im->count; i++) {
		if (n && im->syms[n - 1].vaddr == im->syms[i].vaddr) {
			if (!im->syms[n - 1].size)
				im->syms[n - 1].size = im->syms[i].size;
			free(im->syms[i].name);
			continue;
		}
		im->syms[n++] = im->syms[i];
	}
	im->count = n;
	dwarf_path = has_dwarf ? path : dbg_dwarf ? dbg : NULL;
	if (dwarf_path && ((s->flags & HWT_SYMBOLS_INLINE) || (!has_symtab && !dbg_symtab))) {
		im->debug = hwt_afdo_debug_alloc();
		if (im->debug && hwt_afdo_debug_load(im->debug, dwarf_path) < 0) {
			hwt_afdo_debug_free(im->debug);
			im->debug = NULL;
		}
	}
	free(dbg);
	free(owned);
	return;
fail:
	im->failed = 1;
	s->failures++;
	free(owned);
}

/* The image's symbols, loaded on first use; call with the lock held. */
static struct image_symbols *image_of(struct hwt_stacks_symbols *s, int32_t image)
{
	if (image < 0 || (size_t)image >= hwt_profile_image_count(s->profile))
		return NULL;
	if ((size_t)image >= s->count) {
		size_t count = hwt_profile_image_count(s->profile);
		void *p = realloc(s->images, count * sizeof(*s->images));

		if (!p)
			return NULL;
		s->images = p;
		memset(&s->images[s->count], 0, (count - s->count) * sizeof(*s->images));
		s->count = count;
	}
	if (!s->images[image].loaded)
		load_image(s, image, &s->images[image]);
	return &s->images[image];
}

static int to_vaddr(const struct image_symbols *im, uint64_t offset, uint64_t *vaddr)
{
	for (size_t i = 0; i < im->nloads; i++) {
		const struct load *l = &im->loads[i];

		if (offset >= l->offset && offset < l->offset + l->filesz) {
			*vaddr = offset - l->offset + l->vaddr;
			return 1;
		}
	}
	return 0;
}

static uint64_t to_offset(const struct image_symbols *im, uint64_t vaddr)
{
	for (size_t i = 0; i < im->nloads; i++) {
		const struct load *l = &im->loads[i];

		if (vaddr >= l->vaddr && vaddr < l->vaddr + l->filesz)
			return vaddr - l->vaddr + l->offset;
	}
	return vaddr;
}

/* The symbol covering vaddr, or NULL. */
static const struct symbol *find_symbol(const struct image_symbols *im, uint64_t vaddr)
{
	size_t lo = 0, hi = im->count;
	const struct symbol *sym;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (im->syms[mid].vaddr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	sym = &im->syms[lo - 1];
	if (sym->size && vaddr >= sym->vaddr + sym->size)
		return NULL;
	if (!sym->size && lo < im->count && vaddr >= im->syms[lo].vaddr)
		return NULL;
	return sym;
}

int hwt_stacks_symbols_function(struct hwt_stacks_symbols *s, int32_t image, uint64_t offset,
				struct hwt_function_info *fn)
{
	struct image_symbols *im;
	const struct symbol *sym;
	uint64_t vaddr;
	int found = 0;

	memset(fn, 0, sizeof(*fn));
	pthread_mutex_lock(&s->lock);
	im = image_of(s, image);
	if (!im || im->failed || !to_vaddr(im, offset, &vaddr))
		goto out;
	fn->program_entry = im->has_entry && vaddr == im->entry;
	sym = find_symbol(im, vaddr);
	if (sym) {
		fn->entry = to_offset(im, sym->vaddr);
		fn->end = sym->size ? to_offset(im, sym->vaddr + sym->size - 1) + 1 : fn->entry + 1;
		fn->name = sym->name;
		fn->sized = sym->size != 0;
		found = 1;
	} else if (im->debug) {
		struct hwt_afdo_location loc;

		if (hwt_afdo_debug_lookup(im->debug, vaddr, &loc) && loc.frames[0].function) {
			fn->entry = to_offset(im, loc.entry);
			fn->end = fn->entry + 1;
			fn->name = loc.frames[0].function;
			fn->sized = 1;
			found = 1;
		}
	}
out:
	pthread_mutex_unlock(&s->lock);
	return found;
}

size_t hwt_stacks_symbols_inline(struct hwt_stacks_symbols *s, int32_t image, uint64_t offset,
				 const char **names, size_t max)
{
	struct image_symbols *im;
	struct hwt_afdo_location loc;
	uint64_t vaddr;
	size_t n = 0;

	pthread_mutex_lock(&s->lock);
	im = image_of(s, image);
	if (im && im->debug && to_vaddr(im, offset, &vaddr) &&
	    hwt_afdo_debug_lookup(im->debug, vaddr, &loc)) {
		for (uint32_t k = 1; k < loc.nframes && n < max; k++)
			if (loc.frames[k].function)
				names[n++] = loc.frames[k].function;
	}
	pthread_mutex_unlock(&s->lock);
	return n;
}

const char *hwt_stacks_symbols_module(const struct hwt_stacks_symbols *s, int32_t image)
{
	if (image < 0 || (size_t)image >= s->count || !s->images[image].module)
		return "";
	return s->images[image].module;
}

size_t hwt_stacks_symbols_failures(const struct hwt_stacks_symbols *s)
{
	return s->failures;
}

const struct hwt_profile *hwt_stacks_symbols_profile(const struct hwt_stacks_symbols *s)
{
	return s->profile;
}
