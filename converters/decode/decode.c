/*
 * The decode of a whole bundle: every process image's address space, every
 * stream in it, then one report per file that trace could not be decoded
 * in.
 *
 * Threading model (options->jobs):
 *
 *  - Each process image is decoded with a section cache of its own
 *    (hwt_decoder.iscache), made before its space is loaded and freed after:
 *    libipt's block decoder caches decoded blocks in the sections, and where
 *    it ends a block (mid straight-line code included) depends on what that
 *    cache holds. A cache shared by the whole decode would make the blocks of
 *    one process depend on which processes were decoded before it, so on
 *    jobs and timing. Instruction counts and edges never depend on it.
 *  - jobs 1: the serial decode. For each process image in bundle order:
 *    load its space, decode its streams, free the space.
 *  - jobs > 1: the main thread first loads the spaces of all process images
 *    with streams, in bundle order. This reads only the (small) sidebands,
 *    and is where the files table is filled and checked and where images are
 *    added to the caller's profile: in the same order as the serial decode,
 *    so image indexes are the same. Files shorter than a mapping of them are
 *    marked replaced here too (hwt_space_check; the serial decode notices it
 *    when an epoch is first used). After this the files table is read-only.
 *    Then N workers take process images, largest trace first, each keeping to
 *    the images of one command while no other worker has it (job_take: the
 *    edge decoder's caches are a worker's, and a program's processes share
 *    their code), and decode their streams into a worker profile that starts with
 *    the caller's images in the caller's order (so hwt_file.image is valid in
 *    every profile); the first worker's is the caller's profile itself.
 *    Everything a worker writes is its own: its profile, stats, per-file
 *    failure counts (hwt_decoder.fails) and the diagnostics of each process
 *    image (held in that image's job, hwt_decode_diag). The only shared
 *    writes are the next jobs (under par.lock), atomics (bytes done, out of
 *    memory) and the meetings of the workers' ends (worker_end), after
 *    which each reads the others' edge pools.
 *    The main thread reports progress while it waits. After the join it adds,
 *    in fixed orders: the other worker profiles (counts add up in hash sets
 *    that are sorted when read, so the order of merging does not matter once
 *    image indexes agree), stats and failure counts, then the diagnostics
 *    image by image in bundle order, as the serial decode adds them.
 *  The output therefore does not depend on jobs or timing, with one
 *  exception: a file with no build-id that is shorter than one of its
 *  mappings (replaced since the run) is found so before any decoding with
 *  jobs > 1, while the serial decode finds it when it first uses an epoch
 *  with that mapping and may have counted code in the file before.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "decode_int.h"

/* At most this many workers when options->jobs is 0. */
#define HWT_DECODE_MAX_AUTO_JOBS 16

/* One process image of a parallel decode. */
struct hwt_job {
	const struct hwt_bundle_image *image;
	uint64_t bytes;          /* of its streams */
	size_t group;            /* the images of its command */
	uint64_t group_bytes;    /* of their streams */
	struct hwt_space space;
	struct hwt_diag_list diags;
};

/* The images of one command: order[next] to order[end - 1] are not taken. */
struct hwt_job_group {
	size_t next, end;
	uint64_t left;           /* bytes not taken */
	unsigned workers;        /* taking from it */
};

/* What the workers share. */
struct hwt_par {
	struct hwt_decoder *main;  /* the decode's: its settings, where the workers' counts go */
	struct hwt_diag_list *const *earlier; /* hwt_decoder_run's done: images decoded before */
	struct hwt_job *jobs;    /* bundle order */
	struct hwt_job **order;  /* by group, then largest first */
	size_t job_count;        /* loaded */
	struct hwt_job_group *groups;
	size_t group_count;
	struct hwt_decoder *workers; /* worker_count made (worker_init) */
	unsigned worker_count;
	pthread_t *threads;      /* started of them run */
	struct hwt_diag_list *end_diags; /* a worker's, from its end (worker_main) */
	atomic_uint_least64_t done; /* trace bytes decoded */
	atomic_int nomem;
	pthread_mutex_t lock;    /* protects running, groups and the meetings below */
	pthread_cond_t finished;
	int running;             /* workers not yet finished */
	/* The workers' ends meet (workers_meet): started is final once
	   starting is 0; drained and parted count the workers there. */
	pthread_cond_t met;
	int starting;
	unsigned started, drained, parted;
};

