/*
 * Address-range filtering (--hwt-filter=IMAGE[:FUNCTION]), as Intel PT's
 * IP filters do it: only blocks inside a range produce packets. A branch
 * into a range enables packet generation (TIP.PGE at the first block
 * inside), a branch out of it disables it (TIP.PGD with the branch target,
 * thread.c). Callees outside the range run untraced.
 *
 * IMAGE is a glob (Valgrind's '*' and '?') matched against the path of a
 * mapped file and against its base name. A FUNCTION is found in the
 * image's ELF symbol table (.symtab, else .dynsym) when the image is mapped.
 *
 * --hwt-select-filter=yes (hwt-cov's and hwt-pgo's default) traces the
 * images the selection selects instead, judged as each is mapped by the
 * rule the preloaded library applies to libraries (docs/select.md), from
 * the HWT_SELECT_* environment it passed: --no-trace, --trace, system
 * directory, then the project test's verdict kept by build-id in the
 * bundle (select/<build-id>). The tool reads no DWARF: an image with no
 * verdict kept (the preloaded library never judged it, or it has no
 * build-id) is traced, which can only trace too much.
 */
#include "tool.h"
#include "elf64.h"
#include "hwt_select_rule.h"
#include "select.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_seqmatch.h"
#include "pub_tool_vki.h"

#define MAX_RANGES 64

struct hwt_vg_range hwt_vg_filter_ranges[MAX_RANGES];
UInt hwt_vg_filter_nranges;
Bool hwt_vg_filter_active;

/* Looks name up in the symbol table of type symtab_type; *off gets its file offset. */
static Bool find_in_symtab(Int fd, const struct elf64_ehdr *eh, UInt symtab_type,
			   const HChar *name, ULong *off, ULong *size)
{
	SizeT name_len = VG_(strlen)(name);
	Bool found = False;
	UInt i;

	for (i = 0; i < eh->shnum && !found; i++) {
		struct elf64_shdr sh, strsh;
		struct elf64_sym *syms;
		HChar *strs;
		ULong k, n;

		if (!hwt_vg_elf_read_at(fd, eh->shoff + i * sizeof(sh), &sh, sizeof(sh)) ||
		    sh.type != symtab_type || sh.entsize != sizeof(struct elf64_sym) ||
		    sh.link >= eh->shnum || sh.size > (64u << 20))
			continue;
		if (!hwt_vg_elf_read_at(fd, eh->shoff + sh.link * sizeof(strsh), &strsh,
					sizeof(strsh)) ||
		    strsh.size > (64u << 20))
			continue;
		syms = VG_(malloc)("hwt.filter.syms", sh.size + 1);
		strs = VG_(malloc)("hwt.filter.strs", strsh.size + 1);
		if (hwt_vg_elf_read_at(fd, sh.offset, syms, sh.size) &&
		    hwt_vg_elf_read_at(fd, strsh.offset, strs, strsh.size)) {
			strs[strsh.size] = '\0';
			n = sh.size / sizeof(*syms);
			for (k = 0; k < n; k++) {
				struct elf64_sym *s = &syms[k];

				if ((s->info & 0xf) != STT_FUNC || s->shndx == 0 || s->value == 0 ||
				    s->name + name_len >= strsh.size ||
				    VG_(strcmp)(strs + s->name, name) != 0)
					continue;
				*off = s->value; /* a virtual address until converted below */
				*size = s->size ? s->size : 1;
				found = True;
				break;
			}
		}
		VG_(free)(syms);
		VG_(free)(strs);
	}
	if (!found)
		return False;
	/* Virtual address -> file offset through the PT_LOAD that holds it. */
	for (i = 0; i < eh->phnum; i++) {
		struct elf64_phdr ph;

		if (!hwt_vg_elf_read_at(fd, eh->phoff + i * sizeof(ph), &ph, sizeof(ph)) ||
		    ph.type != PT_LOAD)
			continue;
		if (*off >= ph.vaddr && *off < ph.vaddr + ph.filesz) {
			*off = *off - ph.vaddr + ph.offset;
			return True;
		}
	}
	return False;
}

