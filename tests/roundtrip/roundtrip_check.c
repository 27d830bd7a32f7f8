/*
 * Round-trip oracle for the software trace unit: decodes every PT stream of
 * a bundle with libipt's instruction decoder, code read from the files that
 * the sideband MMAP records name, and checks that the instructions libipt
 * reconstructs are exactly the blocks the trace unit logged as executed
 * (hwt record --debug-blocks).
 *
 * usage: roundtrip_check BUNDLE
 * Prints one line per stream and a closing "N passed, N failed" line; exits
 * non-zero when any stream disagrees or cannot be decoded.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <intel-pt.h>

#include "hwt_record.h"

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

struct block {
	uint64_t start;
	uint32_t insns;
	uint32_t flags;
};

static void *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, len = 0, n;

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

/*
 * Loads the MMAP/MUNMAP history of one image from its sideband file; a
 * relative path (the vDSO's copy) is the bundle's file.
 */
static int image_load(struct image *img, const char *bundle, const char *sideband)
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
				char in_bundle[4096];

				snprintf(in_bundle, sizeof(in_bundle), "%s/%s", bundle, path);
				m->fd = open(in_bundle, O_RDONLY);
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

static int read_memory(uint8_t *buffer, size_t size, const struct pt_asid *asid, uint64_t ip,
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

struct expect {
	struct block *blocks;
	size_t nblocks, at;  /* current block */
	uint32_t done;       /* instructions of blocks[at] matched so far */
	uint64_t insns;
};

/* Checks one decoded instruction against the block log. Returns 0 or -1. */
static int expect_insn(struct expect *e, uint64_t ip, const char *stream)
{
	while (e->at < e->nblocks && e->done == e->blocks[e->at].insns) {
		e->at++;
		e->done = 0;
	}
	if (e->at == e->nblocks) {
		fprintf(stderr, "%s: decoder gives instruction 0x%" PRIx64
			" after the last logged block (%" PRIu64 " instructions matched)\n",
			stream, ip, e->insns);
		return -1;
	}
	if (e->done == 0 && ip != e->blocks[e->at].start) {
		fprintf(stderr, "%s: block %zu starts at 0x%" PRIx64 " but the decoder gives 0x%" PRIx64
			" (%" PRIu64 " instructions matched)\n",
			stream, e->at, e->blocks[e->at].start, ip, e->insns);
		return -1;
	}
	e->done++;
	e->insns++;
	return 0;
}

static int check_stream(const char *dir, const char *name, struct image *img)
{
	char path[4096];
	size_t pt_size, blk_size;
	uint8_t *pt;
	struct expect e = { 0 };
	struct pt_config config;
	struct pt_insn_decoder *dec;
	int status, failed = 0;
	uint64_t errors = 0;

	snprintf(path, sizeof(path), "%s/streams/%s", dir, name);
	pt = read_file(path, &pt_size);
	snprintf(path, sizeof(path), "%s/blocks/%.*s.blk", dir, (int)(strlen(name) - 3), name);
	e.blocks = read_file(path, &blk_size);
	if (!pt || !e.blocks) {
		printf("FAIL %s: missing stream or block log\n", name);
		return -1;
	}
	e.nblocks = blk_size / sizeof(struct block);

	pt_config_init(&config);
	config.begin = pt;
	config.end = pt + pt_size;
	dec = pt_insn_alloc_decoder(&config);
	pt_image_set_callback(pt_insn_get_image(dec), read_memory, img);
	img->now = 0;

	for (;;) {
		status = pt_insn_sync_forward(dec);
		if (status < 0) {
			if (status != -pte_eos) {
				fprintf(stderr, "%s: sync: %s\n", name, pt_errstr(pt_errcode(status)));
				failed = 1;
			}
			break;
		}
		for (;;) {
			struct pt_insn insn;
			uint32_t lost_mtc, lost_cyc;

			while (status & pts_event_pending) {
				struct pt_event ev;

				status = pt_insn_event(dec, &ev, sizeof(ev));
				if (status < 0)
					break;
				if (ev.type == ptev_overflow) {
					fprintf(stderr, "%s: overflow in the trace\n", name);
					failed = 1;
				}
			}
			if (status < 0 || (status & pts_eos))
				break;
			pt_insn_time(dec, &img->now, &lost_mtc, &lost_cyc);
			status = pt_insn_next(dec, &insn, sizeof(insn));
			if (status < 0)
				break;
			if (!failed && expect_insn(&e, insn.ip, name) < 0)
				failed = 1;
		}
		if (status < 0 && status != -pte_eos) {
			uint64_t off = 0;

			pt_insn_get_offset(dec, &off);
			fprintf(stderr, "%s: decode error at offset 0x%" PRIx64 ": %s\n", name, off,
				pt_errstr(pt_errcode(status)));
			errors++;
			failed = 1;
		}
		if (status == -pte_eos || (status >= 0 && (status & pts_eos)))
			break;
	}
	if (!failed) {
		/* Everything logged must have been decoded. */
		while (e.at < e.nblocks && e.done == e.blocks[e.at].insns) {
			e.at++;
			e.done = 0;
		}
		if (e.at != e.nblocks) {
			fprintf(stderr, "%s: decoding ended at block %zu of %zu (%" PRIu64
				" instructions matched)\n", name, e.at, e.nblocks, e.insns);
			failed = 1;
		}
	}
	pt_insn_free_decoder(dec);
	printf("%s %s: %zu blocks, %" PRIu64 " instructions, %zu trace bytes\n",
	       failed ? "FAIL" : "ok", name, e.nblocks, e.insns, pt_size);
	free(pt);
	free(e.blocks);
	return failed ? -1 : 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

int main(int argc, char **argv)
{
	char path[4096];
	struct dirent **names;
	int n, passed = 0, failed = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: roundtrip_check BUNDLE\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/streams", argv[1]);
	n = scandir(path, &names, NULL, by_name);
	if (n < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return 2;
	}
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		const char *dash = strrchr(name, '-');
		struct image img = { 0 };

		if (name[0] == '.' || !dash)
			goto next;
		snprintf(path, sizeof(path), "%s/sideband/%.*s.sb", argv[1], (int)(dash - name), name);
		if (image_load(&img, argv[1], path) < 0 || check_stream(argv[1], name, &img) < 0)
			failed++;
		else
			passed++;
		for (size_t k = 0; k < img.nmaps; k++)
			if (img.maps[k].fd >= 0)
				close(img.maps[k].fd);
		free(img.maps);
next:
		free(names[i]);
	}
	free(names);
	printf("roundtrip: %d passed, %d failed\n", passed, failed);
	return failed || passed == 0 ? 1 : 0;
}