void hwt_stream_owner(const struct hwt_bundle_stream *stream, const struct hwt_space *space,
		      char *out, size_t size)
{
	const char *command = space && space->command ? space->command : NULL;

	if (command)
		snprintf(out, size, "process %" PRIu32 " (%s), thread %" PRIu32, stream->pid,
			 command, stream->tid);
	else
		snprintf(out, size, "process %" PRIu32 ", thread %" PRIu32, stream->pid,
			 stream->tid);
}

void hwt_decode_diag(struct hwt_decoder *d, enum hwt_diag_kind kind, const char *path,
		     int64_t offset, const char *fmt, ...)
{
	struct hwt_diag_list *l = d->diags;
	struct hwt_diag_entry *e;
	char *message;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&message, fmt, ap);
	va_end(ap);
	if (n < 0) {
		d->nomem = 1;
		return;
	}
	if (!l) {
		(void)hwt_bundle_diag_add(d->shared->bundle, kind, path, offset, "%s", message);
		free(message);
		return;
	}
	if (l->count == l->capacity) {
		size_t capacity = l->capacity ? 2 * l->capacity : 8;
		void *p = realloc(l->items, capacity * sizeof(*l->items));

		if (!p) {
			free(message);
			d->nomem = 1;
			return;
		}
		l->items = p;
		l->capacity = capacity;
	}
	e = &l->items[l->count];
	e->kind = kind;
	e->offset = offset;
	e->message = message;
	e->path = path ? strdup(path) : NULL;
	if (path && !e->path) {
		free(message);
		d->nomem = 1;
		return;
	}
	l->count++;
}

void hwt_diag_list_flush(struct hwt_diag_list *list, struct hwt_bundle *bundle)
{
	for (size_t k = 0; k < list->count; k++) {
		struct hwt_diag_entry *e = &list->items[k];

		if (bundle)
			(void)hwt_bundle_diag_add(bundle, e->kind, e->path, e->offset, "%s",
						  e->message);
		free(e->path);
		free(e->message);
	}
	free(list->items);
	memset(list, 0, sizeof(*list));
}

void hwt_decode_progress(struct hwt_decoder *d, uint64_t done)
{
	const struct hwt_decode_options *o = d->shared->options;

	if (d->par) {
		/* A worker: the main thread reports. */
		if (done > d->reported) {
			atomic_fetch_add(&d->par->done, done - d->reported);
			d->reported = done;
		}
		return;
	}

	if (o && o->progress)
		o->progress(done, d->shared->total_bytes, o->progress_context);
}

static int file_path_cmp(const void *a, const void *b)
{
	const struct hwt_file *x = *(const struct hwt_file *const *)a;
	const struct hwt_file *y = *(const struct hwt_file *const *)b;
	int c = strcmp(x->path, y->path);

	return c ? c : (x->index > y->index) - (x->index < y->index);
}

/*
 * One report per file that trace could not be decoded in, by path: the
 * files table's order depends on which process images were decoded first
 * (a decode while recording, live.c).
 */
static void report_files(struct hwt_decoder *d)
{
	struct hwt_file **failed = calloc(d->shared->file_count + 1, sizeof(*failed));
	size_t n = 0;

	if (!failed) {
		d->nomem = 1;
		return;
	}
	for (size_t i = 0; i < d->shared->file_count; i++)
		if (d->shared->files[i]->fail.failures)
			failed[n++] = d->shared->files[i];
	qsort(failed, n, sizeof(*failed), file_path_cmp);
	for (size_t i = 0; i < n; i++) {
		const struct hwt_file *f = failed[i];

		hwt_bundle_diag_add(d->shared->bundle, hwt_diag_stream, f->path[0] ? f->path : NULL,
				    -1, "%strace entered it %" PRIu64 " times in %" PRIu64
				    " streams and could not be decoded there (%" PRIu64
				    " trace bytes skipped up to the next PSB): %s",
				    f->path[0] ? "" : "anonymous code: ", f->fail.failures,
				    f->fail.failed_streams, f->fail.failed_bytes, f->why);
	}
	free(failed);
}

