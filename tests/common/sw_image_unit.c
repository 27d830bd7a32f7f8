/*
 * The image table of the software trace units (common/sw_image.c): finding,
 * adding, cutting a range out (an image with a hole becomes two), dropping
 * whole images, running out of memory, and the MMAP record of an image,
 * checked with hwt_record_check.
 */
#include <stdlib.h>
#include <string.h>

#include "sw_image.h"
#include "unit_check.h"

/* An allocator that fails once its budget of allocations is spent. */
static int budget = -1;

static void *tight_realloc(void *p, size_t size)
{
	if (budget == 0)
		return NULL;
	if (budget > 0)
		budget--;
	return realloc(p, size);
}

static const struct hwt_sw_image_memory memory = { tight_realloc, free };

/* The image of the table that starts at start, or NULL. */
static const struct hwt_sw_image *starting_at(const struct hwt_sw_image_table *t, uint64_t start)
{
	for (size_t i = 0; i < t->count; i++)
		if (t->images[i].start == start)
			return &t->images[i];
	return NULL;
}

static void find_and_add(void)
{
	struct hwt_sw_image_table t;
	struct hwt_sw_image *m;

	hwt_sw_image_table_init(&t, &memory);
	CHECK(hwt_sw_image_find(&t, 0x1000) == NULL);
	m = hwt_sw_image_add(&t, 0x1000, 0x3000, 0x200, 0, "/bin/a");
	CHECK(m && m->start == 0x1000 && m->end == 0x3000 && m->pgoff == 0x200);
	CHECK(m && strcmp(m->path, "/bin/a") == 0 && m->build_id_size == 0);
	m = hwt_sw_image_add(&t, 0x8000, 0x9000, 0, HWT_MMAP_ANON, "");
	CHECK(m && m->flags == HWT_MMAP_ANON && m->path[0] == '\0');
	CHECK(hwt_sw_image_find(&t, 0x0fff) == NULL);
	CHECK(hwt_sw_image_find(&t, 0x1000) == &t.images[0]);
	CHECK(hwt_sw_image_find(&t, 0x2fff) == &t.images[0]);
	CHECK(hwt_sw_image_find(&t, 0x3000) == NULL);
	CHECK(hwt_sw_image_find(&t, 0x8800) == &t.images[1]);
	/* The last hit first, then the others. */
	CHECK(hwt_sw_image_find(&t, 0x1800) == &t.images[0]);
	/* More than the first capacity: the table grows. */
	for (uint64_t i = 0; i < 200; i++)
		CHECK(hwt_sw_image_add(&t, 0x100000 + i * 0x1000, 0x100800 + i * 0x1000, 0, 0,
				       "/lib/x") != NULL);
	CHECK(t.count == 202);
	CHECK(hwt_sw_image_find(&t, 0x100000 + 150 * 0x1000 + 0x10)->start ==
	      0x100000 + 150 * 0x1000);
	CHECK(hwt_sw_image_find(&t, 0x100000 + 150 * 0x1000 + 0x900) == NULL);
	hwt_sw_image_table_clear(&t);
	CHECK(t.count == 0 && hwt_sw_image_find(&t, 0x1000) == NULL);
}

static void cut_and_drop(void)
{
	struct hwt_sw_image_table t;
	const struct hwt_sw_image *m;

	hwt_sw_image_table_init(&t, &memory);
	hwt_sw_image_add(&t, 0x10000, 0x20000, 0x1000, 0, "/bin/p");
	/* Nothing there: no unmapping to record. */
	CHECK(hwt_sw_image_cut(&t, 0x30000, 0x1000) == 0);
	CHECK(hwt_sw_image_cut(&t, 0x0f000, 0x1000) == 0);
	/* The head, then the tail. */
	CHECK(hwt_sw_image_cut(&t, 0x0f000, 0x2000) == 1);
	m = starting_at(&t, 0x11000);
	CHECK(t.count == 1 && m && m->end == 0x20000 && m->pgoff == 0x2000);
	CHECK(hwt_sw_image_cut(&t, 0x1f000, 0x4000) == 1);
	CHECK(t.count == 1 && m->end == 0x1f000 && m->pgoff == 0x2000);
	/* A hole: two images, the second at its own file offset, with its own path. */
	CHECK(hwt_sw_image_cut(&t, 0x14000, 0x2000) == 1);
	CHECK(t.count == 2);
	m = starting_at(&t, 0x11000);
	CHECK(m && m->end == 0x14000 && m->pgoff == 0x2000);
	m = starting_at(&t, 0x16000);
	CHECK(m && m->end == 0x1f000 && m->pgoff == 0x7000 && strcmp(m->path, "/bin/p") == 0);
	CHECK(m && m->path != starting_at(&t, 0x11000)->path);
	/* Across both: the first loses its tail, the second goes whole. */
	CHECK(hwt_sw_image_cut(&t, 0x13000, 0x10000) == 1);
	CHECK(t.count == 1 && t.images[0].start == 0x11000 && t.images[0].end == 0x13000);
	/* Drop takes every image the range touches, whole. */
	hwt_sw_image_add(&t, 0x40000, 0x50000, 0, 0, "/lib/q");
	hwt_sw_image_add(&t, 0x60000, 0x70000, 0, 0, "/lib/r");
	CHECK(hwt_sw_image_drop(&t, 0x70000, 0x1000) == 0);
	CHECK(hwt_sw_image_drop(&t, 0x12fff, 0x40000) == 1);
	CHECK(t.count == 1 && t.images[0].start == 0x60000);
	CHECK(hwt_sw_image_find(&t, 0x11000) == NULL && hwt_sw_image_find(&t, 0x60000) != NULL);
	hwt_sw_image_table_clear(&t);
}

