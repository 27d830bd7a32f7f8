/*
 * hwt import of CoreSight ETM trace (perf record -e cs_etm//): the cs_etm
 * parts (docs/perf.md, "cs_etm"). AUXTRACE_INFO's per-CPU blocks give the
 * trace units' registers, which become the bundle's etm_* header keys that
 * the decoder gives OpenCSD. Each AUX queue is cut at its A-Sync packets
 * (where a decoder can start) into pieces, and a piece goes to the stream
 * of the thread and image that its first timestamp falls in (the queue's
 * owners: the thread's images for a per-thread buffer, the context
 * switches for a CPU's). Formatted trace (an ETR's CoreSight frames) is
 * unwrapped first and the bytes of the CPU's trace ID kept.
 */
#include "import_int.h"
#include "cs_formatter.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

int hwt_import_etm_info(struct import *im, const struct hwt_perf_record *rec)
{
	struct ietm_config *c = &im->etm;
	char error[256];
	int err;

	if (c->have_info) {
		hwt_import_warn(im, "%s: a second cs_etm AUXTRACE_INFO record: ignored",
				im->perf_path);
		return 0;
	}
	err = hwt_perf_cs_etm_parse(rec->u.auxtrace_info.priv, rec->u.auxtrace_info.npriv,
				    &c->info, error, sizeof(error));
	if (err == -hpf_nomem)
		return -1;
	if (err) {
		snprintf(c->error, sizeof(c->error), "%s: at byte %" PRIu64 ": %s", im->perf_path,
			 rec->offset, error);
		return 0;
	}
	for (uint32_t i = 0; i < c->info.ncpus; i++)
		if (c->info.cpus[i].kind == HWT_CS_ETMV3) {
			snprintf(c->error, sizeof(c->error), "%s: CPU %" PRIu64 " has an ETMv3 or "
				 "PTM trace unit: only ETMv4 and ETE trace is imported",
				 im->perf_path, c->info.cpus[i].cpu);
			hwt_perf_cs_etm_info_free(&c->info);
			return 0;
		}
	c->have_info = 1;
	/* The bundle has one set of registers: the units must agree on them. */
	for (uint32_t i = 1; i < c->info.ncpus; i++) {
		const struct hwt_perf_cs_etm_cpu *a = &c->info.cpus[0], *b = &c->info.cpus[i];

		if (a->kind != b->kind || a->trcconfigr != b->trcconfigr ||
		    a->trcidr0 != b->trcidr0 || a->trcidr1 != b->trcidr1 ||
		    a->trcidr2 != b->trcidr2 || a->trcidr8 != b->trcidr8) {
			hwt_import_warn(im, "%s: the trace units of CPU %" PRIu64 " and CPU %" PRIu64
					" differ: decoded with those of CPU %" PRIu64, im->perf_path,
					a->cpu, b->cpu, a->cpu);
			break;
		}
	}
	return 0;
}

size_t hwt_import_etm_keys(const struct import *im, char (*keys)[128], size_t room)
{
	const struct hwt_perf_cs_etm_cpu *c = &im->etm.info.cpus[0];
	size_t n = 0;

	if (room < 8)
		return 0;
	snprintf(keys[n++], sizeof(keys[0]), "trace=etmv4");
	snprintf(keys[n++], sizeof(keys[0]), "etm_trcconfigr=%#" PRIx64, c->trcconfigr);
	snprintf(keys[n++], sizeof(keys[0]), "etm_trcidr0=%#" PRIx64, c->trcidr0);
	snprintf(keys[n++], sizeof(keys[0]), "etm_trcidr1=%#" PRIx64, c->trcidr1);
	snprintf(keys[n++], sizeof(keys[0]), "etm_trcidr2=%#" PRIx64, c->trcidr2);
	snprintf(keys[n++], sizeof(keys[0]), "etm_trcidr8=%#" PRIx64, c->trcidr8);
	snprintf(keys[n++], sizeof(keys[0]), "etm_trcauthstatus=%#" PRIx64, c->trcauthstatus);
	if (c->kind == HWT_CS_ETE)
		snprintf(keys[n++], sizeof(keys[0]), "etm_trcdevarch=%#" PRIx64, c->trcdevarch);
	return n;
}

