/*
 * The ETMv4 packets of a stream, one by one, as OpenCSD's packet processor
 * cuts them (no decode): for `hwt dump --packets`, and for the decoder to
 * find packets it must not hand to OpenCSD's decoder (etm_stream.c).
 */
#ifndef HWT_ETM_PACKETS_H
#define HWT_ETM_PACKETS_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <opencsd/etmv4/trc_pkt_types_etmv4.h>

#include "hwt_opencsd.h"

/*
 * OpenCSD 1.3 has one error logger for all its decode trees, and making a
 * tree registers with it unguarded: trees are made and destroyed under
 * this lock (two threads making trees at once freed its list twice).
 */
extern pthread_mutex_t hwt_etm_ocsd_lock;

/*
 * With hwt_etm_ocsd_lock held, before a tree is made: switches that logger
 * off, once, so that decoders on several threads never write to it at
 * once (hwt reads errors from packets and responses, not from it).
 */
void hwt_etm_ocsd_quiet(void);

typedef void hwt_etm_packet_fn(void *context, uint64_t offset, const ocsd_etmv4_i_pkt *packet);

/*
 * Calls fn for each packet of map[0, size) under cfg. After a packet the
 * processor cannot pass it starts again one byte on, at the next A-Sync.
 * 0, or -1 when OpenCSD could not be set up (hwt_opencsd() is NULL when it
 * cannot be loaded).
 */
int hwt_etm_packets(const ocsd_etmv4_cfg *cfg, const uint8_t *map, size_t size,
		    hwt_etm_packet_fn *fn, void *context);

#endif
