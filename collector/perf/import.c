/*
 * hwt import (hwt_perf_import.h): reads the perf.data file through (the
 * PMU's configuration, the sideband records, the AUX data), builds the
 * process images (process.c), splits each AUX queue into its threads'
 * streams (split.c) and writes the bundle (bundle.c).
 */
#include "import_int.h"
#include "hwt_opencsd.h"
#include "hwt_perf_intel_pt.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char *hwt_perf_import_errstr(int code)
{
	if (code < 0)
		code = -code;
	switch ((enum hwt_perf_import_error)code) {
	case hie_ok:        return "success";
	case hie_internal:  return "internal error";
	case hie_invalid:   return "invalid argument";
	case hie_nomem:     return "out of memory";
	case hie_io:        return "input/output error";
	case hie_perf_data: return "the perf.data file cannot be read";
	case hie_no_trace:  return "no Intel PT, CoreSight ETM or Arm SPE trace in the perf.data file";
	case hie_exists:    return "the bundle directory exists and is not empty";
	case hie_opencsd:   return "CoreSight ETM trace needs OpenCSD (" HWT_OPENCSD_LIBRARY
				   "), which cannot be loaded";
	}
	return "unknown error";
}

void hwt_import_warn(struct import *im, const char *fmt, ...)
{
	char text[512];
	va_list ap;

	if (!im->opt || !im->opt->warn.fn)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	hwt_warn_say(&im->opt->warn, text);
}

__attribute__((format(printf, 2, 3)))
static void set_error(struct import *im, const char *fmt, ...)
{
	va_list ap;

	if (!im->opt || !im->opt->error || !im->opt->error_size)
		return;
	va_start(ap, fmt);
	vsnprintf(im->opt->error, im->opt->error_size, fmt, ap);
	va_end(ap);
}

int hwt_import_grow(struct import *im, void **items, size_t *cap, size_t need, size_t elem)
{
	size_t n;
	void *p;

	if (need <= *cap)
		return 0;
	n = *cap ? *cap : 16;
	while (n < need)
		n *= 2;
	p = realloc(*items, n * elem);
	if (!p) {
		im->nomem = 1;
		return -1;
	}
	*items = p;
	*cap = n;
	return 0;
}

/* perf's conversion back from its time to the TSC (TIME_CONV, AUXTRACE_INFO). */
uint64_t hwt_import_tsc(const struct import *im, uint64_t time)
{
	uint64_t t, quot, rem;

	if (!im->pt.time_mult)
		return time;
	t = time >= im->pt.time_zero ? time - im->pt.time_zero : 0;
	quot = t / im->pt.time_mult;
	rem = t % im->pt.time_mult;
	return (quot << im->pt.time_shift) + (rem << im->pt.time_shift) / im->pt.time_mult;
}

/* ----- The PMU's configuration ------------------------------------------ */

static unsigned low_bit(uint64_t mask)
{
	return mask ? (unsigned)__builtin_ctzll(mask) : 0;
}

