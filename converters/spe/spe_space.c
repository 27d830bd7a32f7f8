/*
 * The address spaces SPE samples are mapped through: per process image,
 * the MMAP and MUNMAP records of its sideband in order, and the files they
 * name (opened once, their build-ids checked against the recording).
 */
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "spe_int.h"

static void file_open(struct spe_files *files, struct spe_file *f, uint32_t mmap_flags)
{
	const char *dir = hwt_bundle_dir(files->bundle);
	char *open_path = NULL;
	uint32_t flags = 0;

	if (f->path[0] && f->path[0] != '/') {
		/* A copy inside the bundle (the vDSO). */
		open_path = malloc(strlen(dir) + strlen(f->path) + 2);
		if (open_path)
			sprintf(open_path, "%s/%s", dir, f->path);
	}
	if (hwt_elf_file_open(&f->elf, open_path ? open_path : f->path) == 0) {
		f->readable = !f->build_id_size ||
			      (f->elf.build_id_size == f->build_id_size &&
			       !memcmp(f->elf.build_id, f->build_id, f->build_id_size));
		if (!f->readable) {
			hwt_elf_file_close(&f->elf);
			flags |= HWT_PROFILE_IMAGE_REPLACED;
		}
	} else {
		flags |= HWT_PROFILE_IMAGE_MISSING;
	}
	free(open_path);
	if (mmap_flags & HWT_MMAP_VDSO)
		flags |= HWT_PROFILE_IMAGE_VDSO;
	if (mmap_flags & HWT_MMAP_TRACE_UNIT)
		flags |= HWT_PROFILE_IMAGE_TRACE_UNIT;
	f->image = hwt_profile_image_add(files->profile, f->path, f->build_id, f->build_id_size,
					 flags);
}

static struct spe_file *file_get(struct spe_files *files, const struct hwt_record_mmap *r,
				 const char *path)
{
	uint32_t id_size = r->build_id_size <= HWT_BUILD_ID_MAX ? r->build_id_size : 0;
	struct spe_file *f;
	void *p;

	for (size_t i = 0; i < files->count; i++) {
		f = files->files[i];
		if (f->build_id_size == id_size && !memcmp(f->build_id, r->build_id, id_size) &&
		    !strcmp(f->path, path))
			return f;
	}
	p = hwt_grow_array(files->files, &files->capacity, files->count + 1, sizeof(*files->files));
	if (!p)
		return NULL;
	files->files = p;
	f = calloc(1, sizeof(*f));
	if (!f || !(f->path = strdup(path))) {
		free(f);
		return NULL;
	}
	memcpy(f->build_id, r->build_id, id_size);
	f->build_id_size = id_size;
	f->image = -1;
	if (!(r->hdr.flags & HWT_MMAP_ANON) && path[0]) {
		file_open(files, f, r->hdr.flags);
		if (f->image < 0) {
			if (f->readable)
				hwt_elf_file_close(&f->elf);
			free(f->path);
			free(f);
			return NULL;
		}
	}
	files->files[files->count++] = f;
	return f;
}

static int push(struct spe_space *space, size_t *capacity, const struct spe_map_event *e)
{
	void *p = hwt_grow_array(space->events, capacity, space->count + 1, sizeof(*space->events));

	if (!p)
		return -hspe_nomem;
	space->events = p;
	space->events[space->count++] = *e;
	return 0;
}

int spe_space_load(struct spe_files *files, const struct hwt_bundle_image *image,
		   struct spe_space *space)
{
	struct hwt_sideband *sb = hwt_sideband_alloc();
	struct hwt_sideband_record rec;
	size_t capacity = 0;
	int status;

	memset(space, 0, sizeof(*space));
	if (!sb)
		return -hspe_nomem;
	status = hwt_bundle_image_open(sb, image);
	while (status >= 0 && (status = hwt_sideband_next(sb, &rec)) == 0) {
		struct spe_map_event e = { .time = rec.hdr->time };

		if (!rec.known)
			continue;
		if (rec.hdr->type == HWT_RECORD_MMAP) {
			const struct hwt_record_mmap *r = rec.u.mmap;

			if (!(r->prot & HWT_PROT_EXEC) || !r->len || r->addr + r->len < r->addr)
				continue;
			e.start = r->addr;
			e.end = r->addr + r->len;
			e.pgoff = r->pgoff;
			e.file = file_get(files, r, rec.path ? rec.path : "");
			if (!e.file) {
				status = -hspe_nomem;
				break;
			}
		} else if (rec.hdr->type == HWT_RECORD_MUNMAP) {
			e.start = rec.u.munmap->addr;
			e.end = rec.u.munmap->addr + rec.u.munmap->len;
		} else {
			continue;
		}
		if (push(space, &capacity, &e) < 0) {
			status = -hspe_nomem;
			break;
		}
	}
	hwt_sideband_free(sb);
	/* The end of the records, or damage that hwt_bundle_open reported. */
	return status == -hspe_nomem ? status : 0;
}

const struct spe_map_event *spe_space_find(const struct spe_space *space, uint64_t addr,
					   uint64_t time)
{
	const struct spe_map_event *found = NULL, *first = NULL;

	for (size_t i = 0; i < space->count; i++) {
		const struct spe_map_event *e = &space->events[i];

		if (addr < e->start || addr >= e->end)
			continue;
		if (!first)
			first = e;
		if (e->time <= time)
			found = e;
	}
	if (!found)
		found = first;
	return found && found->file && found->file->image >= 0 ? found : NULL;
}

void spe_space_fini(struct spe_space *space)
{
	free(space->events);
	memset(space, 0, sizeof(*space));
}

void spe_files_fini(struct spe_files *files)
{
	for (size_t i = 0; i < files->count; i++) {
		if (files->files[i]->readable)
			hwt_elf_file_close(&files->files[i]->elf);
		free(files->files[i]->path);
		free(files->files[i]);
	}
	free(files->files);
	files->files = NULL;
	files->count = files->capacity = 0;
}
