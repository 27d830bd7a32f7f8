/*
 * The process images of an import, from perf's sideband in time order: a
 * COMM with the exec flag ends an image with EXEC and starts the next
 * generation; a FORK of a process starts a child image that inherits its
 * parent's mappings (the decoder knows only an image's own records, so the
 * child gets copies of them); a FORK of a thread is THREAD_CREATE, an EXIT
 * THREAD_EXIT or PROCESS_EXIT; an executable MMAP2 is MMAP. Then each AUX
 * queue's owner changes: for a thread's buffer the images of its process,
 * for a CPU's the context switch records and execs on that CPU.
 */
#include "import_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hwt_record.h"

/* ----- Lookups ---------------------------------------------------------- */

static struct iimage *proc_image(struct import *im, uint32_t pid)
{
	for (size_t i = im->nprocs; i-- > 0;)
		if (im->procs[i].pid == pid)
			return im->procs[i].image;
	return NULL;
}

static int set_proc(struct import *im, uint32_t pid, struct iimage *image)
{
	for (size_t i = 0; i < im->nprocs; i++)
		if (im->procs[i].pid == pid) {
			im->procs[i].image = image;
			return 0;
		}
	if (hwt_import_grow(im, (void **)&im->procs, &im->cap_procs, im->nprocs + 1,
			    sizeof(*im->procs)))
		return -1;
	im->procs[im->nprocs].pid = pid;
	im->procs[im->nprocs].image = image;
	im->nprocs++;
	return 0;
}

static uint32_t pid_of(struct import *im, uint32_t tid)
{
	for (size_t i = im->nthreads; i-- > 0;)
		if (im->threads[i].tid == tid)
			return im->threads[i].pid;
	return proc_image(im, tid) ? tid : UINT32_MAX;
}

static void set_thread(struct import *im, uint32_t tid, uint32_t pid)
{
	for (size_t i = 0; i < im->nthreads; i++)
		if (im->threads[i].tid == tid) {
			im->threads[i].pid = pid;
			return;
		}
	if (hwt_import_grow(im, (void **)&im->threads, &im->cap_threads, im->nthreads + 1,
			    sizeof(*im->threads)))
		return;
	im->threads[im->nthreads].tid = tid;
	im->threads[im->nthreads].pid = pid;
	im->nthreads++;
}

/* The image pid was in at time t (the latest that began by then). */
static struct iimage *image_at(struct import *im, uint32_t pid, uint64_t t)
{
	struct iimage *found = NULL;

	for (size_t i = 0; i < im->nimages; i++) {
		struct iimage *g = im->images[i];

		if (g->pid == pid && g->start <= t)
			found = g;
	}
	if (!found)
		for (size_t i = 0; i < im->nimages && !found; i++)
			if (im->images[i]->pid == pid)
				found = im->images[i]; /* trace before its first record */
	return found;
}

struct istream *hwt_import_stream(struct import *im, struct iimage *image, uint32_t tid)
{
	struct istream *s;

	for (size_t i = 0; i < im->nstreams; i++)
		if (im->streams[i]->image == image && im->streams[i]->tid == tid)
			return im->streams[i];
	if (hwt_import_grow(im, (void **)&im->streams, &im->cap_streams, im->nstreams + 1,
			    sizeof(*im->streams)))
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s) {
		im->nomem = 1;
		return NULL;
	}
	s->image = image;
	s->tid = tid;
	im->streams[im->nstreams++] = s;
	return s;
}

/* ----- Images and their records ----------------------------------------- */

static struct iimage *new_image(struct import *im, uint32_t pid, uint32_t ppid, uint64_t t,
				int exec_entered, const char *comm)
{
	struct iimage *g;
	uint32_t gen = 0;

	for (size_t i = 0; i < im->nimages; i++)
		if (im->images[i]->pid == pid)
			gen = im->images[i]->generation + 1;
	if (hwt_import_grow(im, (void **)&im->images, &im->cap_images, im->nimages + 1,
			    sizeof(*im->images)))
		return NULL;
	g = calloc(1, sizeof(*g));
	if (!g) {
		im->nomem = 1;
		return NULL;
	}
	g->pid = pid;
	g->generation = gen;
	g->ppid = ppid;
	g->start = t;
	g->exec_entered = exec_entered;
	g->comm = comm ? strdup(comm) : NULL;
	im->images[im->nimages++] = g;
	if (set_proc(im, pid, g))
		return NULL;
	set_thread(im, pid, pid);
	return g;
}

