/*
 * A recording (hwt_kmod.h): the kernel's records, read with poll() and
 * read(), become the bundle's sideband, image by image; the threads'
 * buffers its streams. The kernel says "exec" once the new image is in
 * place; the bundle wants the old image to end with EXEC and the new one
 * to start with PROCESS_START, and the exec'ing thread's trace split
 * there: the thread pauses after the record (HWT_CFG_PAUSE_EXEC) until
 * its buffer has been read, which is where the split falls. A fork child
 * gets the parent's mappings copied into its own file, as the software
 * units write them. With --filter the thread also pauses after each MMAP
 * until the ranges of what it mapped are set. In CPU mode nothing pauses:
 * SWITCH records say which bytes of a CPU's buffer are whose (cpu.c), an
 * exec ends the old image's stream there, and processes that were running
 * before are described from /proc when first seen (proc.c).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hwt_ioctl.h"
#include "kmod_int.h"

#define DEFAULT_BUFSIZE (4u << 20)
#define READ_SIZE (256u << 10)

void kmod_warn(struct hwt_kmod *k, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!k->opts.warn.fn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	hwt_warn_say(&k->opts.warn, msg);
}

static int grow(void **items, size_t *cap, size_t need, size_t elem)
{
	void *p;
	size_t n = *cap ? *cap : 16;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	p = realloc(*items, n * elem);
	if (!p)
		return -hke_nomem;
	*items = p;
	*cap = n;
	return 0;
}

/* ----- Images and threads by pid and tid ----- */

static struct kmod_image *image_of(struct hwt_kmod *k, uint32_t pid)
{
	for (size_t i = 0; i < k->nimages; i++)
		if (k->images[i]->pid == pid)
			return k->images[i];
	return NULL;
}

/* The process's image ends (its file closes); the threads writing to it stop. */
static void image_end(struct hwt_kmod *k, struct kmod_image *img)
{
	for (size_t i = 0; i < k->nimages; i++) {
		if (k->images[i] == img) {
			k->images[i] = k->images[--k->nimages];
			break;
		}
	}
	for (size_t i = 0; i < k->nthreads; i++)
		if (k->threads[i]->image == img)
			kmod_thread_move(k->threads[i], NULL);
	kmod_image_free(img);
}

static int image_new(struct hwt_kmod *k, uint32_t pid, struct kmod_image **out)
{
	int ret = grow((void **)&k->images, &k->cap_images, k->nimages + 1, sizeof(*k->images));

	if (!ret)
		ret = kmod_image_open(k->bundle, pid, out);
	if (ret)
		return ret;
	k->images[k->nimages++] = *out;
	return 0;
}

static struct kmod_thread *thread_of(struct hwt_kmod *k, uint32_t tid)
{
	for (size_t i = 0; i < k->nthreads; i++)
		if (k->threads[i]->tid == tid && !k->threads[i]->exited)
			return k->threads[i];
	return NULL;
}

/* The live thread tid of process pid, made when not known yet (its trace goes to pid's image). */
static struct kmod_thread *thread_get(struct hwt_kmod *k, uint32_t tid, uint32_t pid)
{
	struct kmod_thread *t = thread_of(k, tid);

	if (t)
		return t;
	if (grow((void **)&k->threads, &k->cap_threads, k->nthreads + 1, sizeof(*k->threads)) ||
	    !(t = calloc(1, sizeof(*t))))
		return NULL;
	t->tid = tid;
	t->pid = pid;
	t->image = image_of(k, pid);
	t->pt.fd = t->blk.fd = -1;
	t->blk.aux = 1;
	k->threads[k->nthreads++] = t;
	return t;
}

/* A thread that exited: what its buffers still hold goes out, then it is forgotten. */
static int thread_done(struct hwt_kmod *k, struct kmod_thread *t)
{
	int ret = kmod_thread_drain(k, t);

	kmod_cpus_forget(k, t);
	for (size_t i = 0; i < k->nthreads; i++) {
		if (k->threads[i] == t) {
			k->threads[i] = k->threads[--k->nthreads];
			break;
		}
	}
	kmod_thread_close(t);
	free(t);
	return ret;
}

