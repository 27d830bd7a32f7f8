/* The image table of a software trace unit (sw_image.h). */
#include "sw_image.h"

void hwt_sw_image_table_init(struct hwt_sw_image_table *t, const struct hwt_sw_image_memory *m)
{
	t->images = NULL;
	t->count = t->capacity = t->last_hit = 0;
	t->memory = m;
}

void hwt_sw_image_table_clear(struct hwt_sw_image_table *t)
{
	for (size_t i = 0; i < t->count; i++)
		t->memory->free(t->images[i].path);
	t->memory->free(t->images);
	hwt_sw_image_table_init(t, t->memory);
}

struct hwt_sw_image *hwt_sw_image_find(struct hwt_sw_image_table *t, uint64_t addr)
{
	struct hwt_sw_image *m;

	if (t->last_hit < t->count) {
		m = &t->images[t->last_hit];
		if (m->start <= addr && addr < m->end)
			return m;
	}
	for (size_t i = 0; i < t->count; i++) {
		m = &t->images[i];
		if (m->start <= addr && addr < m->end) {
			t->last_hit = i;
			return m;
		}
	}
	return NULL;
}

static size_t length(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

static char *copy_path(const struct hwt_sw_image_memory *mem, const char *path)
{
	size_t n = length(path) + 1;
	char *copy = mem->realloc(NULL, n);

	for (size_t i = 0; copy && i < n; i++)
		copy[i] = path[i];
	return copy;
}

/* A new last slot (zeroed but for path), NULL when out of memory. */
static struct hwt_sw_image *append(struct hwt_sw_image_table *t, char *path)
{
	struct hwt_sw_image *m;

	if (t->count == t->capacity) {
		size_t capacity = t->capacity ? 2 * t->capacity : 64;
		void *p = t->memory->realloc(t->images, capacity * sizeof(*t->images));

		if (!p)
			return NULL;
		t->images = p;
		t->capacity = capacity;
	}
	m = &t->images[t->count++];
	*m = (struct hwt_sw_image){ .path = path };
	return m;
}

struct hwt_sw_image *hwt_sw_image_add(struct hwt_sw_image_table *t, uint64_t start,
				      uint64_t end, uint64_t pgoff, uint32_t flags,
				      const char *path)
{
	char *copy = copy_path(t->memory, path);
	struct hwt_sw_image *m = copy ? append(t, copy) : NULL;

	if (!m) {
		t->memory->free(copy);
		return NULL;
	}
	m->start = start;
	m->end = end;
	m->pgoff = pgoff;
	m->flags = flags;
	return m;
}

/* Takes image i out: the last one moves into its place. */
static void remove_at(struct hwt_sw_image_table *t, size_t i)
{
	t->memory->free(t->images[i].path);
	t->images[i] = t->images[--t->count];
	t->last_hit = 0;
}

int hwt_sw_image_cut(struct hwt_sw_image_table *t, uint64_t a, uint64_t len)
{
	uint64_t end = a + len;
	int hit = 0;

	for (size_t i = 0; i < t->count; i++) {
		struct hwt_sw_image *m = &t->images[i];

		if (m->end <= a || m->start >= end)
			continue;
		hit = 1;
		if (m->start < a && m->end > end) {
			/* A hole in the middle: the part after it becomes an image of its own. */
			struct hwt_sw_image tail = *m, *slot;

			tail.pgoff += end - m->start;
			tail.start = end;
			tail.path = copy_path(t->memory, m->path);
			m->end = a;
			slot = tail.path ? append(t, tail.path) : NULL;
			if (slot)
				*slot = tail;
			else
				t->memory->free(tail.path);
		} else if (m->start < a) {
			m->end = a;
		} else if (m->end > end) {
			m->pgoff += end - m->start;
			m->start = end;
		} else {
			remove_at(t, i--);
		}
	}
	return hit;
}

int hwt_sw_image_drop(struct hwt_sw_image_table *t, uint64_t a, uint64_t len)
{
	uint64_t end = a + len;
	int hit = 0;

	for (size_t i = 0; i < t->count; i++) {
		if (t->images[i].end <= a || t->images[i].start >= end)
			continue;
		hit = 1;
		remove_at(t, i--);
	}
	return hit;
}

uint32_t hwt_sw_image_record(const struct hwt_sw_image *m, void *buf, size_t size)
{
	struct hwt_record_mmap *rec = buf;
	uint8_t *bytes = buf;
	size_t path_len = length(m->path), room, total;

	if (size < sizeof(*rec) + HWT_RECORD_ALIGN)
		return 0;
	/* Bytes for the path and its NUL, padding included. */
	room = (size & ~(size_t)(HWT_RECORD_ALIGN - 1)) - sizeof(*rec);
	if (path_len + 1 > room)
		path_len = room - 1;
	total = hwt_record_align((uint32_t)(sizeof(*rec) + path_len + 1));
	for (size_t i = 0; i < total; i++)
		bytes[i] = 0;
	rec->addr = m->start;
	rec->len = m->end - m->start;
	rec->pgoff = m->pgoff;
	rec->prot = HWT_PROT_READ | HWT_PROT_EXEC;
	rec->build_id_size = m->build_id_size;
	for (uint32_t i = 0; i < m->build_id_size && i < HWT_BUILD_ID_MAX; i++)
		rec->build_id[i] = m->build_id[i];
	for (size_t i = 0; i < path_len; i++)
		bytes[sizeof(*rec) + i] = (uint8_t)m->path[i];
	rec->hdr.flags = (uint16_t)m->flags;
	return (uint32_t)(sizeof(*rec) + path_len + 1);
}
