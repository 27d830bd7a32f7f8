/*
 * struct hwt_debuginfo: what one ELF file says about its code, read with
 * the converters' ELF reader (segments, build-id, code bytes, symbols) and
 * DWARF reader (line tables and functions).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libdwarf/dwarf.h>

#include "debug_file.h"
#include "elf_file.h"
#include "grow.h"
#include "hwt_dwarf.h"
#include "lines.h"
#include "ranges.h"
#include "hwt_lcov.h"
#include "lcov_int.h"

/* One address range of a function's code: [begin, end), and the function
   it belongs to (by its entry address, unique once duplicates are gone). */
struct fn_range {
	uint64_t begin, end, entry;
};

struct hwt_debuginfo {
	struct hwt_elf_file elf;
	int loaded;                /* elf is open */
	char *debug_file;
	char *crc_mismatch;        /* a debug file passed over: its CRC is not the link's */

	struct hwt_line_span *spans;
	size_t nspans, spans_cap;
	char **files;
	size_t nfiles, files_cap;
	struct hwt_function *funcs;
	size_t nfuncs, funcs_cap;
	struct fn_range *ranges;   /* every function's ranges */
	size_t nranges, ranges_cap;
};

struct hwt_debuginfo *hwt_debuginfo_alloc(void)
{
	return calloc(1, sizeof(struct hwt_debuginfo));
}

void hwt_debuginfo_free(struct hwt_debuginfo *info)
{
	size_t i;

	if (!info)
		return;
	hwt_elf_file_close(&info->elf);
	for (i = 0; i < info->nfiles; i++)
		free(info->files[i]);
	for (i = 0; i < info->nfuncs; i++)
		free((char *)info->funcs[i].name);
	free(info->files);
	free(info->funcs);
	free(info->ranges);
	free(info->spans);
	free(info->debug_file);
	free(info->crc_mismatch);
	free(info);
}

const uint8_t *hwt_debuginfo_build_id(const struct hwt_debuginfo *info, size_t *size)
{
	*size = info->elf.build_id_size;
	return info->elf.build_id;
}

int hwt_debuginfo_has_symtab(const struct hwt_debuginfo *info)
{
	return info->elf.has_symtab;
}

const char *hwt_debuginfo_crc_mismatch(const struct hwt_debuginfo *info)
{
	return info->crc_mismatch;
}

const struct hwt_line_span *hwt_debuginfo_spans(const struct hwt_debuginfo *info, size_t *count)
{
	*count = info->nspans;
	return info->spans;
}

size_t hwt_debuginfo_file_count(const struct hwt_debuginfo *info)
{
	return info->nfiles;
}

const char *hwt_debuginfo_file(const struct hwt_debuginfo *info, size_t i)
{
	return i < info->nfiles ? info->files[i] : NULL;
}

const struct hwt_function *hwt_debuginfo_functions(const struct hwt_debuginfo *info,
						   size_t *count)
{
	*count = info->nfuncs;
	return info->funcs;
}

unsigned hwt_debuginfo_machine(const struct hwt_debuginfo *info)
{
	return info->elf.machine;
}

const uint8_t *hwt_debuginfo_code(const struct hwt_debuginfo *info, uint64_t vaddr,
				  size_t *avail)
{
	return hwt_elf_file_code(&info->elf, vaddr, avail);
}

/* ----- DWARF ------------------------------------------------------------- */

/* Index of a file name (normalised), adding it when new; -1 on ENOMEM. */
static long file_index(struct hwt_debuginfo *info, const char *name)
{
	char *norm = hwt_lcov_normalize_path(name);
	char **files;
	size_t i;

	if (!norm)
		return -1;
	/* Few files per image: a linear search per new (CU, file) pair. */
	for (i = 0; i < info->nfiles; i++) {
		if (!strcmp(info->files[i], norm)) {
			free(norm);
			return (long)i;
		}
	}
	files = hwt_grow_array(info->files, &info->files_cap, info->nfiles + 1, sizeof(*files));
	if (!files) {
		free(norm);
		return -1;
	}
	info->files = files;
	files[info->nfiles] = norm;
	return (long)info->nfiles++;
}

struct row {
	uint64_t addr, line;
	long file;
	int is_stmt, end;
};

