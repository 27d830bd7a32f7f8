/*
 * hwt export of a bundle with ETMv4 streams: the cs_etm parts of the file
 * (docs/perf.md, "cs_etm"). The trace unit perf.data claims is one ETMv4
 * on CPU 0 with the bundle's registers (converters/etm_config.h), and the
 * AUX data is unformatted, as a TRBE writes it. The streams' Timestamp
 * packets move onto the export's clock as Intel PT's TSC packets do
 * (stream.c); a Timestamp packet there carries all 64 bits, since the
 * compressed form of the stream refers to values that have changed.
 */
#include "export_int.h"
#include "etm_config.h"
#include "hwt_perf_cs_etm.h"
#include "cs_formatter.h"

#include <stdlib.h>
#include <string.h>

void hwt_xport_etm_unit(const struct hwt_bundle *bundle, struct hwt_perf_cs_etm_cpu *c)
{
	ocsd_etmv4_cfg cfg;

	hwt_etm_config(bundle, &cfg);
	memset(c, 0, sizeof(*c));
	c->kind = hwt_bundle_key(bundle, "etm_trcdevarch") ? HWT_CS_ETE : HWT_CS_ETMV4;
	c->cpu = 0;
	c->trcconfigr = cfg.reg_configr;
	c->trctraceidr = cfg.reg_traceidr;
	c->trcidr0 = cfg.reg_idr0;
	c->trcidr1 = cfg.reg_idr1;
	c->trcidr2 = cfg.reg_idr2;
	c->trcidr8 = cfg.reg_idr8;
	c->trcauthstatus = hwt_etm_register(bundle, "trcauthstatus", HWT_ETM4_TRCAUTHSTATUS);
	c->trcdevarch = hwt_etm_register(bundle, "trcdevarch", 0);
	/* No TS_SOURCE: perf 6.1 knows none (the timestamps are then taken
	   as perf's clock, which the export's are). */
	c->ts_source = UINT64_MAX;
}

/* The bytes of a Timestamp packet's timestamp (after its header). */
static uint64_t timestamp_bytes(const uint8_t *p, uint64_t size)
{
	uint64_t n = 0;

	while (n < size && n < 8 && (p[n] & 0x80))
		n++;
	return n < size ? n + 1 : size;
}

struct etm_walk {
	const struct xport *x;
	const struct xport_image *im;
	const uint8_t *buf;
	uint8_t *out;              /* NULL: measure */
	uint64_t done, at;         /* bytes of buf copied, of out written */
	uint64_t min, max, damaged;
};

static int on_packet(void *context, enum hwt_cs_etm_packet type, uint64_t offset,
		     uint64_t size, uint64_t timestamp)
{
	struct etm_walk *w = context;
	struct hwt_etm4_encoder enc;
	uint8_t full[16];
	uint64_t ts_len;

	if (type == HWT_CS_ETM_PKT_BAD)
		w->damaged += size;
	if (type != HWT_CS_ETM_PKT_TIMESTAMP || size < 2)
		return 0;
	if (timestamp < w->min)
		w->min = timestamp;
	if (timestamp > w->max)
		w->max = timestamp;
	/* The timestamp in full: an encoder whose last one differs in every bit. */
	hwt_etm4_encoder_init(&enc, full, sizeof(full));
	enc.timestamp = ~(w->im ? hwt_xport_tsc(w->x, w->im, timestamp) : timestamp);
	hwt_etm4_timestamp(&enc, ~enc.timestamp);
	ts_len = timestamp_bytes(w->buf + offset + 1, size - 1);
	if (w->out) {
		memcpy(w->out + w->at, w->buf + w->done, offset - w->done);
		w->at += offset - w->done;
		/* The header keeps its cycle-count bit; the cycle count follows as it was. */
		full[0] = w->buf[offset];
		memcpy(w->out + w->at, full, enc.pos);
		w->at += enc.pos;
		memcpy(w->out + w->at, w->buf + offset + 1 + ts_len, size - 1 - ts_len);
		w->at += size - 1 - ts_len;
	} else {
		w->at += offset - w->done + enc.pos + size - 1 - ts_len;
	}
	w->done = offset + size;
	return 0;
}

int hwt_xport_etm_stream(const struct xport *x, const struct xport_image *im,
			 const uint8_t *buf, size_t size, uint8_t *out, uint64_t *out_size,
			 uint64_t *min_ts, uint64_t *max_ts, uint64_t *damaged)
{
	struct etm_walk w = { x, im, buf, out, 0, 0, UINT64_MAX, 0, 0 };
	int err = hwt_perf_cs_etm_packets(&x->etm_unit, buf, size, on_packet, &w);

	if (err)
		return err == -hpf_nomem     ? -hxe_nomem
		       : err == -hpf_opencsd ? -hxe_opencsd
					     : -hxe_internal;
	if (out)
		memcpy(out + w.at, buf + w.done, size - w.done);
	w.at += size - w.done;
	*out_size = w.at;
	*damaged = w.damaged;
	if (w.min < *min_ts)
		*min_ts = w.min;
	if (w.max > *max_ts && w.min != UINT64_MAX)
		*max_ts = w.max;
	return 0;
}

int hwt_xport_etm_info(const struct xport *x, uint64_t **priv, size_t *npriv)
{
	struct hwt_perf_cs_etm_info info;
	int err;

	memset(&info, 0, sizeof(info));
	info.version = 1;
	info.pmu_type = HWT_PERF_EXPORT_CS_ETM_PMU_TYPE;
	info.ncpus = x->nidx ? x->nidx : 1;
	info.cpus = calloc(info.ncpus, sizeof(*info.cpus));
	if (!info.cpus)
		return -hxe_nomem;
	for (uint32_t i = 0; i < info.ncpus; i++) {
		info.cpus[i] = x->etm_unit;
		info.cpus[i].cpu = i;
		info.cpus[i].trctraceidr = HWT_CS_ID_MIN + i;
	}
	err = hwt_perf_cs_etm_build(&info, priv, npriv);
	free(info.cpus);
	return err ? -hxe_nomem : 0;
}
