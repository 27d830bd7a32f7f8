/*
 * A bundle's decode as the commands run it: progress, messages,
 * diagnostics; and the decode while recording, as they start it.
 */
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hwt_bundle.h"
#include "hwt_command.h"
#include "record.h"
#include "hwt_decode.h"
#include "hwt_spe_profile.h"
#include "profile.h"

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

/*
 * glibc gives each thread that allocates a heap of its own and makes it
 * writable (mprotect) a few pages at a time as it grows. With another
 * thread of the process running, each such call interrupts the other CPU
 * to flush its TLB (docs/decode.md, "Processes on several threads", says
 * how many calls and what they cost), and big tables were mapped and
 * unmapped (the same). A top pad of a whole thread heap
 * (64 MiB) makes it writable once, when it is made, and the tables come
 * from it; memory is still only taken where it is written.
 */
void hwt_command_decode_heap(void)
{
	(void)mallopt(M_TOP_PAD, 64 << 20);
}

/* The decoder given, else $HWT_DECODER's, else edge; -1 with *name when unknown. */
static int decoder_kind(const char *given, const char **name)
{
	*name = given ? given : getenv("HWT_DECODER");
	return *name && **name ? hwt_command_decoder(*name) : hwt_decoder_edge;
}

/*
 * Each group of images into its profile (--per-test): one decode each. A
 * group of one process image (most tests) is decoded serially unless jobs
 * were given: a worker thread would decode it alone, and with a second
 * thread in the process every munmap of the decoder's tables interrupts the
 * other CPU to flush its TLB (measured with bench/cov/per_test.py:
 * docs/hwt-cov.md). The output does not depend on jobs (converters/decode/decode.c).
 */
static int decode_groups(struct hwt_bundle *bundle, struct hwt_decode_options *options,
			 const struct hwt_command_decode_options *how)
{
	size_t n = hwt_bundle_image_count(bundle);
	unsigned char *only = calloc(n + 1, 1);
	struct hwt_decode_stats sum = { 0 }, one;
	unsigned jobs = options->jobs;
	int status = 0;

	if (!only)
		return -hbe_nomem;
	options->only_images = only;
	if (how->stats)
		options->stats = &one;
	for (size_t g = 0; g <= how->groups && status >= 0; g++) {
		size_t images = 0;

		for (size_t i = 0; i < n; i++) {
			only[i] = how->image_group[i] < 0 ? g == how->groups
							  : (size_t)how->image_group[i] == g;
			images += only[i];
		}
		only[n] = g == how->groups; /* streams without sideband: said once */
		options->jobs = !jobs && images <= 1 ? 1 : jobs;
		status = hwt_decode(bundle, how->profiles[g], options);
		if (how->stats) {
			sum.streams += one.streams;
			sum.trace_bytes += one.trace_bytes;
			sum.blocks += one.blocks;
			sum.insns += one.insns;
			sum.errors += one.errors;
			sum.overflows += one.overflows;
			sum.wall_ns += one.wall_ns;
		}
	}
	if (how->stats)
		*how->stats = sum;
	options->only_images = NULL;
	options->jobs = jobs;
	free(only);
	return status;
}

int hwt_command_trace_check(const char *trace, const char *prefix)
{
	if (!trace || !strcmp(trace, "etm") || !strcmp(trace, "spe"))
		return 0;
	fprintf(stderr, "%s: --trace wants etm or spe, not '%s'\n", prefix, trace);
	return -1;
}

void hwt_command_spe_source(char *buf, size_t size, const struct hwt_spe_profile_stats *stats)
{
	snprintf(buf, size, "SPE samples (interval %llu, %llu samples%s)",
		 (unsigned long long)stats->interval, (unsigned long long)stats->samples,
		 stats->interval == 1 ? ": every operation" : ": estimated counts");
}