/* ----- Filters ----- */

static void ranges_drop(struct hwt_kmod *k, uint32_t pid)
{
	for (uint32_t i = 0; i < k->nranges;) {
		if ((uint32_t)k->ranges[i].pid == pid) {
			k->ranges[i] = k->ranges[--k->nranges];
			k->ranges_changed = 1;
		} else {
			i++;
		}
	}
}

/* The ranges the filters give for a new mapping. */
static int ranges_add(struct hwt_kmod *k, const struct hwt_record_mmap *rec, const char *path)
{
	for (const char *const *f = k->opts.filters; f && *f; f++) {
		struct hwt_sw_range r[HWT_SW_RANGES_MAX];
		size_t n = kmod_filter_ranges(*f, rec, path, r, 1), have = 0;
		size_t cap = k->cap_ranges;

		for (uint32_t i = 0; i < k->nranges; i++)
			have += (uint32_t)k->ranges[i].pid == rec->hdr.pid;
		if (!n)
			continue;
		if (have + n > HWT_SW_RANGES_MAX) {
			kmod_warn(k, "--filter %s: process %u has %d ranges already: not this one",
				  *f, rec->hdr.pid, HWT_SW_RANGES_MAX);
			continue;
		}
		if (grow((void **)&k->ranges, &cap, k->nranges + n, sizeof(*k->ranges)))
			return -hke_nomem;
		k->cap_ranges = (uint32_t)cap;
		memcpy(&k->ranges[k->nranges], r, n * sizeof(*r));
		k->nranges += (uint32_t)n;
		k->ranges_changed = 1;
	}
	return 0;
}

/* ----- Records ----- */

/* A copy of rec that the bundle takes: the kernel's PAUSED flag is the kernel's. */
static struct hwt_record_header *bundle_copy(const struct hwt_record_header *rec, size_t extra)
{
	struct hwt_record_header *c = malloc(rec->size + extra);

	if (c) {
		memcpy(c, rec, rec->size);
		c->flags &= (uint16_t)~HWT_RECORD_PAUSED;
	}
	return c;
}

/* A process image begins: PROCESS_START (or the EXEC that made it, as one). */
static int image_start(struct hwt_kmod *k, const struct hwt_record_header *rec,
		       struct kmod_image **out)
{
	struct hwt_record_process *p;
	struct kmod_image *img, *parent;
	int ret;

	ret = image_new(k, rec->pid, &img);
	if (ret)
		return ret;
	p = (struct hwt_record_process *)bundle_copy(rec, 0);
	if (!p)
		return -hke_nomem;
	p->hdr.type = HWT_RECORD_PROCESS_START;
	p->generation = img->gen;
	ret = kmod_image_append(img, &p->hdr);
	/* A fork child: the kernel records no mappings for it; it has its parent's. */
	parent = rec->type == HWT_RECORD_PROCESS_START ? image_of(k, p->ppid) : NULL;
	if (!ret && parent && parent != img)
		ret = kmod_image_inherit(img, parent, rec->time);
	free(p);
	for (size_t i = 0; i < k->nthreads; i++)
		if (k->threads[i]->pid == rec->pid && !k->threads[i]->image &&
		    rec->pid != (uint32_t)k->dropped)
			kmod_thread_move(k->threads[i], img);
	*out = img;
	return ret;
}