/* The stream file opened, its size in *size; -1 when it cannot be read or is empty. */
static int stream_open(const char *path, size_t *size)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd >= 0 && (fstat(fd, &st) < 0 || st.st_size <= 0)) {
		close(fd);
		fd = -1;
	}
	*size = fd >= 0 ? (size_t)st.st_size : 0;
	return fd;
}

/* fd's n bytes mapped read-only (*size = n), or NULL; fd is closed. */
static void *stream_map_fd(int fd, size_t n, size_t *size)
{
	void *p = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);

	close(fd);
	*size = p == MAP_FAILED ? 0 : n;
	return p == MAP_FAILED ? NULL : p;
}

void *hwt_stream_map(const char *path, size_t *size)
{
	size_t n;
	int fd = stream_open(path, &n);

	*size = 0;
	return fd < 0 ? NULL : stream_map_fd(fd, n, size);
}

/* Streams up to this long are read, not mapped (hwt_stream_bytes); less
   than the edge decoder reads before it hands trace back (madvise). */
#define STREAM_READ_MAX (1u << 20)
/* Zeroes after a stream read, as a mapping has up to its page's end. */
#define STREAM_READ_SLACK 64u

uint8_t *hwt_stream_bytes(struct hwt_decoder *d, const struct hwt_bundle_stream *stream,
			  size_t *size)
{
	size_t got = 0;
	int fd;

	*size = 0;
	if (stream->size > STREAM_READ_MAX)
		return hwt_stream_map(stream->path, size);
	if (!d->stream_buf && !(d->stream_buf = malloc(STREAM_READ_MAX + STREAM_READ_SLACK)))
		return NULL;
	fd = open(stream->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	/* Read up to one byte past its size: a regular file's read is short
	   at its end, so a stream that still has the size the bundle listed
	   takes one read, not a size asked for first. */
	while (got <= STREAM_READ_MAX) {
		ssize_t r = read(fd, d->stream_buf + got, STREAM_READ_MAX + 1 - got);

		if (r <= 0)
			break;
		got += (size_t)r;
		if (got == stream->size)
			break;
	}
	close(fd);
	if (got > STREAM_READ_MAX) /* it grew since it was listed */
		return hwt_stream_map(stream->path, size);
	if (!got)
		return NULL;
	memset(d->stream_buf + got, 0, STREAM_READ_SLACK);
	*size = got;
	return d->stream_buf;
}

void hwt_stream_bytes_done(struct hwt_decoder *d, uint8_t *bytes, size_t size)
{
	if (bytes && bytes != d->stream_buf)
		munmap(bytes, size);
}

#define HUGE_PAGE ((size_t)2 << 20)

void *hwt_table_calloc_huge(size_t size)
{
	size_t align = size < HUGE_PAGE ? 64 : HUGE_PAGE;
	size_t len = (size + align - 1) & ~(align - 1);
	void *p = NULL;

	if (posix_memalign(&p, align, len))
		return NULL;
	if (align == HUGE_PAGE)
		(void)madvise(p, len, MADV_HUGEPAGE); /* a hint: small pages else */
	memset(p, 0, len); /* zero (the heap's need not be), every page faulted in */
	return p;
}

int hwt_stream_decode(struct hwt_decoder *d, const struct hwt_bundle_stream *stream,
		      struct hwt_space *space)
{
	const struct hwt_decode_options *o = d->shared->options;
	const struct hwt_trace_decoder *td = &hwt_etm_decoder;

	/* The edge decoder only counts: libipt's hands out the ordered flow. */
	if (stream->trace != hwt_trace_etmv4)
		td = o && (o->decoder == hwt_decoder_libipt || o->flow) ? &hwt_pt_decoder
								       : &hwt_edge_decoder;

	return td->decode_stream(d, stream, space);
}

/* Whether group c is a better one to move to than group b. */
static int group_better(const struct hwt_job_group *c, const struct hwt_job_group *b)
{
	/* One no other worker takes from first: a group taken by two
	   workers at once has its code found and its counts flushed by
	   both (the edge decoder's caches are a worker's). */
	if (!c->workers != !b->workers)
		return !c->workers;
	return c->left * (b->workers + 1) > b->left * (c->workers + 1);
}

/* The next job of a worker that took from *group (SIZE_MAX: none yet), or
   NULL when all are taken. When its group is done it moves to the one with
   the most bytes left that no other worker takes from, else to the one
   with the most bytes left per worker taking from it. */
static struct hwt_job *job_take(struct hwt_par *par, size_t *group)
{
	struct hwt_job *job = NULL;
	struct hwt_job_group *g;

	pthread_mutex_lock(&par->lock);
	if (*group == SIZE_MAX || par->groups[*group].next == par->groups[*group].end) {
		size_t best = SIZE_MAX;

		if (*group != SIZE_MAX)
			par->groups[*group].workers--;
		for (size_t k = 0; k < par->group_count; k++) {
			const struct hwt_job_group *c = &par->groups[k];

			if (c->next < c->end &&
			    (best == SIZE_MAX || group_better(c, &par->groups[best])))
				best = k;
		}
		*group = best;
		if (best != SIZE_MAX)
			par->groups[best].workers++;
	}
	if (*group != SIZE_MAX) {
		g = &par->groups[*group];
		job = par->order[g->next++];
		g->left -= job->bytes;
	}
	pthread_mutex_unlock(&par->lock);
	return job;
}

/* Waits, with *count one more, until every worker started has counted it. */
static void workers_meet(struct hwt_par *par, unsigned *count)
{
	pthread_mutex_lock(&par->lock);
	(*count)++;
	pthread_cond_broadcast(&par->met);
	while (par->starting || *count < par->started)
		pthread_cond_wait(&par->met, &par->lock);
	pthread_mutex_unlock(&par->lock);
}

/*
 * The end of worker w: the counts its edge decoder holds into w's profile,
 * and its caches freed: work of the worker's, not of the main thread after
 * the join, which adds what it says to the bundle. Each worker's pool holds
 * the blocks of ld.so's and libc's start-up (every process has them), so
 * once all have drained their layouts into their pools, each takes one part
 * of every pool (hwt_edge_pool_part) and turns that into profile counts.
 */
static void worker_end(struct hwt_decoder *w)
{
	struct hwt_par *par = w->par;
	unsigned me = (unsigned)(w - par->workers);
	struct hwt_edge_pool *part;

	w->diags = &par->end_diags[me];
	(void)hwt_edge_drain(w); /* sets w->nomem when it fails */
	workers_meet(par, &par->drained);
	part = hwt_edge_pool_part(w, par->workers, par->started, me);
	workers_meet(par, &par->parted); /* no pool is read any more */
	hwt_edge_pool_free(w);
	w->edge_pool = part;
	if (!part)
		w->nomem = 1;
	(void)hwt_edge_pool_flush(w); /* sets w->nomem when it fails */
	w->diags = NULL;
	hwt_decoder_caches_free(w);
}

static void *worker_main(void *arg)
{
	struct hwt_decoder *w = arg;
	struct hwt_par *par = w->par;
	size_t group = SIZE_MAX;

	for (;;) {
		struct hwt_job *job;

		if (atomic_load(&par->nomem) || !(job = job_take(par, &group)))
			break;
		w->diags = &job->diags;
		w->iscache = pt_iscache_alloc(NULL);
		if (!w->iscache) {
			atomic_store(&par->nomem, 1);
			break;
		}
		for (size_t k = 0; k < job->image->streams && !w->nomem; k++)
			hwt_stream_decode(w, hwt_bundle_stream_at(w->shared->bundle,
								  job->image->first_stream + k),
					  &job->space);
		w->diags = NULL;
		hwt_space_fini(&job->space);
		pt_iscache_free(w->iscache);
		w->iscache = NULL;
		if (w->nomem) {
			atomic_store(&par->nomem, 1);
			break;
		}
	}
	worker_end(w);
	pthread_mutex_lock(&par->lock);
	par->running--;
	pthread_cond_signal(&par->finished);
	pthread_mutex_unlock(&par->lock);
	return NULL;
}

/* By command (none last), then bundle order. */
static int job_command_cmp(const void *a, const void *b)
{
	const struct hwt_job *x = *(const struct hwt_job *const *)a;
	const struct hwt_job *y = *(const struct hwt_job *const *)b;
	const char *p = x->space.command, *q = y->space.command;
	int c = p && q ? strcmp(p, q) : !p - !q;

	return c ? c : (x > y) - (x < y);
}

/* The group of most bytes first, then its largest image first. */
static int job_cmp(const void *a, const void *b)
{
	const struct hwt_job *x = *(const struct hwt_job *const *)a;
	const struct hwt_job *y = *(const struct hwt_job *const *)b;

	if (x->group != y->group)
		return x->group_bytes != y->group_bytes ? (x->group_bytes > y->group_bytes ? -1 : 1)
							: (x->group > y->group) - (x->group < y->group);
	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return (x > y) - (x < y);
}

/* Groups par's jobs by command and orders them to be taken (job_take). */
static int jobs_group(struct hwt_par *par)
{
	size_t n = par->job_count;

	par->groups = calloc(n + 1, sizeof(*par->groups));
	if (!par->groups)
		return -1;
	qsort(par->order, n, sizeof(*par->order), job_command_cmp);
	for (size_t k = 0; k < n; k++) {
		struct hwt_job *job = par->order[k];
		const char *prev = k ? par->order[k - 1]->space.command : NULL;

		if (!k || !job->space.command || !prev || strcmp(prev, job->space.command))
			par->group_count++;
		job->group = par->group_count - 1;
		par->groups[job->group].left += job->bytes;
	}
	for (size_t k = 0; k < n; k++)
		par->order[k]->group_bytes = par->groups[par->order[k]->group].left;
	qsort(par->order, n, sizeof(*par->order), job_cmp);
	for (size_t k = 0; k < n; k++) {
		struct hwt_job_group *g = &par->groups[par->order[k]->group];

		if (!g->end)
			g->next = k;
		g->end = k + 1;
	}
	return 0;
}

static void stats_add(struct hwt_decode_stats *to, const struct hwt_decode_stats *s)
{
	to->streams += s->streams;
	to->trace_bytes += s->trace_bytes;
	to->blocks += s->blocks;
	to->insns += s->insns;
	to->errors += s->errors;
	to->error_bytes += s->error_bytes;
	to->overflows += s->overflows;
	to->kernel_bytes += s->kernel_bytes;
	to->missing_blocks += s->missing_blocks;
	to->edge_streams += s->edge_streams;
	to->edge_fallbacks += s->edge_fallbacks;
	to->edge_segments += s->edge_segments;
	to->edge_redecoded += s->edge_redecoded;
	to->edge_split_off += s->edge_split_off;
	to->edge_taken_back += s->edge_taken_back;
}

/* Seeds a worker profile with the images of d's profile, same indexes. */
struct hwt_profile *hwt_decoder_profile_like(struct hwt_decoder *d)
{
	struct hwt_profile *p = hwt_profile_alloc();

	for (size_t i = 0; p && i < hwt_profile_image_count(d->profile); i++) {
		const struct hwt_profile_image *img = hwt_profile_image_at(d->profile, i);

		if (hwt_profile_image_add(p, img->path, img->build_id, img->build_id_size, 0) !=
		    (int)i) {
			hwt_profile_free(p);
			p = NULL;
		}
	}
	return p;
}

/* Whether the options leave image i (nimages: the streams without sideband) to decode. */
static int wants_image(const struct hwt_decoder *d, size_t i)
{
	const struct hwt_decode_options *o = d->shared->options;

	return !o || !o->only_images || o->only_images[i];
}

static void par_init(struct hwt_par *par, struct hwt_decoder *d,
		     struct hwt_diag_list *const *done)
{
	memset(par, 0, sizeof(*par));
	par->main = d;
	par->earlier = done;
	pthread_mutex_init(&par->lock, NULL);
	pthread_cond_init(&par->finished, NULL);
	pthread_cond_init(&par->met, NULL);
	par->starting = 1;
	atomic_init(&par->done, 0);
	atomic_init(&par->nomem, 0);
}

/*
 * The jobs: the spaces of the process images to decode, loaded in bundle
 * order, as the serial decode loads them. 0, or the error of a load (what
 * was loaded before it is decoded: the serial decode stops there too).
 */
static int jobs_load(struct hwt_par *par)
{
	struct hwt_decoder *d = par->main;
	size_t nimages = hwt_bundle_image_count(d->shared->bundle), loaded = 0;
	int status = 0;

	par->jobs = calloc(nimages + 1, sizeof(*par->jobs));
	par->order = calloc(nimages + 1, sizeof(*par->order));
	if (!par->jobs || !par->order)
		return -hbe_nomem;
	for (size_t i = 0; i < nimages; i++) {
		const struct hwt_bundle_image *img = hwt_bundle_image_at(d->shared->bundle, i);
		struct hwt_job *job = &par->jobs[par->job_count];

		if (!img->streams || (par->earlier && par->earlier[i]) || !wants_image(d, i))
			continue;
		job->image = img;
		for (size_t k = 0; k < img->streams; k++)
			job->bytes +=
				hwt_bundle_stream_at(d->shared->bundle, img->first_stream + k)->size;
		par->job_count++;
		status = hwt_space_load(d, img, &job->space);
		if (status < 0)
			break;
		hwt_space_check(d, &job->space);
		par->order[loaded++] = job;
	}
	par->job_count = loaded;
	return status;
}

/*
 * Worker i of par's: its own profile (the first the caller's, which
 * nothing else reads or writes until the join: one merge less) and
 * failure counts, over the main decoder's shared settings, with the
 * threads the images leave (threads for jobs) for their streams.
 * 0, or -1 when out of memory.
 */
static int worker_init(struct hwt_par *par, unsigned i, unsigned threads)
{
	struct hwt_decoder *d = par->main, *w = &par->workers[i];

	hwt_decoder_init(w, d->shared, i ? hwt_decoder_profile_like(d) : d->profile);
	w->par = par;
	w->split = threads / par->worker_count;
	w->pool_parts = par->worker_count;
	w->fails = calloc(d->shared->file_count + 1, sizeof(*w->fails));
	return w->profile && w->fails ? 0 : -1;
}

/* Makes a worker per job up to jobs and starts them. 0, or -1 when none
   started (d->nomem set: out of memory or threads). */
static int workers_start(struct hwt_par *par, unsigned jobs)
{
	unsigned n = jobs > par->job_count ? (unsigned)par->job_count : jobs, started = 0;

	par->workers = calloc(n + 1, sizeof(*par->workers));
	par->threads = calloc(n + 1, sizeof(*par->threads));
	par->end_diags = calloc(n + 1, sizeof(*par->end_diags));
	if (!par->workers || !par->threads || !par->end_diags) {
		par->main->nomem = 1;
		return -1;
	}
	par->worker_count = n;
	for (unsigned i = 0; i < n; i++) {
		if (worker_init(par, i, jobs) < 0) {
			par->main->nomem = 1;
			return -1;
		}
	}
	par->running = (int)n;
	for (; started < n; started++) {
		if (pthread_create(&par->threads[started], NULL, worker_main,
				   &par->workers[started])) {
			/* Fewer workers still decode everything. */
			pthread_mutex_lock(&par->lock);
			par->running -= (int)(n - started);
			pthread_mutex_unlock(&par->lock);
			break;
		}
	}
	pthread_mutex_lock(&par->lock);
	par->started = started;
	par->starting = 0;
	pthread_cond_broadcast(&par->met);
	pthread_mutex_unlock(&par->lock);
	if (!started) {
		par->main->nomem = 1;
		return -1;
	}
	return 0;
}

/* Reports progress while the workers run (from here only), then joins them. */
static void workers_wait(struct hwt_par *par)
{
	pthread_mutex_lock(&par->lock);
	while (par->running > 0) {
		struct timespec t;

		clock_gettime(CLOCK_REALTIME, &t);
		t.tv_nsec += 100 * 1000 * 1000;
		if (t.tv_nsec >= 1000000000) {
			t.tv_sec++;
			t.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&par->finished, &par->lock, &t);
		pthread_mutex_unlock(&par->lock);
		hwt_decode_progress(par->main, atomic_load(&par->done));
		pthread_mutex_lock(&par->lock);
	}
	pthread_mutex_unlock(&par->lock);
	for (unsigned i = 0; i < par->started; i++)
		pthread_join(par->threads[i], NULL);
	par->main->done_bytes = atomic_load(&par->done);
}

/* Adds what the workers counted to the main decoder, in fixed orders:
   worker by worker, the diagnostics of its end, its profile, stats and
   failure counts. */
static void workers_merge(struct hwt_par *par)
{
	struct hwt_decoder *d = par->main;

	for (unsigned i = 0; i < par->started; i++) {
		struct hwt_decoder *w = &par->workers[i];

		hwt_diag_list_flush(&par->end_diags[i], d->shared->bundle);
		if ((i && hwt_profile_merge(d->profile, w->profile) < 0) || w->nomem)
			d->nomem = 1;
		stats_add(&d->stats, &w->stats);
		for (size_t k = 0; k < d->shared->file_count; k++) {
			struct hwt_file_fail *to = &d->shared->files[k]->fail;

			to->failures += w->fails[k].failures;
			to->failed_bytes += w->fails[k].failed_bytes;
			to->failed_streams += w->fails[k].failed_streams;
		}
	}
	if (atomic_load(&par->nomem))
		d->nomem = 1;
}

/* Adds the jobs' diagnostics (and those of images decoded before) to the
   bundle in bundle order, and frees the jobs and the workers. */
static void par_fini(struct hwt_par *par)
{
	struct hwt_decoder *d = par->main;
	size_t nimages = hwt_bundle_image_count(d->shared->bundle);

	/* Jobs are in bundle order too. */
	for (size_t i = 0, j = 0; i < nimages; i++) {
		const struct hwt_bundle_image *img = hwt_bundle_image_at(d->shared->bundle, i);

		if (par->earlier && par->earlier[i]) {
			hwt_diag_list_flush(par->earlier[i], d->shared->bundle);
		} else if (par->jobs && par->jobs[j].image == img) {
			hwt_diag_list_flush(&par->jobs[j].diags, d->shared->bundle);
			hwt_space_fini(&par->jobs[j].space);
			j++;
		}
	}
	for (unsigned i = 0; i < par->worker_count; i++) {
		if (i)
			hwt_profile_free(par->workers[i].profile);
		hwt_decoder_fini(&par->workers[i]);
	}
	free(par->workers);
	free(par->threads);
	free(par->jobs);
	free(par->order);
	free(par->groups);
	free(par->end_diags);
	pthread_cond_destroy(&par->finished);
	pthread_cond_destroy(&par->met);
	pthread_mutex_destroy(&par->lock);
}

/* The decode of every process image with streams, by jobs workers: load,
   start, wait, merge. */
static int decode_parallel(struct hwt_decoder *d, unsigned jobs, struct hwt_diag_list *const *done)
{
	struct hwt_par par;
	int status;

	par_init(&par, d, done);
	status = jobs_load(&par);
	if (par.job_count && jobs_group(&par) < 0)
		d->nomem = 1;
	else if (par.job_count && workers_start(&par, jobs) == 0) {
		workers_wait(&par);
		workers_merge(&par);
	}
	par_fini(&par);
	return status;
}

static unsigned decode_jobs(const struct hwt_decode_options *options)
{
	long n;

	if (options && options->jobs)
		return options->jobs;
	n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1)
		return 1;
	return n > HWT_DECODE_MAX_AUTO_JOBS ? HWT_DECODE_MAX_AUTO_JOBS : (unsigned)n;
}

