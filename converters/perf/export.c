/*
 * hwt export: a trace bundle as a perf.data file (hwt_perf_export.h). The
 * images' records are read into memory, the images placed on one clock
 * (timeline.c), then the file is written: header features, the two event
 * attributes, AUXTRACE_INFO and TIME_CONV, then the sideband sorted by
 * time with every stream as AUX data (its TSC packets moved onto the
 * clock, stream.c) after its image's records (on a TSC clock or in the
 * one-CPU form, all the AUX data first).
 */
#include "export_int.h"
#include "grow.h"
#include "hwt_opencsd.h"
#include "hwt_perf_intel_pt.h"
#include "spe_packet.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

/* The CPU the file claims when neither the caller nor the bundle names one:
   an Intel Core of a model libipt knows no errata for. */
#define DEFAULT_CPUID "GenuineIntel,6,183,1"
/* For ETMv4 streams: an Arm Cortex-A57's MIDR, as perf writes arm64's CPUID. */
#define ETM_CPUID "0x00000000411fd070"

/* Event ids of the two attributes. */
#define PT_ID 1
#define TRACKING_ID 2

/* The arm_spe event's config: timestamps on (ts_enable, bit 0 of perf's
   arm_spe_0 format), as the software unit writes them. */
#define ARM_SPE_CONFIG 0x1ull

/* The intel_pt event's config for a software unit's bundle: what the units
   write (TSC on, return compression off, no MTC or CYC). */
#define EXPORT_CONFIG (HWT_PT_CONFIG_PT | HWT_PT_CONFIG_BRANCH | HWT_PT_CONFIG_TSC | \
		       HWT_PT_CONFIG_NORETCOMP)

const char *hwt_perf_export_errstr(int code)
{
	if (code < 0)
		code = -code;
	switch ((enum hwt_perf_export_error)code) {
	case hxe_ok:       return "success";
	case hxe_internal: return "internal error";
	case hxe_invalid:  return "invalid argument";
	case hxe_nomem:    return "out of memory";
	case hxe_io:       return "input/output error";
	case hxe_empty:    return "the bundle has no trace streams";
	case hxe_clock:    return "the bundle's times do not fit perf's 56-bit TSC";
	case hxe_mixed:    return "the bundle holds Intel PT and ETMv4 streams: a perf.data "
				  "file holds one kind";
	case hxe_one_cpu:  return "the one-CPU form is for Intel PT streams";
	case hxe_opencsd:  return "ETMv4 streams need OpenCSD (" HWT_OPENCSD_LIBRARY
				  "), which cannot be loaded";
	case hxe_no_spe:   return "the bundle has no SPE streams (spe/) of a traced process";
	}
	return "unknown error";
}

size_t hwt_xport_stream_count(const struct xport *x)
{
	return x->spe ? hwt_bundle_spe_count(x->bundle) : hwt_bundle_stream_count(x->bundle);
}

const struct hwt_bundle_stream *hwt_xport_stream_at(const struct xport *x, size_t i)
{
	return x->spe ? hwt_bundle_spe_at(x->bundle, i) : hwt_bundle_stream_at(x->bundle, i);
}

void hwt_xport_warn(struct xport *x, const char *fmt, ...)
{
	char text[512];
	va_list ap;

	if (!x->options || !x->options->warn.fn)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	hwt_warn_say(&x->options->warn, text);
}

/* A perf.data writer's error as ours. */
static int perf_error(int err)
{
	switch (err) {
	case 0:
		return 0;
	case -hpf_nomem:
		return -hxe_nomem;
	case -hpf_io:
		return -hxe_io;
	default:
		return -hxe_internal;
	}
}

/* ----- Reading the bundle ----------------------------------------------- */

static int load_image(struct xport *x, const struct hwt_bundle_image *bi,
		      struct xport_image *im)
{
	struct hwt_sideband *sb = hwt_sideband_alloc();
	struct hwt_sideband_record rec;
	size_t cap = 0;
	int err;

	memset(im, 0, sizeof(*im));
	im->bi = bi;
	if (!sb)
		return -hxe_nomem;
	err = hwt_bundle_image_open(sb, bi);
	while (!err && !(err = hwt_sideband_next(sb, &rec))) {
		struct hwt_record_header *copy;

		if (!rec.known)
			continue;
		if (im->nrecs == cap) {
			void *p = realloc(im->recs, (cap = cap ? cap * 2 : 32) * sizeof(*im->recs));

			if (!p) {
				hwt_sideband_free(sb);
				return -hxe_nomem;
			}
			im->recs = p;
		}
		copy = malloc(rec.hdr->size);
		if (!copy) {
			hwt_sideband_free(sb);
			return -hxe_nomem;
		}
		memcpy(copy, rec.hdr, rec.hdr->size);
		im->recs[im->nrecs++] = copy;
		if (copy->time > im->max_time)
			im->max_time = copy->time;
	}
	/* Damage was reported when the bundle was opened; keep what read. */
	hwt_sideband_free(sb);
	(void)x;
	return err == -hbe_nomem ? -hxe_nomem : 0;
}

uint8_t *hwt_xport_read_file(const char *path, size_t *size, size_t pad)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	uint8_t *buf;
	size_t done = 0;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || (buf = calloc(1, (size_t)st.st_size + pad + 1)) == NULL) {
		close(fd);
		return NULL;
	}
	while (done < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + done, (size_t)st.st_size - done);

		if (n <= 0)
			break;
		done += (size_t)n;
	}
	close(fd);
	*size = done;
	return buf;
}

/* ----- Records ---------------------------------------------------------- */

enum xevent_kind {
	xe_start,       /* PROCESS_START: FORK (fork child) and COMM */
	xe_mmap,
	xe_thread_fork,
	xe_thread_exit,
	xe_process_exit,
	xe_lost,
	xe_switch,      /* one_cpu: the i-th SWITCH_CPU_WIDE (rec is NULL) */
	xe_aux,         /* the kernel's AUX record of x->aux[index] (rec is NULL) */
};

struct xevent {
	uint64_t time;
	size_t seq;            /* ties: the order of reading */
	const struct xport_image *im;
	const struct hwt_record_header *rec;
	enum xevent_kind kind;
	size_t index;          /* xe_switch */
};