/* Reads the line table of one CU into spans. */
static int read_cu_lines(struct hwt_debuginfo *info, struct hwt_dwarf *dw, Dwarf_Die cu)
{
	int have_prev = 0, rc = 0;
	struct hwt_dwarf_lines *table;
	long *fmap = NULL;
	size_t fmap_size = 0, i, nlines;
	struct row prev = { 0 };

	if (hwt_dwarf_lines_open_in(dw, cu, &table) < 0)
		return -hle_nomem;
	if (!table)
		return 0; /* a CU without a readable table: skipped */
	nlines = hwt_dwarf_lines_count(table);
	for (i = 0; i < nlines; i++) {
		struct hwt_dwarf_row dr;
		struct row r = { 0 };

		if (hwt_dwarf_lines_row(table, i, &dr) < 0) {
			have_prev = 0;
			continue;
		}
		r.addr = dr.addr;
		r.line = dr.line;
		r.is_stmt = dr.is_stmt;
		r.end = dr.end;
		/* File names: looked up once per file number of this CU. */
		if (dr.file >= fmap_size) {
			size_t n = dr.file + 16, k;
			long *m = realloc(fmap, n * sizeof(*m));

			if (!m) {
				rc = -hle_nomem;
				break;
			}
			for (k = fmap_size; k < n; k++)
				m[k] = -2;
			fmap = m;
			fmap_size = n;
		}
		if (fmap[dr.file] == -2) {
			const char *src = hwt_dwarf_lines_file(table, i);

			fmap[dr.file] = src ? file_index(info, src) : -1;
			if (src && fmap[dr.file] < 0) {
				rc = -hle_nomem;
				break;
			}
		}
		r.file = fmap[dr.file];
		if (have_prev && r.addr >= prev.addr && prev.line > 0 && prev.file >= 0 &&
		    prev.line <= UINT32_MAX && (r.addr > prev.addr || prev.is_stmt)) {
			/* Rows at one address (gcc's views at -O2): each
			   statement row gives an empty span at that address, so
			   that its line exists where a debugger would stop. */
			struct hwt_line_span *sp;
			struct hwt_line_span *spans = hwt_grow_array(info->spans, &info->spans_cap,
							   info->nspans + 1, sizeof(*spans));

			if (!spans) {
				rc = -hle_nomem;
				break;
			}
			info->spans = spans;
			sp = &spans[info->nspans];
			sp->begin = prev.addr;
			sp->end = r.addr;
			sp->file = (uint32_t)prev.file;
			sp->line = (uint32_t)prev.line;
			sp->is_stmt = (uint32_t)prev.is_stmt;
			sp->function = -1;
			sp->seq = (uint32_t)info->nspans;
			info->nspans++;
		}
		prev = r;
		have_prev = !r.end;
	}
	free(fmap);
	hwt_dwarf_lines_close(table);
	return rc;
}

/*
 * The name gcov gives a C++ function whose DWARF does not carry its
 * linkage name (gcc writes none for lambdas, instances of function
 * templates and functions of internal linkage): the mangled ELF symbol at
 * its entry, without a clone's suffix (".isra.0", ".constprop.0",
 * ".part.0": gcov counts a clone as the function it was made from). Of
 * aliases (C1 and C2 constructors, D1 and D2 destructors) the greatest
 * name, the C2 or D2 that gcov names. A malloc'd copy, or NULL: no
 * mangled symbol there (C, or a stripped file).
 */
static char *mangled_name_at(struct hwt_debuginfo *info, uint64_t entry)
{
	const struct hwt_elf_symbol *syms;
	const char *best = NULL;
	size_t n, lo = 0, hi, len;
	char *copy;

	if (hwt_elf_file_symbols(&info->elf, &syms, &n) < 0)
		return NULL;
	hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (syms[mid].addr < entry)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && syms[lo].addr == entry; lo++)
		if (!strncmp(syms[lo].name, "_Z", 2) && (!best || strcmp(syms[lo].name, best) > 0))
			best = syms[lo].name;
	if (!best)
		return NULL;
	len = strcspn(best, ".");
	copy = malloc(len + 1);
	if (copy) {
		memcpy(copy, best, len);
		copy[len] = 0;
	}
	return copy;
}

