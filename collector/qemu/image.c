/*
 * The mappings guest code runs from, described in MMAP records (path, file
 * offset, build-id) so that a decoder can find the code.
 *
 * QEMU maps the program and its interpreter itself, and marks no guest
 * mapping executable on the host, so neither the guest's mmap calls nor
 * the protections say what is code. Instead, the first time a block is
 * translated from an address no known mapping holds, the host's
 * /proc/self/maps names the mapping (guest addresses are host addresses in
 * this QEMU, checked at the first block by plugin.c), and that whole
 * mapping is recorded. Unmapping a recorded range is recorded too.
 *
 * With select_filter=on, each file image is judged when it is first seen,
 * by the rule the preloaded library applies to the libraries a program
 * will load (collector/select: --no-trace, --trace, system directory, the
 * project test, its verdicts kept by build-id in the bundle), and an image
 * the rule leaves out is recorded with HWT_MMAP_FILTERED: its blocks
 * produce no packets, as outside a hardware IP filter.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf_note.h"
#include "select.h"
#include "sw_image.h"
#include "unit.h"

static const struct hwt_sw_image_memory table_memory = { realloc, free };
/* Under the process lock (process.c). */
static struct hwt_sw_image_table table = { .memory = &table_memory };

static int read_at(void *fd, uint64_t off, void *buf, size_t len)
{
	return pread(*(int *)fd, buf, len, (off_t)off) == (ssize_t)len;
}

/* The GNU build-id of an ELF file; returns its size or 0. */
static uint32_t read_build_id(const char *path, uint8_t *out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint32_t found;

	if (fd < 0)
		return 0;
	found = hwt_elf_file_build_id(read_at, &fd, out, HWT_BUILD_ID_MAX);
	close(fd);
	return found;
}

static void write_mmap_record(const struct hwt_sw_image *m)
{
	static uint64_t words[(sizeof(struct hwt_record_mmap) + PATH_MAX + 16) / 8];
	struct hwt_record_mmap *rec = (struct hwt_record_mmap *)words;

	hwt_qemu_process_record_locked(&rec->hdr, HWT_RECORD_MMAP,
				       hwt_sw_image_record(m, words, sizeof(words)));
}

/*
 * The /proc/self/maps line holding addr: its range, offset and path ("" for
 * anonymous memory). Returns false when no line holds it.
 */
static bool host_mapping(uint64_t addr, struct hwt_sw_image *out, char *path, size_t size)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[PATH_MAX + 128];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		uint64_t start, end, off;
		int name_at = 0;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %" SCNx64 " %*s %*s %n", &start, &end,
			   &off, &name_at) < 3 ||
		    addr < start || addr >= end)
			continue;
		found = true;
		out->start = start;
		out->end = end;
		out->pgoff = off;
		line[strcspn(line, "\n")] = '\0';
		snprintf(path, size, "%s", name_at > 0 && line[name_at] == '/' ? line + name_at : "");
	}
	fclose(f);
	return found;
}

/* The library `hwt record` preloads to follow execs runs as guest code: decoded
   through, never reported. */
static bool is_trace_unit(const char *path)
{
	const char *base = strrchr(path, '/');

	return base && strcmp(base, "/libhwt-preload.so") == 0;
}

/*
 * select_filter: whether the selection traces the file image at path (the
 * configuration comes from the environment the preloaded library passed
 * to QEMU; without a root, an image with debug information is the
 * project's).
 */
static bool selected_image(const char *path)
{
	static struct hwt_select_config cfg;
	static char cache_dir[sizeof(hwt_qemu_opts.bundle) + 16];
	static bool ready;

	if (!ready) {
		hwt_select_config_init(&cfg, getenv(HWT_SELECT_ENV_TRACE),
				       getenv(HWT_SELECT_ENV_NO_TRACE),
				       getenv(HWT_SELECT_ENV_UNIT_LIB), getenv(HWT_SELECT_ENV_UNIT));
		cfg.root = getenv(HWT_SELECT_ENV_ROOT);
		if (cfg.root && !*cfg.root)
			cfg.root = NULL;
		snprintf(cache_dir, sizeof(cache_dir), "%s/" HWT_SELECT_CACHE_DIR,
			 hwt_qemu_opts.bundle);
		cfg.cache_dir = cache_dir;
		ready = true;
	}
	return hwt_select_library(&cfg, path, -1) == 1;
}