/* The old image (if any) ends in an exec of path (an EXEC record of its own). */
static int image_exec_end(struct hwt_kmod *k, struct kmod_image *old,
			  const struct hwt_record_header *rec, const char *path)
{
	size_t len = strlen(path) + 1;
	size_t size = hwt_record_align((uint32_t)(sizeof(struct hwt_record_process) + len));
	struct hwt_record_process *e;
	int ret;

	if (!old)
		return 0;
	if (rec->type == HWT_RECORD_EXEC) {
		e = (struct hwt_record_process *)bundle_copy(rec, 0);
	} else {
		e = calloc(1, size);	/* from UNTRACED: the path, no arguments */
		if (e) {
			e->hdr = *rec;
			e->hdr.size = (uint32_t)size;
			e->hdr.flags = 0;
			e->ppid = ((const struct hwt_record_untraced *)rec)->ppid;
			memcpy(e + 1, path, len);
		}
	}
	if (!e)
		return -hke_nomem;
	e->hdr.type = HWT_RECORD_EXEC;
	e->generation = old->gen;
	ret = kmod_image_append(old, &e->hdr);
	free(e);
	image_end(k, old);
	return ret;
}

static int on_exec(struct hwt_kmod *k, const struct hwt_record_header *rec)
{
	const char *path = (const char *)((const struct hwt_record_process *)rec + 1);
	struct kmod_thread *t = thread_get(k, rec->tid, rec->pid);
	struct kmod_image *img;
	int ret;

	if (!t)
		return -hke_nomem;
	/* The thread paused after the record: its buffer holds the old image's trace. */
	ret = kmod_thread_drain(k, t);
	if (ret)
		return ret;
	ranges_drop(k, rec->pid);
	if (rec->pid == (uint32_t)k->dropped)
		k->dropped = 0;
	else
		ret = image_exec_end(k, image_of(k, rec->pid), rec, path);
	if (!ret)
		ret = image_start(k, rec, &img);
	if (!ret)
		kmod_thread_move(t, img);
	return ret;
}

static int on_untraced(struct hwt_kmod *k, const struct hwt_record_header *rec)
{
	const char *path = (const char *)((const struct hwt_record_untraced *)rec + 1);
	struct kmod_thread *t = thread_of(k, rec->tid);
	struct hwt_record_header *c;
	int ret = 0;

	if (t) {
		ret = kmod_thread_drain(k, t);
		kmod_thread_move(t, NULL);
	}
	ranges_drop(k, rec->pid);
	if (rec->pid == (uint32_t)k->dropped)
		k->dropped = 0;
	else if (!ret)
		ret = image_exec_end(k, image_of(k, rec->pid), rec, path);
	c = bundle_copy(rec, 0);
	if (!c)
		return -hke_nomem;
	if (!ret)
		ret = kmod_untraced_append(k->bundle, c);
	free(c);
	return ret;
}

int kmod_record_mmap(struct hwt_kmod *k, struct kmod_image *img, const struct hwt_record_header *rec)
{
	const struct hwt_record_mmap *m = (const struct hwt_record_mmap *)rec;
	const char *path = (const char *)(m + 1);
	struct hwt_record_mmap *c;
	int ret;

	if ((rec->flags & HWT_MMAP_VDSO) && !k->vdso_path &&
	    kmod_vdso_copy(k->bundle, &k->vdso_path, k->vdso_build_id, &k->vdso_build_id_size))
		kmod_warn(k, "cannot copy the vDSO into %s/images", k->bundle);
	c = (struct hwt_record_mmap *)bundle_copy(rec, 32);
	if (!c)
		return -hke_nomem;
	if ((rec->flags & HWT_MMAP_VDSO) && k->vdso_path) {
		/* The path of the copy, relative to the bundle. */
		size_t len = strlen(k->vdso_path) + 1;
		uint32_t size = hwt_record_align((uint32_t)(sizeof(*c) + len));

		memset(c + 1, 0, size - sizeof(*c));
		memcpy(c + 1, k->vdso_path, len);
		c->hdr.size = size;
		memcpy(c->build_id, k->vdso_build_id, k->vdso_build_id_size);
		c->build_id_size = k->vdso_build_id_size;
	}
	ret = kmod_image_append(img, &c->hdr);
	free(c);
	if (!ret && k->opts.filters && !(rec->flags & HWT_MMAP_VDSO))
		ret = ranges_add(k, m, path);
	return ret;
}

