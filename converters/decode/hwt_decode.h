/*
 * The decoder: turns every stream of a trace bundle into counts in a
 * profile (converters/profile/profile.h), with the images that the
 * sideband MMAP records name: Intel PT streams with libipt's block
 * decoder, ETMv4 streams with OpenCSD's ETMv4 decoder.
 *
 * Each stream is decoded in the address space of its process image, which
 * changes over time as its MMAP and MUNMAP records say: a record applies
 * once the stream has passed a TSC (ETMv4: Timestamp) packet at least as
 * large as the record's time (docs/bundle.md, "Clock").
 *
 * Nothing is lost silently: decode errors (the decoder resyncs at the next
 * PSB or A-Sync), overflows, images that cannot be read or were replaced since the
 * recording are added to the bundle's diagnostics, and counted in the
 * images of the profile (hwt_profile_image.undecoded, flags).
 */
#ifndef HWT_DECODE_H
#define HWT_DECODE_H

#include <stdint.h>
#include <stdio.h>

#include "hwt_bundle.h"
#include "profile.h"

struct hwt_flow_consumer;

#ifdef __cplusplus
extern "C" {
#endif

/* What one decode did. */
struct hwt_decode_live;

struct hwt_decode_stats {
	uint64_t streams;        /* streams decoded */
	uint64_t trace_bytes;    /* bytes of PT packets read */
	uint64_t blocks;         /* blocks (pt_blk_next) decoded */
	uint64_t insns;          /* instructions in them */
	uint64_t errors;         /* decode errors (each followed by a resync) */
	uint64_t error_bytes;    /* trace bytes skipped by resyncs */
	uint64_t overflows;      /* OVF packets: the trace unit dropped trace */
	uint64_t missing_blocks; /* trace that ran in images that could not be read */
	uint64_t edge_streams;   /* Intel PT streams the edge decoder decoded */
	uint64_t edge_fallbacks; /* and those it handed to libipt */
	uint64_t edge_segments;  /* parts of streams split at PSBs decoded on threads of their own */
	uint64_t edge_redecoded; /* and those decoded again from the state the part before ends in */
	uint64_t edge_split_off; /* parts split off a part being decoded, for a thread done with its own */
	uint64_t edge_taken_back; /* streams walked again to take their counts out of the layouts kept */
	uint64_t kernel_bytes;   /* kernel-mode trace left out (header pt_streams_kernel=1), not lost */
	uint64_t wall_ns;        /* the decode's wall time (after the command, for a live one) */
};

/*
 * Called now and then during a decode, from the thread that called it:
 * bytes decoded so far, of total.
 */
typedef void hwt_decode_progress_fn(uint64_t done, uint64_t total, void *context);

/* The Intel PT decoder (hwt_decode_options.decoder). */
enum hwt_decoder_kind {
	hwt_decoder_edge,    /* hwt's edge decoder (libipt where it cannot) */
	hwt_decoder_libipt,  /* libipt's block decoder */
	hwt_decoder_check,   /* both; an error diagnostic where they differ */
};

struct hwt_decode_options {
	hwt_decode_progress_fn *progress; /* NULL: none */
	void *progress_context;
	/* Filled when not NULL. */
	struct hwt_decode_stats *stats;
	/* Threads that decode process images in parallel: 0 the number of
	   online CPUs (at most 16), 1 the serial decode. The result does not
	   depend on it. */
	unsigned jobs;
	/* The edge decoder splits a stream at PSBs into parts of at least
	   this many bytes, decoded on the threads the images leave (jobs
	   over the images decoded at once); 0: 1 MiB. The result does not
	   depend on it. */
	size_t segment_bytes;
	/* The edge decoder keeps the blocks of this many address space
	   layouts across streams (the most recently used); 0: 32. The result
	   does not depend on it. */
	unsigned keep_layouts;
	enum hwt_decoder_kind decoder;
	/* Hand every stream's control flow to this consumer (hwt_flow.h)
	   instead of counting it into the profile, which then only gets the
	   images; NULL: count into the profile. */
	const struct hwt_flow_consumer *flow;
	/* Decode only the process images i (hwt_bundle_image_at) whose
	   only_images[i] is set, one byte each, into the profile: per-test
	   coverage decodes a test's processes at a time. Streams without
	   sideband are said (a diagnostic) only when only_images[count] is set
	   too (count: hwt_bundle_image_count), so that once across the calls.
	   NULL: every image. Not with the decode while recording. */
	const unsigned char *only_images;
};

/*
 * Decodes every stream of an open bundle and adds its counts to profile.
 * Warnings go to the bundle's diagnostics (hwt_bundle_diag_add). options
 * may be NULL. Returns 0 when the bundle was decoded (possibly partially:
 * see the diagnostics), or a negative enum hwt_bundle_error when nothing
 * could be decoded (-hbe_nomem, -hbe_invalid).
 */
int hwt_decode(struct hwt_bundle *bundle, struct hwt_profile *profile,
	       const struct hwt_decode_options *options);

/*
 * The decode while recording (live.c): a thread that decodes the process
 * images of the bundle in bundle_dir (which need not exist yet) as they
 * end, on CPU time nothing else wants, while the recorder runs the
 * command.
 *
 * hwt_decode_live_alloc makes it (NULL when out of memory: the caller then
 * decodes the usual way); hwt_decode_live_run starts the thread with
 * options (may be NULL): it decodes with their decoder and segment_bytes,
 * and hands the control flow to their flow consumer when there is one,
 * whose blocks name the images of hwt_decode_live_profile (a consumer
 * that looks images up, the stack builder's symbols, is made on that
 * profile). 0, or -hbe_nomem without a thread. hwt_decode_live_start is
 * both, without options (NULL when either failed).
 *
 * hwt_decode_live_finish, once the bundle is finished and opened: stops the
 * thread, decodes what it has not (with options' progress, jobs and stats;
 * into the thread's consumer) and adds the counts (and images) to profile.
 * The result is hwt_decode's (the diagnostics and their order too); only
 * the order of images in the profile, and that of streams handed to a
 * consumer, may differ. When the thread's work cannot be kept (an image
 * changed since, out of memory, the thread never ran) it is thrown away
 * and the whole bundle is decoded with options, into their consumer:
 * hwt_decode_live_kept says which consumer has the result. Returns as
 * hwt_decode does.
 */
struct hwt_decode_live;
struct hwt_decode_live *hwt_decode_live_alloc(const char *bundle_dir);
const struct hwt_profile *hwt_decode_live_profile(const struct hwt_decode_live *live);
int hwt_decode_live_run(struct hwt_decode_live *live, const struct hwt_decode_options *options);
struct hwt_decode_live *hwt_decode_live_start(const char *bundle_dir);
int hwt_decode_live_finish(struct hwt_decode_live *live, struct hwt_bundle *bundle,
			   struct hwt_profile *profile, const struct hwt_decode_options *options);
/* After the finish: 1 when it kept the thread's work (the result is in the
   thread's consumer, when it had one), 0 when it decoded the whole bundle. */
int hwt_decode_live_kept(const struct hwt_decode_live *live);
/* Process images decoded while recording, and used (0 when none were). */
size_t hwt_decode_live_images(const struct hwt_decode_live *live);
/* Stops the thread (when still running) and frees live. */
void hwt_decode_live_free(struct hwt_decode_live *live);

#ifdef __cplusplus
}
#endif

#endif /* HWT_DECODE_H */