/* The function is an operator() (its DW_AT_name, maybe on its declaration). */
static int is_call_operator(Dwarf_Debug dbg, Dwarf_Die die)
{
	Dwarf_Die decl = hwt_dwarf_attr_die(dbg, die, DW_AT_specification);
	char *name = hwt_dwarf_attr_strdup(dbg, die, DW_AT_name);
	int yes;

	if (!name && decl)
		name = hwt_dwarf_attr_strdup(dbg, decl, DW_AT_name);
	if (decl)
		dwarf_dealloc_die(decl);
	yes = name && !strcmp(name, "operator()");
	free(name);
	return yes;
}

struct walk {
	struct hwt_debuginfo *info;
	Dwarf_Debug dbg;
	Dwarf_Addr cu_base;
	int clang;          /* the CU's DW_AT_producer is clang */
	char **srcfiles;    /* the CU's file names (dwarf_srcfiles), for DW_AT_decl_file */
	Dwarf_Signed nsrcfiles;
	int first_file;     /* the file number of srcfiles[0]: 1 before DWARF 5 */
};

/* The file index (hwt_debuginfo_file) of the function's DW_AT_decl_file
   in the walk's unit; -1 when unknown, -2 when out of memory. */
static long decl_file_index(struct walk *w, const struct hwt_dwarf_function *fn)
{
	long k = (long)fn->decl_file - w->first_file;

	if (!fn->has_decl_file || k < 0 || k >= (long)w->nsrcfiles || !w->srcfiles[k])
		return -1;
	k = file_index(w->info, w->srcfiles[k]);
	return k < 0 ? -2 : k;
}

/*
 * A DW_TAG_subprogram with code: DW_AT_low_pc/DW_AT_high_pc, or DW_AT_ranges
 * (a function in several parts: gcc's hot/cold splitting, clang's basic
 * block sections). Its entry is DW_AT_entry_pc when present; else low_pc;
 * else, for ranges, the address of the ELF function symbol of its own name
 * inside one of the ranges (clang lists the entry's range last); else the
 * beginning of the first range listed (gcc lists the entry's range first).
 * Subprograms without either (declarations, abstract instances of inline
 * functions that have no out-of-line copy) have no code: no FN, as gcov.
 */
static int add_function(struct walk *w, Dwarf_Die die, int leave_out_artificial)
{
	Dwarf_Addr entry = 0, lowest;
	struct hwt_function *f, *funcs;
	struct fn_range *fr;
	struct hwt_addr_ranges list = { 0 };
	struct hwt_addr_range *r;
	struct hwt_dwarf_function fn = { 0 };
	struct hwt_debuginfo *info = w->info;
	Dwarf_Debug dbg = w->dbg;
	Dwarf_Addr cu_base = w->cu_base;
	size_t nr, i;
	char *name = NULL;
	long decl_file;
	int rc = 0, from_low_pc;

	if (hwt_dwarf_die_ranges(dbg, die, cu_base, &list, &from_low_pc) < 0) {
		rc = -hle_nomem;
		goto out;
	}
	r = list.r;
	nr = list.n;
	if (nr == 0)
		goto out; /* no code of its own (or discarded by the linker): no FN */
	hwt_dwarf_function_read(dbg, die, &fn);
	name = fn.name;
	if (!name)
		goto out;
	/* The entry address. */
	lowest = r[0].begin;
	for (i = 1; i < nr; i++)
		if (r[i].begin < lowest)
			lowest = r[i].begin;
	if (!hwt_dwarf_entry_pc(dbg, die, lowest, &entry)) {
		entry = from_low_pc ? r[0].begin : 0;
		for (i = 0; i < nr && !entry; i++)
			entry = hwt_elf_file_function_in(&info->elf, name, r[i].begin, r[i].end);
		if (!entry)
			entry = r[0].begin;
	}
	for (i = 0; i < nr; i++)
		if (entry >= r[i].begin && entry < r[i].end)
			break;
	if (i == nr)
		i = 0; /* DW_AT_entry_pc outside the function's code: ignored */
	if (entry < r[i].begin || entry >= r[i].end)
		entry = r[i].begin;
	decl_file = decl_file_index(w, &fn);
	if (decl_file == -2) {
		rc = -hle_nomem;
		goto out;
	}
	if (strncmp(name, "_Z", 2)) {
		char *mangled = mangled_name_at(info, entry);

		if (mangled) {
			free(name);
			name = mangled;
		}
	}
	funcs = hwt_grow_array(info->funcs, &info->funcs_cap, info->nfuncs + 1, sizeof(*funcs));
	fr = hwt_grow_array(info->ranges, &info->ranges_cap, info->nranges + nr, sizeof(*fr));
	if (funcs)
		info->funcs = funcs;
	if (fr)
		info->ranges = fr;
	if (!funcs || !fr) {
		rc = -hle_nomem;
		goto out;
	}
	f = &funcs[info->nfuncs++];
	f->name = name;
	name = NULL;
	f->entry = entry;
	f->end = r[i].end;
	f->decl_line = fn.decl_line;
	f->decl_file = (int32_t)decl_file;
	f->returns_value = fn.has_type;
	/* gcc marks a lambda's operator() artificial too, but gcov counts it
	   (a compiler defines no operator() of its own). */
	f->artificial = fn.artificial && leave_out_artificial && !is_call_operator(dbg, die);
	for (i = 0; i < nr; i++) {
		fr[info->nranges].begin = r[i].begin;
		fr[info->nranges].end = r[i].end;
		fr[info->nranges].entry = entry;
		info->nranges++;
	}
out:
	free(name);
	free(list.r);
	return rc;
}