/* CPU mode: a process running since before the trace, first seen now: its image from /proc. */
static int image_seen(struct hwt_kmod *k, uint32_t pid, uint64_t time, struct kmod_image **out)
{
	struct kmod_image *img;
	int ret = image_new(k, pid, &img);

	if (!ret)
		ret = kmod_proc_image(k, img, time);
	for (size_t i = 0; !ret && i < k->nthreads; i++)
		if (k->threads[i]->pid == pid && !k->threads[i]->image)
			kmod_thread_move(k->threads[i], img);
	*out = img;
	return ret;
}

/* CPU mode: a thread's stream in a CPU's buffer begins or ends. */
static int on_switch(struct hwt_kmod *k, const struct hwt_record_header *rec)
{
	const struct hwt_record_switch *sw = (const struct hwt_record_switch *)rec;
	struct kmod_thread *t = NULL;
	struct kmod_image *img;
	int ret = 0;

	if (k->opts.mode != HWT_KMOD_CPU || rec->size < sizeof(*sw))
		return 0;
	if (sw->in) {
		t = thread_get(k, rec->tid, rec->pid);
		if (!t)
			return -hke_nomem;
		if (!t->image && rec->pid != (uint32_t)k->dropped) {
			img = image_of(k, rec->pid);
			if (!img)
				ret = image_seen(k, rec->pid, rec->time, &img);
			if (!ret)
				kmod_thread_move(t, img);
		}
	}
	if (!ret)
		ret = kmod_cpu_switch(k, sw, t);
	return ret;
}

static int on_record(struct hwt_kmod *k, const struct hwt_record_header *rec)
{
	struct kmod_image *img;
	struct kmod_thread *t;
	struct hwt_record_header *c;
	int ret = 0;

	if (k->opts.mode == HWT_KMOD_CPU) {
		/* Every process's records come: this one's are its own, and it is not traced. */
		if (rec->pid == k->self)
			return 0;
		/* A fork of a process not seen yet: the child starts with the parent's mappings. */
		if (rec->type == HWT_RECORD_PROCESS_START) {
			uint32_t ppid = ((const struct hwt_record_process *)rec)->ppid;

			if (ppid && ppid != k->self && ppid != (uint32_t)k->dropped &&
			    !image_of(k, ppid) && (ret = image_seen(k, ppid, rec->time, &img)))
				return ret;
		}
		if (rec->type == HWT_RECORD_THREAD_EXIT && !image_of(k, rec->pid)) {
			t = thread_of(k, rec->tid);
			return t ? thread_done(k, t) : 0;
		}
	}
	switch (rec->type) {
	case HWT_RECORD_SWITCH:
		return on_switch(k, rec);
	case HWT_RECORD_PROCESS_START:
		if (!thread_get(k, rec->tid, rec->pid))
			return -hke_nomem;
		if (rec->pid == (uint32_t)k->dropped)
			return 0;	/* the caller's child before its exec */
		img = image_of(k, rec->pid);
		if (img)
			image_end(k, img);	/* a pid reused: that one is over */
		return image_start(k, rec, &img);
	case HWT_RECORD_EXEC:
		return on_exec(k, rec);
	case HWT_RECORD_UNTRACED:
		return on_untraced(k, rec);
	case HWT_RECORD_BUFFER:
		if (k->opts.mode == HWT_KMOD_CPU)
			return 0;	/* buffer is a CPU: each poll copies them all */
		t = thread_of(k, rec->tid);
		return t ? kmod_thread_drain(k, t) : 0;
	default:
		break;
	}
	img = image_of(k, rec->pid);
	if (!img)
		return 0;	/* the caller's child before its exec, or no image yet */
	switch (rec->type) {
	case HWT_RECORD_MMAP:
		return kmod_record_mmap(k, img, rec);
	case HWT_RECORD_THREAD_CREATE:
		if (!thread_get(k, ((const struct hwt_record_thread *)rec)->child_tid, rec->pid))
			return -hke_nomem;
		break;
	default:
		break;
	}
	c = bundle_copy(rec, 0);
	if (!c)
		return -hke_nomem;
	ret = kmod_image_append(img, c);
	free(c);
	if (ret)
		return ret;
	switch (rec->type) {
	case HWT_RECORD_THREAD_EXIT:
		t = thread_of(k, rec->tid);
		if (t)
			ret = thread_done(k, t);
		break;
	case HWT_RECORD_PROCESS_EXIT:
		ranges_drop(k, rec->pid);
		image_end(k, img);
		break;
	default:
		break;
	}
	return ret;
}

