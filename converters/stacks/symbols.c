/*
 * struct hwt_stacks_symbols: the functions of every image a decode saw,
 * read on first use and kept for the decode.
 *
 * Per image, through the converters' ELF reader (converters/elf): the
 * function symbols of its ELF file (.symtab, else .dynsym), the PLT entries
 * named after their relocations ("puts@plt") and the lazy-binding header
 * (".plt"), as Linux perf names them, the
 * ELF entry point, the symbols of its separate debug file (found as gdb
 * finds it: converters/elf/debug_file.h), and with HWT_SYMBOLS_INLINE (or where
 * the ELF file has no symbols) the DWARF of the file: function names and
 * inline chains. Lookups take file offsets (the profile's keys): the
 * PT_LOAD program headers turn them into the virtual addresses symbols use.
 *
 * Names are as the files have them (mangled); the builder demangles them.
 */
#include <elf.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "debug_file.h"
#include "elf_file.h"
#include "grow.h"
#include "hwt_afdo.h"
#include "stacks_int.h"

struct symbol {
	uint64_t vaddr, size;  /* size 0: up to the next symbol */
	char *name;            /* demangled, owned */
	int global;
};

struct image_symbols {
	int loaded;
	int failed;
	struct symbol *syms;   /* sorted by vaddr, one per address */
	size_t count;
	struct hwt_elf_file elf; /* the image's file (its segments), open for the decode */
	int has_entry;           /* an executable or shared object: elf.entry is its entry */
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
	const char *const *debug_dirs; /* the caller's; NULL: /usr/lib/debug */
	size_t crc_mismatches;  /* debug files passed over: CRC not the link's */
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
		hwt_elf_file_close(&im->elf);
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

/*
 * The symbols of one ELF file: function symbols (.symtab, else .dynsym), and
 * for the image's own file (main: kept open in im->elf) its entry point and
 * PLT names. *has_dwarf, *has_symtab: what the file holds. 0, or -1 when it
 * cannot be read as ELF (-2: out of memory).
 */
static int read_file(const char *path, int main, struct image_symbols *im, size_t *capacity,
		     int *has_dwarf, int *has_symtab)
{
	struct hwt_elf_file own, *f = main ? &im->elf : &own;
	const struct hwt_elf_symbol *syms;
	struct hwt_elf_symbol *plt = NULL;
	size_t n, nplt = 0;
	int status = hwt_elf_file_open(f, path);

	*has_dwarf = *has_symtab = 0;
	if (status < 0)
		return status == -hee_nomem ? -2 : -1;
	status = -1;
	if (!f->is_elf)
		goto out;
	*has_dwarf = f->has_debug_info;
	*has_symtab = f->has_symtab;
	if (main)
		im->has_entry = f->type == ET_EXEC || f->type == ET_DYN;
	status = -2;
	if (hwt_elf_file_symbols(f, &syms, &n) < 0 || (main && hwt_elf_file_plt(f, &plt, &nplt) < 0))
		goto out;
	for (size_t i = 0; i < n; i++)
		if (add_symbol(im, capacity, syms[i].addr, syms[i].size, syms[i].name,
			       !!(syms[i].flags & HWT_ELF_SYMBOL_GLOBAL)) < 0)
			goto out;
	/* PLT entries named "SYMBOL@plt", PLT0 ".plt", as perf names them. */
	for (size_t i = 0; i < nplt; i++) {
		int header = !!(plt[i].flags & HWT_ELF_SYMBOL_PLT_HEADER);
		char *name = malloc(strlen(plt[i].name) + 5);
		int added;

		if (!name)
			goto out;
		strcpy(name, plt[i].name);
		if (!header)
			strcat(name, "@plt");
		added = add_symbol(im, capacity, plt[i].addr, plt[i].size, name, 1);
		free(name);
		if (added < 0)
			goto out;
	}
	status = 0;
out:
	free(plt);
	if (!main || status == -1)
		hwt_elf_file_close(f);
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
	/* A separate debug file (Debian's -dbgsym packages, objcopy
	   --only-keep-debug) adds local symbols and DWARF, where gdb finds it. */
	if (!has_dwarf) {
		struct hwt_debug_file found;

		if (hwt_debug_file_find(&im->elf, path, s->debug_dirs, &found) == 1) {
			dbg = found.path;
			found.path = NULL;
		}
		if (found.crc_mismatch)
			s->crc_mismatches++;
		hwt_debug_file_fini(&found);
	}
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

/* The virtual address of a file offset; 0 when no segment maps it. */
static int to_vaddr(const struct image_symbols *im, uint64_t offset, uint64_t *vaddr)
{
	for (size_t i = 0; i < im->elf.load_count; i++) {
		const struct hwt_elf_load *l = &im->elf.loads[i];

		if (offset >= l->offset && offset - l->offset < l->filesz) {
			*vaddr = l->vaddr + (offset - l->offset);
			return 1;
		}
	}
	return 0;
}

static uint64_t to_offset(const struct image_symbols *im, uint64_t vaddr)
{
	return hwt_elf_file_offset(&im->elf, vaddr);
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
	fn->program_entry = im->has_entry && vaddr == im->elf.entry;
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

void hwt_stacks_symbols_set_debug_dirs(struct hwt_stacks_symbols *s, const char *const *dirs)
{
	s->debug_dirs = dirs;
}

size_t hwt_stacks_symbols_crc_mismatches(const struct hwt_stacks_symbols *s)
{
	return s->crc_mismatches;
}

const struct hwt_profile *hwt_stacks_symbols_profile(const struct hwt_stacks_symbols *s)
{
	return s->profile;
}
