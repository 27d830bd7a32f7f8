/*
 * Says what the record-time filter to the selected images left out
 * (docs/select.md, "Filtering to the selected images"): the images a
 * recording mapped but did not trace, so that a user who misses code in a
 * report knows why.
 */
#include <stdlib.h>
#include <string.h>

#include "hwt_bundle.h"
#include "record.h"

/* Distinct paths, in the order first seen. */
struct path_set {
	char **paths;
	size_t count, capacity;
};

/* 0, or -1 when out of memory. */
static int set_add(struct path_set *s, const char *path)
{
	for (size_t i = 0; i < s->count; i++)
		if (!strcmp(s->paths[i], path))
			return 0;
	if (s->count == s->capacity) {
		size_t n = s->capacity ? 2 * s->capacity : 16;
		char **grown = realloc(s->paths, n * sizeof(*grown));

		if (!grown)
			return -1;
		s->paths = grown;
		s->capacity = n;
	}
	if (!(s->paths[s->count] = strdup(path)))
		return -1;
	s->count++;
	return 0;
}

static void set_free(struct path_set *s)
{
	for (size_t i = 0; i < s->count; i++)
		free(s->paths[i]);
	free(s->paths);
}

int hwt_record_filter_images(const struct hwt_bundle *bundle, size_t *traced, size_t *filtered,
			     char ***names)
{
	struct hwt_sideband *sideband;
	struct path_set in = { 0 }, out = { 0 };
	int err = 0;

	*traced = *filtered = 0;
	*names = NULL;
	if (!hwt_bundle_key(bundle, HWT_RECORD_FILTER_KEY))
		return 0;
	sideband = hwt_sideband_alloc();
	if (!sideband)
		return -1;
	for (size_t i = 0; !err && i < hwt_bundle_image_count(bundle); i++) {
		const struct hwt_bundle_image *image = hwt_bundle_image_at(bundle, i);
		struct hwt_sideband_record rec;

		if (image->shared || hwt_bundle_image_open(sideband, image) < 0)
			continue;
		while (!err && hwt_sideband_next(sideband, &rec) == 0) {
			uint32_t flags;

			if (!rec.known || rec.hdr->type != HWT_RECORD_MMAP || !rec.path ||
			    !rec.path[0])
				continue;
			flags = rec.hdr->flags;
			if (flags & (HWT_MMAP_ANON | HWT_MMAP_TRACE_UNIT | HWT_MMAP_VDSO))
				continue;
			err = set_add(flags & HWT_MMAP_FILTERED ? &out : &in, rec.path);
		}
	}
	hwt_sideband_free(sideband);
	/* An image filtered in one process and traced in another counts as traced. */
	for (size_t i = 0; i < out.count; i++) {
		size_t k;

		for (k = 0; k < in.count && strcmp(in.paths[k], out.paths[i]); k++)
			;
		if (k < in.count) {
			free(out.paths[i]);
			out.paths[i--] = out.paths[--out.count];
		}
	}
	if (!err) {
		*traced = in.count;
		*filtered = out.count;
		*names = out.paths;
		out.paths = NULL;
		out.count = 0;
	}
	set_free(&in);
	set_free(&out);
	return err ? -1 : 1;
}

/* At most this many names on the line; the rest are counted. */
#define NAMES_SHOWN 6

void hwt_record_print_filter(const struct hwt_bundle *bundle, FILE *out, const char *prefix)
{
	size_t traced, filtered;
	char **names;

	if (hwt_record_filter_images(bundle, &traced, &filtered, &names) <= 0)
		return;
	fprintf(out, "%s: trace filtered at record time to %zu image%s", prefix, traced,
		traced == 1 ? "" : "s");
	for (size_t i = 0; i < filtered && i < NAMES_SHOWN; i++) {
		const char *base = strrchr(names[i], '/');

		fprintf(out, "%s%s", i ? ", " : "; ", base ? base + 1 : names[i]);
	}
	if (filtered > NAMES_SHOWN)
		fprintf(out, " and %zu more", filtered - NAMES_SHOWN);
	if (filtered)
		fprintf(out, " not traced");
	fprintf(out, " (--no-record-filter traces them)\n");
	for (size_t i = 0; i < filtered; i++)
		free(names[i]);
	free(names);
}
