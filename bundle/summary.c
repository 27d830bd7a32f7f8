/* The summary: totals written last by the recorder. */
#include "bundle_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

int hwt_bundle_summary_read(struct hwt_bundle *bundle)
{
	char *path, *text;
	size_t len;
	int err;

	path = hwt_path_join(bundle->dir, "summary");
	if (!path)
		return -hbe_nomem;
	err = hwt_file_read(path, HWT_BUNDLE_TEXT_MAX, &text, &len);
	if (err == -hbe_io && errno == ENOENT) {
		err = hwt_bundle_diag_add(bundle, hwt_diag_unfinished, NULL, -1,
					  "no summary: the recording did not finish "
					  "(recorder killed?); reading what is there");
	} else if (err == -hbe_io) {
		err = hwt_bundle_diag_add(bundle, hwt_diag_io, path, -1,
					  "cannot read the summary: %s", strerror(errno));
	} else if (!err) {
		bundle->has_summary = 1;
		err = hwt_kv_parse(bundle, &bundle->summary, path, text, len, 1);
		free(text);
	}
	free(path);
	return err;
}

int hwt_bundle_totals(const struct hwt_bundle *bundle, struct hwt_bundle_totals *totals)
{
	size_t i;

	if (!bundle || !totals)
		return -hbe_invalid;
	memset(totals, 0, sizeof(*totals));
	for (i = 0; i < bundle->nimages; i++) {
		const struct hwt_bundle_image *image = &bundle->images[i];
		const struct hwt_bundle_image *prev = NULL;

		/* An image whose predecessor of the same pid exec'd continues that process. */
		if (image->generation > 0)
			prev = hwt_bundle_image_find(bundle, image->pid, image->generation - 1);
		if ((!prev || !prev->has_exec) && !image->native)
			totals->processes++;
		totals->images++;
		totals->untraced += image->untraced;
		totals->sideband_bytes += image->size;
		totals->lost_records += image->lost_records;
		totals->lost_bytes += image->lost_bytes;
	}
	for (i = 0; i < bundle->nstreams; i++) {
		totals->threads++;
		totals->trace_bytes += bundle->streams[i].size;
	}
	return 0;
}

/* Warns when the summary's byte counts disagree with the files. */
int hwt_bundle_summary_check(struct hwt_bundle *bundle)
{
	static const struct {
		const char *key;
		size_t offset;
	} checked[] = {
		{ "trace_bytes", offsetof(struct hwt_bundle_totals, trace_bytes) },
		{ "sideband_bytes", offsetof(struct hwt_bundle_totals, sideband_bytes) },
	};
	struct hwt_bundle_totals totals;
	size_t i;
	int err;

	if (!bundle->has_summary)
		return 0;
	err = hwt_bundle_totals(bundle, &totals);
	if (err)
		return err;
	for (i = 0; i < sizeof(checked) / sizeof(checked[0]); i++) {
		const char *value = hwt_kv_get(&bundle->summary, checked[i].key);
		uint64_t have;
		char *end;
		unsigned long long said;

		if (!value)
			continue;
		memcpy(&have, (const char *)&totals + checked[i].offset, sizeof(have));
		errno = 0;
		said = strtoull(value, &end, 10);
		if (errno || end == value || *end || said != have) {
			char *path = hwt_path_join(bundle->dir, "summary");

			err = hwt_bundle_diag_add(bundle, hwt_diag_header, path, -1,
						  "summary says %s=%s but the files hold %" PRIu64
						  " (changed after recording?)",
						  checked[i].key, value, have);
			free(path);
			if (err)
				return err;
		}
	}
	return 0;
}

int hwt_bundle_write_summary(const char *dir, int exit_status)
{
	struct hwt_bundle_totals t;
	struct hwt_bundle *bundle;
	char *text;
	int err;

	if (!dir)
		return -hbe_invalid;
	bundle = hwt_bundle_alloc();
	if (!bundle)
		return -hbe_nomem;
	err = hwt_bundle_open(bundle, dir);
	if (!err)
		err = hwt_bundle_totals(bundle, &t);
	hwt_bundle_free(bundle);
	if (err)
		return err;

	text = hwt_strdup_printf("processes=%" PRIu64 "\n"
				 "images=%" PRIu64 "\n"
				 "untraced=%" PRIu64 "\n"
				 "threads=%" PRIu64 "\n"
				 "trace_bytes=%" PRIu64 "\n"
				 "sideband_bytes=%" PRIu64 "\n"
				 "lost_records=%" PRIu64 "\n"
				 "lost_bytes=%" PRIu64 "\n"
				 "exit_status=%d\n",
				 t.processes, t.images, t.untraced, t.threads, t.trace_bytes,
				 t.sideband_bytes, t.lost_records, t.lost_bytes, exit_status);
	if (!text)
		return -hbe_nomem;
	err = hwt_file_write_atomic(dir, "summary", text, strlen(text));
	free(text);
	return err;
}