/* The trace unit of a queue: of the CPU its buffers name, else the first. */
static const struct hwt_perf_cs_etm_cpu *unit_of(const struct import *im, const struct iqueue *q)
{
	for (uint32_t i = 0; q->cpu != UINT32_MAX && i < im->etm.info.ncpus; i++)
		if (im->etm.info.cpus[i].cpu == q->cpu)
			return &im->etm.info.cpus[i];
	return &im->etm.info.cpus[0];
}

/* ----- Formatted trace --------------------------------------------------- */

/* The bytes of trace ID id out of whole 16-byte frames (in place: out <= in). */
static size_t deformat(uint8_t *buf, size_t size, unsigned id, uint64_t *other)
{
	size_t out = 0;
	unsigned cur = 0xff;

	for (size_t f = 0; f + HWT_CS_FRAME_SIZE <= size; f += HWT_CS_FRAME_SIZE) {
		uint8_t frame[HWT_CS_FRAME_SIZE], flags;

		memcpy(frame, buf + f, sizeof(frame));
		flags = frame[15];
		for (unsigned k = 0; k < 8; k++) {
			uint8_t b = frame[2 * k];
			int flag = (flags >> k) & 1;

			if (b & 1) {
				unsigned next = b >> 1;

				if (k == 7) {
					cur = next;
					break;
				}
				/* Flag set: the data byte after the ID is the old ID's. */
				if (flag && cur == id)
					buf[out++] = frame[2 * k + 1];
				else if (flag && cur)
					(*other)++;
				cur = next;
				if (!flag) {
					if (cur == id)
						buf[out++] = frame[2 * k + 1];
					else if (cur)
						(*other)++;
				}
				continue;
			}
			if (cur == id)
				buf[out++] = (uint8_t)((b & 0xfe) | flag);
			else if (cur)
				(*other)++;
			if (k < 7) {
				if (cur == id)
					buf[out++] = frame[2 * k + 1];
				else if (cur)
					(*other)++;
			}
		}
	}
	return out;
}

/* ----- Pieces ------------------------------------------------------------ */

struct piece {
	uint64_t offset, time;
	int timed;
};

struct cut {
	struct import *im;
	struct piece *pieces;
	size_t npieces, cap;
	uint64_t damaged;
	int synced;
};

static int on_packet(void *context, enum hwt_cs_etm_packet type, uint64_t offset,
		     uint64_t size, uint64_t timestamp)
{
	struct cut *c = context;

	if (type == HWT_CS_ETM_PKT_ASYNC) {
		c->synced = 1;
		if (hwt_import_grow(c->im, (void **)&c->pieces, &c->cap, c->npieces + 1,
				    sizeof(*c->pieces)))
			return 1;
		c->pieces[c->npieces].offset = offset;
		c->pieces[c->npieces].timed = 0;
		c->pieces[c->npieces].time = 0;
		c->npieces++;
		return 0;
	}
	if (type == HWT_CS_ETM_PKT_BAD)
		c->damaged += size;
	if (type == HWT_CS_ETM_PKT_TIMESTAMP && c->npieces && !c->pieces[c->npieces - 1].timed) {
		c->pieces[c->npieces - 1].timed = 1;
		c->pieces[c->npieces - 1].time = timestamp;
	}
	return 0;
}

/* The owner at time t: the last change at or before it, else the first. */
static struct istream *owner_at(const struct iqueue *q, uint64_t t)
{
	struct istream *s = q->nowners ? q->owners[0].out : NULL;

	for (size_t i = 0; i < q->nowners && q->owners[i].time <= t; i++)
		s = q->owners[i].out;
	return s;
}

/*
 * The bytes of buffer a that the queue's AUX records say the trace unit
 * wrote, into out (all of them without AUX records, or in snapshot mode):
 * perf pads a buffer to 8 bytes, and padding is no ETM trace.
 */
