/*
 * The decode while recording (hwt_decode_live_*): a thread that decodes each
 * process image of a bundle that is still being written, as soon as the
 * image has ended, so that little is left to decode once the command exits.
 *
 * - What it decodes: images whose sideband ends with PROCESS_EXIT, read
 *   through whole (no torn tail). Both software trace units write every
 *   thread's last packets before that record, and nothing after it, so
 *   such an image will not change. It decodes one at the pass after the
 *   one that saw it ended: hwt_bundle_open lists the streams (with their
 *   sizes) before it reads the sideband, so the pass that first reads the
 *   record may have listed a stream before its last packets. Images that
 *   end in an exec, or are still running, wait for the end.
 * - How it reads: every pass opens the bundle afresh (hwt_bundle_open is
 *   made for finished bundles, and one that is being written reads as an
 *   unfinished one); a pass waits at least 100 ms, and four times what the
 *   last open took, after the one before, so that a bundle of many
 *   thousands of images is not read over and over.
 * - Its cost to the command: the thread runs under SCHED_IDLE, so it only
 *   gets CPU time nothing else wants (a test suite that runs one process at
 *   a time leaves a CPU idle). On a busy machine it decodes little, and the
 *   end decodes the rest with every CPU, as hwt_decode does.
 * - Its result is the one hwt_decode gives: the thread keeps one decoder
 *   (hwt_decoder: the files table, failure counts, stats) and a profile of
 *   its own, each image decoded with a section cache of its own (as in
 *   decode.c), and each image's diagnostics held back. The finish checks
 *   that every image decoded early still has the sideband and stream sizes
 *   it had then, decodes the other images with the same decoder (adding the
 *   held diagnostics in bundle order) and adds the profile to the caller's.
 *   When the check fails, or the thread ran out of memory or could not load
 *   an image, or never ran, it throws that work away and decodes the whole
 *   bundle again with the caller's options. Only the order of images in the
 *   profile depends on timing.
 * - With a flow consumer (hwt_decode_live_run's options->flow, the stack
 *   builder of hwt flame) the thread hands it the control flow of each
 *   image it decodes, and the finish, when it keeps that work, the rest:
 *   the whole decode goes to that one consumer, whose blocks name the
 *   images of the thread's profile (hwt_decode_live_profile), in another
 *   order of streams than the decode after the run, as a parallel decode
 *   does. Work thrown away cannot be taken back from a consumer: the finish
 *   then decodes the whole bundle into the consumer of its own options, and
 *   hwt_decode_live_kept says which of the two has the result.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "decode_int.h"
#include "hash_index.h"

#define LIVE_MIN_WAIT_NS (100 * 1000 * 1000ll)
#define LIVE_OPEN_FACTOR 4

/* An image seen ended, and once decoded, what its files looked like then. */
struct live_image {
	uint32_t pid, generation;
	int decoded;
	uint64_t sideband_size;
	size_t streams;
	uint64_t stream_bytes;
	struct hwt_diag_list diags;
};

struct hwt_decode_live {
	char *dir;
	struct hwt_decode_shared shared; /* d's */
	struct hwt_decoder d;          /* thread, then hwt_decode_live_finish */
	struct hwt_profile *profile;   /* d's */
	struct hwt_decode_options options; /* the thread's (hwt_decode_live_run) */
	struct hwt_decode_options finish_options; /* the finish's, with the thread's flow */
	struct live_image *images;
	size_t count, capacity;
	struct hwt_hash_index index;   /* of images by (pid, generation) */
	int failed;                    /* an image did not load, or out of memory */
	int finished;                  /* d's files were freed */
	int started;                   /* the thread ran (its work may be kept) */
	pthread_t thread;
	int running;
	atomic_int stop;
	pthread_mutex_t lock;          /* with wake: the wait between passes */
	pthread_cond_t wake;
};

static uint64_t key_hash(uint32_t pid, uint32_t generation)
{
	return hwt_hash_mix((uint64_t)pid << 32 | generation);
}

static struct live_image *live_find(const struct hwt_decode_live *live, uint32_t pid,
				    uint32_t generation)
{
	struct hwt_hash_probe probe;

	for (long k = hwt_hash_index_find(&live->index, key_hash(pid, generation), &probe); k >= 0;
	     k = hwt_hash_index_next(&live->index, &probe)) {
		struct live_image *e = &live->images[k];

		if (e->pid == pid && e->generation == generation)
			return e;
	}
	return NULL;
}

/* Records img as seen ended (not decoded yet). */
static struct live_image *live_add(struct hwt_decode_live *live, const struct hwt_bundle_image *img)
{
	struct live_image *e;