/*
 * Subprograms with code are functions. Inlined copies
 * (DW_TAG_inlined_subroutine) are not functions of their own; nested
 * subprograms (C++ lambdas, local classes) are: every DIE is walked.
 *
 * gcc's gcov leaves out the functions gcc wrote itself (implicit
 * constructors and destructors, static initialisers), clang's gcov counts
 * every function clang instrumented, artificial or not (add_function).
 */
static int visit_die(void *arg, Dwarf_Die die, Dwarf_Half tag, int level)
{
	struct walk *w = arg;
	int rc;

	(void)level;
	if (tag == DW_TAG_subprogram) {
		rc = add_function(w, die, !w->clang);
		if (rc < 0)
			return rc;
	}
	return 1;
}

static int cmp_span(const void *a, const void *b)
{
	const struct hwt_line_span *x = a, *y = b;

	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_func(const void *a, const void *b)
{
	const struct hwt_function *x = a, *y = b;

	if (x->entry != y->entry)
		return x->entry < y->entry ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int cmp_range(const void *a, const void *b)
{
	const struct fn_range *x = a, *y = b;

	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1; /* the longer one first */
	return x->entry < y->entry ? -1 : x->entry > y->entry;
}

/* The index of the function whose entry is entry (funcs sorted), or -1. */
static int32_t function_at(const struct hwt_debuginfo *info, uint64_t entry)
{
	size_t lo = 0, hi = info->nfuncs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (info->funcs[mid].entry < entry)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < info->nfuncs && info->funcs[lo].entry == entry ? (int32_t)lo : -1;
}

/* Sorts, drops overlaps and duplicate functions, links spans to functions. */
static void finish(struct hwt_debuginfo *info)
{
	size_t i, j, k;

	if (info->nspans)
		qsort(info->spans, info->nspans, sizeof(*info->spans), cmp_span);
	for (i = 0, j = 0; i < info->nspans; i++) {
		if (j > 0 && info->spans[i].begin < info->spans[j - 1].end) {
			/* Overlapping rows (folded identical code, or a CU
			   described twice): the first one wins. */
			if (info->spans[i].end <= info->spans[j - 1].end)
				continue;
			info->spans[i].begin = info->spans[j - 1].end;
		}
		info->spans[j++] = info->spans[i];
	}
	info->nspans = j;
	if (info->nfuncs)
		qsort(info->funcs, info->nfuncs, sizeof(*info->funcs), cmp_func);
	for (i = 0, j = 0; i < info->nfuncs; i++) {
		if (j > 0 && info->funcs[i].entry == info->funcs[j - 1].entry) {
			free((char *)info->funcs[i].name);
			continue;
		}
		info->funcs[j++] = info->funcs[i];
	}
	info->nfuncs = j;
	/* Ranges sorted by address; where they overlap the first one wins. */
	if (info->nranges)
		qsort(info->ranges, info->nranges, sizeof(*info->ranges), cmp_range);
	for (i = 0, j = 0; i < info->nranges; i++) {
		if (j > 0 && info->ranges[i].begin < info->ranges[j - 1].end) {
			if (info->ranges[i].end <= info->ranges[j - 1].end)
				continue;
			info->ranges[i].begin = info->ranges[j - 1].end;
		}
		info->ranges[j++] = info->ranges[i];
	}
	info->nranges = j;
	/* Spans and ranges are both sorted: one pass. A span in any range of
	   a function (the cold part too) belongs to it. */
	for (i = 0, k = 0; i < info->nspans; i++) {
		struct hwt_line_span *s = &info->spans[i];

		while (k < info->nranges && info->ranges[k].end <= s->begin)
			k++;
		if (k < info->nranges && info->ranges[k].begin <= s->begin)
			s->function = function_at(info, info->ranges[k].entry);
	}
}

static int read_dwarf(struct hwt_debuginfo *info, const char *path)
{
	struct hwt_dwarf *dw;
	struct hwt_dwarf_cu cu;
	struct walk w = { info, NULL, 0, 0, NULL, 0, 0 };
	int res, rc = hwt_dwarf_open(path, &dw);

	if (rc < 0)
		return hwt_dwarf_error_as(rc, hle_no_debug, hle_dwarf);
	w.dbg = hwt_dwarf_debug(dw);
	while ((res = hwt_dwarf_next_cu(dw, &cu)) > 0) {
		rc = read_cu_lines(info, dw, cu.die);
		if (rc == 0) {
			/* cu.base is 0 when the CU has DW_AT_ranges of its
			   own, as gcc and clang write it then. */
			char *producer = hwt_dwarf_attr_strdup(w.dbg, cu.die, DW_AT_producer);
			Dwarf_Half version = 0, offset_size = 0;
			Dwarf_Error err = NULL;
			Dwarf_Signed k;

			w.cu_base = cu.base;
			w.clang = producer && strstr(producer, "clang");
			free(producer);
			/* DWARF 5 numbers the files from 0, earlier versions from 1. */
			if (dwarf_get_version_of_die(cu.die, &version, &offset_size) != DW_DLV_OK)
				version = 4;
			w.first_file = version >= 5 ? 0 : 1;
			if (dwarf_srcfiles(cu.die, &w.srcfiles, &w.nsrcfiles, &err) != DW_DLV_OK) {
				if (err)
					dwarf_dealloc(w.dbg, err, DW_DLA_ERROR);
				w.srcfiles = NULL;
				w.nsrcfiles = 0;
			}
			rc = hwt_dwarf_walk(w.dbg, cu.die, 64, visit_die, &w);
			for (k = 0; k < w.nsrcfiles; k++)
				dwarf_dealloc(w.dbg, w.srcfiles[k], DW_DLA_STRING);
			if (w.srcfiles)
				dwarf_dealloc(w.dbg, w.srcfiles, DW_DLA_LIST);
			w.srcfiles = NULL;
			w.nsrcfiles = 0;
		}
		if (rc < 0)
			break;
	}
	hwt_dwarf_close(dw);
	if (res < 0)
		rc = hwt_dwarf_error_as(res, hle_no_debug, hle_dwarf);
	if (rc == 0 && info->nspans == 0)
		return -hle_no_debug;
	if (rc == 0)
		finish(info);
	return rc;
}

int hwt_debuginfo_load_dirs(struct hwt_debuginfo *info, const char *path,
			    const char *const *debug_dirs)
{
	struct hwt_debug_file found;
	int rc;

	if (!info || !path || info->loaded)
		return -hle_invalid;
	rc = hwt_elf_file_open(&info->elf, path);
	if (rc < 0)
		return hwt_elf_error_as(rc, hle_io);
	info->loaded = 1;
	if (!info->elf.is_elf)
		return -hle_not_elf;
	if (info->elf.has_debug_info)
		return read_dwarf(info, path);
	/* Stripped of its DWARF: a separate debug file, where gdb finds it. */
	rc = hwt_debug_file_find(&info->elf, path, debug_dirs, &found);
	info->crc_mismatch = found.crc_mismatch;
	found.crc_mismatch = NULL;
	if (rc < 0) {
		hwt_debug_file_fini(&found);
		return hwt_elf_error_as(rc, hle_invalid);
	}
	if (rc == 0)
		return -hle_no_debug;
	rc = read_dwarf(info, found.path);
	if (rc == -hle_io) {
		hwt_debug_file_fini(&found);
		return -hle_no_debug;
	}
	info->debug_file = found.path;
	found.path = NULL;
	hwt_debug_file_fini(&found);
	return rc;
}

int hwt_debuginfo_load(struct hwt_debuginfo *info, const char *path)
{
	return hwt_debuginfo_load_dirs(info, path, NULL);
}
