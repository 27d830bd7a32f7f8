/* The sideband image of tests (sideband_image.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hwt_record.h"
#include "sideband_image.h"

void *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, len = 0, n;

	*size = 0;
	if (!f)
		return NULL;
	do {
		if (len == cap) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	fclose(f);
	*size = len;
	return buf;
}

static void image_unmap(struct image *img, uint64_t addr, uint64_t len, uint64_t time)
{
	for (size_t i = 0; i < img->nmaps; i++) {
		struct mapping *m = &img->maps[i];

		if (m->gone == UINT64_MAX && m->start < addr + len && addr < m->end)
			m->gone = time; /* partial unmaps of code do not happen in these tests */
	}
}

/* Loads the MMAP/MUNMAP history of one image from its sideband file. */
const char *bundle_dir = ".";

int image_load(struct image *img, const char *sideband)
{
	size_t size, off = 0;
	uint8_t *buf = read_file(sideband, &size);

	if (!buf) {
		fprintf(stderr, "cannot read %s: %s\n", sideband, strerror(errno));
		return -1;
	}
	while (off < size) {
		int64_t n = hwt_record_check(buf + off, size - off);
		const struct hwt_record_header *hdr = (const void *)(buf + off);

		if (n <= 0) {
			fprintf(stderr, "%s: bad record at offset %zu\n", sideband, off);
			free(buf);
			return -1;
		}
		if (hdr->type == HWT_RECORD_MMAP) {
			const struct hwt_record_mmap *r = (const void *)hdr;
			const char *path = (const char *)(r + 1);
			struct mapping *m;

			image_unmap(img, r->addr, r->len, hdr->time);
			img->maps = realloc(img->maps, (img->nmaps + 1) * sizeof(*img->maps));
			m = &img->maps[img->nmaps++];
			m->start = r->addr;
			m->end = r->addr + r->len;
			m->pgoff = r->pgoff;
			m->time = hdr->time;
			m->gone = UINT64_MAX;
			if (path[0] && path[0] != '/') {
				char full[4096];

				snprintf(full, sizeof(full), "%s/%s", bundle_dir, path);
				m->fd = open(full, O_RDONLY);
			} else {
				m->fd = path[0] ? open(path, O_RDONLY) : -1;
			}
			if (path[0] && m->fd < 0)
				fprintf(stderr, "%s: cannot open image %s\n", sideband, path);
		} else if (hdr->type == HWT_RECORD_MUNMAP) {
			const struct hwt_record_munmap *r = (const void *)hdr;

			image_unmap(img, r->addr, r->len, hdr->time);
		}
		off += (size_t)n;
	}
	free(buf);
	return 0;
}

int read_memory(uint8_t *buffer, size_t size, const struct pt_asid *asid, uint64_t ip,
		       void *context)
{
	struct image *img = context;

	(void)asid;
	for (size_t i = img->nmaps; i-- > 0;) {
		struct mapping *m = &img->maps[i];
		ssize_t n;

		if (ip < m->start || ip >= m->end || m->time > img->now || m->gone <= img->now ||
		    m->fd < 0)
			continue;
		if (size > m->end - ip)
			size = m->end - ip;
		n = pread(m->fd, buffer, size, (off_t)(m->pgoff + (ip - m->start)));
		return n > 0 ? (int)n : -pte_nomap;
	}
	return -pte_nomap;
}


void image_free(struct image *img)
{
	for (size_t k = 0; k < img->nmaps; k++)
		if (img->maps[k].fd >= 0)
			close(img->maps[k].fd);
	free(img->maps);
	img->maps = NULL;
	img->nmaps = 0;
}
