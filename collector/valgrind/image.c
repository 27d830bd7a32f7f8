/*
 * Executable mappings of the traced process: described in MMAP records
 * (path, file offset, build-id) so that a decoder can find the code, and
 * kept in a table so that unmapping what was executable is recorded and a
 * fork child can describe what it inherited.
 */
#include "tool.h"
#include "elf64.h"
#include "elf_note.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_vki.h"

struct exec_map {
	Addr start, end;         /* [start, end) */
	ULong pgoff;
	UInt flags;              /* HWT_MMAP_* */
	UInt build_id_size;
	UChar build_id[HWT_BUILD_ID_MAX];
	HChar *path;             /* owned; "" for anonymous code */
};

static struct exec_map *maps;
static UInt nmaps, capmaps;
/* The tool's own executable: code from it is the trace unit's, not the program's. */
static const HChar *trace_unit_path;

Bool hwt_vg_elf_read_at(Int fd, ULong off, void *buf, SizeT len)
{
	return VG_(lseek)(fd, (Off64T)off, VKI_SEEK_SET) == (Off64T)off &&
	       VG_(read)(fd, buf, (Int)len) == (Int)len;
}

/* Finds the GNU build-id note of an ELF file; returns its size or 0. */
static UInt read_build_id(const HChar *path, UChar *out)
{
	static HChar cached_path[VKI_PATH_MAX];
	static UChar cached_id[HWT_BUILD_ID_MAX];
	static UInt cached_size;
	struct elf64_ehdr eh;
	UInt found = 0, i;
	SysRes res;
	Int fd;

	if (VG_(strcmp)(path, cached_path) == 0) {
		VG_(memcpy)(out, cached_id, cached_size);
		return cached_size;
	}
	res = VG_(open)(path, VKI_O_RDONLY, 0);
	if (sr_isError(res))
		return 0;
	fd = (Int)sr_Res(res);
	if (!hwt_vg_elf_read_at(fd, 0, &eh, sizeof(eh)) ||
	    VG_(memcmp)(eh.ident, "\177ELF\2\1", 6) != 0 ||
	    eh.phentsize != sizeof(struct elf64_phdr) || eh.phnum > 256)
		goto out;
	for (i = 0; i < eh.phnum && !found; i++) {
		struct elf64_phdr ph;
		UChar notes[1024];
		const UChar *desc;
		UInt len;

		if (!hwt_vg_elf_read_at(fd, eh.phoff + i * sizeof(ph), &ph, sizeof(ph)) ||
		    ph.type != PT_NOTE)
			continue;
		len = ph.filesz < sizeof(notes) ? (UInt)ph.filesz : sizeof(notes);
		if (!hwt_vg_elf_read_at(fd, ph.offset, notes, len))
			continue;
		found = hwt_elf_note_build_id(notes, len, HWT_BUILD_ID_MAX, &desc);
		if (found)
			VG_(memcpy)(out, desc, found);
	}
out:
	VG_(close)(fd);
	if (VG_(strlen)(path) < sizeof(cached_path)) {
		VG_(strcpy)(cached_path, path);
		VG_(memcpy)(cached_id, out, found);
		cached_size = found;
	}
	return found;
}

static void write_mmap_record(const struct exec_map *m)
{
	static UChar buf[sizeof(struct hwt_record_mmap) + VKI_PATH_MAX + 8];
	struct hwt_record_mmap *rec = (struct hwt_record_mmap *)buf;
	SizeT pathlen = VG_(strlen)(m->path) + 1;

	if (pathlen > VKI_PATH_MAX)
		pathlen = VKI_PATH_MAX;
	VG_(memset)(buf, 0, sizeof(*rec) + pathlen + 8);
	rec->addr = m->start;
	rec->len = m->end - m->start;
	rec->pgoff = m->pgoff;
	rec->prot = HWT_PROT_READ | HWT_PROT_EXEC;
	rec->build_id_size = m->build_id_size;
	VG_(memcpy)(rec->build_id, m->build_id, m->build_id_size);
	VG_(memcpy)((HChar *)(rec + 1), m->path, pathlen - 1);
	rec->hdr.flags = (UShort)m->flags;
	hwt_vg_process_record(&rec->hdr, HWT_RECORD_MMAP, sizeof(*rec) + pathlen);
}

static void write_munmap_record(Addr a, SizeT len)
{
	struct hwt_record_munmap rec;

	VG_(memset)(&rec, 0, sizeof(rec));
	rec.addr = a;
	rec.len = len;
	hwt_vg_process_record(&rec.hdr, HWT_RECORD_MUNMAP, sizeof(rec));
}

static struct exec_map *table_append(void)
{
	if (nmaps == capmaps) {
		capmaps = capmaps ? capmaps * 2 : 64;
		maps = VG_(realloc)("hwt.image.maps", maps, capmaps * sizeof(*maps));
	}
	return &maps[nmaps++];
}

