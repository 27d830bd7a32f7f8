/*
 * A process image's address space from its sideband file, for decoding its
 * streams with libipt in tests (roundtrip_check, tests/perf): the MMAP and
 * MUNMAP records, each applying from its time on; the decoder's read
 * callback serves code from the mapping in force at img->now (the time the
 * caller last read from the decoder).
 */
#ifndef HWT_TEST_SIDEBAND_IMAGE_H
#define HWT_TEST_SIDEBAND_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include <intel-pt.h>

struct mapping {
	uint64_t start, end, pgoff;
	int fd;           /* the file, opened once per record */
	uint64_t time;    /* record time: mapped from then on */
	uint64_t gone;    /* unmapped at this time (UINT64_MAX: never) */
};

struct image {
	struct mapping *maps;
	size_t nmaps;
	uint64_t now;     /* the decoder's current sideband time */
};

/* The bundle, for the copies inside it (the vDSO) that MMAP paths name relatively. */
extern const char *bundle_dir;

/* A whole file, malloc'd (aborts when out of memory), or NULL (*size 0). */
void *read_file(const char *path, size_t *size);
/* Loads the MMAP/MUNMAP history of one image from its sideband file. 0 or -1. */
int image_load(struct image *img, const char *sideband);
/* libipt's read-memory callback over img (context). */
int read_memory(uint8_t *buffer, size_t size, const struct pt_asid *asid, uint64_t ip,
		void *context);
/* Closes the files, frees the mappings. */
void image_free(struct image *img);

#endif /* HWT_TEST_SIDEBAND_IMAGE_H */