static int xevent_cmp(const void *pa, const void *pb)
{
	const struct xevent *a = pa, *b = pb;

	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/*
 * A thread's FORK must come before its trace and its EXIT, which a trace
 * unit may have recorded first (the QEMU unit writes THREAD_CREATE when the
 * parent returns from clone): no later than either.
 */
static uint64_t thread_fork_time(const struct xport_image *im,
				 const struct hwt_record_header *h, uint64_t t)
{
	uint32_t child = ((const struct hwt_record_thread *)(const void *)h)->child_tid;

	for (size_t i = 0; i < im->nfirst; i++) {
		uint64_t first = im->first[i].time;

		if (im->first[i].tid == child && im->first[i].tsc != UINT64_MAX && first <= t)
			t = first - 3; /* before a switch to it, too */
	}
	for (size_t r = 0; r < im->nrecs; r++) {
		const struct hwt_record_header *e = im->recs[r];
		uint64_t et = im->times[r];

		if (e->type == HWT_RECORD_THREAD_EXIT && e->tid == child && et <= t)
			t = et - 1;
	}
	return t;
}

/* Appends e to the n events at *ev (room for *cap), its seq the order of
   appending. 0, or -1 when out of memory (*ev freed). */
static int add_event(struct xevent **ev, size_t *n, size_t *cap, struct xevent e)
{
	struct xevent *p = hwt_grow_array(*ev, cap, *n + 1, sizeof(**ev));

	if (!p) {
		free(*ev);
		*ev = NULL;
		return -1;
	}
	*ev = p;
	e.seq = *n;
	p[(*n)++] = e;
	return 0;
}

/* The kind of event of image record h, or -1 when perf.data has no place
   for it (or another event says it). */
static int event_kind(struct xport *x, const struct xport_image *im,
		      const struct hwt_record_header *h)
{
	switch (h->type) {
	case HWT_RECORD_PROCESS_START:
		return xe_start;
	case HWT_RECORD_MMAP:
		return xe_mmap;
	case HWT_RECORD_THREAD_CREATE:
		return xe_thread_fork;
	case HWT_RECORD_THREAD_EXIT:
		/* The main thread's exit is the process's EXIT. */
		return h->tid == im->bi->pid ? -1 : xe_thread_exit;
	case HWT_RECORD_PROCESS_EXIT:
		return xe_process_exit;
	case HWT_RECORD_LOST:
		return xe_lost;
	case HWT_RECORD_EXEC:
	case HWT_RECORD_FORK:
		return -1; /* the new image's COMM / the child's FORK say it */
	case HWT_RECORD_MUNMAP:
		return -1; /* in hwt's section */
	default:
		x->stats.skipped_records++;
		return -1;
	}
}

/* The sideband records perf.data has a place for, in time order. */
static struct xevent *collect_events(struct xport *x, size_t *count,
				     const struct xport_cpu *cpu)
{
	struct xevent *ev = NULL;
	size_t n = 0, cap = 0;
	size_t nswitch = cpu ? hwt_xport_one_cpu_switches(cpu) : 0;

	for (size_t i = 0; i < nswitch; i++) {
		uint64_t t;
		int out;
		uint32_t a, b, c, d;

		hwt_xport_one_cpu_switch(cpu, i, &t, &out, &a, &b, &c, &d);
		if (add_event(&ev, &n, &cap, (struct xevent){ t, 0, NULL, NULL, xe_switch, i }))
			return NULL;
	}
	/* The AUX record the kernel writes for the data (not in one-CPU form). */
	for (size_t i = 0; !cpu && i < x->naux; i++)
		if (add_event(&ev, &n, &cap, (struct xevent){ x->aux[i].time, 0, x->aux[i].image,
							     NULL, xe_aux, i }))
			return NULL;

	for (size_t i = 0; i < x->nimages; i++) {
		const struct xport_image *im = &x->images[i];

		for (size_t r = 0; r < im->nrecs; r++) {
			const struct hwt_record_header *h = im->recs[r];
			int kind = event_kind(x, im, h);
			uint64_t t = im->times[r];

			if (kind < 0)
				continue;
			if (kind == xe_thread_fork)
				t = thread_fork_time(im, h, t);
			if (add_event(&ev, &n, &cap, (struct xevent){ t, 0, im, h,
								     (enum xevent_kind)kind, 0 }))
				return NULL;
		}
	}
	if (n)
		qsort(ev, n, sizeof(*ev), xevent_cmp);
	*count = n;
	return ev ? ev : calloc(1, sizeof(*ev));
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* The path perf opens: a copy inside the bundle (the vDSO) made absolute. */
static char *perf_path(struct xport *x, const char *path, uint16_t flags)
{
	char *out;

	if (flags & HWT_MMAP_ANON || !path[0])
		return strdup("//anon");
	if (path[0] == '/')
		return strdup(path);
	{
		char *dir = realpath(hwt_bundle_dir(x->bundle), NULL);

		if (!dir)
			return NULL;
		out = malloc(strlen(dir) + strlen(path) + 2);
		if (out)
			sprintf(out, "%s/%s", dir, path);
		free(dir);
	}
	return out;
}

static void sample_of(struct hwt_perf_record *p, uint32_t pid, uint32_t tid, uint64_t time)
{
	p->sample.fields = HWT_PERF_SID_TID | HWT_PERF_SID_TIME | HWT_PERF_SID_ID |
			   HWT_PERF_SID_CPU;
	p->sample.pid = pid;
	p->sample.tid = tid;
	p->sample.time = time;
	p->sample.id = TRACKING_ID;
	p->sample.cpu = 0;
}

/* A record of the sideband: cleared, with the tracking event's sample id. */
static void record_of(struct hwt_perf_record *p, uint32_t pid, uint32_t tid, uint64_t time)
{
	memset(p, 0, sizeof(*p));
	sample_of(p, pid, tid, time);
}

/* Writes p and counts it. */
static int write_record(struct xport *x, struct hwt_perf_writer *w,
			const struct hwt_perf_record *p)
{
	int err = hwt_perf_writer_write(w, p);

	if (err)
		return perf_error(err);
	x->stats.records++;
	return 0;
}

/* The kernel's AUX record of x->aux[e->index] (for SPE, after an ITRACE_START). */
static int write_aux(struct xport *x, struct hwt_perf_writer *w, const struct xevent *e)
{
	const struct xport_aux *a = &x->aux[e->index];
	struct hwt_perf_record p;
	int err;

	if (x->spe && !a->offset) {
		/* Tracing starts on the thread's CPU: the kernel says whose trace
		   follows there (perf and hwt import read it when a record has
		   no Context packet). */
		record_of(&p, a->stream->pid, a->stream->tid, e->time);
		p.type = PERF_RECORD_ITRACE_START;
		p.u.itrace_start.pid = a->stream->pid;
		p.u.itrace_start.tid = a->stream->tid;
		p.sample.id = PT_ID;
		p.sample.cpu = a->idx;
		err = write_record(x, w, &p);
		if (err)
			return err;
	}
	record_of(&p, a->stream->pid, a->stream->tid, e->time);
	p.type = PERF_RECORD_AUX;
	p.u.aux.offset = a->offset;
	/* Intel PT's padding is PAD packets; ETMv4 has none: the AUX record
	   says where the trace ends. */
	p.u.aux.size = x->etm ? a->trace_size : a->size;
	/* ETMv4 unformatted, as a TRBE writes it. */
	p.u.aux.flags = x->etm ? HWT_PERF_AUX_FLAG_CORESIGHT_FORMAT_RAW : 0;
	p.sample.id = PT_ID;
	if (x->etm || x->spe)
		p.sample.cpu = a->idx;
	return write_record(x, w, &p);
}

/* One-CPU form: the e->index-th SWITCH_CPU_WIDE. */
static int write_switch(struct xport *x, struct hwt_perf_writer *w, const struct xevent *e,
			const struct xport_cpu *cpu)
{
	struct hwt_perf_record p;
	uint64_t t;
	int out;
	uint32_t pid, tid, opid, otid;

	hwt_xport_one_cpu_switch(cpu, e->index, &t, &out, &pid, &tid, &opid, &otid);
	record_of(&p, pid, tid, t);
	p.type = PERF_RECORD_SWITCH_CPU_WIDE;
	p.misc = out ? PERF_RECORD_MISC_SWITCH_OUT : 0;
	p.u.sw.next_prev_pid = opid;
	p.u.sw.next_prev_tid = otid;
	return write_record(x, w, &p);
}

/* A FORK: thread tid of process pid made by thread ptid of process ppid. */
static int write_fork(struct xport *x, struct hwt_perf_writer *w, uint64_t time, uint32_t pid,
		      uint32_t tid, uint32_t ppid, uint32_t ptid)
{
	struct hwt_perf_record p;

	record_of(&p, ppid, ptid, time);
	p.type = PERF_RECORD_FORK;
	p.u.task.pid = pid;
	p.u.task.tid = tid;
	p.u.task.ppid = ppid;
	p.u.task.ptid = ptid;
	p.u.task.time = time;
	return write_record(x, w, &p);
}

/* PROCESS_START: a fork child's FORK (as perf saw it in the parent), then COMM. */
static int write_start(struct xport *x, struct hwt_perf_writer *w, const struct xevent *e)
{
	const struct hwt_record_header *h = e->rec;
	const struct hwt_record_process *s = (const void *)h;
	const struct xport_image *im = e->im;
	struct hwt_perf_record p;
	char comm[16];
	int err;

	if (!im->exec_entered && im->parent >= 0) {
		err = write_fork(x, w, e->time, h->pid, h->pid, s->ppid, im->fork_tid);
		if (err)
			return err;
	}
	snprintf(comm, sizeof(comm), "%s", base_name((const char *)(s + 1)));
	record_of(&p, h->pid, h->tid, e->time);
	p.type = PERF_RECORD_COMM;
	if (im->exec_entered || im->parent < 0)
		p.misc = PERF_RECORD_MISC_COMM_EXEC;
	p.u.comm.pid = h->pid;
	p.u.comm.tid = h->tid;
	p.u.comm.comm = comm;
	return write_record(x, w, &p);
}

static int write_mmap(struct xport *x, struct hwt_perf_writer *w, const struct xevent *e)
{
	const struct hwt_record_header *h = e->rec;
	const struct hwt_record_mmap *m = (const void *)h;
	char *path = perf_path(x, (const char *)(m + 1), h->flags);
	struct hwt_perf_record p;
	int err;

	if (!path)
		return -hxe_nomem;
	record_of(&p, h->pid, h->tid, e->time);
	p.type = PERF_RECORD_MMAP2;
	p.misc = PERF_RECORD_MISC_USER;
	p.u.mmap.pid = h->pid;
	p.u.mmap.tid = h->tid;
	p.u.mmap.addr = m->addr;
	p.u.mmap.len = m->len;
	p.u.mmap.pgoff = m->pgoff;
	p.u.mmap.prot = (m->prot & HWT_PROT_READ ? 1u : 0u) |
			(m->prot & HWT_PROT_WRITE ? 2u : 0u) |
			(m->prot & HWT_PROT_EXEC ? 4u : 0u);
	p.u.mmap.flags = 2; /* MAP_PRIVATE */
	if (m->build_id_size && m->build_id_size <= HWT_BUILD_ID_MAX) {
		p.misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
		p.u.mmap.build_id_size = (uint8_t)m->build_id_size;
		memcpy(p.u.mmap.build_id, m->build_id, m->build_id_size);
	}
	p.u.mmap.filename = path;
	err = write_record(x, w, &p);
	free(path);
	return err;
}

/* A thread's EXIT, or the process's (the main thread's, with its parent). */
static int write_exit(struct xport *x, struct hwt_perf_writer *w, const struct xevent *e)
{
	const struct hwt_record_header *h = e->rec;
	const struct xport_image *im = e->im;
	struct hwt_perf_record p;
	uint32_t ppid = h->pid;
	uint32_t tid = e->kind == xe_process_exit ? h->pid : h->tid;

	if (e->kind == xe_process_exit && im->nrecs &&
	    im->recs[0]->type == HWT_RECORD_PROCESS_START)
		ppid = ((const struct hwt_record_process *)(const void *)im->recs[0])->ppid;
	record_of(&p, h->pid, tid, e->time);
	p.type = PERF_RECORD_EXIT;
	p.u.task.pid = h->pid;
	p.u.task.tid = tid;
	p.u.task.ppid = p.u.task.ptid = ppid;
	p.u.task.time = e->time;
	return write_record(x, w, &p);
}

/* Records lost: a LOST record; trace lost: an AUX record cut short. */
static int write_lost(struct xport *x, struct hwt_perf_writer *w, const struct xevent *e)
{
	const struct hwt_record_header *h = e->rec;
	const struct hwt_record_lost *l = (const void *)h;
	struct hwt_perf_record p;
	int err;

	if (l->records) {
		record_of(&p, h->pid, h->tid, e->time);
		p.type = PERF_RECORD_LOST;
		p.u.lost.id = TRACKING_ID;
		p.u.lost.lost = l->records;
		err = write_record(x, w, &p);
		if (err)
			return err;
	}
	if (!l->bytes)
		return 0;
	record_of(&p, h->pid, h->tid, e->time);
	p.type = PERF_RECORD_AUX;
	p.u.aux.offset = 0;
	p.u.aux.size = l->bytes;
	p.u.aux.flags = PERF_AUX_FLAG_TRUNCATED;
	return write_record(x, w, &p);
}

static int write_event(struct xport *x, struct hwt_perf_writer *w, const struct xevent *e,
		       const struct xport_cpu *cpu)
{
	switch (e->kind) {
	case xe_aux:
		return write_aux(x, w, e);
	case xe_switch:
		return write_switch(x, w, e, cpu);
	case xe_start:
		return write_start(x, w, e);
	case xe_mmap:
		return write_mmap(x, w, e);
	case xe_thread_fork:
		return write_fork(x, w, e->time, e->rec->pid,
				  ((const struct hwt_record_thread *)(const void *)e->rec)->child_tid,
				  e->rec->pid, e->rec->tid);
	case xe_thread_exit:
	case xe_process_exit:
		return write_exit(x, w, e);
	case xe_lost:
		return write_lost(x, w, e);
	}
	return -hxe_internal;
}

/* ----- The header ------------------------------------------------------- */

/* The PMU configuration the file claims: the bundle's (an import of hardware
   trace says it, docs/bundle.md), else what the software units write. */
struct pt_claim {
	uint64_t config;
	uint32_t ctc_n, ctc_d, nom_freq;
	int kernel;              /* kernel-mode trace too (no exclude_kernel) */
};

static void pt_claim_of(const struct hwt_bundle *b, struct pt_claim *c)
{
	const char *config = hwt_bundle_key(b, "pt_config");
	const char *mtc = hwt_bundle_key(b, "pt_mtc_freq");
	const char *ctc = hwt_bundle_key(b, "pt_tsc_ctc");
	const char *nom = hwt_bundle_key(b, "pt_nom_freq");
	unsigned v;

	c->config = config ? strtoull(config, NULL, 0) : EXPORT_CONFIG;
	if (mtc && sscanf(mtc, "%u", &v) == 1 && v < 16)
		c->config = (c->config & ~HWT_PT_CONFIG_MTC_PERIOD) | ((uint64_t)v << 14);
	c->ctc_n = 2;
	c->ctc_d = 1;
	if (ctc && sscanf(ctc, "%" SCNu32 "/%" SCNu32, &c->ctc_n, &c->ctc_d) != 2) {
		c->ctc_n = 2;
		c->ctc_d = 1;
	}
	c->nom_freq = nom && sscanf(nom, "%u", &v) == 1 ? v : 0;
	c->kernel = hwt_bundle_key(b, "pt_kernel") && !strcmp(hwt_bundle_key(b, "pt_kernel"), "1");
}

static void attrs_of(struct perf_event_attr *pt, struct perf_event_attr *tracking, int one_cpu,
		     const struct pt_claim *claim, int etm, int spe)
{
	uint64_t st = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
		      PERF_SAMPLE_IDENTIFIER;

	memset(pt, 0, sizeof(*pt));
	pt->type = spe ? HWT_PERF_EXPORT_ARM_SPE_PMU_TYPE
		 : etm ? HWT_PERF_EXPORT_CS_ETM_PMU_TYPE : HWT_PERF_EXPORT_PMU_TYPE;
	pt->size = sizeof(*pt);
	/* cs_etm: the context ID (the thread) traced, timestamps on. */
	pt->config = spe ? ARM_SPE_CONFIG
		     : etm ? HWT_CS_ETM_CONFIG_CONTEXTID | HWT_CS_ETM_CONFIG_TS : claim->config;
	pt->sample_period = 1;
	pt->sample_type = st;
	pt->disabled = 1;
	pt->exclude_kernel = !claim->kernel;
	pt->exclude_hv = 1;
	pt->sample_id_all = 1;
	pt->exclude_guest = 1;

	memset(tracking, 0, sizeof(*tracking));
	tracking->type = PERF_TYPE_SOFTWARE;
	tracking->size = sizeof(*tracking);
	tracking->config = PERF_COUNT_SW_DUMMY;
	tracking->sample_period = 1;
	tracking->sample_type = st;
	tracking->disabled = 1;
	tracking->exclude_kernel = 1;
	tracking->exclude_hv = 1;
	tracking->mmap = 1;
	tracking->comm = 1;
	tracking->task = 1;
	tracking->sample_id_all = 1;
	tracking->exclude_guest = 1;
	tracking->mmap2 = 1;
	tracking->comm_exec = 1;
	tracking->build_id = 1;
	tracking->context_switch = one_cpu;
}

/* PMU_MAPPINGS: the trace unit's PMU and software. */
static int write_pmu_mappings(const struct xport *x, struct hwt_perf_writer *w)
{
	uint8_t buf[4 + 2 * (4 + 4 + 64)];
	size_t at = 0;
	uint32_t v;

	memset(buf, 0, sizeof(buf));
	v = 2;
	memcpy(buf + at, &v, 4), at += 4;
	v = x->spe ? HWT_PERF_EXPORT_ARM_SPE_PMU_TYPE
	    : x->etm ? HWT_PERF_EXPORT_CS_ETM_PMU_TYPE : HWT_PERF_EXPORT_PMU_TYPE;
	memcpy(buf + at, &v, 4), at += 4;
	v = 64;
	memcpy(buf + at, &v, 4), at += 4;
	strcpy((char *)buf + at, x->spe ? "arm_spe_0" : x->etm ? "cs_etm" : "intel_pt"), at += 64;
	v = PERF_TYPE_SOFTWARE;
	memcpy(buf + at, &v, 4), at += 4;
	v = 64;
	memcpy(buf + at, &v, 4), at += 4;
	memcpy(buf + at, "software", 8), at += 64;
	return hwt_perf_writer_feature(w, HWT_PERF_FEAT_PMU_MAPPINGS, buf, at);
}

/* Whether a mapping before record r of image i has m's build-id. */
static int build_id_before(const struct xport *x, size_t i, size_t r,
			   const struct hwt_record_mmap *m)
{
	for (size_t k = 0; k <= i; k++)
		for (size_t q = 0; q < x->images[k].nrecs && !(k == i && q >= r); q++) {
			const struct hwt_record_mmap *o = (const void *)x->images[k].recs[q];

			if (o->hdr.type == HWT_RECORD_MMAP && o->build_id_size == m->build_id_size &&
			    !memcmp(o->build_id, m->build_id, m->build_id_size))
				return 1;
		}
	return 0;
}

/* Build-ids of every file a mapping names, each once. */
static int write_build_ids(struct xport *x, struct hwt_perf_writer *w)
{
	int err = 0;

	for (size_t i = 0; !err && i < x->nimages; i++) {
		const struct xport_image *im = &x->images[i];

		for (size_t r = 0; !err && r < im->nrecs; r++) {
			const struct hwt_record_mmap *m = (const void *)im->recs[r];
			char *path;

			if (m->hdr.type != HWT_RECORD_MMAP || !m->build_id_size ||
			    m->build_id_size > HWT_BUILD_ID_MAX || build_id_before(x, i, r, m))
				continue;
			path = perf_path(x, (const char *)(m + 1), m->hdr.flags);
			if (!path)
				return -hxe_nomem;
			err = hwt_perf_writer_build_id(w, -1, PERF_RECORD_MISC_USER, m->build_id,
						       (uint8_t)m->build_id_size, path);
			free(path);
		}
	}
	return err;
}

static int write_features(struct xport *x, struct hwt_perf_writer *w)
{
	const struct hwt_perf_export_options *o = x->options;
	static const char *const pt_names[] = { "intel_pt//u", "dummy:u" };
	static const char *const etm_names[] = { "cs_etm//u", "dummy:u" };
	static const char *const spe_names[] = { "arm_spe_0//u", "dummy:u" };
	const char *const *names = x->spe ? spe_names : x->etm ? etm_names : pt_names;
	int aarch64 = x->etm || x->spe;
	struct utsname u;
	const char *cpuid = o && o->cpuid ? o->cpuid : hwt_bundle_key(x->bundle, "pt_cpu");
	char desc[128];
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	char *note = NULL;
	size_t note_len = 0;
	int err;

	if (uname(&u) < 0)
		memset(&u, 0, sizeof(u));
	snprintf(desc, sizeof(desc), "hwt %s trace unit (%s written in software)",
		 hwt_bundle_key(x->bundle, "unit") ? hwt_bundle_key(x->bundle, "unit") : "",
		 x->spe ? "Arm SPE" : x->etm ? "ETMv4" : "Intel PT");
	if (aarch64 && !(o && o->cpuid))
		cpuid = ETM_CPUID;
	err = hwt_perf_writer_feature_string(w, HWT_PERF_FEAT_HOSTNAME, u.nodename);
	err = err ? err : hwt_perf_writer_feature_string(w, HWT_PERF_FEAT_OSRELEASE, u.release);
	err = err ? err : hwt_perf_writer_feature_string(w, HWT_PERF_FEAT_VERSION, "hwt export");
	err = err ? err : hwt_perf_writer_feature_string(w, HWT_PERF_FEAT_ARCH,
							   aarch64 ? "aarch64" : "x86_64");
	if (aarch64 && x->nidx > ncpu)
		ncpu = (long)x->nidx;
	err = err ? err : hwt_perf_writer_feature_nrcpus(w, ncpu > 0 ? (uint32_t)ncpu : 1,
							   ncpu > 0 ? (uint32_t)ncpu : 1);
	err = err ? err : hwt_perf_writer_feature_string(w, HWT_PERF_FEAT_CPUDESC, desc);
	err = err ? err : hwt_perf_writer_feature_string(w, HWT_PERF_FEAT_CPUID,
							   cpuid ? cpuid : DEFAULT_CPUID);
	if (!err && o && o->argv && o->argc)
		err = hwt_perf_writer_feature_cmdline(w, o->argc, o->argv);
	err = err ? err : hwt_perf_writer_feature_event_desc(w, names);
	err = err ? err : write_pmu_mappings(x, w);
	err = err ? err : write_build_ids(x, w);
	if (!err)
		err = hwt_xport_note(x, &note, &note_len) ? -hpf_nomem : 0;
	if (!err)
		err = hwt_perf_writer_feature(w, HWT_PERF_FEAT_HWT, note, note_len);
	free(note);
	return err;
}

static int write_time_conv(struct hwt_perf_writer *w)
{
	struct hwt_perf_record p;

	memset(&p, 0, sizeof(p));
	p.type = HWT_PERF_RECORD_TIME_CONV;
	p.u.time_conv.time_mult = 1;
	p.u.time_conv.extended = 1;
	p.u.time_conv.cap_user_time_zero = 1;
	return hwt_perf_writer_write(w, &p);
}

static int write_preamble(const struct xport *x, struct hwt_perf_writer *w, int one_cpu,
			  const struct pt_claim *claim)
{
	uint64_t priv[HWT_PT_INFO_WORDS] = { 0 };
	uint64_t *etm_priv = NULL, spe_priv[HWT_PERF_ARM_SPE_INFO_WORDS];
	size_t etm_npriv = 0;
	struct hwt_perf_record p;
	int err;

	priv[HWT_PT_INFO_PMU_TYPE] = HWT_PERF_EXPORT_PMU_TYPE;
	priv[HWT_PT_INFO_TIME_SHIFT] = 0;
	priv[HWT_PT_INFO_TIME_MULT] = 1;
	priv[HWT_PT_INFO_TIME_ZERO] = 0;
	priv[HWT_PT_INFO_CAP_USER_TIME_ZERO] = 1;
	priv[HWT_PT_INFO_TSC_BIT] = HWT_PT_CONFIG_TSC;
	priv[HWT_PT_INFO_NORETCOMP_BIT] = HWT_PT_CONFIG_NORETCOMP;
	/* perf's have_sched_switch 3: SWITCH_CPU_WIDE records. */
	priv[HWT_PT_INFO_HAVE_SCHED_SWITCH] = one_cpu ? 3 : 0;
	priv[HWT_PT_INFO_SNAPSHOT_MODE] = 0;
	priv[HWT_PT_INFO_PER_CPU_MMAPS] = (uint64_t)one_cpu;
	priv[HWT_PT_INFO_MTC_BIT] = HWT_PT_CONFIG_MTC;
	priv[HWT_PT_INFO_MTC_FREQ_BITS] = HWT_PT_CONFIG_MTC_PERIOD;
	priv[HWT_PT_INFO_TSC_CTC_N] = claim->ctc_n;
	priv[HWT_PT_INFO_TSC_CTC_D] = claim->ctc_d;
	priv[HWT_PT_INFO_CYC_BIT] = HWT_PT_CONFIG_CYC;
	priv[HWT_PT_INFO_MAX_NONTURBO_RATIO] = claim->nom_freq;
	/* perf's arm_spe takes the clock from TIME_CONV when it reads
	   AUXTRACE_INFO (perf record writes it first). */
	if (x->spe) {
		err = write_time_conv(w);
		if (err)
			return err;
	}
	memset(&p, 0, sizeof(p));
	p.type = HWT_PERF_RECORD_AUXTRACE_INFO;
	p.u.auxtrace_info.type = HWT_PERF_AUXTRACE_INTEL_PT;
	p.u.auxtrace_info.priv = priv;
	p.u.auxtrace_info.npriv = HWT_PT_INFO_WORDS;
	if (x->spe) {
		hwt_xport_spe_info(x, spe_priv);
		p.u.auxtrace_info.type = HWT_PERF_AUXTRACE_ARM_SPE;
		p.u.auxtrace_info.priv = spe_priv;
		p.u.auxtrace_info.npriv = HWT_PERF_ARM_SPE_INFO_WORDS;
	} else if (x->etm) {
		if (hwt_xport_etm_info(x, &etm_priv, &etm_npriv))
			return -hpf_nomem;
		p.u.auxtrace_info.type = HWT_PERF_AUXTRACE_CS_ETM;
		p.u.auxtrace_info.priv = etm_priv;
		p.u.auxtrace_info.npriv = etm_npriv;
	}
	err = hwt_perf_writer_write(w, &p);
	free(etm_priv);
	if (err)
		return err;

	if (!x->spe) {
		err = write_time_conv(w);
		if (err)
			return err;
	}

	/* The kernel's map, as perf record synthesizes it (perf finds where user
	   space ends from it). */
	memset(&p, 0, sizeof(p));
	p.type = PERF_RECORD_MMAP;
	p.misc = PERF_RECORD_MISC_KERNEL;
	p.u.mmap.pid = UINT32_MAX;
	p.u.mmap.addr = 0xffffffff81000000ull;
	p.u.mmap.len = 0x1000000;
	p.u.mmap.pgoff = p.u.mmap.addr;
	p.u.mmap.filename = "[kernel.kallsyms]_text";
	p.sample.id = TRACKING_ID;
	return hwt_perf_writer_write(w, &p);
}

/* ----- The export ------------------------------------------------------- */

/* Intel PT or ETMv4: what the exported images' streams are, one kind. */
static int trace_kind(struct xport *x)
{
	size_t n = hwt_bundle_stream_count(x->bundle);
	int pt = 0, etm = 0;

	if (x->options && x->options->flags & HWT_PERF_EXPORT_SPE) {
		for (size_t i = 0; i < hwt_bundle_spe_count(x->bundle); i++) {
			const struct hwt_bundle_stream *s = hwt_bundle_spe_at(x->bundle, i);

			if (s->image >= 0 && x->image_of[s->image] >= 0)
				x->spe = 1;
		}
		return x->spe ? 0 : -hxe_no_spe;
	}

	for (size_t i = 0; i < n; i++) {
		const struct hwt_bundle_stream *s = hwt_bundle_stream_at(x->bundle, i);

		if (s->image < 0 || x->image_of[s->image] < 0)
			continue;
		if (s->trace == hwt_trace_etmv4)
			etm = 1;
		else
			pt = 1;
	}
	if (pt && etm)
		return -hxe_mixed;
	x->etm = etm;
	if (etm) {
		hwt_xport_etm_unit(x->bundle, &x->etm_unit);
		x->etm_sizes = calloc(n ? n : 1, sizeof(*x->etm_sizes));
		if (!x->etm_sizes)
			return -hxe_nomem;
	}
	return 0;
}

/* Whether image i has SPE streams (an imported arm_spe recording has no others). */
static int has_spe(const struct hwt_bundle *bundle, size_t i)
{
	for (size_t k = 0; k < hwt_bundle_spe_count(bundle); k++)
		if (hwt_bundle_spe_at(bundle, k)->image == (int64_t)i)
			return 1;
	return 0;
}

static void free_images(struct xport *x)
{
	for (size_t i = 0; i < x->nimages; i++) {
		for (size_t r = 0; r < x->images[i].nrecs; r++)
			free(x->images[i].recs[r]);
		free(x->images[i].recs);
		free(x->images[i].times);
		free(x->images[i].first);
	}
	free(x->images);
	free(x->image_of);
	free(x->aux);
	free(x->etm_sizes);
}

/* Every stream's place in its thread's AUX buffer. */
static int plan_aux(struct xport *x)
{
	size_t n = hwt_xport_stream_count(x);
	uint32_t nidx = 0;

	x->aux = calloc(n ? n : 1, sizeof(*x->aux));
	if (!x->aux)
		return -hxe_nomem;
	for (size_t i = 0; i < n; i++) {
		const struct hwt_bundle_stream *s = hwt_xport_stream_at(x, i);
		struct xport_aux *a = &x->aux[x->naux];
		const struct xport_image *im;
		uint64_t offset = 0;
		long idx = -1;

		if (s->image < 0 || x->image_of[s->image] < 0) {
			hwt_xport_warn(x, "%s: a stream without sideband: not exported", s->path);
			continue;
		}
		im = &x->images[x->image_of[s->image]];
		for (size_t k = 0; k < x->naux; k++)
			if (x->aux[k].stream->tid == s->tid) {
				idx = (long)x->aux[k].idx;
				offset = x->aux[k].offset + x->aux[k].size;
			}
		a->stream = s;
		a->image = im;
		a->idx = idx < 0 ? nidx++ : (uint32_t)idx;
		a->offset = offset;
		a->trace_size = x->etm ? x->etm_sizes[i] : s->size;
		a->size = (a->trace_size + 7) & ~(uint64_t)7;
		a->time = hwt_xport_record_time(x, im, 0);
		for (size_t f = 0; f < im->nfirst; f++)
			if (im->first[f].tid == s->tid && im->first[f].tsc != UINT64_MAX)
				a->time = im->first[f].time;
		x->naux++;
	}
	x->nidx = nidx;
	if (x->etm && nidx > HWT_XPORT_ETM_CPUS) {
		hwt_xport_warn(x, "%" PRIu32 " threads with ETMv4 trace: the export gives each a "
			       "trace unit of its own, and there are trace IDs for %u", nidx,
			       HWT_XPORT_ETM_CPUS);
		return -hxe_invalid;
	}
	return 0;
}

/* Stream s's trace moved onto the export's clock into *buf (of *size bytes,
   room for a->size: ETMv4's is rewritten into a buffer of its own);
   *damaged counts the bytes that are not packets. */
static int retime_stream(struct xport *x, const struct xport_aux *a, uint8_t **buf,
			 size_t *size, uint64_t *damaged)
{
	uint64_t min = UINT64_MAX, max = 0, out_size = 0;
	uint8_t *out;
	int err;

	if (x->spe) {
		hwt_xport_spe_stream(x, a->image, *buf, *size, &min, &max, damaged);
		return 0;
	}
	if (!x->etm)
		return hwt_xport_stream_tsc(x, a->image, *buf, *size, NULL, &max, damaged);
	out = malloc(a->size ? a->size : 1);
	err = out ? hwt_xport_etm_stream(x, a->image, *buf, *size, NULL, &out_size, &min, &max,
					 damaged) : -hxe_nomem;
	if (!err && ((out_size + 7) & ~(uint64_t)7) != a->size)
		err = -hxe_io;
	if (!err)
		err = hwt_xport_etm_stream(x, a->image, *buf, *size, out, &out_size, &min, &max,
					   damaged);
	free(*buf);
	*buf = out;
	*size = (size_t)out_size;
	if (!err)
		memset(*buf + *size, 0, a->size - *size);
	return err;
}

/* The AUXTRACE record of a's stream, its data after it. */
static int write_stream(struct xport *x, struct hwt_perf_writer *w, const struct xport_aux *a)
{
	const struct hwt_bundle_stream *s = a->stream;
	struct hwt_perf_record p;
	uint64_t damaged;
	size_t size, padded;
	uint8_t *buf = hwt_xport_read_file(s->path, &size, 8);
	int err;

	if (!buf) {
		hwt_xport_warn(x, "%s: cannot read it: %s", s->path, strerror(errno));
		return 0;
	}
	err = retime_stream(x, a, &buf, &size, &damaged);
	if (err) {
		if (err == -hxe_io)
			hwt_xport_warn(x, "%s: changed while exported", s->path);
		free(buf);
		return err;
	}
	if (damaged) {
		x->stats.damaged_bytes += damaged;
		hwt_xport_warn(x, "%s: %" PRIu64 " bytes are not %s packets: exported "
			       "as they are", s->path, damaged,
			       x->spe ? "SPE" : x->etm ? "ETMv4" : "Intel PT");
	}
	/* perf pads AUX data to 8 bytes; zero bytes are PAD packets. */
	padded = (size + 7) & ~(size_t)7;
	if (padded != a->size) {
		free(buf);
		hwt_xport_warn(x, "%s: changed while exported", s->path);
		return -hxe_io;
	}
	memset(&p, 0, sizeof(p));
	p.type = HWT_PERF_RECORD_AUXTRACE;
	p.u.auxtrace.size = padded;
	p.u.auxtrace.offset = a->offset;
	p.u.auxtrace.reference = a->image->base;
	p.u.auxtrace.idx = a->idx;
	p.u.auxtrace.tid = s->tid;
	/* perf's cs_etm (6.1) finds a buffer by the CPU of its AUX records
	   and decodes a CPU's trace unit once: each thread's ETMv4 trace
	   is a CPU's of its own (cs_etm_export.c). perf 6.1's arm_spe gives
	   samples a thread by their Context packets in per-CPU buffers only:
	   the same for SPE. */
	p.u.auxtrace.cpu = x->etm || x->spe ? a->idx : UINT32_MAX;
	p.u.auxtrace.data = buf;
	p.u.auxtrace.data_size = padded;
	err = hwt_perf_writer_write(w, &p);
	free(buf);
	if (err)
		return perf_error(err);
	x->stats.streams++;
	x->stats.trace_bytes += size;
	return 0;
}

/* The AUX data of the streams of image im (NULL: of all), FINISHED_ROUND after. */
static int write_streams(struct xport *x, struct hwt_perf_writer *w, const struct xport_image *only)
{
	struct hwt_perf_record round = { .type = HWT_PERF_RECORD_FINISHED_ROUND };

	for (size_t i = 0; i < x->naux; i++) {
		struct xport_aux *a = &x->aux[i];
		int err;

		if ((only && a->image != only) || a->written)
			continue;
		a->written = 1;
		err = write_stream(x, w, a);
		if (err)
			return err;
	}
	return perf_error(hwt_perf_writer_write(w, &round));
}

/* The images with streams (SPE streams for an SPE export), their records
   read: x->images, and x->image_of for every image of the bundle. */
static int load_images(struct xport *x)
{
	size_t nimages = hwt_bundle_image_count(x->bundle);
	int spe = x->options && (x->options->flags & HWT_PERF_EXPORT_SPE);

	x->images = calloc(nimages ? nimages : 1, sizeof(*x->images));
	x->image_of = calloc(nimages ? nimages : 1, sizeof(*x->image_of));
	if (!x->images || !x->image_of)
		return -hxe_nomem;
	for (size_t i = 0; i < nimages; i++) {
		const struct hwt_bundle_image *bi = hwt_bundle_image_at(x->bundle, i);
		int err;

		x->image_of[i] = -1;
		if (bi->native || (!bi->streams && !(spe && has_spe(x->bundle, i))))
			continue;
		err = load_image(x, bi, &x->images[x->nimages]);
		if (err)
			return err;
		x->image_of[i] = (long)x->nimages++;
	}
	return x->nimages ? 0 : -hxe_empty;
}

/* Thread tid's trace in image im begins at TSC tsc. */
static int add_first(struct xport_image *im, uint32_t tid, uint64_t tsc)
{
	void *p = realloc(im->first, (im->nfirst + 1) * sizeof(*im->first));

	if (!p)
		return -hxe_nomem;
	im->first = p;
	im->first[im->nfirst].tid = tid;
	im->first[im->nfirst].tsc = tsc;
	im->first[im->nfirst].time = 0;
	im->nfirst++;
	return 0;
}

/* Each stream's smallest and largest TSC: the largest extends its image's
   time, the smallest is where its thread's trace begins; an ETMv4 stream's
   size once exported. */
static int scan_streams(struct xport *x)
{
	for (size_t i = 0; i < hwt_xport_stream_count(x); i++) {
		const struct hwt_bundle_stream *s = hwt_xport_stream_at(x, i);
		struct xport_image *im;
		uint64_t damaged, max = 0, min = UINT64_MAX;
		size_t size;
		uint8_t *buf;
		int err = 0;

		if (s->image < 0 || x->image_of[s->image] < 0)
			continue;
		im = &x->images[x->image_of[s->image]];
		buf = hwt_xport_read_file(s->path, &size, 0);
		if (!buf)
			continue;
		if (x->spe)
			hwt_xport_spe_stream(x, NULL, buf, size, &min, &max, &damaged);
		else if (x->etm)
			err = hwt_xport_etm_stream(x, NULL, buf, size, NULL, &x->etm_sizes[i], &min,
						   &max, &damaged);
		else
			err = hwt_xport_stream_tsc(x, NULL, buf, size, &min, &max, &damaged);
		free(buf);
		if (err)
			return err;
		if (max > im->max_time)
			im->max_time = max;
		err = add_first(im, s->tid, min);
		if (err)
			return err;
	}
	return 0;
}

/* The images placed on one clock (timeline.c), and every record's time and
   thread's first trace on it. */
static int place_images(struct xport *x)
{
	int err = hwt_xport_timeline(x);

	if (err)
		return err;
	for (size_t i = 0; i < x->nimages; i++) {
		struct xport_image *im = &x->images[i];

		im->times = calloc(im->nrecs ? im->nrecs : 1, sizeof(*im->times));
		if (!im->times)
			return -hxe_nomem;
		for (size_t r = 0; r < im->nrecs; r++)
			im->times[r] = hwt_xport_record_time(x, im, im->recs[r]->time);
		for (size_t k = 0; k < im->nfirst; k++)
			im->first[k].time = hwt_xport_tsc(x, im, im->first[k].tsc);
	}
	return 0;
}

/* Opens the file at path and writes what comes before the sideband: the
   attributes, the header's features, AUXTRACE_INFO and TIME_CONV. */
static int write_head(struct xport *x, const char *path, struct hwt_perf_writer *w)
{
	const struct hwt_perf_export_options *o = x->options;
	struct perf_event_attr pt, tracking;
	uint64_t pt_id = PT_ID, tracking_id = TRACKING_ID;
	struct pt_claim claim;
	unsigned flags = 0;
	int err;

	if (o && o->flags & HWT_PERF_EXPORT_PIPE)
		flags |= HWT_PERF_WRITE_PIPE;
	if (o && o->flags & HWT_PERF_EXPORT_COMPRESS)
		flags |= HWT_PERF_WRITE_COMPRESS;
	pt_claim_of(x->bundle, &claim);
	/* A CTC tick is a step of the bundle's clock: scaled with it. */
	if ((uint64_t)claim.ctc_n * x->scale <= UINT32_MAX)
		claim.ctc_n *= (uint32_t)x->scale;
	attrs_of(&pt, &tracking, x->one_cpu, &claim, x->etm, x->spe);
	err = hwt_perf_writer_open(w, path, flags);
	if (!err)
		err = hwt_perf_writer_add_attr(w, &pt, &pt_id, 1);
	if (!err)
		err = hwt_perf_writer_add_attr(w, &tracking, &tracking_id, 1);
	if (!err)
		err = write_features(x, w);
	if (!err)
		err = write_preamble(x, w, x->one_cpu, &claim);
	return perf_error(err);
}

/*
 * The sideband events and the AUX data. On the sequential clock each
 * image's records are together: its streams follow them, then
 * FINISHED_ROUND, as perf record writes data it has read (a file cut short
 * keeps whole images). Otherwise (one CPU, a TSC clock) all of the AUX data
 * first: then a reader of a pipe has it queued before the sideband asks to
 * decode.
 */
static int write_body(struct xport *x, struct hwt_perf_writer *w, const struct xevent *events,
		      size_t nevents, struct xport_cpu *cpu)
{
	int err = 0;

	if (x->one_cpu)
		err = hwt_xport_one_cpu_write(x, cpu, w);
	else if (x->identity)
		err = write_streams(x, w, NULL);
	for (size_t i = 0; !err && i < nevents; i++) {
		err = write_event(x, w, &events[i], cpu);
		if (!err && !x->one_cpu && !x->identity && events[i].im &&
		    (i + 1 == nevents || events[i + 1].im != events[i].im))
			err = write_streams(x, w, events[i].im);
	}
	return err;
}

int hwt_perf_export(struct hwt_bundle *bundle, const char *path,
		    const struct hwt_perf_export_options *options,
		    struct hwt_perf_export_stats *stats)
{
	struct xport x = { 0 };
	struct hwt_perf_writer *w = NULL;
	struct xevent *events = NULL;
	struct xport_cpu *cpu = NULL;
	size_t nevents = 0;
	int err;

	if (!bundle || !path)
		return -hxe_invalid;
	x.bundle = bundle;
	x.options = options;
	err = load_images(&x);
	if (!err)
		err = trace_kind(&x);
	if (!err)
		err = scan_streams(&x);
	if (!err) {
		x.stats.images = x.nimages;
		x.one_cpu = options && (options->flags & HWT_PERF_EXPORT_ONE_CPU);
		err = x.one_cpu && (x.etm || x.spe) ? -hxe_one_cpu : place_images(&x);
	}
	if (!err)
		err = x.one_cpu ? hwt_xport_one_cpu_plan(&x, &cpu) : plan_aux(&x);
	if (!err && !(events = collect_events(&x, &nevents, cpu)))
		err = -hxe_nomem;
	if (!err && !(w = hwt_perf_writer_alloc()))
		err = -hxe_nomem;
	if (!err)
		err = write_head(&x, path, w);
	if (!err)
		err = write_body(&x, w, events, nevents, cpu);
	if (!err)
		err = perf_error(hwt_perf_writer_close(w));
	hwt_perf_writer_free(w);
	hwt_xport_one_cpu_free(cpu);
	free(events);
	if (stats)
		*stats = x.stats;
	free_images(&x);
	return err;
}