int hwt_import_add_record(struct import *im, struct iimage *g, void *rec)
{
	struct hwt_record_header *h = rec;
	size_t at = g->len;

	h->magic = HWT_RECORD_MAGIC;
	hwt_record_seal(h);
	if (hwt_import_grow(im, (void **)&g->records, &g->cap, g->len + h->size, 1))
		return -1;
	memcpy(g->records + g->len, h, h->size);
	g->len += h->size;
	g->nrecords++;
	if (h->type == HWT_RECORD_MMAP) {
		if (hwt_import_grow(im, (void **)&g->mmaps, &g->cap_mmaps, g->nmmaps + 1,
				    sizeof(*g->mmaps)))
			return -1;
		g->mmaps[g->nmmaps++] = at;
	}
	return 0;
}

static void header(struct hwt_record_header *h, uint16_t type, uint32_t size, uint64_t t,
		   uint32_t pid, uint32_t tid)
{
	h->type = type;
	h->flags = 0;
	h->size = size;
	h->time = t;
	h->pid = pid;
	h->tid = tid;
}

void hwt_import_lost(struct import *im, uint32_t pid, uint32_t tid, uint64_t t,
		     uint32_t reason, uint64_t records, uint64_t bytes)
{
	struct iimage *g = pid != UINT32_MAX ? proc_image(im, pid) : NULL;
	struct hwt_record_lost r = { 0 };

	im->stats.lost_events++;
	if (!g && im->nimages)
		g = im->images[0]; /* no process to blame: the first one says it */
	if (!g) {
		im->untraced_lost++;
		return;
	}
	header(&r.hdr, HWT_RECORD_LOST, sizeof(r), t, g->pid, tid == UINT32_MAX ? g->pid : tid);
	r.reason = reason;
	r.records = records > UINT32_MAX ? UINT32_MAX : (uint32_t)records;
	r.bytes = bytes;
	hwt_import_add_record(im, g, &r);
}

/* A child's copies of its parent's mappings, as of the fork. */
static int inherit_mappings(struct import *im, const struct iimage *parent,
			    struct iimage *child, uint64_t t)
{
	for (size_t i = 0; i < parent->nmmaps; i++) {
		const struct hwt_record_header *src =
			(const void *)(parent->records + parent->mmaps[i]);
		struct hwt_record_header *copy = malloc(src->size);
		int err;

		if (!copy) {
			im->nomem = 1;
			return -1;
		}
		memcpy(copy, src, src->size);
		copy->time = t;
		copy->pid = copy->tid = child->pid;
		err = hwt_import_add_record(im, child, copy);
		free(copy);
		if (err)
			return -1;
	}
	return 0;
}

static int do_mmap(struct import *im, const struct ievent *e)
{
	uint32_t pid = e->u.mmap.pid;
	struct iimage *g = proc_image(im, pid);
	const struct inote_mmap *note = hwt_import_note_mmap(im, pid, e->time, e->u.mmap.addr);
	uint8_t build_id[20];
	uint8_t build_id_size = e->u.mmap.build_id_size;
	uint16_t flags = 0;
	struct hwt_record_mmap *r;
	char *path;
	size_t plen, size;
	int err;

	if (!g) {
		/* A process there before the recording (perf synthesized its maps). */
		g = new_image(im, pid, 0, e->time, 0, NULL);
		if (!g)
			return -1;
	}
	memcpy(build_id, e->u.mmap.build_id, sizeof(build_id));
	if (note && (note->flags & HWT_MMAP_ANON)) {
		path = strdup("");
		flags = note->flags;
	} else {
		path = hwt_import_binary(im, e->u.mmap.filename, build_id, &build_id_size, &flags);
		if (note) {
			flags = note->flags;
			if (note->flags & HWT_MMAP_VDSO) {
				/* The bundle's copy: the path names it in the bundle. */
				free(path);
				path = strdup(note->path);
			}
		}
	}
	if (!path) {
		im->nomem = 1;
		return -1;
	}
	plen = strlen(path) + 1;
	size = hwt_record_align((uint32_t)(sizeof(*r) + plen));
	r = calloc(1, size);
	if (!r) {
		free(path);
		im->nomem = 1;
		return -1;
	}
	header(&r->hdr, HWT_RECORD_MMAP, (uint32_t)size, e->time, pid,
	       e->u.mmap.tid == UINT32_MAX ? pid : e->u.mmap.tid);
	r->hdr.flags = flags;
	r->addr = e->u.mmap.addr;
	r->len = e->u.mmap.len;
	r->pgoff = e->u.mmap.pgoff;
	r->prot = (e->u.mmap.prot & 1u ? HWT_PROT_READ : 0) |
		  (e->u.mmap.prot & 2u ? HWT_PROT_WRITE : 0) |
		  (e->u.mmap.prot & 4u ? HWT_PROT_EXEC : 0);
	r->build_id_size = build_id_size <= HWT_BUILD_ID_MAX ? build_id_size : 0;
	memcpy(r->build_id, build_id, r->build_id_size);
	memcpy(r + 1, path, plen);
	if (!g->path && !(flags & (HWT_MMAP_ANON | HWT_MMAP_VDSO | HWT_MMAP_TRACE_UNIT)) &&
	    path[0])
		g->path = strdup(e->u.mmap.filename); /* an exec's first file is its program */
	free(path);
	err = hwt_import_add_record(im, g, r);
	free(r);
	return err;
}