/* Reads every record queued now and writes them out; paused threads are woken after. */
static int read_records(struct hwt_kmod *k)
{
	uint32_t wake[256];
	size_t nwake = 0;
	int ret = 0;

	/* CPU mode: what the buffers hold now is owned by streams whose records are queued. */
	if (k->ncpus && (ret = kmod_cpus_snapshot(k)))
		return ret;
	for (;;) {
		ssize_t n = read(k->ctx.fd, k->buf, k->buf_size);
		size_t off = 0;

		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				break;
			return -hke_io;
		}
		if (n == 0)
			break;
		while (off < (size_t)n && !ret) {
			const struct hwt_record_header *rec = (const void *)(k->buf + off);

			if (hwt_record_check(rec, (size_t)n - off) <= 0) {
				kmod_warn(k, "a record from hwt.ko does not check: the rest of a read dropped");
				break;
			}
			ret = on_record(k, rec);
			if ((rec->flags & HWT_RECORD_PAUSED) && nwake < sizeof(wake) / sizeof(wake[0]))
				wake[nwake++] = rec->tid;
			off += rec->size;
		}
		if (ret)
			break;
	}
	/* New ranges before the threads that mapped them run on. */
	if (!ret && k->ranges_changed) {
		k->ranges_changed = 0;
		ret = kmod_ctx_configure(&k->ctx, &k->opts, k->ranges, k->nranges);
	}
	for (size_t i = 0; i < nwake; i++) {
		struct hwt_wakeup w = { .size = sizeof(w), .tid = (int32_t)wake[i] };

		/* ESRCH: it died meanwhile. */
		kmod_ctx_ioctl(&k->ctx, HWT_IOC_WAKEUP, &w);
	}
	if (nwake == sizeof(wake) / sizeof(wake[0])) {
		struct hwt_wakeup w = { .size = sizeof(w), .tid = -1 };

		kmod_ctx_ioctl(&k->ctx, HWT_IOC_WAKEUP, &w);
	}
	return ret;
}

static int drain_all(struct hwt_kmod *k)
{
	if (k->ncpus)
		return kmod_cpus_drain(k);
	for (size_t i = 0; i < k->nthreads; i++) {
		int ret = kmod_thread_drain(k, k->threads[i]);

		if (ret)
			return ret;
	}
	return 0;
}

/* Attaching to a running process: its threads now. */
static int threads_of_process(struct hwt_kmod *k, pid_t pid)
{
	char path[64];
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return thread_get(k, (uint32_t)pid, (uint32_t)pid) ? 0 : -hke_nomem;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && !thread_get(k, (uint32_t)atoi(e->d_name), (uint32_t)pid)) {
			closedir(d);
			return -hke_nomem;
		}
	closedir(d);
	return 0;
}

