/*
 * The ETMv4 packets of a stream, one by one, as OpenCSD's packet processor
 * cuts them (no decode): for `hwt dump --packets`, and for the decoder to
 * find packets it must not hand to OpenCSD's decoder (etm_stream.c).
 */
#ifndef HWT_ETM_PACKETS_H
#define HWT_ETM_PACKETS_H

#include <stddef.h>
#include <stdint.h>

#include <opencsd/c_api/opencsd_c_api.h>
#include <opencsd/etmv4/trc_pkt_types_etmv4.h>

typedef void hwt_etm_packet_fn(void *context, uint64_t offset, const ocsd_etmv4_i_pkt *packet);

/*
 * Calls fn for each packet of map[0, size) under cfg. After a packet the
 * processor cannot pass it starts again one byte on, at the next A-Sync.
 * 0, or -1 when OpenCSD could not be set up.
 */
int hwt_etm_packets(const ocsd_etmv4_cfg *cfg, const uint8_t *map, size_t size,
		    hwt_etm_packet_fn *fn, void *context);

#endif