static int32_t exit_status(const struct import *im, uint32_t pid, uint64_t t)
{
	for (size_t i = 0; i < im->note.nexits; i++)
		if (im->note.exits[i].pid == pid && im->note.exits[i].time == t)
			return im->note.exits[i].status;
	return 0;
}

static int do_event(struct import *im, const struct ievent *e)
{
	struct iimage *g;

	switch (e->type) {
	case PERF_RECORD_COMM: {
		uint32_t pid = e->u.comm.pid;

		set_thread(im, e->u.comm.tid, pid);
		g = proc_image(im, pid);
		if (e->misc & PERF_RECORD_MISC_COMM_EXEC) {
			uint32_t ppid = g ? g->ppid : 0;

			if (g && !g->ended) {
				/* EXEC with an empty path (the new image's PROCESS_START names it). */
				struct {
					struct hwt_record_process x;
					char path[8];
				} r = { 0 };

				header(&r.x.hdr, HWT_RECORD_EXEC, sizeof(r), e->time, pid, e->u.comm.tid);
				if (hwt_import_add_record(im, g, &r))
					return -1;
				g->ended = 1;
			}
			return new_image(im, pid, ppid, e->time, 1, e->u.comm.comm) ? 0 : -1;
		}
		if (!g)
			return new_image(im, pid, 0, e->time, 0, e->u.comm.comm) ? 0 : -1;
		if (!g->comm)
			g->comm = strdup(e->u.comm.comm);
		return 0;
	}
	case PERF_RECORD_FORK: {
		uint32_t pid = e->u.task.pid, tid = e->u.task.tid;

		if (pid == tid && pid != e->u.task.ppid) {
			struct iimage *parent = proc_image(im, e->u.task.ppid);
			struct iimage *child = new_image(im, pid, e->u.task.ppid, e->time, 0,
							 parent ? parent->comm : NULL);

			if (!child)
				return -1;
			if (parent) {
				struct hwt_record_fork f = { 0 };

				if (parent->path)
					child->path = strdup(parent->path);
				header(&f.hdr, HWT_RECORD_FORK, sizeof(f), e->time, parent->pid,
				       e->u.task.ptid);
				f.child_pid = pid;
				if (hwt_import_add_record(im, parent, &f) ||
				    inherit_mappings(im, parent, child, e->time))
					return -1;
			}
			return 0;
		}
		set_thread(im, tid, pid);
		g = proc_image(im, pid);
		if (!g && !(g = new_image(im, pid, 0, e->time, 0, NULL)))
			return -1;
		{
			struct hwt_record_thread t = { 0 };

			header(&t.hdr, HWT_RECORD_THREAD_CREATE, sizeof(t), e->time, pid,
			       e->u.task.ptid);
			t.child_tid = tid;
			return hwt_import_add_record(im, g, &t);
		}
	}
	case PERF_RECORD_EXIT: {
		uint32_t pid = e->u.task.pid, tid = e->u.task.tid;

		g = proc_image(im, pid);
		if (!g || g->ended)
			return 0;
		if (tid == pid) {
			struct hwt_record_exit x = { 0 };

			header(&x.hdr, HWT_RECORD_PROCESS_EXIT, sizeof(x), e->time, pid, tid);
			x.status = exit_status(im, pid, e->time);
			g->ended = 1;
			return hwt_import_add_record(im, g, &x);
		} else {
			struct hwt_record_thread t = { 0 };

			header(&t.hdr, HWT_RECORD_THREAD_EXIT, sizeof(t), e->time, pid, tid);
			return hwt_import_add_record(im, g, &t);
		}
	}
	case PERF_RECORD_MMAP2:
		return do_mmap(im, e);
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
		hwt_import_warn(im, "%s: perf lost %" PRIu64 " %s at time %" PRIu64, im->perf_path,
				e->u.lost.count,
				e->type == PERF_RECORD_LOST ? "records" : "samples", e->time);
		hwt_import_lost(im, e->pid, e->tid, e->time, HWT_LOST_RECORD_QUEUE,
				e->u.lost.count, 0);
		return 0;
	case PERF_RECORD_AUX:
		if (!(e->u.aux.flags & (PERF_AUX_FLAG_TRUNCATED | PERF_AUX_FLAG_PARTIAL |
					PERF_AUX_FLAG_COLLISION)))
			return 0;
		hwt_import_warn(im, "%s: the kernel flagged the AUX data at offset %#" PRIx64
				" (%" PRIu64 " bytes, thread %" PRId32 ")%s%s%s: trace is missing",
				im->perf_path, e->u.aux.offset, e->u.aux.size, (int32_t)e->tid,
				e->u.aux.flags & PERF_AUX_FLAG_TRUNCATED ? " truncated" : "",
				e->u.aux.flags & PERF_AUX_FLAG_PARTIAL ? " partial" : "",
				e->u.aux.flags & PERF_AUX_FLAG_COLLISION ? " collision" : "");
		hwt_import_lost(im, e->pid, e->tid, e->time, HWT_LOST_BUFFER_WRAP, 0,
				e->u.aux.flags & PERF_AUX_FLAG_TRUNCATED ? e->u.aux.size : 0);
		return 0;
	case HWT_PERF_RECORD_AUXTRACE_ERROR:
		hwt_import_warn(im, "%s: perf recorded a trace error (code %u, cpu %" PRId32
				", thread %" PRId32 ", ip %#" PRIx64 "): %s", im->perf_path,
				e->u.error.code, (int32_t)e->u.error.cpu, (int32_t)e->u.error.tid,
				e->u.error.ip, e->u.error.msg);
		hwt_import_lost(im, e->u.error.pid, e->u.error.tid, e->time, HWT_LOST_TRACE_WRITE,
				0, 0);
		return 0;
	default:
		return 0;
	}
}

