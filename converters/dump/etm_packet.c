/*
 * ETMv4 packets of a stream, for `hwt dump --packets`: OpenCSD's packet
 * processor cuts the stream and prints each packet as its own packet
 * lister does, at its offset. Packets it cannot make sense of (before the
 * first A-Sync, bad, cut by the end) are listed as such and added to the
 * bundle's diagnostics.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <opencsd/c_api/opencsd_c_api.h>
#include <opencsd/etmv4/trc_pkt_types_etmv4.h>

#include "etm_config.h"
#include "hwt_dump.h"

struct listing {
	FILE *out;
	struct hwt_bundle *bundle;
	const char *path;
	int problems;
};

static ocsd_datapath_resp_t packet(const void *context, const ocsd_datapath_op_t op,
				   const ocsd_trc_index_t index, const void *pkt)
{
	struct listing *l = (struct listing *)context;
	const ocsd_etmv4_i_pkt *p = pkt;
	char text[512];

	if (op != OCSD_OP_DATA || !p)
		return OCSD_RESP_CONT;
	if (ocsd_pkt_str(OCSD_PROTOCOL_ETMV4I, pkt, text, (int)sizeof(text)) != OCSD_OK)
		snprintf(text, sizeof(text), "(packet type 0x%x)", (unsigned)p->type);
	fprintf(l->out, "  0x%08" PRIx64 " %s\n", (uint64_t)index, text);
	switch (p->type) {
	case ETM4_PKT_I_NOTSYNC:
	case ETM4_PKT_I_BAD_SEQUENCE:
	case ETM4_PKT_I_BAD_TRACEMODE:
	case ETM4_PKT_I_RESERVED:
	case ETM4_PKT_I_RESERVED_CFG:
	case ETM4_PKT_I_INCOMPLETE_EOT:
		l->problems++;
		hwt_bundle_diag_add(l->bundle, hwt_diag_stream, l->path, (int64_t)index,
				    "packet at offset 0x%" PRIx64 ": %s", (uint64_t)index, text);
		break;
	default:
		break;
	}
	return OCSD_RESP_CONT;
}

int hwt_dump_etm_packets(FILE *out, struct hwt_bundle *bundle, const char *path,
			 const uint8_t *map, size_t size)
{
	struct listing l = { out, bundle, path, 0 };
	ocsd_etmv4_cfg cfg;
	unsigned char csid = 0;
	dcd_tree_handle_t tree;
	size_t at = 0;

	hwt_etm_config(bundle, &cfg);
	tree = ocsd_create_dcd_tree(OCSD_TRC_SRC_SINGLE, 0);
	if (!tree ||
	    ocsd_dt_create_decoder(tree, OCSD_BUILTIN_DCD_ETMV4I, OCSD_CREATE_FLG_PACKET_PROC,
				   &cfg, &csid) != OCSD_OK ||
	    ocsd_dt_attach_packet_callback(tree, csid, OCSD_C_API_CB_PKT_SINK, (void *)packet,
					   &l) != OCSD_OK) {
		if (tree)
			ocsd_destroy_dcd_tree(tree);
		return -1;
	}
	while (at < size) {
		uint32_t used = 0;
		size_t n = size - at;
		ocsd_datapath_resp_t resp;

		if (n > UINT32_MAX)
			n = UINT32_MAX;
		resp = ocsd_dt_process_data(tree, OCSD_OP_DATA, (ocsd_trc_index_t)at, (uint32_t)n,
					    map + at, &used);
		if (OCSD_DATA_RESP_IS_FATAL(resp)) {
			/* A bad packet it will not pass: start again after it. */
			ocsd_dt_process_data(tree, OCSD_OP_RESET, (ocsd_trc_index_t)(at + used), 0,
					     NULL, NULL);
			if (!used)
				used = 1;
		}
		at += used;
	}
	ocsd_dt_process_data(tree, OCSD_OP_EOT, 0, 0, NULL, NULL);
	ocsd_destroy_dcd_tree(tree);
	return l.problems;
}
