/*
 * The edge decoder's check mode: a stream decoded by both decoders into
 * profiles of their own, libipt's kept, an error where they differ.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "edge_int.h"

/* The profile as text, malloc'ed, or NULL. */
static char *profile_text(const struct hwt_profile *p, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	if (!f)
		return NULL;
	if (hwt_profile_write(p, f) < 0) {
		fclose(f);
		free(text);
		return NULL;
	}
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

static int diags_equal(const struct hwt_diag_list *a, const struct hwt_diag_list *b)
{
	if (a->count != b->count)
		return 0;
	for (size_t k = 0; k < a->count; k++)
		if (a->items[k].kind != b->items[k].kind || a->items[k].offset != b->items[k].offset ||
		    strcmp(a->items[k].message, b->items[k].message))
			return 0;
	return 1;
}

int edge_check(struct hwt_decoder *d, const struct hwt_bundle_stream *stream,
		      struct hwt_space *space, struct edge_ctx *c, size_t size)
{
	struct hwt_profile *real = d->profile;
	struct hwt_profile *ipt = hwt_decoder_profile_like(d);
	struct hwt_profile *edge = hwt_decoder_profile_like(d);
	struct hwt_diag_list *real_diags = d->diags;
	struct hwt_diag_list ipt_diags = { 0 }, edge_diags = { 0 };
	struct hwt_decode_stats stats;
	uint64_t done_bytes = d->done_bytes;
	char *ipt_text = NULL, *edge_text = NULL;
	size_t ipt_len = 0, edge_len = 0;
	int status = -hbe_nomem, same;

	if (!ipt || !edge)
		goto out;
	/* libipt's counts are the ones kept. */
	d->profile = edge;
	d->diags = &edge_diags;
	stats = d->stats;
	status = edge_commit(c, size, 0);
	d->stats = stats;
	d->done_bytes = done_bytes;
	if (status < 0)
		goto out;
	d->profile = ipt;
	d->diags = &ipt_diags;
	status = hwt_pt_decoder.decode_stream(d, stream, space);
	d->stats.edge_streams++;
	if (status < 0)
		goto out;
	ipt_text = profile_text(ipt, &ipt_len);
	edge_text = profile_text(edge, &edge_len);
	if (!ipt_text || !edge_text) {
		status = -hbe_nomem;
		goto out;
	}
	same = ipt_len == edge_len && !memcmp(ipt_text, edge_text, ipt_len) &&
	       diags_equal(&ipt_diags, &edge_diags);
	status = hwt_profile_merge(real, ipt) < 0 ? -hbe_nomem : 0;
	d->profile = real;
	d->diags = real_diags;
	for (size_t k = 0; k < ipt_diags.count; k++) {
		const struct hwt_diag_entry *e = &ipt_diags.items[k];

		hwt_decode_diag(d, e->kind, e->path, e->offset, "%s", e->message);
	}
	if (!same)
		hwt_decode_diag(d, hwt_diag_stream, stream->path, -1,
				    "the edge decoder and libipt disagree on this stream "
				    "(%zu and %zu bytes of profile, %zu and %zu diagnostics)",
				    edge_len, ipt_len, edge_diags.count, ipt_diags.count);
out:
	d->profile = real;
	d->diags = real_diags;
	if (status < 0)
		d->nomem = 1;
	hwt_diag_list_flush(&ipt_diags, NULL);
	hwt_diag_list_flush(&edge_diags, NULL);
	free(ipt_text);
	free(edge_text);
	hwt_profile_free(ipt);
	hwt_profile_free(edge);
	return status;
}
