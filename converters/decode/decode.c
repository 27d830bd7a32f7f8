/*
 * The decode of a whole bundle: every process image's address space, every
 * stream in it, then one report per file that trace could not be decoded
 * in.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decode_int.h"

void hwt_decode_progress(struct hwt_decoder *d, uint64_t done)
{
	const struct hwt_decode_options *o = d->options;

	if (o && o->progress)
		o->progress(done, d->total_bytes, o->progress_context);
	if (!d->progress_tty || !d->total_bytes)
		return;
	if (done != d->total_bytes && done - d->last_progress < d->total_bytes / 100)
		return;
	d->last_progress = done;
	fprintf(stderr, "\rhwt: decoding %3u%% (%.1f of %.1f MB)",
		(unsigned)(done * 100 / d->total_bytes), done / 1e6, d->total_bytes / 1e6);
	d->progress_printed = 1;
}

static void report_files(struct hwt_decoder *d)
{
	for (size_t i = 0; i < d->file_count; i++) {
		const struct hwt_file *f = d->files[i];

		if (!f->failures)
			continue;
		hwt_bundle_diag_add(d->bundle, hwt_diag_stream, f->path[0] ? f->path : NULL, -1,
				    "%strace entered it %" PRIu64 " times in %" PRIu64
				    " streams and could not be decoded there (%" PRIu64
				    " trace bytes skipped up to the next PSB): %s",
				    f->path[0] ? "" : "anonymous code: ", f->failures,
				    f->failed_streams, f->failed_bytes, f->why);
	}
}

int hwt_decode(struct hwt_bundle *bundle, struct hwt_profile *profile,
	       const struct hwt_decode_options *options)
{
	struct hwt_decoder d;
	const char *start;
	size_t nstreams;
	int status = 0;

	if (!bundle || !profile)
		return -hbe_invalid;
	memset(&d, 0, sizeof(d));
	d.bundle = bundle;
	d.profile = profile;
	d.options = options;
	d.bundle_start = -1;
	start = hwt_bundle_key(bundle, "start");
	if (start) {
		char *end;
		long long v = strtoll(start, &end, 10);

		if (end != start && !*end && v >= 0)
			d.bundle_start = v;
	}
	if (options && (options->flags & HWT_DECODE_PROGRESS))
		d.progress_tty = 1;
	if (options && (options->flags & HWT_DECODE_PROGRESS_TTY) && isatty(STDERR_FILENO))
		d.progress_tty = 1;
	d.iscache = pt_iscache_alloc(NULL);
	if (!d.iscache)
		return -hbe_nomem;

	nstreams = hwt_bundle_stream_count(bundle);
	for (size_t i = 0; i < nstreams; i++) {
		const struct hwt_bundle_stream *st = hwt_bundle_stream_at(bundle, i);

		d.total_bytes += st->size;
		if (st->image < 0)
			hwt_bundle_diag_add(bundle, hwt_diag_stream, st->path, -1,
					    "not decoded: without sideband its code is unknown");
	}

	for (size_t i = 0; i < hwt_bundle_image_count(bundle) && !d.nomem; i++) {
		const struct hwt_bundle_image *img = hwt_bundle_image_at(bundle, i);
		struct hwt_space space;

		if (!img->streams)
			continue;
		status = hwt_space_load(&d, img, &space);
		if (status < 0) {
			hwt_space_fini(&space);
			break;
		}
		for (size_t k = 0; k < img->streams && !d.nomem; k++)
			hwt_stream_decode(&d, hwt_bundle_stream_at(bundle, img->first_stream + k),
					  &space);
		hwt_space_fini(&space);
	}
	if (d.progress_printed)
		fputc('\n', stderr);
	report_files(&d);
	if (d.nomem) {
		hwt_bundle_diag_add(bundle, hwt_diag_stream, NULL, -1,
				    "out of memory: the profile is incomplete");
		status = -hbe_nomem;
	}
	hwt_files_free(&d);
	pt_iscache_free(d.iscache);
	if (options && options->stats)
		*options->stats = d.stats;
	return status < 0 ? status : 0;
}

int hwt_decode_bundle(const char *bundle_dir, struct hwt_profile *profile,
		      const struct hwt_decode_options *options)
{
	struct hwt_bundle *bundle;
	FILE *out = options && options->diag_file ? options->diag_file : stderr;
	const char *prefix = options && options->diag_prefix ? options->diag_prefix : "hwt";
	int quiet = options && (options->flags & HWT_DECODE_QUIET);
	int status;

	if (!bundle_dir || !profile)
		return -hbe_invalid;
	bundle = hwt_bundle_alloc();
	if (!bundle)
		return -hbe_nomem;
	status = hwt_bundle_open(bundle, bundle_dir);
	if (status < 0) {
		for (size_t i = 0; i < hwt_bundle_diag_count(bundle); i++)
			fprintf(out, "%s: error: %s\n", prefix, hwt_bundle_diag_at(bundle, i)->message);
		if (!hwt_bundle_diag_count(bundle))
			fprintf(out, "%s: error: %s: %s\n", prefix, bundle_dir,
				hwt_bundle_errstr(status));
		hwt_bundle_free(bundle);
		return status;
	}
	status = hwt_decode(bundle, profile, options);
	if (!quiet)
		hwt_bundle_diag_print(bundle, out, prefix);
	hwt_bundle_free(bundle);
	return status;
}