int hwt_kmod_alloc(struct hwt_kmod **out, const char *bundle, const struct hwt_kmod_options *o)
{
	struct hwt_kmod *k;
	size_t bufsize = o->bufsize ? o->bufsize : DEFAULT_BUFSIZE;
	int ret;

	if (!bundle || (o->mode == HWT_KMOD_THREAD && o->pid <= 0) ||
	    (o->mode == HWT_KMOD_CPU && (!o->cpus || !o->cpusetsize)))
		return -hke_invalid;
	k = calloc(1, sizeof(*k));
	if (!k)
		return -hke_nomem;
	k->opts = *o;
	k->ctx.fd = -1;
	k->bundle = strdup(bundle);
	k->buf_size = READ_SIZE;
	k->buf = malloc(k->buf_size);
	if (!k->bundle || !k->buf) {
		hwt_kmod_free(k);
		return -hke_nomem;
	}
	ret = kmod_ctx_alloc(&k->ctx, o, bufsize, o->debug_blocks ? bufsize : 0);
	if (!ret) {
		/* A kernel without a hook's symbol: hwt.ko records without that feature. */
		uint32_t off = kmod_features_off();

		if (off & HWT_FEATURE_MMAP)
			kmod_warn(k, "hwt.ko cannot hook mmap() on this kernel: libraries mapped after "
				  "exec (dlopen) are not recorded and their trace may not decode");
		if (off & HWT_FEATURE_MUNMAP)
			kmod_warn(k, "hwt.ko cannot hook munmap() on this kernel: unmapped code is "
				  "not recorded, and code mapped again at its address may decode wrong");
		ret = kmod_ctx_configure(&k->ctx, o, NULL, 0);
	}
	if (!ret && o->mode == HWT_KMOD_CPU) {
		k->self = (uint32_t)getpid();
		ret = kmod_cpus_open(k);
		/* The command (until_exec: it waits to exec it) is the caller's until its exec. */
		if (!ret && o->pid > 0 && o->until_exec)
			k->dropped = o->pid;
	} else if (!ret) {
		if (o->until_exec) {
			k->dropped = o->pid;
			ret = thread_get(k, (uint32_t)o->pid, (uint32_t)o->pid) ? 0 : -hke_nomem;
		} else {
			ret = threads_of_process(k, o->pid);
		}
	}
	if (ret) {
		hwt_kmod_free(k);
		return ret;
	}
	*out = k;
	return 0;
}

int hwt_kmod_start(struct hwt_kmod *k)
{
	int ret = kmod_ctx_ioctl(&k->ctx, HWT_IOC_START, NULL);

	if (!ret)
		ret = read_records(k);
	return ret;
}

int hwt_kmod_poll(struct hwt_kmod *k, int timeout_ms)
{
	struct pollfd p = { .fd = k->ctx.fd, .events = POLLIN };
	int ret;

	if (poll(&p, 1, timeout_ms) < 0 && errno != EINTR)
		return -hke_io;
	ret = read_records(k);
	if (!ret)
		ret = drain_all(k);
	return ret;
}

int hwt_kmod_finish(struct hwt_kmod *k)
{
	int ret;

	ret = read_records(k);
	if (!ret)
		ret = drain_all(k);
	kmod_ctx_ioctl(&k->ctx, HWT_IOC_STOP, NULL);
	/*
	 * Threads still running (an attach) end their streams at their next
	 * step (FUP, TIP.PGD): give them that long before the last drain.
	 */
	if (k->nthreads)
		usleep(50000);
	if (!ret)
		ret = read_records(k);
	if (!ret)
		ret = drain_all(k);
	while (k->nimages)
		image_end(k, k->images[0]);
	while (k->nthreads) {
		struct kmod_thread *t = k->threads[--k->nthreads];

		kmod_thread_close(t);
		free(t);
	}
	return ret;
}

void hwt_kmod_free(struct hwt_kmod *k)
{
	if (!k)
		return;
	kmod_cpus_close(k);
	kmod_ctx_close(&k->ctx);
	while (k->nimages)
		image_end(k, k->images[0]);
	for (size_t i = 0; i < k->nthreads; i++) {
		kmod_thread_close(k->threads[i]);
		free(k->threads[i]);
	}
	free(k->threads);
	free(k->images);
	free(k->ranges);
	free(k->buf);
	free(k->bundle);
	free(k);
}
