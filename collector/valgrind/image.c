/*
 * Executable mappings of the traced process: described in MMAP records
 * (path, file offset, build-id) so that a decoder can find the code, and
 * kept in a table so that unmapping what was executable is recorded and a
 * fork child can describe what it inherited.
 */
#include "tool.h"
#include "elf64.h"
#include "elf_note.h"
#include "sw_image.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_vki.h"

static void *table_realloc(void *p, size_t size)
{
	return VG_(realloc)("hwt.image", p, size);
}

static void table_free(void *p)
{
	VG_(free)(p);
}

static const struct hwt_sw_image_memory table_memory = { table_realloc, table_free };
static struct hwt_sw_image_table table = { .memory = &table_memory };
/* The tool's own executable: code from it is the trace unit's, not the program's. */
static const HChar *trace_unit_path;

Bool hwt_vg_elf_read_at(Int fd, ULong off, void *buf, SizeT len)
{
	return VG_(lseek)(fd, (Off64T)off, VKI_SEEK_SET) == (Off64T)off &&
	       VG_(read)(fd, buf, (Int)len) == (Int)len;
}

static int read_at(void *fd, uint64_t off, void *buf, size_t len)
{
	return hwt_vg_elf_read_at(*(Int *)fd, off, buf, len);
}

/* The GNU build-id of an ELF file; returns its size or 0. */
static UInt read_build_id(const HChar *path, UChar *out)
{
	static HChar cached_path[VKI_PATH_MAX];
	static UChar cached_id[HWT_BUILD_ID_MAX];
	static UInt cached_size;
	UInt found;
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
	found = hwt_elf_file_build_id(read_at, &fd, out, HWT_BUILD_ID_MAX);
	VG_(close)(fd);
	if (VG_(strlen)(path) < sizeof(cached_path)) {
		VG_(strcpy)(cached_path, path);
		VG_(memcpy)(cached_id, out, found);
		cached_size = found;
	}
	return found;
}

static void write_mmap_record(const struct hwt_sw_image *m)
{
	static ULong words[(sizeof(struct hwt_record_mmap) + VKI_PATH_MAX + 8) / 8];
	struct hwt_record_mmap *rec = (struct hwt_record_mmap *)words;

	hwt_vg_process_record(&rec->hdr, HWT_RECORD_MMAP,
			      hwt_sw_image_record(m, words, sizeof(words)));
}

static void add_mapping(Addr a, SizeT len, const HChar *path, ULong pgoff, UInt flags)
{
	struct hwt_sw_image *m;

	hwt_sw_image_cut(&table, a, len);
	m = hwt_sw_image_add(&table, a, a + len, pgoff, flags, path);
	if (!m) {
		hwt_vg_process_lost(HWT_LOST_IMAGE, 1, 0);
		return;
	}
	if (path[0])
		m->build_id_size = read_build_id(path, m->build_id);
	if (hwt_vg_opts.select_filter && path[0] && !(flags & HWT_MMAP_TRACE_UNIT) &&
	    !hwt_vg_filter_selected(path, m->build_id, m->build_id_size))
		m->flags |= HWT_MMAP_FILTERED;
	write_mmap_record(m);
	if (!(flags & HWT_MMAP_TRACE_UNIT))
		hwt_vg_filter_mapped(path, a, a + len, pgoff, m->flags);
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
	if (hwt_sw_image_cut(&table, a, len))
		hwt_record_write_munmap(hwt_vg_process_record, a, len);
}

void hwt_vg_image_protected(Addr a, SizeT len, Bool rr, Bool ww, Bool xx)
{
	if (xx) {
		/* Newly executable (or still): describe it again; ld.so may mprotect text. */
		const struct hwt_sw_image *m = hwt_sw_image_find(&table, a);

		if (!m || m->end < a + len)
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
	for (size_t i = 0; i < table.count; i++)
		write_mmap_record(&table.images[i]);
}
