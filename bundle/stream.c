/* Thread streams: the files streams/<pid>.<gen>-<tid>.pt. */
#include "bundle_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Parses "<pid>.<gen>-<tid>.pt"; 0 or -1. */
static int parse_name(const char *name, uint32_t *pid, uint32_t *gen, uint32_t *tid)
{
	const char *p = name;

	if (hwt_parse_u32(&p, pid) || *p++ != '.' || hwt_parse_u32(&p, gen) ||
	    *p++ != '-' || hwt_parse_u32(&p, tid))
		return -1;
	return strcmp(p, ".pt") ? -1 : 0;
}

static int stream_cmp(const void *a, const void *b)
{
	const struct hwt_bundle_stream *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->generation != y->generation)
		return x->generation < y->generation ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return 0;
}

/* Links streams and images (both sorted); reports streams without sideband. */
static int streams_link(struct hwt_bundle *bundle)
{
	size_t i;
	int err;

	for (i = 0; i < bundle->nstreams; i++) {
		struct hwt_bundle_stream *stream = &bundle->streams[i];
		const struct hwt_bundle_image *found;
		struct hwt_bundle_image *image;

		found = hwt_bundle_image_find(bundle, stream->pid, stream->generation);
		if (!found) {
			stream->image = -1;
			err = hwt_bundle_diag_add(bundle, hwt_diag_orphan, stream->path, -1,
						  "no sideband (sideband/%" PRIu32 ".%" PRIu32
						  ".sb is missing): its trace cannot be decoded",
						  stream->pid, stream->generation);
			if (err)
				return err;
			continue;
		}
		stream->image = found - bundle->images;
		image = &bundle->images[stream->image];
		if (!image->streams)
			image->first_stream = i;
		image->streams++;
	}
	return 0;
}

int hwt_bundle_streams_list(struct hwt_bundle *bundle)
{
	struct hwt_bundle_stream *stream;
	char *dir, **names;
	size_t count, i;
	int err;

	dir = hwt_path_join(bundle->dir, "streams");
	if (!dir)
		return -hbe_nomem;
	err = hwt_dir_list(dir, &names, &count);
	if (err == -hbe_io)
		err = hwt_bundle_diag_add(bundle, hwt_diag_io, dir, -1,
					  "cannot list thread streams: %s", strerror(errno));
	if (err) {
		free(dir);
		return err;
	}

	for (i = 0; i < count && !err; i++) {
		uint32_t pid, gen, tid;
		struct stat st;
		char *path;

		path = hwt_path_join(dir, names[i]);
		if (!path) {
			err = -hbe_nomem;
			break;
		}
		if (parse_name(names[i], &pid, &gen, &tid)) {
			err = hwt_bundle_diag_add(bundle, hwt_diag_stray, path, -1,
						  "stray file in streams/, ignored "
						  "(expected <pid>.<gen>-<tid>.pt)");
			free(path);
			continue;
		}
		if (stat(path, &st) < 0 || !S_ISREG(st.st_mode)) {
			err = hwt_bundle_diag_add(bundle, hwt_diag_stray, path, -1,
						  "not a regular file, ignored");
			free(path);
			continue;
		}
		err = hwt_grow((void **)&bundle->streams, &bundle->cap_streams,
			       bundle->nstreams + 1, sizeof(*bundle->streams));
		if (err) {
			free(path);
			break;
		}
		stream = &bundle->streams[bundle->nstreams++];
		memset(stream, 0, sizeof(*stream));
		stream->pid = pid;
		stream->generation = gen;
		stream->tid = tid;
		stream->path = path;
		stream->size = (uint64_t)st.st_size;
		stream->image = -1;
		stream->name = hwt_strdup_printf("%" PRIu32 ".%" PRIu32 "-%" PRIu32, pid, gen, tid);
		if (!stream->name)
			err = -hbe_nomem;
	}
	hwt_dir_list_free(names, count);
	free(dir);
	if (err)
		return err;
	if (bundle->nstreams > 1)
		qsort(bundle->streams, bundle->nstreams, sizeof(*bundle->streams), stream_cmp);
	return streams_link(bundle);
}

size_t hwt_bundle_stream_count(const struct hwt_bundle *bundle)
{
	return bundle ? bundle->nstreams : 0;
}

const struct hwt_bundle_stream *hwt_bundle_stream_at(const struct hwt_bundle *bundle, size_t i)
{
	if (!bundle || i >= bundle->nstreams)
		return NULL;
	return &bundle->streams[i];
}
