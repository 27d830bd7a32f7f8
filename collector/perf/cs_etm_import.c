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

/* The bytes of every trace ID out of whole 16-byte frames: out[id] gets
   len[id] bytes (out[id] holds size bytes each, the caller's). */
static void deformat(const uint8_t *buf, size_t size, uint8_t **out, size_t *len)
{
	unsigned cur = 0;

	for (size_t f = 0; f + HWT_CS_FRAME_SIZE <= size; f += HWT_CS_FRAME_SIZE) {
		const uint8_t *frame = buf + f;
		uint8_t flags = frame[15];

		for (unsigned k = 0; k < 8; k++) {
			uint8_t b = frame[2 * k];
			int flag = (flags >> k) & 1;

			if (b & 1) {
				unsigned next = b >> 1;

				/* An ID in byte 14 takes effect with the next frame. */
				if (k == 7) {
					cur = next;
					break;
				}
				/* Flag set: the data byte after the ID is still the old ID's. */
				if (flag && cur)
					out[cur][len[cur]++] = frame[2 * k + 1];
				cur = next;
				if (!flag && cur)
					out[cur][len[cur]++] = frame[2 * k + 1];
				continue;
			}
			if (cur)
				out[cur][len[cur]++] = (uint8_t)((b & 0xfe) | flag);
			if (k < 7 && cur)
				out[cur][len[cur]++] = frame[2 * k + 1];
		}
	}
}

/* ----- Pieces ------------------------------------------------------------ */

/* A stretch of one trace unit's bytes from an A-Sync to the next. */
struct piece {
	const uint8_t *data;
	uint64_t len, time;
	size_t order;              /* for ties: the unit's, then the stream's order */
};

struct cut {
	struct import *im;
	const uint8_t *data;
	uint64_t size;
	struct piece *pieces;
	size_t npieces, cap, first; /* first: this unit's first piece */
	uint64_t time;             /* the unit's last timestamp */
	int timed;                 /* the unit has had one */
	int piece_timed;           /* the last piece has had one */
	uint64_t damaged, unsynced; /* bytes: no packets, before an A-Sync */
};

static int on_packet(void *context, enum hwt_cs_etm_packet type, uint64_t offset,
		     uint64_t size, uint64_t timestamp)
{
	struct cut *c = context;

	if (type == HWT_CS_ETM_PKT_ASYNC) {
		struct piece *p;

		if (hwt_import_grow(c->im, (void **)&c->pieces, &c->cap, c->npieces + 1,
				    sizeof(*c->pieces)))
			return 1;
		if (c->npieces > c->first) {
			p = &c->pieces[c->npieces - 1];
			p->len = (uint64_t)(c->data + offset - p->data);
		} else {
			c->unsynced += offset;
		}
		p = &c->pieces[c->npieces++];
		p->data = c->data + offset;
		p->len = c->size - offset;
		/* Untimed until its first timestamp: the one before it, else its own. */
		p->time = c->timed ? c->time : UINT64_MAX;
		p->order = c->npieces;
		c->piece_timed = 0;
		return 0;
	}
	if (type == HWT_CS_ETM_PKT_BAD)
		c->damaged += size;
	if (type == HWT_CS_ETM_PKT_TIMESTAMP) {
		if (c->npieces > c->first && !c->piece_timed)
			c->pieces[c->npieces - 1].time = timestamp;
		c->piece_timed = 1;
		c->time = timestamp;
		c->timed = 1;
	}
	return 0;
}

/* Pieces of one unit's bytes into c (its first timestamp names a piece's time). */
static int cut_unit(struct cut *c, const struct hwt_perf_cs_etm_cpu *unit, const uint8_t *data,
		    size_t size)
{
	int err;

	c->data = data;
	c->size = size;
	c->piece_timed = 0;
	c->first = c->npieces;
	c->timed = 0;
	err = hwt_perf_cs_etm_packets(unit, data, size, on_packet, c);
	if (!err && c->npieces == c->first)
		c->unsynced += size;
	return err;
}