static Bool resolve_function(const HChar *path, const HChar *name, ULong *off, ULong *size)
{
	struct elf64_ehdr eh;
	SysRes res = VG_(open)(path, VKI_O_RDONLY, 0);
	Bool ok = False;
	Int fd;

	if (sr_isError(res))
		return False;
	fd = (Int)sr_Res(res);
	if (hwt_vg_elf_read_at(fd, 0, &eh, sizeof(eh)) &&
	    VG_(memcmp)(eh.ident, "\177ELF\2\1", 6) == 0 &&
	    eh.shentsize == sizeof(struct elf64_shdr) && eh.phentsize == sizeof(struct elf64_phdr))
		ok = find_in_symtab(fd, &eh, SHT_SYMTAB, name, off, size) ||
		     find_in_symtab(fd, &eh, SHT_DYNSYM, name, off, size);
	VG_(close)(fd);
	return ok;
}

static void add_range(Addr start, Addr end)
{
	if (hwt_vg_filter_nranges == MAX_RANGES) {
		VG_(umsg)("hwt: more than %d filter ranges: the rest is not traced\n", MAX_RANGES);
		return;
	}
	hwt_vg_filter_ranges[hwt_vg_filter_nranges].start = start;
	hwt_vg_filter_ranges[hwt_vg_filter_nranges].end = end;
	hwt_vg_filter_nranges++;
}

static Bool image_matches(const HChar *glob, SizeT glob_len, const HChar *path)
{
	HChar pat[VKI_PATH_MAX];
	const HChar *base = VG_(strrchr)(path, '/');

	if (glob_len >= sizeof(pat))
		return False;
	VG_(memcpy)(pat, glob, glob_len);
	pat[glob_len] = '\0';
	return VG_(string_match)(pat, path) || (base && VG_(string_match)(pat, base + 1));
}

/* --hwt-select-filter: the selection's configuration, copied at start (the
   client may change its environment). */
static struct {
	const HChar *trace, *no_trace, *unit_lib; /* NULL when unset */
	HChar *cache_dir;                         /* <bundle>/select */
} sel;

static const HChar *env_copy(const HChar *name)
{
	const HChar *v = VG_(getenv)(name);

	return v && *v ? VG_(strdup)("hwt.filter.env", v) : NULL;
}

void hwt_vg_filter_init(void)
{
	/* Explicit --hwt-filter options win over the selection's filter. */
	if (hwt_vg_opts.nfilters > 0)
		hwt_vg_opts.select_filter = False;
	hwt_vg_filter_active = hwt_vg_opts.nfilters > 0 || hwt_vg_opts.select_filter;
	if (!hwt_vg_opts.select_filter)
		return;
	sel.trace = env_copy(HWT_SELECT_ENV_TRACE);
	sel.no_trace = env_copy(HWT_SELECT_ENV_NO_TRACE);
	sel.unit_lib = env_copy(HWT_SELECT_ENV_UNIT_LIB);
	sel.cache_dir = VG_(malloc)("hwt.filter.cache",
				    VG_(strlen)(hwt_vg_opts.bundle) + sizeof("/" HWT_SELECT_CACHE_DIR));
	VG_(strcpy)(sel.cache_dir, hwt_vg_opts.bundle);
	VG_(strcat)(sel.cache_dir, "/" HWT_SELECT_CACHE_DIR);
}

/* The project test's verdict kept for a build-id (project.h: '0' in, '1' outside,
   '2' unreadable, '3' no debug info), or -1 when none is kept. */
