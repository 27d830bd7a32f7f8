/* The ETMv4 packets of a stream (etm_packets.h). */
#include "etm_packets.h"

pthread_mutex_t hwt_etm_ocsd_lock = PTHREAD_MUTEX_INITIALIZER;

void hwt_etm_ocsd_quiet(void)
{
	static int quiet;

	if (!quiet)
		quiet = hwt_opencsd()->def_errlog_init(OCSD_ERR_SEV_NONE, 0) == OCSD_OK;
}

struct walk {
	hwt_etm_packet_fn *fn;
	void *context;
};

static ocsd_datapath_resp_t packet(const void *context, const ocsd_datapath_op_t op,
				   const ocsd_trc_index_t index, const void *pkt)
{
	const struct walk *w = context;

	if (op == OCSD_OP_DATA && pkt)
		w->fn(w->context, (uint64_t)index, pkt);
	return OCSD_RESP_CONT;
}

int hwt_etm_packets(const ocsd_etmv4_cfg *cfg, const uint8_t *map, size_t size,
		    hwt_etm_packet_fn *fn, void *context)
{
	const struct hwt_opencsd *ocsd = hwt_opencsd();
	struct walk w = { fn, context };
	ocsd_etmv4_cfg config = *cfg;
	unsigned char csid = 0;
	dcd_tree_handle_t tree;
	size_t at = 0;

	if (!ocsd)
		return -1;
	pthread_mutex_lock(&hwt_etm_ocsd_lock);
	hwt_etm_ocsd_quiet();
	tree = ocsd->create_dcd_tree(OCSD_TRC_SRC_SINGLE, 0);
	if (!tree ||
	    ocsd->dt_create_decoder(tree, OCSD_BUILTIN_DCD_ETMV4I, OCSD_CREATE_FLG_PACKET_PROC,
				    &config, &csid) != OCSD_OK ||
	    ocsd->dt_attach_packet_callback(tree, csid, OCSD_C_API_CB_PKT_SINK, (void *)packet,
					    &w) != OCSD_OK) {
		if (tree)
			ocsd->destroy_dcd_tree(tree);
		pthread_mutex_unlock(&hwt_etm_ocsd_lock);
		return -1;
	}
	pthread_mutex_unlock(&hwt_etm_ocsd_lock);
	while (at < size) {
		uint32_t used = 0;
		size_t n = size - at;
		ocsd_datapath_resp_t resp;

		if (n > UINT32_MAX)
			n = UINT32_MAX;
		resp = ocsd->dt_process_data(tree, OCSD_OP_DATA, (ocsd_trc_index_t)at, (uint32_t)n,
					     map + at, &used);
		if (OCSD_DATA_RESP_IS_FATAL(resp)) {
			/* A bad packet it will not pass: start again after it. */
			ocsd->dt_process_data(tree, OCSD_OP_RESET, (ocsd_trc_index_t)(at + used), 0,
					      NULL, NULL);
			if (!used)
				used = 1;
		}
		at += used;
	}
	ocsd->dt_process_data(tree, OCSD_OP_EOT, 0, 0, NULL, NULL);
	pthread_mutex_lock(&hwt_etm_ocsd_lock);
	ocsd->destroy_dcd_tree(tree);
	pthread_mutex_unlock(&hwt_etm_ocsd_lock);
	return 0;
}
