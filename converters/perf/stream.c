/*
 * A stream's TSC packets: found (their largest value) or moved onto the
 * global clock of the export, in place. The other packets are untouched;
 * bytes that do not decode as packets are left as they are up to the next
 * PSB, where perf's decoder (like libipt) synchronises again.
 */
#include "export_int.h"

#include <intel-pt.h>
#include <string.h>

int hwt_xport_stream_tsc(const struct xport *x, const struct xport_image *im, uint8_t *buf,
			 size_t size, uint64_t *min_tsc, uint64_t *max_tsc, uint64_t *damaged)
{
	struct pt_packet_decoder *dec;
	struct pt_config config;
	uint64_t off = 0, bad_at;
	int status;

	*damaged = 0;
	if (!size)
		return 0;
	pt_config_init(&config);
	config.begin = buf;
	config.end = buf + size;
	dec = pt_pkt_alloc_decoder(&config);
	if (!dec)
		return -hxe_nomem;
	status = pt_pkt_sync_forward(dec);
	if (status < 0) {
		*damaged = size; /* no PSB at all */
		pt_pkt_free_decoder(dec);
		return 0;
	}
	pt_pkt_get_sync_offset(dec, &off);
	*damaged += off;
	for (;;) {
		struct pt_packet packet;

		pt_pkt_get_offset(dec, &off);
		status = pt_pkt_next(dec, &packet, sizeof(packet));
		if (status == -pte_eos)
			break;
		if (status < 0) {
			bad_at = off;
			if (pt_pkt_sync_forward(dec) < 0) {
				*damaged += size - bad_at;
				break;
			}
			pt_pkt_get_sync_offset(dec, &off);
			*damaged += off - bad_at;
			continue;
		}
		if (packet.type != ppt_tsc)
			continue;
		if (!im) {
			if (packet.payload.tsc.tsc > *max_tsc)
				*max_tsc = packet.payload.tsc.tsc;
			if (packet.payload.tsc.tsc < *min_tsc)
				*min_tsc = packet.payload.tsc.tsc;
		} else {
			uint64_t t = hwt_xport_tsc(x, im, packet.payload.tsc.tsc);

			for (int i = 0; i < 7; i++)
				buf[off + 1 + (uint64_t)i] = (uint8_t)(t >> (8 * i));
		}
	}
	pt_pkt_free_decoder(dec);
	return 0;
}
