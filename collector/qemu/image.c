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
 */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf_note.h"
#include "unit.h"

struct image {
	uint64_t start, end;    /* [start, end) */
	uint64_t pgoff;
	uint32_t flags;         /* HWT_MMAP_* */
	uint32_t build_id_size;
	uint8_t build_id[HWT_BUILD_ID_MAX];
	char *path;             /* owned; "" for anonymous code */
};

static struct image *images;
static size_t nimages, capimages;
/* The last image a lookup found: blocks come in runs from one image. */
static size_t last_hit;

/* Finds the GNU build-id note of an ELF file; returns its size or 0. */
static uint32_t read_build_id(const char *path, uint8_t *out)
{
	Elf64_Ehdr eh;
	uint32_t found = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_phentsize != sizeof(Elf64_Phdr) ||
	    eh.e_phnum > 256)
		goto out;
	for (unsigned i = 0; i < eh.e_phnum && !found; i++) {
		Elf64_Phdr ph;
		uint8_t notes[1024];
		const uint8_t *desc;
		size_t len;

		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) !=
			    (ssize_t)sizeof(ph) ||
		    ph.p_type != PT_NOTE)
			continue;
		len = ph.p_filesz < sizeof(notes) ? (size_t)ph.p_filesz : sizeof(notes);
		if (pread(fd, notes, len, (off_t)ph.p_offset) != (ssize_t)len)
			continue;
		found = hwt_elf_note_build_id(notes, len, HWT_BUILD_ID_MAX, &desc);
		if (found)
			memcpy(out, desc, found);
	}
out:
	close(fd);
	return found;
}

static void write_mmap_record(const struct image *m)
{
	static uint64_t words[(sizeof(struct hwt_record_mmap) + PATH_MAX + 16) / 8];
	struct hwt_record_mmap *rec = (struct hwt_record_mmap *)words;
	size_t pathlen = strlen(m->path) + 1;

	if (pathlen > PATH_MAX)
		pathlen = PATH_MAX;
	memset(words, 0, sizeof(*rec) + pathlen + 8);
	rec->addr = m->start;
	rec->len = m->end - m->start;
	rec->pgoff = m->pgoff;
	rec->prot = HWT_PROT_READ | HWT_PROT_EXEC;
	rec->build_id_size = m->build_id_size;
	memcpy(rec->build_id, m->build_id, m->build_id_size);
	memcpy((char *)(rec + 1), m->path, pathlen - 1);
	rec->hdr.flags = (uint16_t)m->flags;
	hwt_qemu_process_record_locked(&rec->hdr, HWT_RECORD_MMAP,
				       (uint32_t)(sizeof(*rec) + pathlen));
}

static struct image *find(uint64_t addr)
{
	if (last_hit < nimages && images[last_hit].start <= addr && addr < images[last_hit].end)
		return &images[last_hit];
	for (size_t i = 0; i < nimages; i++) {
		if (images[i].start <= addr && addr < images[i].end) {
			last_hit = i;
			return &images[i];
		}
	}
	return NULL;
}

/*
 * The /proc/self/maps line holding addr: its range, offset and path ("" for
 * anonymous memory). Returns false when no line holds it.
 */
static bool host_mapping(uint64_t addr, struct image *out, char *path, size_t size)
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

bool hwt_qemu_image_seen(uint64_t addr)
{
	static char path[PATH_MAX];
	struct image m, *slot, *known;
	bool file;

	hwt_qemu_process_lock();
	if ((known = find(addr))) {
		file = known->path[0] != '\0';
		hwt_qemu_process_unlock();
		return file;
	}
	hwt_qemu_process_unlock();
	/* A record follows: the blocks this thread ran before it go out first. */
	hwt_qemu_vcpu_flush_self();
	hwt_qemu_process_lock();
	if ((known = find(addr))) {
		file = known->path[0] != '\0';
		hwt_qemu_process_unlock();
		return file;
	}
	if (!host_mapping(addr, &m, path, sizeof(path)) ||
	    (nimages == capimages &&
	     !(images = reallocarray(images, capimages = capimages ? capimages * 2 : 64,
				     sizeof(*images))))) {
		hwt_qemu_process_unlock();
		return false;
	}
	m.flags = !path[0] ? HWT_MMAP_ANON : is_trace_unit(path) ? HWT_MMAP_TRACE_UNIT : 0;
	if (!path[0])
		m.pgoff = 0;
	m.path = strdup(path);
	m.build_id_size = path[0] ? read_build_id(path, m.build_id) : 0;
	if (!m.path) {
		hwt_qemu_process_unlock();
		return false;
	}
	slot = &images[nimages++];
	*slot = m;
	write_mmap_record(slot);
	file = path[0] != '\0';
	hwt_qemu_process_unlock();
	return file;
}

void hwt_qemu_image_unmapped(uint64_t a, uint64_t len)
{
	uint64_t end = a + len;
	bool hit = false;

	hwt_qemu_process_lock();
	for (size_t i = 0; i < nimages; i++) {
		struct image *m = &images[i];

		if (m->end <= a || m->start >= end)
			continue;
		hit = true;
		/* The whole host mapping goes: the next block from what is left of it
		   finds it again in /proc/self/maps. */
		free(m->path);
		images[i--] = images[--nimages];
	}
	last_hit = 0;
	hwt_qemu_process_unlock();
	if (hit) {
		struct hwt_record_munmap rec;

		memset(&rec, 0, sizeof(rec));
		rec.addr = a;
		rec.len = len;
		hwt_qemu_process_record(&rec.hdr, HWT_RECORD_MUNMAP, sizeof(rec));
	}
}

void hwt_qemu_image_replay(void)
{
	hwt_qemu_process_lock();
	for (size_t i = 0; i < nimages; i++)
		write_mmap_record(&images[i]);
	hwt_qemu_process_unlock();
}