static void take_info(struct import *im, const struct hwt_perf_record *rec)
{
	const uint64_t *p = rec->u.auxtrace_info.priv;
	size_t n = rec->u.auxtrace_info.npriv;
	struct ipt_config *c = &im->pt;

	if (n < HWT_PT_INFO_PER_CPU_MMAPS + 1) {
		hwt_import_warn(im, "%s: the AUXTRACE_INFO record is too short (%zu words): "
				"ignored", im->perf_path, n);
		return;
	}
	c->have_info = 1;
	c->time_shift = p[HWT_PT_INFO_TIME_SHIFT];
	c->time_mult = p[HWT_PT_INFO_TIME_MULT];
	c->time_zero = p[HWT_PT_INFO_TIME_ZERO];
	if (c->time_shift >= 64 || !c->time_mult) {
		hwt_import_warn(im, "%s: AUXTRACE_INFO's time conversion (shift %" PRIu64
				", multiplier %" PRIu64 ") cannot be: times taken as TSC",
				im->perf_path, c->time_shift, c->time_mult);
		c->time_shift = 0;
		c->time_mult = 1;
		c->time_zero = 0;
	}
	c->per_cpu = !!p[HWT_PT_INFO_PER_CPU_MMAPS];
	c->snapshot = !!p[HWT_PT_INFO_SNAPSHOT_MODE];
	/* The config bits of this PMU; defaults are Linux's. */
	c->tsc_bit = p[HWT_PT_INFO_TSC_BIT];
	c->noretcomp_bit = p[HWT_PT_INFO_NORETCOMP_BIT];
	c->pmu_type = (uint32_t)p[HWT_PT_INFO_PMU_TYPE];
	if (n > HWT_PT_INFO_CYC_BIT) {
		c->mtc_bit = p[HWT_PT_INFO_MTC_BIT];
		c->mtc_freq_bits = p[HWT_PT_INFO_MTC_FREQ_BITS];
		c->ctc_n = (uint32_t)p[HWT_PT_INFO_TSC_CTC_N];
		c->ctc_d = (uint32_t)p[HWT_PT_INFO_TSC_CTC_D];
		c->cyc_bit = p[HWT_PT_INFO_CYC_BIT];
	}
	if (n > HWT_PT_INFO_MAX_NONTURBO_RATIO)
		c->nom_freq = (uint32_t)p[HWT_PT_INFO_MAX_NONTURBO_RATIO];
	if (n > HWT_PT_INFO_FILTER_STR_LEN && p[HWT_PT_INFO_FILTER_STR_LEN]) {
		uint64_t len = p[HWT_PT_INFO_FILTER_STR_LEN];
		const char *s = (const char *)&p[HWT_PT_INFO_FILTER_STR_LEN + 1];

		if (len < (n - HWT_PT_INFO_FILTER_STR_LEN - 1) * 8 && !s[len]) {
			free(c->filter);
			c->filter = strdup(s);
		}
	}
}

/* The intel_pt event's attribute: its config and exclude_kernel. */
static void take_attr(struct import *im)
{
	struct ipt_config *c = &im->pt;

	for (size_t i = 0; i < hwt_perf_attr_count(im->reader); i++) {
		const struct perf_event_attr *a = &hwt_perf_attr_at(im->reader, i)->attr;

		if (a->type != c->pmu_type)
			continue;
		c->config = a->config;
		c->exclude_kernel = a->exclude_kernel;
		c->tsc = c->tsc_bit && (a->config & c->tsc_bit);
		c->mtc = c->mtc_bit && (a->config & c->mtc_bit);
		c->cyc = c->cyc_bit && (a->config & c->cyc_bit);
		c->retcomp = !(c->noretcomp_bit && (a->config & c->noretcomp_bit));
		c->mtc_freq = c->mtc_freq_bits ?
			(unsigned)((a->config & c->mtc_freq_bits) >> low_bit(c->mtc_freq_bits)) : 0;
		return;
	}
	hwt_import_warn(im, "%s: no event attribute of the PMU type %u that AUXTRACE_INFO "
			"names: the trace's configuration is not known", im->perf_path,
			c->pmu_type);
}

/* ----- Reading ---------------------------------------------------------- */

static char *dup_string(struct import *im, const char *s)
{
	char *d = strdup(s ? s : "");

	if (!d)
		im->nomem = 1;
	return d;
}

static struct ievent *new_event(struct import *im, const struct hwt_perf_record *rec)
{
	struct ievent *e;

	if (hwt_import_grow(im, (void **)&im->events, &im->cap_events, im->nevents + 1,
			    sizeof(*im->events)))
		return NULL;
	e = &im->events[im->nevents++];
	memset(e, 0, sizeof(*e));
	e->seq = im->nevents;
	e->type = rec->type;
	e->misc = rec->misc;
	e->pid = e->tid = UINT32_MAX;
	if (rec->sample.fields & HWT_PERF_SID_TID) {
		e->pid = rec->sample.pid;
		e->tid = rec->sample.tid;
	}
	if (rec->sample.fields & HWT_PERF_SID_CPU) {
		e->cpu = rec->sample.cpu;
		e->has_cpu = 1;
	}
	/* Kept raw for now: converted once TIME_CONV / AUXTRACE_INFO are known. */
	e->time = rec->sample.fields & HWT_PERF_SID_TIME ? rec->sample.time : 0;
	return e;
}

