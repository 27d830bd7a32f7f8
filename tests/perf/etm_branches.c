/*
 * The taken branches of a bundle's ETMv4 streams as OpenCSD decodes them,
 * code read from the files the sideband names: the list that `perf script
 * --itrace=b` of the bundle's cs_etm export must give (branches_vs_perf.py,
 * which reads it as it reads roundtrip_check --branches).
 *
 * usage: etm_branches --branches BUNDLE
 * Prints per stream "stream PID GENERATION TID", then "TID FROM TO" in
 * hexadecimal for each taken branch: FROM the branch instruction, TO the
 * first instruction of the next range. Trace that stops (an exception: a
 * system call or a signal, trace off) ends the chain: no branch joins the
 * two sides, as perf's start and end of trace are not compared either.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <opencsd/c_api/opencsd_c_api.h>

#include "etm4_encoder.h"
#include "sideband_image.h"

struct lister {
	struct image *img;
	unsigned tid;
	int have_prev;
	uint64_t prev_last;      /* the last instruction of the range before */
	int prev_taken;
	int errors;
};

static uint32_t read_code(const void *context, const ocsd_vaddr_t address,
			  const ocsd_mem_space_acc_t mem_space, const uint32_t req, uint8_t *buf)
{
	struct lister *l = (struct lister *)context;
	int n = read_memory(buf, req, NULL, address, l->img);

	(void)mem_space;
	return n > 0 ? (uint32_t)n : 0;
}

static ocsd_datapath_resp_t element(const void *context, const ocsd_trc_index_t index,
				    const uint8_t chan, const ocsd_generic_trace_elem *e)
{
	struct lister *l = (struct lister *)context;

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

static int list_branches(const char *dir, const char *name, struct image *img)
{
	struct lister l = { img, 0, 0, 0, 0, 0 };
	char path[4096];
	unsigned pid, gen, tid;
	ocsd_etmv4_cfg cfg;
	unsigned char csid = 0;
	dcd_tree_handle_t tree;
	size_t size, at = 0;
	uint8_t *buf;

	if (sscanf(name, "%u.%u-%u.etm", &pid, &gen, &tid) != 3)
		return 0;
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
	tree = ocsd_create_dcd_tree(OCSD_TRC_SRC_SINGLE, 0);
	if (!tree ||
	    ocsd_dt_create_decoder(tree, OCSD_BUILTIN_DCD_ETMV4I, OCSD_CREATE_FLG_FULL_DECODER, &cfg,
				   &csid) != OCSD_OK ||
	    ocsd_dt_set_gen_elem_outfn(tree, element, &l) != OCSD_OK ||
	    ocsd_dt_add_callback_mem_acc(tree, 0, ~(ocsd_vaddr_t)0, OCSD_MEM_SPACE_ANY, read_code,
					 &l) != OCSD_OK) {
		fprintf(stderr, "%s: OpenCSD refuses the decoder\n", name);
		free(buf);
		return -1;
	}
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
	ocsd_destroy_dcd_tree(tree);
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
	int n, failed = 0;

	if (argc != 3 || strcmp(argv[1], "--branches")) {
		fprintf(stderr, "usage: etm_branches --branches BUNDLE\n");
		return 2;
	}
	bundle_dir = argv[2];
	snprintf(path, sizeof(path), "%s/streams", argv[2]);
	n = scandir(path, &names, NULL, by_name);
	if (n < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return 2;
	}
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		const char *dash = strrchr(name, '-');
		struct image img = { 0 };

		if (name[0] != '.' && dash) {
			snprintf(path, sizeof(path), "%s/sideband/%.*s.sb", argv[2],
				 (int)(dash - name), name);
			if (image_load(&img, path) < 0 || list_branches(argv[2], name, &img) < 0)
				failed++;
			image_free(&img);
		}
		free(names[i]);
	}
	free(names);
	return failed ? 1 : 0;
}
