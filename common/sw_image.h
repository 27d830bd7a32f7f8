/*
 * The image table of a software trace unit: the executable mappings it has
 * described in MMAP records, so that it can tell code it has not described
 * yet, record the unmapping of code, and describe them all again in a fork
 * child. Shared by the Valgrind tool and the QEMU plugin, so libc-free: the
 * unit lends the table its allocator, and locks it when it has threads.
 */
#ifndef HWT_SW_IMAGE_H
#define HWT_SW_IMAGE_H

#include "hwt_record.h"
#include "hwt_types.h"

struct hwt_sw_image {
	uint64_t start, end;     /* [start, end) */
	uint64_t pgoff;          /* file offset of start */
	uint32_t flags;          /* HWT_MMAP_* */
	uint32_t build_id_size;  /* 0: none (the unit fills build_id) */
	uint8_t build_id[HWT_BUILD_ID_MAX];
	char *path;              /* owned by the table; "" for anonymous code */
};

/* The unit's allocator: realloc(NULL, n) allocates; NULL when out of memory. */
struct hwt_sw_image_memory {
	void *(*realloc)(void *p, size_t size);
	void (*free)(void *p);
};

struct hwt_sw_image_table {
	struct hwt_sw_image *images; /* in no order: removal moves the last one */
	size_t count, capacity;
	size_t last_hit;             /* blocks come in runs from one image */
	const struct hwt_sw_image_memory *memory;
};

void hwt_sw_image_table_init(struct hwt_sw_image_table *t, const struct hwt_sw_image_memory *m);
/* Frees every image and the table's memory; the table is empty again. */
void hwt_sw_image_table_clear(struct hwt_sw_image_table *t);

/* The image holding addr, or NULL. */
struct hwt_sw_image *hwt_sw_image_find(struct hwt_sw_image_table *t, uint64_t addr);

/*
 * Adds [start, end) with a copy of path, no build-id yet. Returns the new
 * image (valid until the table next changes), NULL when out of memory.
 */
struct hwt_sw_image *hwt_sw_image_add(struct hwt_sw_image_table *t, uint64_t start,
				      uint64_t end, uint64_t pgoff, uint32_t flags,
				      const char *path);

/*
 * Removes [a, a+len) from the images and keeps the parts outside it: an
 * image with a hole becomes two (without memory for the second's path,
 * the part after the hole is forgotten). Returns 1 when any image lost
 * code, i.e. when a decoder has to hear of the unmapping.
 */
int hwt_sw_image_cut(struct hwt_sw_image_table *t, uint64_t a, uint64_t len);

/* Removes every image that overlaps [a, a+len), whole. Returns 1 when any did. */
int hwt_sw_image_drop(struct hwt_sw_image_table *t, uint64_t a, uint64_t len);

/*
 * Lays out the MMAP record of m in buf (size bytes, 8-aligned): address,
 * length, offset, read and execute protection, build-id, flags, and the
 * path, NUL-terminated and cut to fit. The writer fills the rest of the
 * header (hwt_record_finish). Returns the record's size, 0 when not even
 * an empty path fits.
 */
uint32_t hwt_sw_image_record(const struct hwt_sw_image *m, void *buf, size_t size);

#endif /* HWT_SW_IMAGE_H */