static int take_aux(struct import *im, const struct hwt_perf_record *rec)
{
	struct iaux *a;

	if (hwt_import_grow(im, (void **)&im->aux, &im->cap_aux, im->naux + 1, sizeof(*im->aux)))
		return -1;
	a = &im->aux[im->naux++];
	memset(a, 0, sizeof(*a));
	a->offset = rec->u.auxtrace.offset;
	a->size = rec->u.auxtrace.size;
	a->reference = rec->u.auxtrace.reference;
	a->idx = rec->u.auxtrace.idx;
	a->tid = rec->u.auxtrace.tid;
	a->cpu = rec->u.auxtrace.cpu;
	a->have = rec->u.auxtrace.data_size;
	a->seq = im->naux;
	/* A pipe's (or a decompressed) record's data lasts until the next record. */
	if (hwt_perf_reader_pipe_mode(im->reader) || rec->compressed) {
		a->owned = malloc(a->have ? a->have : 1);
		if (!a->owned) {
			im->nomem = 1;
			return -1;
		}
		memcpy(a->owned, rec->u.auxtrace.data, a->have);
		a->data = a->owned;
	} else {
		a->data = rec->u.auxtrace.data;
	}
	im->stats.aux_buffers++;
	im->stats.aux_bytes += a->have;
	if (a->have < a->size) {
		im->stats.damaged_bytes += a->size - a->have;
		hwt_import_warn(im, "%s: the AUX data at byte %" PRIu64 " is cut: %" PRIu64
				" of its %" PRIu64 " bytes are there", im->perf_path,
				rec->offset + rec->size, a->have, a->size);
	}
	return 0;
}

/* AUXTRACE_INFO: Intel PT's here, CoreSight ETM's and Arm SPE's in their files. */
static int take_auxtrace_info(struct import *im, const struct hwt_perf_record *rec)
{
	if (rec->u.auxtrace_info.type == HWT_PERF_AUXTRACE_CS_ETM)
		return hwt_import_etm_info(im, rec);
	if (rec->u.auxtrace_info.type == HWT_PERF_AUXTRACE_ARM_SPE) {
		hwt_import_spe_info(im, rec);
		return 0;
	}
	if (rec->u.auxtrace_info.type != HWT_PERF_AUXTRACE_INTEL_PT) {
		hwt_import_warn(im, "%s: AUXTRACE_INFO of type %u, not Intel PT (1), "
				"CoreSight ETM (3) or Arm SPE (4): ignored", im->perf_path,
				rec->u.auxtrace_info.type);
		return 0;
	}
	take_info(im, rec);
	return 0;
}

