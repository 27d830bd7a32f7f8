/*
 * Process images (kmod_int.h): sideband/<pid>.<gen>.sb, one record per
 * write, and the executable mappings each has now, which a fork child
 * inherits into its own file.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf_note.h"
#include "hwt_ioctl.h"
#include "kmod_int.h"

int kmod_image_open(const char *bundle, uint32_t pid, struct kmod_image **out)
{
	struct kmod_image *img = calloc(1, sizeof(*img));
	char path[4096];

	if (!img)
		return -hke_nomem;
	img->pid = pid;
	for (img->gen = 0;; img->gen++) {
		snprintf(path, sizeof(path), "%s/sideband/%u.%u.sb", bundle, pid, img->gen);
		img->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
		if (img->fd >= 0)
			break;
		if (errno != EEXIST) {
			free(img);
			return -hke_bundle;
		}
	}
	snprintf(img->name, sizeof(img->name), "%u.%u", pid, img->gen);
	*out = img;
	return 0;
}

static void map_remove(struct kmod_image *img, uint64_t start, uint64_t end)
{
	for (size_t i = 0; i < img->nmaps;) {
		struct kmod_map *m = &img->maps[i];

		if (m->end <= start || m->start >= end) {
			i++;
			continue;
		}
		/* Inherited records say what is mapped: a cut mapping goes whole. */
		free(m->rec);
		*m = img->maps[--img->nmaps];
	}
}

static int map_add(struct kmod_image *img, const struct hwt_record_mmap *rec)
{
	struct kmod_map *m;

	map_remove(img, rec->addr, rec->addr + rec->len);
	if (img->nmaps == img->cap) {
		size_t cap = img->cap ? 2 * img->cap : 16;
		void *p = realloc(img->maps, cap * sizeof(*img->maps));

		if (!p)
			return -hke_nomem;
		img->maps = p;
		img->cap = cap;
	}
	m = &img->maps[img->nmaps];
	m->rec = malloc(rec->hdr.size);
	if (!m->rec)
		return -hke_nomem;
	memcpy(m->rec, rec, rec->hdr.size);
	m->start = rec->addr;
	m->end = rec->addr + rec->len;
	img->nmaps++;
	return 0;
}

int kmod_image_append(struct kmod_image *img, struct hwt_record_header *rec)
{
	int ret = 0;

	if (img->fd < 0)
		return 0;
	if (rec->type == HWT_RECORD_MMAP)
		ret = map_add(img, (const struct hwt_record_mmap *)rec);
	else if (rec->type == HWT_RECORD_MUNMAP)
		map_remove(img, ((const struct hwt_record_munmap *)rec)->addr,
			   ((const struct hwt_record_munmap *)rec)->addr +
				   ((const struct hwt_record_munmap *)rec)->len);
	if (ret)
		return ret;
	hwt_record_seal(rec);
	if (write(img->fd, rec, rec->size) != (ssize_t)rec->size)
		return -hke_bundle;
	return 0;
}

int kmod_image_inherit(struct kmod_image *img, const struct kmod_image *from, uint64_t time)
{
	for (size_t i = 0; i < from->nmaps; i++) {
		struct hwt_record_mmap *m = from->maps[i].rec;
		struct hwt_record_header *copy = malloc(m->hdr.size);
		int ret;

		if (!copy)
			return -hke_nomem;
		memcpy(copy, m, m->hdr.size);
		copy->pid = img->pid;
		copy->tid = img->pid;
		copy->time = time;
		copy->flags &= (uint16_t)~HWT_RECORD_PAUSED;
		ret = kmod_image_append(img, copy);
		free(copy);
		if (ret)
			return ret;
	}
	return 0;
}

void kmod_image_close(struct kmod_image *img)
{
	if (img->fd >= 0)
		close(img->fd);
	img->fd = -1;
}

void kmod_image_free(struct kmod_image *img)
{
	if (!img)
		return;
	kmod_image_close(img);
	for (size_t i = 0; i < img->nmaps; i++)
		free(img->maps[i].rec);
	free(img->maps);
	free(img);
}

int kmod_untraced_append(const char *bundle, struct hwt_record_header *rec)
{
	char path[4096];
	int fd, ok;

	snprintf(path, sizeof(path), "%s/sideband/untraced.sb", bundle);
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return -hke_bundle;
	hwt_record_seal(rec);
	ok = write(fd, rec, rec->size) == (ssize_t)rec->size;
	close(fd);
	return ok ? 0 : -hke_bundle;
}

/* The GNU build-id of the ELF image at base (the vDSO, in memory), or 0. */
static uint32_t vdso_build_id(const uint8_t *base, size_t size, uint8_t *id)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;

	if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_phoff + (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) > size)
		return 0;
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const Elf64_Phdr *)(base + eh->e_phoff) + i;
		const uint8_t *desc;
		uint32_t n;

		if (ph->p_type != PT_NOTE || ph->p_offset + ph->p_filesz > size)
			continue;
		n = hwt_elf_note_walk(base + ph->p_offset, ph->p_filesz, (uint32_t)ph->p_align,
				      HWT_BUILD_ID_MAX, &desc, NULL);
		if (n) {
			memcpy(id, desc, n);
			return n;
		}
	}
	return 0;
}

int kmod_vdso_copy(const char *bundle, const char **path, uint8_t *build_id,
		   uint32_t *build_id_size)
{
	static const char name[] = "images/vdso";
	unsigned long start = 0, end = 0;
	char line[512], out[4096];
	FILE *maps = fopen("/proc/self/maps", "r");
	int fd, ok = 0;

	*path = name;
	if (!maps)
		return -hke_io;
	while (fgets(line, sizeof(line), maps))
		if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", &start, &end) == 2)
			break;
	fclose(maps);
	if (end <= start)
		return -hke_io;
	snprintf(out, sizeof(out), "%s/%s", bundle, name);
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -hke_bundle;
	ok = write(fd, (const void *)start, end - start) == (ssize_t)(end - start);
	close(fd);
	/* The decoder knows the copy by its build-id (it is written after the start). */
	*build_id_size = vdso_build_id((const uint8_t *)start, end - start, build_id);
	return ok ? 0 : -hke_bundle;
}