/* Under the process lock: 1 when a recorded file image holds addr, 0 an anonymous one, -1 none. */
static int recorded(uint64_t addr)
{
	const struct hwt_sw_image *m = hwt_sw_image_find(&table, addr);

	return m ? m->path[0] != '\0' : -1;
}

bool hwt_qemu_image_seen(uint64_t addr)
{
	static char path[PATH_MAX];
	struct hwt_sw_image host, *m;
	int known;
	bool file;

	hwt_qemu_process_lock();
	known = recorded(addr);
	hwt_qemu_process_unlock();
	if (known >= 0)
		return known;
	/* A record follows: the blocks this thread ran before it go out first. */
	hwt_qemu_vcpu_flush_self();
	hwt_qemu_process_lock();
	if ((known = recorded(addr)) >= 0) {
		hwt_qemu_process_unlock();
		return known;
	}
	if (!host_mapping(addr, &host, path, sizeof(path)) ||
	    !(m = hwt_sw_image_add(&table, host.start, host.end, path[0] ? host.pgoff : 0,
				   !path[0] ? HWT_MMAP_ANON :
				   is_trace_unit(path) ? HWT_MMAP_TRACE_UNIT : 0,
				   path))) {
		hwt_qemu_process_unlock();
		return false;
	}
	file = path[0] != '\0';
	if (file)
		m->build_id_size = read_build_id(path, m->build_id);
	if (file && hwt_qemu_opts.select_filter && !(m->flags & HWT_MMAP_TRACE_UNIT) &&
	    !selected_image(path))
		m->flags |= HWT_MMAP_FILTERED;
	write_mmap_record(m);
	hwt_qemu_process_unlock();
	return file;
}

/* A filter= glob matches the path or its base name ('*' also matches '/'). */
static bool selected_by_filter(const char *path)
{
	const char *base = strrchr(path, '/');

	for (unsigned i = 0; i < hwt_qemu_opts.nfilters; i++)
		if (fnmatch(hwt_qemu_opts.filters[i], path, 0) == 0 ||
		    (base && fnmatch(hwt_qemu_opts.filters[i], base + 1, 0) == 0))
			return true;
	return false;
}

bool hwt_qemu_image_filtered_in(uint64_t addr)
{
	const struct hwt_sw_image *m;
	bool in;

	if (hwt_qemu_opts.nfilters == 0 && !hwt_qemu_opts.select_filter)
		return true;
	hwt_qemu_process_lock();
	m = hwt_sw_image_find(&table, addr);
	if (hwt_qemu_opts.select_filter)
		in = m && m->path[0] && !(m->flags & (HWT_MMAP_FILTERED | HWT_MMAP_TRACE_UNIT));
	else
		in = m && m->path[0] && selected_by_filter(m->path);
	hwt_qemu_process_unlock();
	return in;
}

void hwt_qemu_image_unmapped(uint64_t a, uint64_t len)
{
	bool hit;

	hwt_qemu_process_lock();
	/* The whole host mapping goes: the next block from what is left of it
	   finds it again in /proc/self/maps. */
	hit = hwt_sw_image_drop(&table, a, len);
	hwt_qemu_process_unlock();
	if (hit)
		hwt_record_write_munmap(hwt_qemu_process_record, a, len);
}

void hwt_qemu_image_replay(void)
{
	hwt_qemu_process_lock();
	for (size_t i = 0; i < table.count; i++)
		write_mmap_record(&table.images[i]);
	hwt_qemu_process_unlock();
}
