/* A bundle's decode as the commands run it: progress, messages, diagnostics. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "hwt_bundle.h"
#include "hwt_command.h"
#include "hwt_decode.h"

/* A positive number from the environment, at most max, in *n (0: unset). */
static int env_size(const char *prefix, const char *name, size_t max, size_t *n)
{
	const char *v = getenv(name);
	char *end;
	unsigned long long x;

	*n = 0;
	if (!v || !*v)
		return 0;
	errno = 0;
	x = strtoull(v, &end, 10);
	if (errno || *end || !x || x > max || v[0] == '-') {
		fprintf(stderr, "%s: error: %s=%s: not a number from 1 to %zu\n", prefix, name, v, max);
		return -1;
	}
	*n = (size_t)x;
	return 0;
}

int hwt_command_decode(const char *dir, struct hwt_profile *profile,
		       const struct hwt_command_decode_options *how)
{
	struct hwt_decode_options options = { 0 };
	struct hwt_progress progress;
	const char *decoder = how->decoder ? how->decoder : getenv("HWT_DECODER");
	struct hwt_bundle *bundle;
	size_t jobs = 0;
	int status, kind = decoder && *decoder ? hwt_command_decoder(decoder) : hwt_decoder_edge;

	if (kind < 0) {
		fprintf(stderr, "%s: error: unknown decoder '%s' (HWT_DECODER; known: edge, libipt, check)\n",
			how->prefix, decoder);
		return -1;
	}
	/* -j, else HWT_DECODE_JOBS; parts of a split stream (tests make them small) */
	if ((!how->jobs && env_size(how->prefix, "HWT_DECODE_JOBS", 1024, &jobs) < 0) ||
	    env_size(how->prefix, "HWT_DECODE_SEGMENT", SIZE_MAX, &options.segment_bytes) < 0)
		return -1;
	options.jobs = how->jobs ? how->jobs : (unsigned)jobs;
	bundle = hwt_command_open_bundle(dir, stderr, how->prefix);
	if (!bundle)
		return -1;
	hwt_progress_init(&progress, how->progress);
	options.progress = hwt_progress_print;
	options.progress_context = &progress;
	options.stats = how->stats;
	options.decoder = (enum hwt_decoder_kind)kind;
	if (how->live)
		status = hwt_decode_live_finish(how->live, bundle, profile, &options);
	else
		status = hwt_decode(bundle, profile, &options);
	hwt_progress_end(&progress);
	if (!how->quiet)
		hwt_command_print_diags(bundle, stderr, how->prefix);
	if (status < 0)
		fprintf(stderr, "%s: error: %s: %s\n", how->prefix, dir, hwt_bundle_errstr(status));
	else
		status = (int)hwt_bundle_warning_count(bundle);
	hwt_bundle_free(bundle);
	return status < 0 ? -1 : status;
}