/* The SPE samples of an open bundle into profile (--trace spe). */
static int decode_spe(struct hwt_bundle *bundle, struct hwt_profile *profile,
		      const struct hwt_command_decode_options *how)
{
	struct hwt_spe_profile_stats stats;
	int status;

	if (how->profiles || how->flow || how->live) {
		fprintf(stderr, "%s: error: the SPE samples give counts only (not per test, not "
			"stacks)\n", how->prefix);
		return -1;
	}
	status = hwt_spe_profile(bundle, profile, 0, &stats);
	if (status < 0) {
		fprintf(stderr, "%s: error: %s: %s\n", how->prefix, hwt_bundle_dir(bundle),
			hwt_spe_profile_errstr(status));
		return -1;
	}
	if (how->used_spe)
		*how->used_spe = 1;
	if (how->spe_stats)
		*how->spe_stats = stats;
	if (how->stats) {
		memset(how->stats, 0, sizeof(*how->stats));
		how->stats->streams = stats.streams;
		how->stats->trace_bytes = stats.bytes;
		how->stats->errors = stats.errors;
		how->stats->error_bytes = stats.lost_bytes;
	}
	return 0;
}

int hwt_command_decode(const char *dir, struct hwt_profile *profile,
		       const struct hwt_command_decode_options *how)
{
	struct hwt_decode_options options = { 0 };
	struct hwt_progress progress;
	const char *decoder;
	struct hwt_bundle *bundle;
	size_t jobs = 0, layouts = 0;
	int status, kind = decoder_kind(how->decoder, &decoder);

	if (kind < 0) {
		fprintf(stderr, "%s: error: unknown decoder '%s' (HWT_DECODER; known: edge, libipt, check)\n",
			how->prefix, decoder);
		return -1;
	}
	/* -j, else HWT_DECODE_JOBS; parts of a split stream and layouts kept
	   (tests make them small) */
	if ((!how->jobs && env_size(how->prefix, "HWT_DECODE_JOBS", 1024, &jobs) < 0) ||
	    env_size(how->prefix, "HWT_DECODE_SEGMENT", SIZE_MAX, &options.segment_bytes) < 0 ||
	    env_size(how->prefix, "HWT_DECODE_LAYOUTS", 1024, &layouts) < 0)
		return -1;
	options.keep_layouts = (unsigned)layouts;
	options.jobs = how->jobs ? how->jobs : (unsigned)jobs;
	bundle = hwt_command_open_bundle(dir, stderr, how->prefix);
	if (!bundle)
		return -1;
	hwt_command_decode_heap();
	if (how->used_spe)
		*how->used_spe = 0;
	if (hwt_command_trace_check(how->trace, how->prefix) < 0) {
		hwt_bundle_free(bundle);
		return -1;
	}
	if ((how->trace && !strcmp(how->trace, "spe")) ||
	    (!how->trace && !hwt_bundle_stream_count(bundle) && hwt_bundle_spe_count(bundle))) {
		status = decode_spe(bundle, profile, how);
		if (!how->quiet)
			hwt_command_print_diags(bundle, stderr, how->prefix);
		if (status >= 0)
			status = (int)hwt_bundle_warning_count(bundle);
		hwt_bundle_free(bundle);
		return status;
	}
	hwt_progress_init(&progress, how->progress);
	progress.prefix = how->prefix;
	options.progress = hwt_progress_print;
	options.progress_context = &progress;
	options.stats = how->stats;
	options.decoder = (enum hwt_decoder_kind)kind;
	options.flow = how->flow;
	if (how->profiles && !how->flow)
		status = decode_groups(bundle, &options, how);
	else if (how->live)
		status = hwt_decode_live_finish(how->live, bundle, profile, &options);
	else
		status = hwt_decode(bundle, profile, &options);
	hwt_progress_end(&progress);
	if (!how->quiet)
		hwt_command_print_diags(bundle, stderr, how->prefix);
	/* A note, not a warning: the filter was asked for (hwt-cov's default). */
	if (!how->quiet && !how->no_notes)
		hwt_record_print_filter(bundle, stderr, how->prefix);
	if (status < 0)
		fprintf(stderr, "%s: error: %s: %s\n", how->prefix, dir, hwt_bundle_errstr(status));
	else
		status = (int)hwt_bundle_warning_count(bundle);
	hwt_bundle_free(bundle);
	return status < 0 ? -1 : status;
}