static int piece_cmp(const void *pa, const void *pb)
{
	const struct piece *a = pa, *b = pb;

	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

/* The trace unit whose trace ID is id, or NULL. */
static const struct hwt_perf_cs_etm_cpu *unit_of_id(const struct import *im, unsigned id)
{
	for (uint32_t i = 0; i < im->etm.info.ncpus; i++)
		if (im->etm.info.cpus[i].trctraceidr == id)
			return &im->etm.info.cpus[i];
	return NULL;
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

#define TRACE_IDS 0x80u

int hwt_import_etm_split(struct import *im, struct iqueue *q)
{
	struct cut c = { 0 };
	struct istream *owner = NULL;
	uint8_t *data, *ids[TRACE_IDS] = { NULL };
	size_t len[TRACE_IDS] = { 0 };
	uint64_t total = 0;
	size_t at = 0;
	int err = 0;

	c.im = im;
	for (size_t i = 0; i < q->nbufs; i++)
		total += q->bufs[i]->have;
	if (!total)
		return 0;
	data = malloc(total);
	if (!data)
		return -hie_nomem;
	for (size_t i = 0; i < q->nbufs; i++)
		at += aux_bytes(im, q, q->bufs[i], data + at);
	if (!q->formatted) {
		err = cut_unit(&c, unit_of(im, q), data, at);
	} else {
		/* Each trace unit's bytes on their own (an ETR collects several). */
		for (unsigned id = 1; id < TRACE_IDS && !err; id++)
			if (!(ids[id] = malloc(at ? at : 1)))
				err = -hpf_nomem;
		if (!err)
			deformat(data, at, ids, len);
		for (unsigned id = 1; id < TRACE_IDS && !err; id++) {
			const struct hwt_perf_cs_etm_cpu *unit = unit_of_id(im, id);

			if (!len[id])
				continue;
			if (!unit) {
				hwt_import_warn(im, "%s: %zu bytes of trace ID %u, which no CPU's trace "
						"unit has, in the AUX data of %s %u: left out",
						im->perf_path, len[id], id, q->per_cpu ? "CPU" : "thread",
						q->per_cpu ? q->cpu : q->tid);
				im->stats.damaged_bytes += len[id];
				continue;
			}
			err = cut_unit(&c, unit, ids[id], len[id]);
		}
	}
	if (err || im->nomem) {
		err = im->nomem || err == -hpf_nomem ? -hie_nomem
		      : err == -hpf_opencsd	       ? -hie_opencsd
						       : -hie_internal;
		goto out;
	}
	if (c.unsynced) {
		hwt_import_warn(im, "%s: %" PRIu64 " bytes of ETM trace of %s %u %s: left out",
				im->perf_path, c.unsynced, q->per_cpu ? "CPU" : "thread",
				q->per_cpu ? q->cpu : q->tid,
				"before an A-Sync packet (not decodable)");
		im->stats.damaged_bytes += c.unsynced;
	}
	im->stats.damaged_bytes += c.damaged;
	/* In time order: a thread that ran on several CPUs is in several units' trace. */
	if (c.npieces)
		qsort(c.pieces, c.npieces, sizeof(*c.pieces), piece_cmp);
	for (size_t i = 0; !err && i < c.npieces; i++) {
		const struct piece *p = &c.pieces[i];

		if (p->time != UINT64_MAX || !owner)
			owner = hwt_import_owner_at(q, p->time == UINT64_MAX ? 0 : p->time);
		if (!owner) {
			im->stats.orphan_bytes += p->len;
			continue;
		}
		err = hwt_import_stream_write(im, owner, p->data, (size_t)p->len);
	}
out:
	for (unsigned id = 0; id < TRACE_IDS; id++)
		free(ids[id]);
	free(data);
	free(c.pieces);
	return err;
}
