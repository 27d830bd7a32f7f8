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
 *
 * usage: roundtrip_check --branches BUNDLE
 * Prints instead, per stream ("stream PID GENERATION TID"), every taken
 * branch libipt decodes, "TID FROM TO" in hexadecimal: the list that
 * `perf script --itrace=b` of the bundle's export must give (tests/perf).
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
#include "sideband_image.h"
#include "sw_block_log.h"

struct expect {
	struct hwt_block_entry *blocks;
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

	snprintf(path, sizeof(path), "%s/streams/%s", dir, name);
	pt = read_file(path, &pt_size);
	snprintf(path, sizeof(path), "%s/blocks/%.*s.blk", dir, (int)(strlen(name) - 3), name);
	e.blocks = read_file(path, &blk_size);
	if (!pt || !e.blocks) {
		printf("FAIL %s: missing stream or block log\n", name);
		return -1;
	}
	e.nblocks = blk_size / sizeof(struct hwt_block_entry);

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

/* A branch that changed the flow: what perf script --itrace=b lists. */
static int taken(const struct pt_insn *prev, uint64_t next_ip)
{
	switch (prev->iclass) {
	case ptic_call:
	case ptic_return:
	case ptic_jump:
	case ptic_far_call:
	case ptic_far_return:
	case ptic_far_jump:
		return 1;
	case ptic_cond_jump:
		return next_ip != prev->ip + prev->size;
	default:
		return 0;
	}
}

/* --branches: the taken branches of one stream, in decode order. */
static int list_branches(const char *dir, const char *name, struct image *img)
{
	char path[4096];
	size_t pt_size;
	uint8_t *pt;
	struct pt_config config;
	struct pt_insn_decoder *dec;
	unsigned pid, gen, tid;
	int status, errors = 0;

	if (sscanf(name, "%u.%u-%u.pt", &pid, &gen, &tid) != 3)
		return -1;
	snprintf(path, sizeof(path), "%s/streams/%s", dir, name);
	pt = read_file(path, &pt_size);
	if (!pt)
		return -1;
	printf("stream %u %u %u\n", pid, gen, tid);
	pt_config_init(&config);
	config.begin = pt;
	config.end = pt + pt_size;
	dec = pt_insn_alloc_decoder(&config);
	pt_image_set_callback(pt_insn_get_image(dec), read_memory, img);
	img->now = 0;
	for (;;) {
		struct pt_insn prev = { 0 };
		int have_prev = 0;

		status = pt_insn_sync_forward(dec);
		if (status < 0)
			break;
		for (;;) {
			struct pt_insn insn;
			uint32_t lost_mtc, lost_cyc;

			while (status & pts_event_pending) {
				struct pt_event ev;

				status = pt_insn_event(dec, &ev, sizeof(ev));
				if (status < 0)
					break;
				/* A branch taken just before an interrupt or fault: its
				   target is where the event hit (it did not run there). */
				if (have_prev && ev.type == ptev_async_disabled &&
				    taken(&prev, ev.variant.async_disabled.at))
					printf("%u %" PRIx64 " %" PRIx64 "\n", tid, prev.ip,
					       ev.variant.async_disabled.at);
				if (have_prev && ev.type == ptev_async_branch &&
				    taken(&prev, ev.variant.async_branch.from))
					printf("%u %" PRIx64 " %" PRIx64 "\n", tid, prev.ip,
					       ev.variant.async_branch.from);
				/* Tracing stopped or jumped: no branch joins the two sides. */
				if (ev.type == ptev_enabled || ev.type == ptev_disabled ||
				    ev.type == ptev_async_disabled || ev.type == ptev_async_branch ||
				    ev.type == ptev_overflow)
					have_prev = 0;
			}
			/* At the end of the trace (pts_eos) instructions that need no
			   more trace still decode: the target of a last TIP among them. */
			if (status < 0)
				break;
			pt_insn_time(dec, &img->now, &lost_mtc, &lost_cyc);
			status = pt_insn_next(dec, &insn, sizeof(insn));
			if (status < 0)
				break;
			if (have_prev && taken(&prev, insn.ip))
				printf("%u %" PRIx64 " %" PRIx64 "\n", tid, prev.ip, insn.ip);
			prev = insn;
			have_prev = 1;
		}
		if (status < 0 && status != -pte_eos) {
			fprintf(stderr, "%s: decode error: %s\n", name, pt_errstr(pt_errcode(status)));
			errors++;
		}
		if (status == -pte_eos || (status >= 0 && (status & pts_eos)))
			break;
	}
	pt_insn_free_decoder(dec);
	free(pt);
	return errors ? -1 : 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

int main(int argc, char **argv)
{
	char path[4096];
	struct dirent **names;
	int n, passed = 0, failed = 0, branches = 0;

	if (argc == 3 && !strcmp(argv[1], "--branches")) {
		branches = 1;
		argv++;
		argc--;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: roundtrip_check [--branches] BUNDLE\n");
		return 2;
	}
	bundle_dir = argv[1];
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
		if (image_load(&img, path) < 0 ||
		    (branches ? list_branches(argv[1], name, &img)
			      : check_stream(argv[1], name, &img)) < 0)
			failed++;
		else
			passed++;
		image_free(&img);
next:
		free(names[i]);
	}
	free(names);
	if (branches)
		return failed ? 1 : 0;
	printf("roundtrip: %d passed, %d failed\n", passed, failed);
	return failed || passed == 0 ? 1 : 0;
}