/* ----- the decode while recording ----- */

struct live_start {
	struct hwt_decode_live *live;
	struct hwt_decode_options options;
};

/* In the recorder, once the command runs. */
static void live_start(void *context)
{
	struct live_start *start = context;

	/* Without a thread the decode is all at the end. */
	(void)hwt_decode_live_run(start->live, &start->options);
}

int hwt_record_run_live(const char *dir, const struct hwt_unit_options *unit, char *const argv[],
			int *status, const char *prefix, const struct hwt_record_live *how)
{
	struct hwt_unit_options with_live = *unit;
	struct live_start start = { 0 };
	const char *name, *off = getenv("HWT_DECODE_LIVE");
	int kind;

	/* HWT_DECODE_LIVE=0: all at the end, as before (to compare; tests). */
	if (how && how->live && !(off && !strcmp(off, "0"))) {
		/* A bad name is said by the decode at the end (HWT_DECODER too). */
		kind = decoder_kind(how->decoder, &name);
		start.live = how->live;
		start.options.decoder = kind < 0 ? hwt_decoder_edge : (enum hwt_decoder_kind)kind;
		start.options.flow = how->flow;
		with_live.running = live_start;
		with_live.running_context = &start;
		hwt_command_decode_heap();
	}
	return hwt_record_run(dir, &with_live, argv, status, prefix);
}

void hwt_command_live_say(const struct hwt_decode_live *live, const char *prefix)
{
	if (live)
		fprintf(stderr, "%s: %zu %s decoded while the command ran\n", prefix,
			hwt_decode_live_images(live),
			hwt_noun(hwt_decode_live_images(live), "process image was", "process images were"));
}

int hwt_command_load_inputs(const char *const *inputs, size_t n, struct hwt_profile *profile,
			    struct hwt_command_options *common, const char *prefix)
{
	struct hwt_spe_profile_stats spe_stats;
	int used_spe = 0;
	const struct hwt_command_decode_options how = {
		.prefix = prefix,
		.progress = hwt_progress_tty,
		.quiet = common->quiet,
		.jobs = common->jobs,
		.decoder = common->decoder,
		.trace = common->trace_source,
		.used_spe = &used_spe,
		.spe_stats = &spe_stats,
	};
	int warned = 0;

	for (size_t i = 0; i < n; i++) {
		const char *in = inputs[i];
		struct stat st;
		size_t line = 0;
		int rc;

		if (stat(in, &st) != 0) {
			fprintf(stderr, "%s: error: %s: %s\n", prefix, in, strerror(errno));
			return -1;
		}
		if (S_ISDIR(st.st_mode)) {
			rc = hwt_command_decode(in, profile, &how);
			if (rc < 0)
				return -1;
			warned += rc != 0;
			if (used_spe) {
				char source[128];

				/* The reports' counts are estimates: said, whatever -q. */
				hwt_command_spe_source(source, sizeof(source), &spe_stats);
				fprintf(stderr, "%s: %s: sampled counts from %s\n", prefix, in, source);
				common->used_spe = 1;
			}
			continue;
		}
		rc = hwt_profile_load(profile, in, &line);
		if (rc == -hpe_format) {
			fprintf(stderr, "%s: error: %s:%zu: not an hwt profile or a trace bundle (%s)\n",
				prefix, in, line, hwt_profile_errstr(rc));
			return -1;
		}
		if (rc < 0) {
			fprintf(stderr, "%s: error: %s: %s%s%s\n", prefix, in,
				hwt_profile_errstr(rc), rc == -hpe_io ? ": " : "",
				rc == -hpe_io ? strerror(errno) : "");
			return -1;
		}
	}
	return warned;
}
