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

#include "etm_config.h"
#include "etm_packets.h"
#include "hwt_dump.h"

struct listing {
	FILE *out;
	struct hwt_bundle *bundle;
	const char *path;
	int problems;
};

static void packet(void *context, uint64_t offset, const ocsd_etmv4_i_pkt *p)
{
	struct listing *l = context;
	char text[512];

	if (hwt_opencsd()->pkt_str(OCSD_PROTOCOL_ETMV4I, p, text, (int)sizeof(text)) != OCSD_OK)
		snprintf(text, sizeof(text), "(packet type 0x%x)", (unsigned)p->type);
	fprintf(l->out, "  0x%08" PRIx64 " %s\n", offset, text);
	switch (p->type) {
	case ETM4_PKT_I_NOTSYNC:
	case ETM4_PKT_I_BAD_SEQUENCE:
	case ETM4_PKT_I_BAD_TRACEMODE:
	case ETM4_PKT_I_RESERVED:
	case ETM4_PKT_I_RESERVED_CFG:
	case ETM4_PKT_I_INCOMPLETE_EOT:
		l->problems++;
		hwt_bundle_diag_add(l->bundle, hwt_diag_stream, l->path, (int64_t)offset,
				    "packet at offset 0x%" PRIx64 ": %s", offset, text);
		break;
	default:
		break;
	}
}

int hwt_dump_etm_packets(FILE *out, struct hwt_bundle *bundle, const char *path,
			 const uint8_t *map, size_t size)
{
	struct listing l = { out, bundle, path, 0 };
	ocsd_etmv4_cfg cfg;

	hwt_etm_config(bundle, &cfg);
	if (!hwt_opencsd()) {
		hwt_bundle_diag_add(bundle, hwt_diag_stream, path, -1,
				    "packets not listed: ETMv4 trace needs OpenCSD (%s)",
				    hwt_opencsd_error());
		return 1;
	}
	if (hwt_etm_packets(&cfg, map, size, packet, &l) < 0)
		return -1;
	return l.problems;
}
