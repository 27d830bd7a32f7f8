/*
 * Thread streams: the files streams/<pid>.<gen>-<tid>.pt (Intel PT) and .etm
 * (ETMv4); and the SPE records of a thread, spe/<pid>.<gen>-<tid>.spe.
 */
#include "bundle_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* What the name of a stream's file says: "<pid>.<gen>-<tid>.pt" or ".etm". */
struct stream_name {
	uint32_t pid, gen, tid;
	uint32_t trace;  /* enum hwt_bundle_trace */
};

static int parse_name(const char *name, void *ctx)
{
	struct stream_name *n = ctx;
	const char *p = name;

	if (hwt_parse_u32(&p, &n->pid) || *p++ != '.' || hwt_parse_u32(&p, &n->gen) ||
	    *p++ != '-' || hwt_parse_u32(&p, &n->tid))
		return -1;
	if (!strcmp(p, ".pt"))
		n->trace = hwt_trace_intel_pt;
	else if (!strcmp(p, ".etm"))
		n->trace = hwt_trace_etmv4;
	else if (!strcmp(p, ".spe"))
		n->trace = hwt_trace_spe;
	else
		return -1;
	return 0;
}

static int add_to(struct hwt_bundle_stream **array, size_t *count, size_t *cap,
		  const struct stream_name *n, char *path, uint64_t size)
{
	struct hwt_bundle_stream *stream;
	int err;

	err = hwt_grow((void **)array, cap, *count + 1, sizeof(**array));
	if (err) {
		free(path);
		return err;
	}
	stream = &(*array)[(*count)++];
	memset(stream, 0, sizeof(*stream));
	stream->pid = n->pid;
	stream->generation = n->gen;
	stream->tid = n->tid;
	stream->trace = n->trace;
	stream->path = path;
	stream->size = size;
	stream->image = -1;
	stream->name = hwt_strdup_printf("%" PRIu32 ".%" PRIu32 "-%" PRIu32, n->pid, n->gen,
					 n->tid);
	return stream->name ? 0 : -hbe_nomem;
}

static int add_stream(struct hwt_bundle *bundle, void *ctx, char *path, uint64_t size)
{
	const struct stream_name *n = ctx;

	if (n->trace == hwt_trace_spe) {
		/* An SPE file among the thread streams is not one. */
		free(path);
		return hwt_bundle_diag_add(bundle, hwt_diag_stray, NULL, -1,
					   "stray .spe file in streams/, ignored (SPE records go in spe/)");
	}
	return add_to(&bundle->streams, &bundle->nstreams, &bundle->cap_streams, n, path, size);
}

static int spe_name(const char *name, void *ctx)
{
	const struct stream_name *n = ctx;

	return parse_name(name, ctx) || n->trace != hwt_trace_spe ? -1 : 0;
}

static int add_spe(struct hwt_bundle *bundle, void *ctx, char *path, uint64_t size)
{
	struct hwt_bundle_stream *s;
	int err = add_to(&bundle->spe, &bundle->nspe, &bundle->cap_spe, ctx, path, size);

	if (err)
		return err;
	/* Linked to its image as a stream is, without counting in its streams. */
	s = &bundle->spe[bundle->nspe - 1];
	{
		const struct hwt_bundle_image *img =
			hwt_bundle_image_find(bundle, s->pid, s->generation);

		s->image = img ? img - bundle->images : -1;
	}
	return 0;
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
	struct stream_name name;
	int err = hwt_bundle_list_folder(bundle, "streams", "thread streams",
					 "<pid>.<gen>-<tid>.pt or .etm", parse_name, add_stream, &name);

	if (err)
		return err;
	if (bundle->nstreams > 1)
		qsort(bundle->streams, bundle->nstreams, sizeof(*bundle->streams), stream_cmp);
	return streams_link(bundle);
}

int hwt_bundle_spe_list(struct hwt_bundle *bundle)
{
	struct stream_name name;
	struct stat st;
	char *dir = hwt_path_join(bundle->dir, "spe");
	int err, present;

	if (!dir)
		return -hbe_nomem;
	present = stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
	free(dir);
	if (!present)
		return 0;
	err = hwt_bundle_list_folder(bundle, "spe", "SPE streams", "<pid>.<gen>-<tid>.spe",
				     spe_name, add_spe, &name);
	if (!err && bundle->nspe > 1)
		qsort(bundle->spe, bundle->nspe, sizeof(*bundle->spe), stream_cmp);
	return err;
}

size_t hwt_bundle_spe_count(const struct hwt_bundle *bundle)
{
	return bundle ? bundle->nspe : 0;
}

const struct hwt_bundle_stream *hwt_bundle_spe_at(const struct hwt_bundle *bundle, size_t i)
{
	if (!bundle || i >= bundle->nspe)
		return NULL;
	return &bundle->spe[i];
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
