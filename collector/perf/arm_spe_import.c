/*
 * hwt import of Arm SPE recordings (perf record -e arm_spe_0//): the
 * arm_spe parts (docs/perf.md, "arm_spe"). SPE samples are whole records,
 * each of one operation, so an AUX queue is split record by record: a
 * record goes to the SPE stream (spe/) of the thread its Context packet
 * names (CONTEXTIDR_EL1 holds the thread ID when perf asks the kernel for
 * it), else of the queue's owner at its timestamp (its thread's images for
 * a per-thread buffer, the context switch records for a CPU's). Records
 * copy byte for byte, Padding between them left out.
 */
#include "import_int.h"
#include "spe_packet.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void hwt_import_spe_info(struct import *im, const struct hwt_perf_record *rec)
{
	const uint64_t *p = rec->u.auxtrace_info.priv;
	size_t n = rec->u.auxtrace_info.npriv;

	if (im->spe.have_info) {
		hwt_import_warn(im, "%s: a second arm_spe AUXTRACE_INFO record: ignored",
				im->perf_path);
		return;
	}
	if (n < HWT_PERF_ARM_SPE_INFO_WORDS) {
		hwt_import_warn(im, "%s: the arm_spe AUXTRACE_INFO record is too short (%zu words): "
				"ignored", im->perf_path, n);
		return;
	}
	im->spe.have_info = 1;
	if (n > 3 && p[0] == 2 && p[1] >= 3 && p[1] < n) {
		/* Newer perf's version 2: version, header words, PMU type, CPUs,
		   then per-CPU metadata; a buffer's CPU says per CPU or thread. */
		im->spe.pmu_type = (uint32_t)p[2];
		im->spe.per_cpu = 1;
		return;
	}
	im->spe.pmu_type = (uint32_t)p[HWT_PERF_ARM_SPE_PMU_TYPE];
	im->spe.per_cpu = !!p[HWT_PERF_ARM_SPE_PER_CPU_MMAPS];
}

/* Where the record goes: the thread of its context, else the queue's owner. */
static struct istream *record_owner(struct import *im, const struct iqueue *q,
				    const struct hwt_spe_record *r, uint64_t t)
{
	struct istream *s = NULL;

	if ((r->has & HWT_SPE_HAS_CONTEXT) && r->context_index == 0)
		s = hwt_import_thread_stream(im, r->context, t);
	return s ? s : hwt_import_owner_at(q, t);
}

int hwt_import_spe_split(struct import *im, struct iqueue *q)
{
	struct hwt_spe_decoder d;
	struct hwt_spe_record r;
	uint64_t total = 0, orphan = 0, last_time = 0;
	unsigned said = 0;
	uint8_t *data;
	size_t at = 0;
	int ret, err = 0;

	for (size_t i = 0; i < q->nbufs; i++)
		total += q->bufs[i]->have;
	if (!total)
		return 0;
	data = malloc(total);
	if (!data)
		return -hie_nomem;
	for (size_t i = 0; i < q->nbufs; i++) {
		memcpy(data + at, q->bufs[i]->data, (size_t)q->bufs[i]->have);
		at += (size_t)q->bufs[i]->have;
	}
	hwt_spe_decoder_init(&d, data, at);
	while (!err && (ret = hwt_spe_decoder_next(&d, &r)) != 0) {
		struct istream *s;

		if (ret < 0) {
			uint64_t lost = d.pos - d.lost_from;

			im->stats.damaged_bytes += lost;
			if (said++ < 8)
				hwt_import_warn(im, "%s: the SPE data of %s %u: %s at byte %zu: %" PRIu64
						" bytes from %zu left out (the records before are "
						"kept, the import goes on at the next record)",
						im->perf_path, q->per_cpu ? "CPU" : "thread",
						q->per_cpu ? q->cpu : q->tid, hwt_spe_errstr(ret),
						d.error_at, lost, d.lost_from);
			continue;
		}
		/* A record without a timestamp is where the one before it was. */
		if (r.has & HWT_SPE_HAS_TIMESTAMP)
			last_time = r.timestamp;
		s = record_owner(im, q, &r, last_time);
		if (!s) {
			orphan += d.pos - d.record_at;
			continue;
		}
		err = hwt_import_stream_write(im, s, data + d.record_at, d.pos - d.record_at);
	}
	if (said > 8)
		hwt_import_warn(im, "%s: %u more damaged places in the SPE data of %s %u",
				im->perf_path, said - 8, q->per_cpu ? "CPU" : "thread",
				q->per_cpu ? q->cpu : q->tid);
	if (orphan) {
		im->stats.orphan_bytes += orphan;
		hwt_import_warn(im, "%s: %" PRIu64 " bytes of SPE records of %s %u belong to no "
				"thread the sideband names: left out", im->perf_path, orphan,
				q->per_cpu ? "CPU" : "thread", q->per_cpu ? q->cpu : q->tid);
	}
	free(data);
	if (im->nomem)
		return -hie_nomem;
	return err;
}
