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
 * ETMv4 streams (.etm) are decoded with OpenCSD for it: FROM the branch
 * instruction, TO the first instruction of the next range; trace that
 * stops (an exception: a system call or a signal) ends the chain, as
 * perf's start and end of trace are not compared either.
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
#include <opencsd/c_api/opencsd_c_api.h>

#include "etm4_encoder.h"

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

/* --branches of an ETMv4 stream, with OpenCSD. */
struct lister {
	struct image *img;
	unsigned tid;
	int have_prev;
	uint64_t prev_last;      /* the last instruction of the range before */
	int prev_taken;
	int errors;
};

/* The stream being listed (the decode tree's callbacks are made once). */
static struct lister *current;

static uint32_t read_code(const void *context, const ocsd_vaddr_t address,
			  const ocsd_mem_space_acc_t mem_space, const uint32_t req, uint8_t *buf)
{
	struct lister *l = *(struct lister *const *)context;
	int n = read_memory(buf, req, NULL, address, l->img);

	(void)mem_space;
	return n > 0 ? (uint32_t)n : 0;
}

static ocsd_datapath_resp_t element(const void *context, const ocsd_trc_index_t index,
				    const uint8_t chan, const ocsd_generic_trace_elem *e)
{
	struct lister *l = *(struct lister *const *)context;

	(void)index;
	(void)chan;
	switch (e->elem_type) {
	case OCSD_GEN_TRC_ELEM_INSTR_RANGE:
		if (l->have_prev && l->prev_taken)
			printf("%u %" PRIx64 " %" PRIx64 "\n", l->tid, l->prev_last,
			       (uint64_t)e->st_addr);
		l->have_prev = 1;
		l->prev_last = e->en_addr - e->last_instr_sz;
		l->prev_taken = e->last_instr_exec &&
				(e->last_i_type == OCSD_INSTR_BR || e->last_i_type == OCSD_INSTR_BR_INDIRECT);
		break;
	case OCSD_GEN_TRC_ELEM_TIMESTAMP:
		l->img->now = e->timestamp;
		break;
	case OCSD_GEN_TRC_ELEM_EXCEPTION:
	case OCSD_GEN_TRC_ELEM_TRACE_ON:
	case OCSD_GEN_TRC_ELEM_NO_SYNC:
	case OCSD_GEN_TRC_ELEM_ADDR_NACC:
	case OCSD_GEN_TRC_ELEM_ADDR_UNKNOWN:
	case OCSD_GEN_TRC_ELEM_EO_TRACE:
		l->have_prev = 0;
		break;
	default:
		break;
	}
	return OCSD_RESP_CONT;
}

static int list_etm_branches(const char *dir, const char *name, struct image *img)
{
	struct lister l = { img, 0, 0, 0, 0, 0 };
	char path[4096];
	unsigned pid, gen, tid;
	ocsd_etmv4_cfg cfg;
	unsigned char csid = 0;
	static dcd_tree_handle_t tree;
	size_t size, at = 0;
	uint8_t *buf;

	if (sscanf(name, "%u.%u-%u.etm", &pid, &gen, &tid) != 3)
		return -1;
	snprintf(path, sizeof(path), "%s/streams/%s", dir, name);
	buf = read_file(path, &size);
	if (!buf)
		return -1;
	printf("stream %u %u %u\n", pid, gen, tid);
	l.tid = tid;
	img->now = 0;
	memset(&cfg, 0, sizeof(cfg));
	cfg.reg_idr0 = HWT_ETM4_TRCIDR0;
	cfg.reg_idr1 = HWT_ETM4_TRCIDR1;
	cfg.reg_idr2 = HWT_ETM4_TRCIDR2;
	cfg.reg_idr8 = HWT_ETM4_TRCIDR8;
	cfg.reg_configr = HWT_ETM4_TRCCONFIGR;
	cfg.reg_traceidr = 0x10;
	cfg.arch_ver = ARCH_V8;
	cfg.core_prof = profile_CortexA;
	/* One tree for every stream: OpenCSD 1.3.3's ocsd_destroy_dcd_tree leaks
	   its element callback (the decoder's etm_stream.c keeps its trees too). */
	if (!tree) {
		tree = ocsd_create_dcd_tree(OCSD_TRC_SRC_SINGLE, 0);
		if (!tree ||
		    ocsd_dt_create_decoder(tree, OCSD_BUILTIN_DCD_ETMV4I, OCSD_CREATE_FLG_FULL_DECODER,
					   &cfg, &csid) != OCSD_OK ||
		    ocsd_dt_set_gen_elem_outfn(tree, element, &current) != OCSD_OK ||
		    ocsd_dt_add_callback_mem_acc(tree, 0, ~(ocsd_vaddr_t)0, OCSD_MEM_SPACE_ANY,
						 read_code, &current) != OCSD_OK) {
			fprintf(stderr, "%s: OpenCSD refuses the decoder\n", name);
			free(buf);
			return -1;
		}
	}
	current = &l;
	ocsd_dt_process_data(tree, OCSD_OP_RESET, 0, 0, NULL, NULL);
	while (at < size) {
		uint32_t used = 0;
		ocsd_datapath_resp_t resp = ocsd_dt_process_data(tree, OCSD_OP_DATA, (ocsd_trc_index_t)at,
								 (uint32_t)(size - at), buf + at, &used);

		if (OCSD_DATA_RESP_IS_FATAL(resp)) {
			fprintf(stderr, "%s: decode error at 0x%zx\n", name, at + used);
			l.errors++;
			break;
		}
		at += used;
	}
	ocsd_dt_process_data(tree, OCSD_OP_EOT, 0, 0, NULL, NULL);
	free(buf);
	return l.errors ? -1 : 0;
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
		    (branches ? (strstr(name, ".etm") ? list_etm_branches(argv[1], name, &img)
						       : list_branches(argv[1], name, &img))
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