void hwt_decode_shared_init(struct hwt_decode_shared *s, const struct hwt_decode_options *options)
{
	memset(s, 0, sizeof(*s));
	s->bundle_start = -1;
	s->options = options;
}

void hwt_decoder_init(struct hwt_decoder *d, struct hwt_decode_shared *shared,
		      struct hwt_profile *profile)
{
	memset(d, 0, sizeof(*d));
	d->shared = shared;
	d->profile = profile;
}

void hwt_decoder_caches_free(struct hwt_decoder *d)
{
	hwt_edge_pool_free(d);
	hwt_edge_layouts_free(d);
	hwt_edge_runs_free(d);
	hwt_code_cache_free(d);
	free(d->stream_buf);
	d->stream_buf = NULL;
}

void hwt_decoder_fini(struct hwt_decoder *d)
{
	hwt_decoder_caches_free(d);
	free(d->fails);
	d->fails = NULL;
}

void hwt_decoder_set_options(struct hwt_decoder *d, const struct hwt_decode_options *options)
{
	d->shared->options = options;
}

void hwt_decoder_set_bundle(struct hwt_decoder *d, struct hwt_bundle *bundle)
{
	struct hwt_decode_shared *s = d->shared;
	const char *start = bundle ? hwt_bundle_key(bundle, "start") : NULL;
	const char *clock = bundle ? hwt_bundle_key(bundle, "clock") : NULL;

	s->bundle = bundle;
	s->trace_cap = bundle && hwt_bundle_key(bundle, "max_trace_size") != NULL;
	s->clock = clock && !strcmp(clock, "tsc") ? hwt_flow_clock_tsc : hwt_flow_clock_sequence;
	if (bundle)
		hwt_decode_shared_pt_config(s, bundle);
	if (start && s->bundle_start < 0) {
		char *end;
		long long v = strtoll(start, &end, 10);

		if (end != start && !*end && v >= 0)
			s->bundle_start = v;
	}
}

