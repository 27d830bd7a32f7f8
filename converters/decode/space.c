/*
 * Address spaces: the files that MMAP records name, checked once per
 * bundle, and per process image the sequence of address spaces (epochs)
 * that its MMAP and MUNMAP records make, each with a libipt image built
 * from sections of the section cache of the process image (decode.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "decode_int.h"

void hwt_files_free(struct hwt_decoder *d)
{
	struct hwt_decode_shared *s = d->shared;

	hwt_decoder_caches_free(d); /* their keys name the files */
	for (size_t i = 0; i < s->file_count; i++) {
		struct hwt_file *f = s->files[i];

		hwt_elf_file_close(&f->elf);
		free(f->path);
		free(f->open_path);
		free(f);
	}
	free(s->files);
	s->files = NULL;
	s->file_count = s->file_capacity = 0;
}

static void hex(char *out, size_t size, const uint8_t *bytes, uint32_t n)
{
	size_t at = 0;

	out[0] = '\0';
	for (uint32_t i = 0; i < n && at + 3 <= size; i++)
		at += (size_t)snprintf(out + at, size - at, "%02x", bytes[i]);
}

/* Opens and checks a file the first time a record names it. */
static void file_check(struct hwt_decoder *d, struct hwt_file *f)
{
	char want[48], have[48];

	if (f->mmap_flags & HWT_MMAP_ANON || !f->path[0]) {
		f->state = hwt_file_anon;
		snprintf(f->why, sizeof(f->why), "anonymous code (no file)");
		return;
	}
	if (hwt_elf_file_open(&f->elf, f->open_path) < 0) {
		f->state = hwt_file_missing;
		snprintf(f->why, sizeof(f->why), "file missing (%s)", strerror(errno));
		return;
	}
	if (f->build_id_size) {
		if (f->elf.build_id_size != f->build_id_size ||
		    memcmp(f->elf.build_id, f->build_id, f->build_id_size)) {
			hex(want, sizeof(want), f->build_id, f->build_id_size);
			hex(have, sizeof(have), f->elf.build_id, f->elf.build_id_size);
			f->state = hwt_file_replaced;
			snprintf(f->why, sizeof(f->why),
				 "file replaced since the recording (build-id %s, recorded %s)",
				 f->elf.build_id_size ? have : "none", want);
		}
	} else if (d->shared->bundle_start >= 0 &&
		   f->elf.mtime_ns / 1000000000ull > (uint64_t)d->shared->bundle_start + 1) {
		f->state = hwt_file_replaced;
		snprintf(f->why, sizeof(f->why),
			 "file modified after the recording started (no build-id to check)");
	}
	if (f->state != hwt_file_ok)
		hwt_elf_file_close(&f->elf);
}