/* MUNMAP records from hwt's section, in their images at their time. */
static int do_munmap(struct import *im, const struct hwt_record_munmap *u)
{
	struct iimage *g = proc_image(im, u->hdr.pid);
	struct hwt_record_munmap r = *u;

	if (!g)
		return 0;
	header(&r.hdr, HWT_RECORD_MUNMAP, sizeof(r), u->hdr.time, u->hdr.pid, u->hdr.tid);
	return hwt_import_add_record(im, g, &r);
}

static int munmap_cmp(const void *pa, const void *pb)
{
	const struct hwt_record_munmap *a = pa, *b = pb;

	return a->hdr.time < b->hdr.time ? -1 : a->hdr.time > b->hdr.time;
}

int hwt_import_processes(struct import *im)
{
	size_t u = 0;

	if (im->note.nmunmaps)
		qsort(im->note.munmaps, im->note.nmunmaps, sizeof(*im->note.munmaps), munmap_cmp);
	for (size_t i = 0; i < im->nevents; i++) {
		while (u < im->note.nmunmaps && im->note.munmaps[u].hdr.time < im->events[i].time)
			if (do_munmap(im, &im->note.munmaps[u++]))
				return -hie_nomem;
		if (do_event(im, &im->events[i]) || im->nomem)
			return -hie_nomem;
	}
	while (u < im->note.nmunmaps)
		if (do_munmap(im, &im->note.munmaps[u++]))
			return -hie_nomem;
	return 0;
}