int hwt_decoder_decode_image(struct hwt_decoder *d, const struct hwt_bundle_image *image)
{
	struct hwt_space space;
	int status;

	d->iscache = pt_iscache_alloc(NULL);
	if (!d->iscache)
		return -hbe_nomem;
	status = hwt_space_load(d, image, &space);
	for (size_t k = 0; status >= 0 && k < image->streams && !d->nomem; k++)
		hwt_stream_decode(d,
				  hwt_bundle_stream_at(d->shared->bundle, image->first_stream + k),
				  &space);
	hwt_space_fini(&space);
	pt_iscache_free(d->iscache);
	d->iscache = NULL;
	return status < 0 ? status : 0;
}

int hwt_decoder_run(struct hwt_decoder *d, struct hwt_bundle *bundle,
		    struct hwt_diag_list *const *done)
{
	unsigned jobs = decode_jobs(d->shared->options);
	size_t nimages = hwt_bundle_image_count(bundle), i = 0;
	int status = 0;

	d->shared->run_began_ns = hwt_decode_now_ns();
	hwt_decoder_set_bundle(d, bundle);
	d->shared->total_bytes = d->done_bytes = 0;
	for (size_t k = 0; k < hwt_bundle_stream_count(bundle); k++) {
		const struct hwt_bundle_stream *st = hwt_bundle_stream_at(bundle, k);

		if (st->image < 0) {
			if (wants_image(d, nimages))
				hwt_bundle_diag_add(bundle, hwt_diag_stream, st->path, -1,
						    "not decoded: without sideband its code is unknown");
		} else if ((!done || !done[st->image]) && wants_image(d, (size_t)st->image))
			d->shared->total_bytes += st->size;
	}