static struct hwt_file *file_get(struct hwt_decoder *d, const struct hwt_record_mmap *r,
				 const char *path)
{
	struct hwt_decode_shared *s = d->shared;
	struct hwt_file *f;
	uint32_t id_size = r->build_id_size <= HWT_BUILD_ID_MAX ? r->build_id_size : 0;
	uint32_t flags;
	int image;

	for (size_t i = 0; i < s->file_count; i++) {
		f = s->files[i];
		if (f->build_id_size == id_size && !memcmp(f->build_id, r->build_id, id_size) &&
		    !strcmp(f->path, path)) {
			f->mmap_flags |= r->hdr.flags;
			goto found;
		}
	}
	{
		void *p = hwt_grow_array(s->files, &s->file_capacity, s->file_count + 1,
					 sizeof(*s->files));

		if (!p)
			return NULL;
		s->files = p;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->path = strdup(path);
	if (path[0] != '/' && path[0]) {
		/* A copy inside the bundle (the vDSO): relative to the bundle. */
		const char *dir = hwt_bundle_dir(s->bundle);

		f->open_path = malloc(strlen(dir) + strlen(path) + 2);
		if (f->open_path)
			sprintf(f->open_path, "%s/%s", dir, path);
	} else {
		f->open_path = strdup(path);
	}
	if (!f->path || !f->open_path) {
		free(f->path);
		free(f->open_path);
		free(f);
		return NULL;
	}
	memcpy(f->build_id, r->build_id, id_size);
	f->build_id_size = id_size;
	f->mmap_flags = r->hdr.flags;
	f->image = -1;
	file_check(d, f);
	f->index = s->file_count;
	s->files[s->file_count++] = f;
found:
	f->trace_unit = !!(f->mmap_flags & HWT_MMAP_TRACE_UNIT);
	if (f->state == hwt_file_anon)
		return f;
	flags = 0;
	if (f->mmap_flags & HWT_MMAP_TRACE_UNIT)
		flags |= HWT_PROFILE_IMAGE_TRACE_UNIT;
	if (f->mmap_flags & HWT_MMAP_VDSO)
		flags |= HWT_PROFILE_IMAGE_VDSO;
	if (f->state == hwt_file_missing)
		flags |= HWT_PROFILE_IMAGE_MISSING;
	if (f->state == hwt_file_replaced)
		flags |= HWT_PROFILE_IMAGE_REPLACED;
	image = hwt_profile_image_add(d->profile, f->path, f->build_id, f->build_id_size, flags);
	if (image < 0)
		return NULL;
	f->image = image;
	return f;
}

/* ----- Mapping lists ---------------------------------------------------- */

struct map_list {
	struct hwt_mapping *maps;
	size_t count, capacity;
};

static int list_insert(struct map_list *l, size_t at, const struct hwt_mapping *m)
{
	{
		void *p = hwt_grow_array(l->maps, &l->capacity, l->count + 1,
					 sizeof(*l->maps));

		if (!p)
			return -1;
		l->maps = p;
	}
	memmove(&l->maps[at + 1], &l->maps[at], (l->count - at) * sizeof(*l->maps));
	l->maps[at] = *m;
	l->count++;
	return 0;
}

/* Removes [start, end) from the list, splitting mappings that straddle it. */
static int list_remove(struct map_list *l, uint64_t start, uint64_t end)
{
	for (size_t i = 0; i < l->count;) {
		struct hwt_mapping *m = &l->maps[i];

		if (m->end <= start || m->start >= end) {
			i++;
			continue;
		}
		if (m->start < start && m->end > end) {
			struct hwt_mapping right = *m;

			right.pgoff += end - m->start;
			right.start = end;
			right.isid = 0;
			m->end = start;
			m->isid = 0;
			if (list_insert(l, i + 1, &right) < 0)
				return -1;
			return 0;
		}
		if (m->start < start) {
			m->end = start;
			m->isid = 0;
			i++;
		} else if (m->end > end) {
			m->pgoff += end - m->start;
			m->start = end;
			m->isid = 0;
			i++;
		} else {
			memmove(m, m + 1, (l->count - i - 1) * sizeof(*m));
			l->count--;
		}
	}
	return 0;
}

static int list_add(struct map_list *l, const struct hwt_mapping *m)
{
	size_t at = 0;

	if (list_remove(l, m->start, m->end) < 0)
		return -1;
	while (at < l->count && l->maps[at].start < m->start)
		at++;
	return list_insert(l, at, m);
}

/* Appends an epoch holding a copy of the list from time on. */
static int space_push(struct hwt_space *space, const struct map_list *l, uint64_t time)
{
	struct hwt_epoch *e;

	if (space->count && space->epochs[space->count - 1].time >= time) {
		/* Same time (or a clock that went back): the records apply together. */
		e = &space->epochs[space->count - 1];
		free(e->maps);
	} else {
		void *p = realloc(space->epochs, (space->count + 1) * sizeof(*space->epochs));

		if (!p)
			return -1;
		space->epochs = p;
		e = &space->epochs[space->count++];
		e->time = time;
		e->image = NULL;
	}
	e->count = l->count;
	e->maps = malloc((l->count + 1) * sizeof(*e->maps));
	if (!e->maps) {
		e->count = 0;
		return -1;
	}
	if (l->count)
		memcpy(e->maps, l->maps, l->count * sizeof(*e->maps));
	return 0;
}

int hwt_space_load(struct hwt_decoder *d, const struct hwt_bundle_image *image,
		   struct hwt_space *space)
{
	struct hwt_sideband *sb = hwt_sideband_alloc();
	struct hwt_sideband_record rec;
	struct map_list list = { 0 };
	int status;

	memset(space, 0, sizeof(*space));
	if (!sb)
		return -hbe_nomem;
	if (space_push(space, &list, 0) < 0) {
		hwt_sideband_free(sb);
		return -hbe_nomem;
	}
	status = hwt_bundle_image_open(sb, image);
	while (status >= 0 && (status = hwt_sideband_next(sb, &rec)) == 0) {
		uint64_t time = rec.hdr->time;

		if (!rec.known)
			continue;
		if (rec.hdr->type == HWT_RECORD_PROCESS_START && !space->command && rec.path) {
			space->command = strdup(rec.path);
			if (!space->command) {
				status = -hbe_nomem;
				break;
			}
		} else if (rec.hdr->type == HWT_RECORD_MMAP) {
			const struct hwt_record_mmap *r = rec.u.mmap;
			struct hwt_mapping m = { 0 };

			if (!(r->prot & HWT_PROT_EXEC) || !r->len || r->addr + r->len < r->addr)
				continue;
			m.start = r->addr;
			m.end = r->addr + r->len;
			m.pgoff = r->pgoff;
			m.file = file_get(d, r, rec.path ? rec.path : "");
			if (!m.file || list_add(&list, &m) < 0 || space_push(space, &list, time) < 0) {
				status = -hbe_nomem;
				break;
			}
		} else if (rec.hdr->type == HWT_RECORD_MUNMAP) {
			const struct hwt_record_munmap *r = rec.u.munmap;

			if (list_remove(&list, r->addr, r->addr + r->len) < 0 ||
			    space_push(space, &list, time) < 0) {
				status = -hbe_nomem;
				break;
			}
		}
	}
	/* The end of the file or damage that hwt_bundle_open already reported. */
	if (status != -hbe_nomem)
		status = 0;
	free(list.maps);
	hwt_sideband_free(sb);
	return status;
}

void hwt_space_fini(struct hwt_space *space)
{
	for (size_t i = 0; i < space->count; i++) {
		pt_image_free(space->epochs[i].image);
		free(space->epochs[i].maps);
	}
	free(space->epochs);
	free(space->command);
	memset(space, 0, sizeof(*space));
}

/* A mapping beyond the end of its file: the file is not what was mapped. */
static int file_too_short(struct hwt_decoder *d, const struct hwt_mapping *m)
{
	struct hwt_file *f = m->file;

	if (f->state != hwt_file_ok || m->pgoff < f->elf.size)
		return 0;
	/* Counts and blocks the edge decoder keeps were made while f was ok. */
	(void)hwt_edge_flush(d);
	hwt_edge_layouts_free(d);
	f->state = hwt_file_replaced;
	snprintf(f->why, sizeof(f->why),
		 "file replaced since the recording (shorter than its mapping)");
	(void)hwt_profile_image_add(d->profile, f->path, f->build_id, f->build_id_size,
				    HWT_PROFILE_IMAGE_REPLACED);
	return 1;
}

int hwt_epoch_short_files(const struct hwt_epoch *epoch)
{
	for (size_t i = 0; i < epoch->count; i++) {
		const struct hwt_mapping *m = &epoch->maps[i];

		if (m->file->state == hwt_file_ok && m->pgoff >= m->file->elf.size)
			return 1;
	}
	return 0;
}

int hwt_space_short_files(const struct hwt_space *space)
{
	for (size_t e = 0; e < space->count; e++)
		if (hwt_epoch_short_files(&space->epochs[e]))
			return 1;
	return 0;
}

void hwt_epoch_check_files(struct hwt_decoder *d, const struct hwt_epoch *epoch)
{
	for (size_t i = 0; i < epoch->count; i++)
		(void)file_too_short(d, &epoch->maps[i]);
}

void hwt_space_check(struct hwt_decoder *d, struct hwt_space *space)
{
	for (size_t e = 0; e < space->count; e++)
		hwt_epoch_check_files(d, &space->epochs[e]);
}

struct pt_image *hwt_epoch_image(struct hwt_decoder *d, struct hwt_epoch *epoch)
{
	if (epoch->image)
		return epoch->image;
	epoch->image = pt_image_alloc(NULL);
	if (!epoch->image)
		return NULL;
	for (size_t i = 0; i < epoch->count; i++) {
		struct hwt_mapping *m = &epoch->maps[i];
		struct hwt_file *f = m->file;
		uint64_t size = m->end - m->start;

		if (f->state != hwt_file_ok || file_too_short(d, m))
			continue;
		if (size > f->elf.size - m->pgoff)
			size = f->elf.size - m->pgoff;
		if (!m->isid) {
			int isid = pt_iscache_add_file(d->iscache, f->open_path, m->pgoff, size,
						       m->start);

			m->isid = isid < 0 ? -1 : isid;
		}
		if (m->isid > 0)
			pt_image_add_cached(epoch->image, d->iscache, m->isid, NULL);
	}
	return epoch->image;
}

uint64_t hwt_epoch_layout_hash(const struct hwt_epoch *epoch)
{
	uint64_t h = epoch->count;

	for (size_t k = 0; k < epoch->count; k++) {
		const struct hwt_mapping *m = &epoch->maps[k];

		h = (h ^ (uint64_t)(uintptr_t)m->file) * 0x9e3779b97f4a7c15ull;
		h = (h ^ m->start ^ m->end << 7 ^ m->pgoff << 21) * 0xc2b2ae3d27d4eb4full;
	}
	return h ^ h >> 29;
}

int hwt_epoch_layout_same(const struct hwt_epoch *a, const struct hwt_epoch *b)
{
	if (a->count != b->count)
		return 0;
	for (size_t k = 0; k < a->count; k++)
		if (a->maps[k].file != b->maps[k].file || a->maps[k].start != b->maps[k].start ||
		    a->maps[k].end != b->maps[k].end || a->maps[k].pgoff != b->maps[k].pgoff)
			return 0;
	return 1;
}

const struct hwt_mapping *hwt_epoch_find(const struct hwt_epoch *epoch, uint64_t ip)
{
	size_t lo = 0, hi = epoch->count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct hwt_mapping *m = &epoch->maps[mid];

		if (ip < m->start)
			hi = mid;
		else if (ip >= m->end)
			lo = mid + 1;
		else
			return m;
	}
	return NULL;
}

void hwt_file_failed(struct hwt_decoder *d, struct hwt_file *f,
		     const struct hwt_bundle_stream *stream, uint64_t skipped)
{
	struct hwt_file_fail *ff = hwt_file_fail(d, f);

	ff->failures++;
	ff->failed_bytes += skipped;
	if (ff->last_stream != stream) {
		ff->last_stream = stream;
		ff->failed_streams++;
	}
	if (f->image >= 0)
		hwt_profile_image_add_undecoded(d->profile, (size_t)f->image, 1);
}