static void out_of_memory(void)
{
	struct hwt_sw_image_table t;

	hwt_sw_image_table_init(&t, &memory);
	/* The path's copy fails; then the table's array. */
	budget = 0;
	CHECK(hwt_sw_image_add(&t, 0x1000, 0x2000, 0, 0, "/bin/a") == NULL);
	budget = 1;
	CHECK(hwt_sw_image_add(&t, 0x1000, 0x2000, 0, 0, "/bin/a") == NULL);
	CHECK(t.count == 0);
	budget = -1;
	CHECK(hwt_sw_image_add(&t, 0x1000, 0x9000, 0, 0, "/bin/a") != NULL);
	/* A hole without memory for the second path: the part after it is forgotten. */
	budget = 0;
	CHECK(hwt_sw_image_cut(&t, 0x3000, 0x1000) == 1);
	budget = -1;
	CHECK(t.count == 1 && t.images[0].start == 0x1000 && t.images[0].end == 0x3000);
	hwt_sw_image_table_clear(&t);
}

static void mmap_record(void)
{
	static uint64_t words[(sizeof(struct hwt_record_mmap) + 4096 + 8) / 8];
	struct hwt_record_mmap *rec = (struct hwt_record_mmap *)words;
	struct hwt_sw_image m = {
		.start = 0x7f0000001000, .end = 0x7f0000005000, .pgoff = 0x3000,
		.flags = HWT_MMAP_TRACE_UNIT, .build_id_size = 3, .build_id = { 0xab, 0xcd, 0xef },
		.path = "/usr/lib/libz.so.1",
	};
	char long_path[5000];
	uint32_t n;

	memset(words, 0xee, sizeof(words));
	n = hwt_sw_image_record(&m, words, sizeof(words));
	CHECK(n == sizeof(*rec) + strlen(m.path) + 1);
	hwt_record_finish(&rec->hdr, HWT_RECORD_MMAP, n, 7, 100, 101);
	CHECK(hwt_record_check(words, sizeof(words)) == hwt_record_align(n));
	CHECK(rec->hdr.type == HWT_RECORD_MMAP && rec->hdr.flags == HWT_MMAP_TRACE_UNIT);
	CHECK(rec->hdr.time == 7 && rec->hdr.pid == 100 && rec->hdr.tid == 101);
	CHECK(rec->addr == m.start && rec->len == 0x4000 && rec->pgoff == 0x3000);
	CHECK(rec->prot == (HWT_PROT_READ | HWT_PROT_EXEC) && rec->reserved == 0);
	CHECK(rec->build_id_size == 3 && rec->build_id[2] == 0xef && rec->build_id[3] == 0);
	CHECK(strcmp((const char *)(rec + 1), m.path) == 0);
	/* The padding is zero (hwt_record_check's CRC covers it too). */
	for (uint32_t i = n; i < hwt_record_align(n); i++)
		CHECK(((const uint8_t *)words)[i] == 0);
	/* A path longer than the buffer holds is cut to fit, NUL included. */
	memset(long_path, 'x', sizeof(long_path) - 1);
	long_path[sizeof(long_path) - 1] = '\0';
	m.path = long_path;
	n = hwt_sw_image_record(&m, words, sizeof(words));
	CHECK(n <= sizeof(words) && hwt_record_align(n) <= sizeof(words));
	CHECK(((const char *)words)[n - 1] == '\0' && strlen((const char *)(rec + 1)) == n - 1 - sizeof(*rec));
	/* No room even for an empty path. */
	CHECK(hwt_sw_image_record(&m, words, sizeof(*rec)) == 0);
}

int main(void)
{
	find_and_add();
	cut_and_drop();
	out_of_memory();
	mmap_record();
	return check_summary("sw_image");
}