/* Whether rec is a sideband event the import keeps. */
static int keeps_event(const struct hwt_perf_record *rec)
{
	switch (rec->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		/* Kernel maps and maps that are not code give the decoder nothing. */
		return !((rec->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL ||
			 rec->u.mmap.pid == UINT32_MAX ||
			 (rec->type == PERF_RECORD_MMAP2 && !(rec->u.mmap.prot & 4u)) ||
			 (rec->type == PERF_RECORD_MMAP && (rec->misc & PERF_RECORD_MISC_MMAP_DATA)));
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
	case PERF_RECORD_ITRACE_START:
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
	case PERF_RECORD_AUX: /* all of them: they say what the AUX data should hold (check_coverage) */
	case HWT_PERF_RECORD_AUXTRACE_ERROR:
		return 1;
	default:
		return 0;
	}
}

/* The fields of event e from its record rec. 0, or -1 when out of memory. */
static int event_fields(struct import *im, struct ievent *e, const struct hwt_perf_record *rec)
{
	switch (rec->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		e->type = PERF_RECORD_MMAP2;
		e->u.mmap.pid = rec->u.mmap.pid;
		e->u.mmap.tid = rec->u.mmap.tid;
		e->u.mmap.addr = rec->u.mmap.addr;
		e->u.mmap.len = rec->u.mmap.len;
		e->u.mmap.pgoff = rec->u.mmap.pgoff;
		e->u.mmap.prot = rec->type == PERF_RECORD_MMAP2 ? rec->u.mmap.prot : 5u;
		e->u.mmap.build_id_size = rec->u.mmap.build_id_size;
		memcpy(e->u.mmap.build_id, rec->u.mmap.build_id, sizeof(e->u.mmap.build_id));
		e->u.mmap.filename = dup_string(im, rec->u.mmap.filename);
		return e->u.mmap.filename ? 0 : -1;
	case PERF_RECORD_COMM:
		e->u.comm.pid = rec->u.comm.pid;
		e->u.comm.tid = rec->u.comm.tid;
		e->u.comm.comm = dup_string(im, rec->u.comm.comm);
		return e->u.comm.comm ? 0 : -1;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		e->u.task.pid = rec->u.task.pid;
		e->u.task.ppid = rec->u.task.ppid;
		e->u.task.tid = rec->u.task.tid;
		e->u.task.ptid = rec->u.task.ptid;
		return 0;
	case PERF_RECORD_ITRACE_START:
		e->u.sw.pid = rec->u.itrace_start.pid;
		e->u.sw.tid = rec->u.itrace_start.tid;
		return 0;
	case PERF_RECORD_SWITCH_CPU_WIDE:
		e->u.sw.pid = rec->u.sw.next_prev_pid;
		e->u.sw.tid = rec->u.sw.next_prev_tid;
		return 0;
	case PERF_RECORD_LOST:
		e->u.lost.count = rec->u.lost.lost;
		return 0;
	case PERF_RECORD_LOST_SAMPLES:
		e->u.lost.count = rec->u.lost_samples.lost;
		return 0;
	case PERF_RECORD_AUX:
		e->u.aux.offset = rec->u.aux.offset;
		e->u.aux.size = rec->u.aux.size;
		e->u.aux.flags = rec->u.aux.flags;
		return 0;
	case HWT_PERF_RECORD_AUXTRACE_ERROR:
		e->u.error.code = rec->u.auxtrace_error.code;
		e->u.error.cpu = rec->u.auxtrace_error.cpu;
		e->u.error.pid = rec->u.auxtrace_error.pid;
		e->u.error.tid = rec->u.auxtrace_error.tid;
		e->u.error.ip = rec->u.auxtrace_error.ip;
		memcpy(e->u.error.msg, rec->u.auxtrace_error.msg, sizeof(e->u.error.msg));
		if (rec->u.auxtrace_error.fmt)
			e->time = rec->u.auxtrace_error.time;
		return 0;
	default:
		return 0; /* PERF_RECORD_SWITCH: no fields */
	}
}

static int take_record(struct import *im, const struct hwt_perf_record *rec)
{
	struct ievent *e;

	switch (rec->type) {
	case HWT_PERF_RECORD_AUXTRACE_INFO:
		return take_auxtrace_info(im, rec);
	case HWT_PERF_RECORD_TIME_CONV:
		/* AUXTRACE_INFO's conversion is the one perf's decoder uses; this one
		   stands in when there is none. */
		if (!im->pt.have_info && !im->pt.time_mult && rec->u.time_conv.time_shift < 64) {
			im->pt.time_shift = rec->u.time_conv.time_shift;
			im->pt.time_mult = rec->u.time_conv.time_mult;
			im->pt.time_zero = rec->u.time_conv.time_zero;
		}
		return 0;
	case HWT_PERF_RECORD_AUXTRACE:
		return take_aux(im, rec);
	default:
		if (!keeps_event(rec))
			return 0;
		e = new_event(im, rec);
		return e ? event_fields(im, e, rec) : -1;
	}
}

static int read_perf_data(struct import *im)
{
	struct hwt_perf_record rec;
	int err;

	for (;;) {
		err = hwt_perf_reader_next(im->reader, &rec);
		if (err)
			break;
		im->stats.records++;
		if (take_record(im, &rec) < 0)
			return -hie_nomem;
	}
	if (err != -hpf_eos) {
		if (err == -hpf_nomem)
			return -hie_nomem;
		/* Damage: what came before it is kept. */
		hwt_import_warn(im, "%s; the %" PRIu64 " records before it are imported",
				hwt_perf_reader_error(im->reader), im->stats.records);
	}
	return 0;
}

/* ----- Queues ----------------------------------------------------------- */

static struct iqueue *queue_of(struct import *im, const struct iaux *a)
{
	/* cs_etm says it by the buffer: a thread's has its tid. */
	int per_cpu = im->etm.have_info ? a->tid == UINT32_MAX
		      : im->spe.have_info ? im->spe.per_cpu && a->cpu != UINT32_MAX
					  : im->pt.per_cpu && a->cpu != UINT32_MAX;
	struct iqueue *q;

	for (size_t i = 0; i < im->nqueues; i++) {
		q = &im->queues[i];
		if (q->per_cpu == per_cpu && (per_cpu ? q->cpu == a->cpu : q->idx == a->idx))
			return q;
	}
	if (hwt_import_grow(im, (void **)&im->queues, &im->cap_queues, im->nqueues + 1,
			    sizeof(*im->queues)))
		return NULL;
	q = &im->queues[im->nqueues++];
	memset(q, 0, sizeof(*q));
	q->per_cpu = per_cpu;
	q->cpu = a->cpu;
	q->idx = a->idx;
	q->tid = a->tid;
	return q;
}

static int make_queues(struct import *im)
{
	int raw = 0, formatted = 0;

	/* ETM trace is raw (a TRBE's) where the AUX records say so, else framed. */
	for (size_t i = 0; i < im->nevents; i++)
		if (im->events[i].type == PERF_RECORD_AUX && im->events[i].u.aux.size) {
			if (im->events[i].u.aux.flags & HWT_PERF_AUX_FLAG_CORESIGHT_FORMAT_RAW)
				raw = 1;
			else
				formatted = 1;
		}
	if (im->etm.have_info && raw && formatted)
		hwt_import_warn(im, "%s: AUX records of raw and of formatted ETM trace: all of it "
				"read as formatted", im->perf_path);
	for (size_t i = 0; i < im->naux; i++) {
		struct iqueue *q = queue_of(im, &im->aux[i]);

		if (!q || hwt_import_grow(im, (void **)&q->bufs, &q->cap, q->nbufs + 1,
					  sizeof(*q->bufs)))
			return -hie_nomem;
		if (!q->per_cpu && q->tid != im->aux[i].tid)
			hwt_import_warn(im, "%s: AUX buffer %u holds trace of threads %u and %u",
					im->perf_path, q->idx, q->tid, im->aux[i].tid);
		q->bufs[q->nbufs++] = &im->aux[i];
		q->formatted = im->etm.have_info && (formatted || !raw);
		if (q->per_cpu)
			im->stats.per_cpu = 1;
	}
	return 0;
}

static int range_cmp(const void *pa, const void *pb)
{
	const uint64_t *a = pa, *b = pb;

	return a[0] < b[0] ? -1 : a[0] > b[0];
}

/*
 * AUX data missing: the kernel's AUX records say which bytes of a buffer it
 * wrote; the AUXTRACE records hold what perf copied. Bytes of the one not
 * in the other are lost trace (perf killed, the file cut, a record
 * removed). Snapshot mode writes other ranges than it records: not checked.
 */
static int check_coverage(struct import *im)
{
	if (im->pt.snapshot)
		return 0;
	/* AUX records of a thread or CPU with no AUX data at all. */
	for (size_t i = 0; i < im->nevents; i++) {
		const struct ievent *e = &im->events[i];
		int found = 0;

		if (e->type != PERF_RECORD_AUX || !e->u.aux.size)
			continue;
		for (size_t qi = 0; qi < im->nqueues && !found; qi++) {
			const struct iqueue *q = &im->queues[qi];

			found = q->per_cpu ? e->has_cpu && e->cpu == q->cpu : e->tid == q->tid;
		}
		if (found)
			continue;
		im->stats.damaged_bytes += e->u.aux.size;
		hwt_import_warn(im, "%s: %" PRIu64 " bytes of thread %" PRId32 "'s AUX data that "
				"the kernel wrote are not in the file: that trace is lost",
				im->perf_path, e->u.aux.size, (int32_t)e->tid);
		if (hwt_import_grow(im, (void **)&im->orphan_aux, &im->cap_orphan_aux,
				    im->norphan_aux + 1, sizeof(*im->orphan_aux)))
			return -hie_nomem;
		im->orphan_aux[im->norphan_aux++] = i;
	}
	for (size_t qi = 0; qi < im->nqueues; qi++) {
		struct iqueue *q = &im->queues[qi];
		uint64_t (*have)[2] = calloc(q->nbufs + 1, sizeof(*have));
		uint64_t missing = 0, last_time = 0;
		uint32_t pid = UINT32_MAX, tid = UINT32_MAX;

		if (!have)
			return -hie_nomem;
		for (size_t b = 0; b < q->nbufs; b++) {
			have[b][0] = q->bufs[b]->offset;
			have[b][1] = q->bufs[b]->offset + q->bufs[b]->have;
		}
		qsort(have, q->nbufs, sizeof(*have), range_cmp);
		for (size_t i = 0; i < im->nevents; i++) {
			const struct ievent *e = &im->events[i];
			uint64_t from, to;

			if (e->type != PERF_RECORD_AUX || !e->u.aux.size ||
			    (q->per_cpu ? !e->has_cpu || e->cpu != q->cpu : e->tid != q->tid))
				continue;
			from = e->u.aux.offset;
			to = from + e->u.aux.size;
			/* What no buffer holds of [from, to). */
			for (size_t b = 0; b < q->nbufs && from < to; b++) {
				if (have[b][1] <= from)
					continue;
				if (have[b][0] > from) {
					uint64_t gap_end = have[b][0] < to ? have[b][0] : to;

					missing += gap_end - from;
				}
				from = have[b][1] > from ? have[b][1] : from;
			}
			if (from < to)
				missing += to - from;
			pid = e->pid;
			tid = e->tid;
			last_time = e->time;
		}
		free(have);
		if (!missing)
			continue;
		im->stats.damaged_bytes += missing;
		if (q->per_cpu)
			hwt_import_warn(im, "%s: %" PRIu64 " bytes of CPU %u's AUX data that the kernel "
					"wrote are not in the file: that trace is lost", im->perf_path,
					missing, q->cpu);
		else
			hwt_import_warn(im, "%s: %" PRIu64 " bytes of thread %" PRId32 "'s AUX data that "
					"the kernel wrote are not in the file: that trace is lost",
					im->perf_path, missing, (int32_t)q->tid);
		q->missing = missing;
		q->missing_pid = pid;
		q->missing_tid = tid;
		q->missing_time = last_time;
	}
	return 0;
}

static int event_cmp(const void *pa, const void *pb)
{
	const struct ievent *a = pa, *b = pb;

	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* ----- The import ------------------------------------------------------- */

static void free_all(struct import *im)
{
	for (size_t i = 0; i < im->nevents; i++) {
		struct ievent *e = &im->events[i];

		if (e->type == PERF_RECORD_MMAP2)
			free(e->u.mmap.filename);
		else if (e->type == PERF_RECORD_COMM)
			free(e->u.comm.comm);
	}
	free(im->events);
	for (size_t i = 0; i < im->naux; i++)
		free(im->aux[i].owned);
	free(im->aux);
	for (size_t i = 0; i < im->nqueues; i++) {
		free(im->queues[i].bufs);
		free(im->queues[i].owners);
	}
	free(im->queues);
	free(im->orphan_aux);
	hwt_import_note_free(&im->note);
	hwt_import_processes_free(im);
	free(im->pt.filter);
	hwt_perf_cs_etm_info_free(&im->etm.info);
	free(im->dir);
	hwt_perf_reader_free(im->reader);
}

int hwt_perf_import(const char *perf_data, const char *bundle_dir,
		    const struct hwt_perf_import_options *options,
		    struct hwt_perf_import_stats *stats)
{
	struct import im;
	int err;

	if (!perf_data || !bundle_dir)
		return -hie_invalid;
	memset(&im, 0, sizeof(im));
	im.opt = options;
	im.perf_path = perf_data;
	im.dir = strdup(bundle_dir);
	im.reader = hwt_perf_reader_alloc();
	if (!im.dir || !im.reader) {
		err = -hie_nomem;
		goto out;
	}
	/* The reader's warnings are the import's. */
	if (options)
		hwt_perf_reader_set_warn(im.reader, &options->warn);
	err = hwt_perf_reader_open(im.reader, perf_data);
	if (err) {
		set_error(&im, "%s", hwt_perf_reader_error(im.reader));
		err = err == -hpf_nomem ? -hie_nomem : err == -hpf_io ? -hie_io : -hie_perf_data;
		goto out;
	}
	im.stats.pipe_mode = hwt_perf_reader_pipe_mode(im.reader);
	err = read_perf_data(&im);
	if (err)
		goto out;
	if (!im.pt.have_info && !im.etm.have_info && !im.spe.have_info) {
		if (im.etm.error[0])
			set_error(&im, "%s", im.etm.error);
		else
			set_error(&im, "%s: no Intel PT, CoreSight ETM or Arm SPE trace (no intel_pt, "
				  "cs_etm or arm_spe AUXTRACE_INFO record)", perf_data);
		err = im.etm.error[0] ? -hie_perf_data : -hie_no_trace;
		goto out;
	}
	if (im.spe.have_info && (im.pt.have_info || im.etm.have_info)) {
		/* AUXTRACE records do not say which PMU's their data is: perf 6.1
		   reads one kind of AUX trace per file, and so does the import. */
		hwt_import_warn(&im, "%s: AUXTRACE_INFO of Arm SPE and of %s: the %s trace is "
				"imported, the SPE left out", perf_data,
				im.etm.have_info ? "CoreSight ETM" : "Intel PT",
				im.etm.have_info ? "ETM" : "Intel PT");
		im.spe.have_info = 0;
	}
	if (im.pt.have_info && im.etm.have_info) {
		hwt_import_warn(&im, "%s: AUXTRACE_INFO of Intel PT and of CoreSight ETM: the ETM "
				"trace is imported", perf_data);
		im.pt.have_info = 0;
	}
	if (im.pt.have_info)
		take_attr(&im);
	im.stats.snapshot = im.pt.snapshot;
	/* Every time on the TSC clock, then in order. */
	for (size_t i = 0; i < im.nevents; i++)
		im.events[i].time = hwt_import_tsc(&im, im.events[i].time);
	if (im.nevents)
		qsort(im.events, im.nevents, sizeof(*im.events), event_cmp);
	err = hwt_import_note_read(&im);
	if (!err)
		err = make_queues(&im);
	if (!err)
		err = check_coverage(&im);
	if (!err)
		err = hwt_import_bundle_create(&im);
	if (err) {
		if (err == -hie_exists)
			set_error(&im, "%s: exists and is not empty", bundle_dir);
		goto out;
	}
	err = hwt_import_processes(&im);
	/* The losses the coverage found, in the images they hit. */
	for (size_t i = 0; !err && i < im.nqueues; i++)
		if (im.queues[i].missing)
			hwt_import_lost(&im, im.queues[i].missing_pid, im.queues[i].missing_tid,
					im.queues[i].missing_time, HWT_LOST_BUFFER_WRAP, 0,
					im.queues[i].missing);
	for (size_t i = 0; !err && i < im.norphan_aux; i++) {
		const struct ievent *e = &im.events[im.orphan_aux[i]];

		hwt_import_lost(&im, e->pid, e->tid, e->time, HWT_LOST_BUFFER_WRAP, 0, e->u.aux.size);
	}
	if (!err)
		err = hwt_import_owners(&im);
	for (size_t i = 0; !err && i < im.nqueues; i++)
		err = im.etm.have_info ? hwt_import_etm_split(&im, &im.queues[i])
		      : im.spe.have_info ? hwt_import_spe_split(&im, &im.queues[i])
					 : hwt_import_split(&im, &im.queues[i]);
	if (!err)
		err = hwt_import_bundle_finish(&im);
	if (!err && im.nomem)
		err = -hie_nomem;
	if (err)
		set_error(&im, "%s: %s", bundle_dir, hwt_perf_import_errstr(err));
out:
	if (stats)
		*stats = im.stats;
	free_all(&im);
	return err;
}