/* ----- Owners of the AUX queues ----------------------------------------- */

static int add_owner(struct import *im, struct iqueue *q, uint64_t t, struct istream *s)
{
	if (q->nowners && q->owners[q->nowners - 1].out == s)
		return 0;
	if (hwt_import_grow(im, (void **)&q->owners, &q->cap_owners, q->nowners + 1,
			    sizeof(*q->owners)))
		return -1;
	q->owners[q->nowners].time = t;
	q->owners[q->nowners].out = s;
	q->nowners++;
	return 0;
}

/* The stream of thread tid at time t, or NULL when nothing is known of it. */
static struct istream *stream_at(struct import *im, uint32_t tid, uint64_t t)
{
	uint32_t pid = tid == UINT32_MAX ? UINT32_MAX : pid_of(im, tid);
	struct iimage *g = pid == UINT32_MAX ? NULL : image_at(im, pid, t);

	return g ? hwt_import_stream(im, g, tid) : NULL;
}

static int thread_owners(struct import *im, struct iqueue *q)
{
	uint32_t pid = pid_of(im, q->tid);

	if (pid == UINT32_MAX) {
		hwt_import_warn(im, "%s: AUX data of thread %" PRId32 ", which no sideband record "
				"names: not imported", im->perf_path, (int32_t)q->tid);
		return 0;
	}
	for (size_t i = 0; i < im->nimages; i++) {
		struct iimage *g = im->images[i];
		struct istream *s;

		if (g->pid != pid)
			continue;
		s = hwt_import_stream(im, g, q->tid);
		if (!s || add_owner(im, q, g->start, s))
			return -1;
	}
	return 0;
}

static int cpu_owners(struct import *im, struct iqueue *q)
{
	for (size_t i = 0; i < im->nevents; i++) {
		const struct ievent *e = &im->events[i];
		uint32_t tid;
		int out = !!(e->misc & PERF_RECORD_MISC_SWITCH_OUT);

		if (!e->has_cpu || e->cpu != q->cpu)
			continue;
		switch (e->type) {
		case PERF_RECORD_SWITCH:
			tid = out ? UINT32_MAX : e->tid;
			break;
		case PERF_RECORD_SWITCH_CPU_WIDE:
			tid = out ? e->u.sw.tid : e->tid;
			break;
		case PERF_RECORD_ITRACE_START:
			tid = e->u.sw.tid;
			break;
		case PERF_RECORD_COMM:
			if (!(e->misc & PERF_RECORD_MISC_COMM_EXEC))
				continue;
			tid = e->u.comm.tid;
			break;
		default:
			continue;
		}
		if (add_owner(im, q, e->time, stream_at(im, tid, e->time)) || im->nomem)
			return -1;
	}
	if (!q->nowners)
		hwt_import_warn(im, "%s: no context switch or ITRACE_START record names a "
				"thread on CPU %u: its trace cannot be given to threads",
				im->perf_path, q->cpu);
	return 0;
}

struct istream *hwt_import_owner_at(const struct iqueue *q, uint64_t t)
{
	struct istream *s = q->nowners ? q->owners[0].out : NULL;

	for (size_t i = 0; i < q->nowners && q->owners[i].time <= t; i++)
		s = q->owners[i].out;
	return s;
}

struct istream *hwt_import_thread_stream(struct import *im, uint32_t tid, uint64_t t)
{
	return stream_at(im, tid, t);
}

int hwt_import_owners(struct import *im)
{
	for (size_t i = 0; i < im->nqueues; i++) {
		struct iqueue *q = &im->queues[i];

		if ((q->per_cpu ? cpu_owners(im, q) : thread_owners(im, q)) || im->nomem)
			return -hie_nomem;
	}
	return 0;
}

void hwt_import_processes_free(struct import *im)
{
	for (size_t i = 0; i < im->nimages; i++) {
		free(im->images[i]->path);
		free(im->images[i]->comm);
		free(im->images[i]->records);
		free(im->images[i]->mmaps);
		free(im->images[i]);
	}
	free(im->images);
	for (size_t i = 0; i < im->nstreams; i++) {
		free(im->streams[i]->buf);
		free(im->streams[i]->path);
		free(im->streams[i]);
	}
	free(im->streams);
	free(im->procs);
	free(im->threads);
}