	if (live->count == live->capacity) {
		size_t capacity = live->capacity ? 2 * live->capacity : 64;
		void *p = realloc(live->images, capacity * sizeof(*live->images));

		if (!p)
			return NULL;
		live->images = p;
		live->capacity = capacity;
	}
	if (hwt_hash_index_add(&live->index, key_hash(img->pid, img->generation), live->count) < 0)
		return NULL;
	e = &live->images[live->count++];
	memset(e, 0, sizeof(*e));
	e->pid = img->pid;
	e->generation = img->generation;
	return e;
}

/* An image that will not change any more: it has exited, and reads whole. */
static int image_final(const struct hwt_bundle_image *img)
{
	return img->streams && img->has_exit && !img->end && !img->native && !img->shared;
}

/* One look at the bundle: decodes the images that ended since. Open time. */
static int64_t live_pass(struct hwt_decode_live *live)
{
	int64_t t0 = hwt_decode_now_ns(), opened;
	struct hwt_bundle *b = hwt_bundle_alloc();

	if (!b)
		return 0;
	if (hwt_bundle_open(b, live->dir) < 0) {
		/* Not created yet. */
		hwt_bundle_free(b);
		return hwt_decode_now_ns() - t0;
	}
	opened = hwt_decode_now_ns() - t0;
	hwt_decoder_set_bundle(&live->d, b);
	for (size_t i = 0; i < hwt_bundle_image_count(b) && !atomic_load(&live->stop); i++) {
		const struct hwt_bundle_image *img = hwt_bundle_image_at(b, i);
		struct live_image *e;

		if (!image_final(img))
			continue;
		e = live_find(live, img->pid, img->generation);
		if (!e) {
			/*
			 * Decoded at the next pass: its stream files were listed
			 * before its PROCESS_EXIT was read, and may have grown in
			 * between; the next listing comes after.
			 */
			if (!live_add(live, img))
				live->failed = 1;
		} else if (!e->decoded) {
			e->decoded = 1;
			e->sideband_size = img->size;
			e->streams = img->streams;
			for (size_t k = 0; k < img->streams; k++)
				e->stream_bytes += hwt_bundle_stream_at(b, img->first_stream + k)->size;
			live->d.diags = &e->diags;
			if (hwt_decoder_decode_image(&live->d, img) < 0 || live->d.nomem)
				live->failed = 1;
			live->d.diags = NULL;
		}
		if (live->failed)
			break;
	}
	hwt_decoder_set_bundle(&live->d, NULL);
	hwt_bundle_free(b);
	return opened;
}

static void *live_main(void *arg)
{
	struct hwt_decode_live *live = arg;
	struct sched_param param = { 0 };

	/* Only CPU time that nothing else wants. */
	(void)pthread_setschedparam(pthread_self(), SCHED_IDLE, &param);
	while (!atomic_load(&live->stop) && !live->failed) {
		int64_t wait = LIVE_OPEN_FACTOR * live_pass(live);
		struct timespec until;

		if (wait < LIVE_MIN_WAIT_NS)
			wait = LIVE_MIN_WAIT_NS;
		clock_gettime(CLOCK_REALTIME, &until);
		wait += until.tv_nsec;
		until.tv_sec += wait / 1000000000ll;
		until.tv_nsec = wait % 1000000000ll;
		pthread_mutex_lock(&live->lock);
		while (!atomic_load(&live->stop) &&
		       pthread_cond_timedwait(&live->wake, &live->lock, &until) != ETIMEDOUT)
			;
		pthread_mutex_unlock(&live->lock);
	}
	return NULL;
}

struct hwt_decode_live *hwt_decode_live_alloc(const char *bundle_dir)
{
	struct hwt_decode_live *live = calloc(1, sizeof(*live));

	if (!live)
		return NULL;
	live->dir = strdup(bundle_dir);
	live->profile = hwt_profile_alloc();
	if (!live->dir || !live->profile) {
		hwt_profile_free(live->profile);
		free(live->dir);
		free(live);
		return NULL;
	}
	hwt_decode_shared_init(&live->shared, &live->options);
	hwt_decoder_init(&live->d, &live->shared, live->profile);
	atomic_init(&live->stop, 0);
	pthread_mutex_init(&live->lock, NULL);
	pthread_cond_init(&live->wake, NULL);
	return live;
}

const struct hwt_profile *hwt_decode_live_profile(const struct hwt_decode_live *live)
{
	return live ? live->profile : NULL;
}

