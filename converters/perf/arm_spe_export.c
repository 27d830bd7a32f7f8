/*
 * hwt export of a bundle's Arm SPE streams (HWT_PERF_EXPORT_SPE): the
 * arm_spe parts of the file (docs/perf.md, "arm_spe"). The records go out
 * as they are, but for their Timestamp packets, which move onto the
 * export's clock as Intel PT's TSC packets do (stream.c); the packet keeps
 * its size (8 bytes of payload), so the stream keeps its length.
 */
#include "export_int.h"
#include "spe_packet.h"

static uint64_t get_le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++, v >>= 8)
		p[i] = (uint8_t)v;
}

void hwt_xport_spe_stream(const struct xport *x, const struct xport_image *im, uint8_t *buf,
			  size_t size, uint64_t *min_ts, uint64_t *max_ts, uint64_t *damaged)
{
	uint64_t min = UINT64_MAX, max = 0;
	size_t pos = 0;

	*damaged = 0;
	while (pos < size) {
		struct hwt_spe_packet p;
		int n = hwt_spe_packet_decode(buf + pos, size - pos, &p);

		if (n == HWT_SPE_ERR_TRUNCATED) {
			*damaged += size - pos;
			break;
		}
		if (n <= 0) {
			/* Not a packet: the byte goes out as it is. */
			(*damaged)++;
			pos++;
			continue;
		}
		if (p.kind == HWT_SPE_TIMESTAMP && n == 9) {
			uint64_t ts = get_le64(buf + pos + 1);

			if (ts < min)
				min = ts;
			if (ts > max)
				max = ts;
			if (im)
				put_le64(buf + pos + 1, hwt_xport_tsc(x, im, ts));
		}
		pos += (size_t)n;
	}
	if (min < *min_ts)
		*min_ts = min;
	if (min != UINT64_MAX && max > *max_ts)
		*max_ts = max;
}

void hwt_xport_spe_info(const struct xport *x, uint64_t priv[HWT_PERF_ARM_SPE_INFO_WORDS])
{
	(void)x;
	priv[HWT_PERF_ARM_SPE_PMU_TYPE] = HWT_PERF_EXPORT_ARM_SPE_PMU_TYPE;
	/* Per-CPU buffers, a CPU per thread (as cs_etm's export): perf 6.1's
	   arm_spe takes a sample's thread from its Context packet there only. */
	priv[HWT_PERF_ARM_SPE_PER_CPU_MMAPS] = 1;
}