	if (jobs > 1) {
		status = decode_parallel(d, jobs, done);
		i = nimages;
	}
	for (; i < nimages && !d->nomem; i++) {
		const struct hwt_bundle_image *img = hwt_bundle_image_at(bundle, i);

		if (done && done[i])
			hwt_diag_list_flush(done[i], bundle);
		else if (img->streams && wants_image(d, i) &&
			 (status = hwt_decoder_decode_image(d, img)) < 0)
			break;
	}
	/* Decoded before: their diagnostics are not lost when this one stops. */
	for (; done && i < nimages; i++)
		if (done[i])
			hwt_diag_list_flush(done[i], bundle);
	return status;
}

int hwt_decoder_finish(struct hwt_decoder *d, int status)
{
	(void)hwt_edge_flush(d); /* sets d->nomem when it fails */
	report_files(d);
	if (d->nomem) {
		hwt_bundle_diag_add(d->shared->bundle, hwt_diag_stream, NULL, -1,
				    "out of memory: the profile is incomplete");
		status = -hbe_nomem;
	}
	hwt_files_free(d);
	d->stats.wall_ns = (uint64_t)(hwt_decode_now_ns() - d->shared->run_began_ns);
	if (d->shared->options && d->shared->options->stats)
		*d->shared->options->stats = d->stats;
	return status < 0 ? status : 0;
}

int hwt_decode(struct hwt_bundle *bundle, struct hwt_profile *profile,
	       const struct hwt_decode_options *options)
{
	struct hwt_decode_shared shared;
	struct hwt_decoder d;

	if (!bundle || !profile)
		return -hbe_invalid;
	hwt_decode_shared_init(&shared, options);
	hwt_decoder_init(&d, &shared, profile);
	return hwt_decoder_finish(&d, hwt_decoder_run(&d, bundle, NULL));
}