int hwt_decode_live_run(struct hwt_decode_live *live, const struct hwt_decode_options *options)
{
	sigset_t all, old;

	if (!live || live->started || live->finished)
		return -hbe_invalid;
	if (options) {
		/* The decoder and the consumer; progress and stats are the finish's. */
		live->options.decoder = options->decoder;
		live->options.segment_bytes = options->segment_bytes;
		live->options.keep_layouts = options->keep_layouts;
		live->options.flow = options->flow;
	}
	live->options.jobs = 1;
	/* Signals are the recorder's business (it forwards them to the command). */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	live->running = pthread_create(&live->thread, NULL, live_main, live) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	live->started = live->running;
	return live->running ? 0 : -hbe_nomem;
}

struct hwt_decode_live *hwt_decode_live_start(const char *bundle_dir)
{
	struct hwt_decode_live *live = hwt_decode_live_alloc(bundle_dir);

	if (live && hwt_decode_live_run(live, NULL) < 0) {
		hwt_decode_live_free(live);
		return NULL;
	}
	return live;
}

static void live_stop(struct hwt_decode_live *live)
{
	if (!live->running)
		return;
	pthread_mutex_lock(&live->lock);
	atomic_store(&live->stop, 1);
	pthread_cond_signal(&live->wake);
	pthread_mutex_unlock(&live->lock);
	/* The image it is decoding is waited for now: at the usual priority. */
	{
		struct sched_param param = { 0 };

		(void)pthread_setschedparam(live->thread, SCHED_OTHER, &param);
	}
	pthread_join(live->thread, NULL);
	live->running = 0;
}

size_t hwt_decode_live_images(const struct hwt_decode_live *live)
{
	size_t n = 0;

	for (size_t k = 0; live && !live->failed && k < live->count; k++)
		n += live->images[k].decoded;
	return n;
}

int hwt_decode_live_kept(const struct hwt_decode_live *live)
{
	return live && live->finished && !live->failed;
}

int hwt_decode_live_finish(struct hwt_decode_live *live, struct hwt_bundle *bundle,
			   struct hwt_profile *profile, const struct hwt_decode_options *options)
{
	size_t nimages = hwt_bundle_image_count(bundle);
	struct hwt_diag_list **done;
	int status;

	if (!live || !bundle || !profile || live->finished)
		return -hbe_invalid;
	live_stop(live);
	live->finished = 1;
	if (!live->started)
		live->failed = 1;
	done = calloc(nimages + 1, sizeof(*done));
	for (size_t k = 0; done && !live->failed && k < live->count; k++) {
		struct live_image *e = &live->images[k];
		const struct hwt_bundle_image *img = hwt_bundle_image_find(bundle, e->pid,
									   e->generation);
		uint64_t bytes = 0;

		if (!e->decoded)
			continue;
		for (size_t s = 0; img && s < img->streams; s++)
			bytes += hwt_bundle_stream_at(bundle, img->first_stream + s)->size;
		if (!img || img->size != e->sideband_size || img->streams != e->streams ||
		    bytes != e->stream_bytes) {
			live->failed = 1;
			break;
		}
		/* Images are an array in bundle order. */
		done[img - hwt_bundle_image_at(bundle, 0)] = &e->diags;
	}
	if (!done || live->failed) {
		/* Decoded early but changed since (or the thread failed): again, all. */
		free(done);
		hwt_files_free(&live->d);
		live->failed = 1;
		return hwt_decode(bundle, profile, options);
	}
	/* The rest goes where the thread's work went. */
	if (options)
		live->finish_options = *options;
	live->finish_options.flow = live->options.flow;
	hwt_decoder_set_options(&live->d, &live->finish_options);
	status = hwt_decoder_run(&live->d, bundle, done);
	status = hwt_decoder_finish(&live->d, status);
	free(done);
	if (hwt_profile_merge(profile, live->profile) < 0) {
		hwt_bundle_diag_add(bundle, hwt_diag_stream, NULL, -1,
				    "out of memory: the profile is incomplete");
		status = -hbe_nomem;
	}
	return status;
}

void hwt_decode_live_free(struct hwt_decode_live *live)
{
	if (!live)
		return;
	live_stop(live);
	if (!live->finished)
		hwt_files_free(&live->d);
	for (size_t k = 0; k < live->count; k++)
		hwt_diag_list_flush(&live->images[k].diags, NULL);
	free(live->images);
	hwt_hash_index_free(&live->index);
	hwt_profile_free(live->profile);
	pthread_cond_destroy(&live->wake);
	pthread_mutex_destroy(&live->lock);
	free(live->dir);
	free(live);
}
