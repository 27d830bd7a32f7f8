/*
 * The baseline for decode throughput: a bare libipt block decoder loop
 * (pt_blk_sync_forward, pt_blk_next, pt_blk_event) over every stream of a
 * bundle, counting blocks and instructions and nothing else.
 *
 * Code comes from the files that the sideband MMAP records name, added as
 * sections of one pt_image per process image (all records applied up
 * front: fine for benchmark programs that do not unmap code), through one
 * section cache, as the real decoder does.
 *
 * usage: bare_blk BUNDLE
 * Prints "bytes B blocks N insns I errors E seconds S".
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <intel-pt.h>

#include "hwt_bundle.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static struct pt_image *load_image(struct pt_image_section_cache *iscache, const char *sideband)
{
	struct hwt_sideband *sb = hwt_sideband_alloc();
	struct hwt_sideband_record rec;
	struct pt_image *image = pt_image_alloc(NULL);

	if (!sb || !image || hwt_sideband_open(sb, sideband) < 0)
		exit(2);
	while (hwt_sideband_next(sb, &rec) == 0) {
		const struct hwt_record_mmap *r = rec.u.mmap;
		struct stat st;
		uint64_t size = r->len;
		int isid;

		if (!rec.known || rec.hdr->type != HWT_RECORD_MMAP || !rec.path || !rec.path[0] ||
		    stat(rec.path, &st) < 0 || r->pgoff >= (uint64_t)st.st_size)
			continue;
		if (size > (uint64_t)st.st_size - r->pgoff)
			size = (uint64_t)st.st_size - r->pgoff;
		isid = pt_iscache_add_file(iscache, rec.path, r->pgoff, size, r->addr);
		if (isid > 0)
			pt_image_add_cached(image, iscache, isid, NULL);
	}
	hwt_sideband_free(sb);
	return image;
}

int main(int argc, char **argv)
{
	struct hwt_bundle *bundle = hwt_bundle_alloc();
	struct pt_image_section_cache *iscache = pt_iscache_alloc(NULL);
	uint64_t bytes = 0, blocks = 0, insns = 0, errors = 0;
	double start;

	if (argc != 2 || !bundle || !iscache || hwt_bundle_open(bundle, argv[1]) < 0) {
		fprintf(stderr, "usage: bare_blk BUNDLE\n");
		return 2;
	}
	start = now();
	for (size_t i = 0; i < hwt_bundle_image_count(bundle); i++) {
		const struct hwt_bundle_image *img = hwt_bundle_image_at(bundle, i);
		struct pt_image *image;

		if (!img->streams)
			continue;
		image = load_image(iscache, img->path);
		for (size_t k = 0; k < img->streams; k++) {
			const struct hwt_bundle_stream *st =
				hwt_bundle_stream_at(bundle, img->first_stream + k);
			struct pt_block_decoder *dec;
			struct pt_config config;
			uint8_t *buf;
			int fd = open(st->path, O_RDONLY), status;

			if (fd < 0 || !st->size)
				continue;
			buf = mmap(NULL, st->size, PROT_READ, MAP_PRIVATE, fd, 0);
			close(fd);
			if (buf == MAP_FAILED)
				continue;
			pt_config_init(&config);
			config.begin = buf;
			config.end = buf + st->size;
			dec = pt_blk_alloc_decoder(&config);
			pt_blk_set_image(dec, image);
			for (;;) {
				status = pt_blk_sync_forward(dec);
				if (status < 0)
					break;
				for (;;) {
					struct pt_block block;

					while (status & pts_event_pending) {
						struct pt_event ev;

						status = pt_blk_event(dec, &ev, sizeof(ev));
						if (status < 0)
							break;
					}
					if (status < 0 || (status & pts_eos))
						break;
					status = pt_blk_next(dec, &block, sizeof(block));
					blocks += block.ninsn != 0;
					insns += block.ninsn;
					if (status < 0)
						break;
				}
				if (status < 0 && status != -pte_eos)
					errors++;
			}
			pt_blk_free_decoder(dec);
			munmap(buf, st->size);
			bytes += st->size;
		}
		pt_image_free(image);
	}
	printf("bytes %" PRIu64 " blocks %" PRIu64 " insns %" PRIu64 " errors %" PRIu64
	       " seconds %.3f\n", bytes, blocks, insns, errors, now() - start);
	pt_iscache_free(iscache);
	hwt_bundle_free(bundle);
	return 0;
}