/*
 * Removes [a, a+len) from the table. Returns True when any of it was
 * executable, i.e. when a decoder has to hear about it.
 */
static Bool table_remove(Addr a, SizeT len)
{
	Addr end = a + len;
	Bool hit = False;
	UInt i;

	for (i = 0; i < nmaps; i++) {
		struct exec_map *m = &maps[i];

		if (m->end <= a || m->start >= end)
			continue;
		hit = True;
		if (m->start < a && m->end > end) {
			/* A hole in the middle: split into two entries. */
			struct exec_map tail = *m, *t;

			tail.pgoff += end - m->start;
			tail.start = end;
			tail.path = VG_(strdup)("hwt.image.path", m->path);
			m->end = a;
			t = table_append();
			*t = tail;
			m = &maps[i]; /* table_append may have moved the table */
		} else if (m->start < a) {
			m->end = a;
		} else if (m->end > end) {
			m->pgoff += end - m->start;
			m->start = end;
		} else {
			VG_(free)(m->path);
			maps[i--] = maps[--nmaps];
		}
	}
	return hit;
}

static void add_mapping(Addr a, SizeT len, const HChar *path, ULong pgoff, UInt flags)
{
	struct exec_map *m;

	table_remove(a, len);
	m = table_append();
	VG_(memset)(m, 0, sizeof(*m));
	m->start = a;
	m->end = a + len;
	m->pgoff = pgoff;
	m->flags = flags;
	m->path = VG_(strdup)("hwt.image.path", path);
	if (path[0])
		m->build_id_size = read_build_id(path, m->build_id);
	write_mmap_record(m);
	if (!(flags & HWT_MMAP_TRACE_UNIT))
		hwt_vg_filter_mapped(path, a, a + len, pgoff);
}

/* The tool's executable, and the library that `hwt record` preloads to follow execs. */
static Bool is_trace_unit(const HChar *path)
{
	const HChar *base = VG_(strrchr)(path, '/');

	return (trace_unit_path && VG_(strcmp)(path, trace_unit_path) == 0) ||
	       (base && VG_(strcmp)(base, "/libhwt-preload.so") == 0);
}

void hwt_vg_image_mapped(Addr a, SizeT len, Bool rr, Bool ww, Bool xx)
{
	NSegment const *seg;
	const HChar *path;

	(void)rr;
	(void)ww;
	if (!xx || len == 0)
		return;
	seg = VG_(am_find_nsegment)(a);
	path = seg && seg->kind == SkFileC ? VG_(am_get_filename)(seg) : NULL;
	if (path)
		add_mapping(a, len, path, (ULong)seg->offset + (a - seg->start),
			    is_trace_unit(path) ? HWT_MMAP_TRACE_UNIT : 0);
	else
		add_mapping(a, len, "", 0, HWT_MMAP_ANON);
}

void hwt_vg_image_unmapped(Addr a, SizeT len)
{
	hwt_vg_filter_unmapped(a, len);
	if (table_remove(a, len))
		write_munmap_record(a, len);
}

void hwt_vg_image_protected(Addr a, SizeT len, Bool rr, Bool ww, Bool xx)
{
	if (xx) {
		/* Newly executable (or still): describe it again; ld.so may mprotect text. */
		Bool known = False;
		UInt i;

		for (i = 0; i < nmaps; i++)
			if (maps[i].start <= a && maps[i].end >= a + len)
				known = True;
		if (!known)
			hwt_vg_image_mapped(a, len, rr, ww, xx);
	} else {
		hwt_vg_image_unmapped(a, len);
	}
}

/* vgPlain_trampoline_stuff_start: Valgrind's own guest-visible code (sigreturn). */
extern void VG_(trampoline_stuff_start)(void);
extern void VG_(trampoline_stuff_end)(void);

void hwt_vg_image_trace_unit(void)
{
	Addr start = (Addr)&VG_(trampoline_stuff_start);
	Addr end = (Addr)&VG_(trampoline_stuff_end);
	NSegment const *seg = VG_(am_find_nsegment)(start);
	const HChar *path = seg ? VG_(am_get_filename)(seg) : NULL;

	if (!path) {
		hwt_vg_process_lost(HWT_LOST_IMAGE, 1, 0);
		return;
	}
	trace_unit_path = VG_(strdup)("hwt.image.unit", path);
	add_mapping(start, end - start, path, (ULong)seg->offset + (start - seg->start),
		    HWT_MMAP_TRACE_UNIT);
}

void hwt_vg_image_replay(void)
{
	UInt i;

	for (i = 0; i < nmaps; i++)
		write_mmap_record(&maps[i]);
}