static size_t aux_bytes(const struct import *im, const struct iqueue *q, const struct iaux *a,
			uint8_t *out)
{
	uint64_t end = a->offset + a->have;
	size_t n = 0;
	int any = 0;

	for (size_t i = 0; !im->etm.info.snapshot && i < im->nevents; i++) {
		const struct ievent *e = &im->events[i];
		uint64_t from, to;

		if (e->type != PERF_RECORD_AUX || !e->u.aux.size ||
		    (q->per_cpu ? !e->has_cpu || e->cpu != q->cpu : e->tid != q->tid))
			continue;
		any = 1;
		from = e->u.aux.offset > a->offset ? e->u.aux.offset : a->offset;
		to = e->u.aux.offset + e->u.aux.size < end ? e->u.aux.offset + e->u.aux.size : end;
		if (from >= to)
			continue;
		memcpy(out + n, a->data + (from - a->offset), (size_t)(to - from));
		n += (size_t)(to - from);
	}
	if (any)
		return n;
	memcpy(out, a->data, (size_t)a->have);
	return (size_t)a->have;
}

int hwt_import_etm_split(struct import *im, struct iqueue *q)
{
	const struct hwt_perf_cs_etm_cpu *unit = unit_of(im, q);
	struct cut c = { im, NULL, 0, 0, 0, 0 };
	struct istream *owner = NULL;
	uint64_t total = 0, other = 0;
	uint8_t *data;
	size_t at = 0;
	int err = 0;

	for (size_t i = 0; i < q->nbufs; i++)
		total += q->bufs[i]->have;
	if (!total)
		return 0;
	data = malloc(total);
	if (!data)
		return -hie_nomem;
	for (size_t i = 0; i < q->nbufs; i++)
		at += aux_bytes(im, q, q->bufs[i], data + at);
	if (q->formatted) {
		at = deformat(data, at, (unsigned)unit->trctraceidr, &other);
		if (other)
			hwt_import_warn(im, "%s: %" PRIu64 " bytes of other trace IDs than %" PRIu64
					" (the trace unit's) in the AUX data of %s %u: left out",
					im->perf_path, other,
					unit->trctraceidr, q->per_cpu ? "CPU" : "thread",
					q->per_cpu ? q->cpu : q->tid);
	}
	err = hwt_perf_cs_etm_packets(unit, data, at, on_packet, &c);
	if (err || im->nomem) {
		free(data);
		free(c.pieces);
		return im->nomem || err == -hpf_nomem ? -hie_nomem : -hie_internal;
	}
	if (!c.npieces) {
		hwt_import_warn(im, "%s: no A-Sync packet in the %zu bytes of ETM trace of %s %u: "
				"not decodable, left out", im->perf_path, at,
				q->per_cpu ? "CPU" : "thread", q->per_cpu ? q->cpu : q->tid);
		im->stats.damaged_bytes += at;
	} else if (c.pieces[0].offset) {
		hwt_import_warn(im, "%s: %" PRIu64 " bytes of ETM trace of %s %u before its first "
				"A-Sync: left out", im->perf_path, c.pieces[0].offset,
				q->per_cpu ? "CPU" : "thread", q->per_cpu ? q->cpu : q->tid);
		im->stats.damaged_bytes += c.pieces[0].offset;
	}
	for (size_t i = 0; !err && i < c.npieces; i++) {
		uint64_t from = c.pieces[i].offset;
		uint64_t to = i + 1 < c.npieces ? c.pieces[i + 1].offset : at;

		if (c.pieces[i].timed || !owner)
			owner = owner_at(q, c.pieces[i].time);
		if (!owner) {
			im->stats.orphan_bytes += to - from;
			continue;
		}
		err = hwt_import_stream_write(im, owner, data + from, (size_t)(to - from));
	}
	if (c.damaged)
		im->stats.damaged_bytes += c.damaged;
	free(data);
	free(c.pieces);
	return err;
}