static Int kept_verdict(const UChar *id, UInt size)
{
	HChar path[VKI_PATH_MAX], v;
	SizeT n = VG_(strlen)(sel.cache_dir);
	SysRes res;
	Int got;
	UInt k;

	if (size < 2 || n + 2 + 2 * size >= sizeof(path))
		return -1;
	VG_(strcpy)(path, sel.cache_dir);
	path[n++] = '/';
	for (k = 0; k < size; k++) {
		path[n++] = "0123456789abcdef"[id[k] >> 4];
		path[n++] = "0123456789abcdef"[id[k] & 15];
	}
	path[n] = '\0';
	res = VG_(open)(path, VKI_O_RDONLY, 0);
	if (sr_isError(res))
		return -1;
	got = VG_(read)((Int)sr_Res(res), &v, 1);
	VG_(close)((Int)sr_Res(res));
	return got == 1 && v >= '0' && v <= '3' ? v - '0' : -1;
}

static Bool under(const HChar *path, const HChar *dir)
{
	SizeT n = VG_(strlen)(dir);

	return VG_(strncmp)(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

Bool hwt_vg_filter_selected(const HChar *path, const UChar *build_id, UInt build_id_size)
{
	struct hwt_rule_facts f = { .elf = 1, .debug_info = -1, .outside_project = -1 };
	enum hwt_rule_verdict v;
	const HChar *why;
	Int kept;

	if (!hwt_vg_opts.select_filter)
		return True;
	if (!path[0] || (sel.unit_lib && under(path, sel.unit_lib)))
		return False;
	f.no_trace = sel.no_trace && hwt_rule_globs(sel.no_trace, VG_(strlen)(sel.no_trace), path);
	f.trace = sel.trace && hwt_rule_globs(sel.trace, VG_(strlen)(sel.trace), path);
	f.system_dir = hwt_rule_system_dir(path);
	v = hwt_rule_decide(&f, &why);
	if (v == HWT_RULE_TRACE || v == HWT_RULE_NATIVE)
		return v == HWT_RULE_TRACE;
	kept = kept_verdict(build_id, build_id_size);
	if (kept < 0)
		return True; /* not judged: traced, which loses nothing */
	f.debug_info = kept != 3;
	f.outside_project = kept == 1 ? HWT_RULE_OUTSIDE : kept == 2 ? HWT_RULE_UNREADABLE : 0;
	return hwt_rule_decide(&f, &why) == HWT_RULE_TRACE;
}

void hwt_vg_filter_mapped(const HChar *path, Addr start, Addr end, ULong pgoff, UInt flags)
{
	UInt i;

	if (!hwt_vg_filter_active || !path[0])
		return;
	if (hwt_vg_opts.select_filter) {
		if (!(flags & HWT_MMAP_FILTERED))
			add_range(start, end);
		return;
	}
	for (i = 0; i < hwt_vg_opts.nfilters; i++) {
		const HChar *spec = hwt_vg_opts.filters[i];
		const HChar *colon = VG_(strchr)(spec, ':');
		SizeT glob_len = colon ? (SizeT)(colon - spec) : VG_(strlen)(spec);
		ULong off, size;

		if (!image_matches(spec, glob_len, path))
			continue;
		if (!colon) {
			add_range(start, end);
		} else if (resolve_function(path, colon + 1, &off, &size)) {
			/* The function lies in this mapping when its file offset does. */
			if (off >= pgoff && off < pgoff + (end - start))
				add_range(start + (off - pgoff), start + (off - pgoff) + size);
		} else {
			VG_(umsg)("hwt: --filter %s: no function %s in %s\n", spec, colon + 1, path);
		}
	}
}

void hwt_vg_filter_unmapped(Addr a, SizeT len)
{
	UInt i;

	for (i = 0; i < hwt_vg_filter_nranges; i++) {
		struct hwt_vg_range *r = &hwt_vg_filter_ranges[i];

		if (r->start < a + len && a < r->end)
			hwt_vg_filter_ranges[i--] = hwt_vg_filter_ranges[--hwt_vg_filter_nranges];
	}
}
