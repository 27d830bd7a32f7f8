/*
 * The packets of cs_etm AUX data (hwt_perf_cs_etm.h): OpenCSD's ETMv4
 * packet processor cuts them; each packet
 * is handed on once the next one says where it ends.
 */
#include "hwt_perf_cs_etm.h"
#include "hwt_perfdata.h"

#include <string.h>

#include <opencsd/etmv4/trc_pkt_types_etmv4.h>

#include "hwt_opencsd.h"

struct walk {
	hwt_perf_cs_etm_packet_fn *fn;
	void *context;
	int held;                  /* a packet waits for its end */
	enum hwt_cs_etm_packet type;
	uint64_t offset, timestamp;
	int stop;                  /* fn's non-zero value */
};

static void hand_on(struct walk *w, uint64_t end)
{
	if (w->held && !w->stop)
		w->stop = w->fn(w->context, w->type, w->offset, end - w->offset, w->timestamp);
	w->held = 0;
}

static enum hwt_cs_etm_packet kind_of(const ocsd_etmv4_i_pkt *p)
{
	switch (p->type) {
	case ETM4_PKT_I_ASYNC:
		return HWT_CS_ETM_PKT_ASYNC;
	case ETM4_PKT_I_TRACE_INFO:
		return HWT_CS_ETM_PKT_TRACE_INFO;
	case ETM4_PKT_I_TIMESTAMP:
		return HWT_CS_ETM_PKT_TIMESTAMP;
	case ETM4_PKT_I_OVERFLOW:
		return HWT_CS_ETM_PKT_OVERFLOW;
	case ETM4_PKT_I_NOTSYNC:
	case ETM4_PKT_I_BAD_SEQUENCE:
	case ETM4_PKT_I_BAD_TRACEMODE:
	case ETM4_PKT_I_RESERVED:
	case ETM4_PKT_I_RESERVED_CFG:
	case ETM4_PKT_I_INCOMPLETE_EOT:
		return HWT_CS_ETM_PKT_BAD;
	default:
		return HWT_CS_ETM_PKT_OTHER;
	}
}

static ocsd_datapath_resp_t packet(const void *context, const ocsd_datapath_op_t op,
				   const ocsd_trc_index_t index, const void *pkt)
{
	struct walk *w = (struct walk *)context;
	const ocsd_etmv4_i_pkt *p = pkt;

	if (op != OCSD_OP_DATA || !p)
		return OCSD_RESP_CONT;
	hand_on(w, index);
	w->held = 1;
	w->type = kind_of(p);
	w->offset = index;
	w->timestamp = p->ts.timestamp;
	return w->stop ? OCSD_RESP_FATAL_SYS_ERR : OCSD_RESP_CONT;
}

int hwt_perf_cs_etm_packets(const struct hwt_perf_cs_etm_cpu *c, const uint8_t *buf,
			    size_t size, hwt_perf_cs_etm_packet_fn *fn, void *context)
{
	struct walk w = { fn, context, 0, HWT_CS_ETM_PKT_OTHER, 0, 0, 0 };
	const struct hwt_opencsd *ocsd = hwt_opencsd();
	ocsd_etmv4_cfg v4;
	unsigned char csid = 0;
	dcd_tree_handle_t tree;
	ocsd_err_t err;
	size_t at = 0;

	if (!c || !fn || (!buf && size) || c->kind == HWT_CS_ETMV3)
		return -hpf_invalid;
	if (!ocsd)
		return -hpf_opencsd;
	tree = ocsd->create_dcd_tree(OCSD_TRC_SRC_SINGLE, 0);
	if (!tree)
		return -hpf_nomem;
	/*
	 * ETE too: OpenCSD 1.3.3's C API has no packet callbacks for ETE, and
	 * ETE encodes the packets read here (A-Sync, Trace Info, Timestamp,
	 * Overflow) as ETMv4 does; its packets of its own read as reserved.
	 */
	memset(&v4, 0, sizeof(v4));
	v4.reg_idr0 = (uint32_t)c->trcidr0;
	v4.reg_idr1 = (uint32_t)c->trcidr1;
	v4.reg_idr2 = (uint32_t)c->trcidr2;
	v4.reg_idr8 = (uint32_t)c->trcidr8;
	v4.reg_configr = (uint32_t)c->trcconfigr;
	v4.reg_traceidr = (uint32_t)c->trctraceidr;
	v4.arch_ver = ARCH_V8;
	v4.core_prof = profile_CortexA;
	err = ocsd->dt_create_decoder(tree, OCSD_BUILTIN_DCD_ETMV4I, OCSD_CREATE_FLG_PACKET_PROC,
				      &v4, &csid);
	if (err == OCSD_OK)
		err = ocsd->dt_attach_packet_callback(tree, csid, OCSD_C_API_CB_PKT_SINK,
						      (void *)packet, &w);
	if (err != OCSD_OK) {
		ocsd->destroy_dcd_tree(tree);
		return err == OCSD_ERR_MEM ? -hpf_nomem : -hpf_invalid;
	}
	while (at < size && !w.stop) {
		uint32_t used = 0;
		size_t chunk = size - at > 0x10000 ? 0x10000 : size - at;
		ocsd_datapath_resp_t resp = ocsd->dt_process_data(tree, OCSD_OP_DATA,
								  (ocsd_trc_index_t)at,
								  (uint32_t)chunk, buf + at, &used);

		if (OCSD_DATA_RESP_IS_FATAL(resp) && !w.stop) {
			/* Past the bytes it could not take, as the decoder does. */
			ocsd->dt_process_data(tree, OCSD_OP_RESET, (ocsd_trc_index_t)(at + used), 0,
					      NULL, NULL);
			if (!used)
				used = 1;
		}
		at += used ? used : chunk;
	}
	if (!w.stop)
		ocsd->dt_process_data(tree, OCSD_OP_EOT, 0, 0, NULL, NULL);
	hand_on(&w, size);
	ocsd->destroy_dcd_tree(tree);
	return w.stop;
}
