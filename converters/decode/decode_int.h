/* Internals of the decoder, shared by its files. */
#ifndef HWT_DECODE_INT_H
#define HWT_DECODE_INT_H

#include <intel-pt.h>
#include <time.h>

#include "grow.h"

#include "elf_file.h"
#include "hwt_decode.h"
#include "hwt_flow.h"

/* What became of a file that MMAP records name. */
enum hwt_file_state {
	hwt_file_ok,
	hwt_file_missing,   /* cannot be opened */
	hwt_file_replaced,  /* build-id or size differ from the recording */
	hwt_file_anon,      /* anonymous code: no file at all */
};

/* Trace that could not be decoded because of a file. */
struct hwt_file_fail {
	uint64_t failures;       /* decode stops at an address in it */
	uint64_t failed_bytes;   /* trace bytes skipped after them */
	uint64_t failed_streams;
	const void *last_stream; /* to count streams once */
};

/* One file named by MMAP records (same path and build-id), checked once. */
struct hwt_file {
	char *path;              /* as recorded */
	char *open_path;         /* what is opened (vDSO: inside the bundle) */
	uint8_t build_id[HWT_BUILD_ID_MAX];
	uint32_t build_id_size;  /* as recorded */
	uint32_t mmap_flags;     /* HWT_MMAP_* of its records, ORed */
	enum hwt_file_state state;
	char why[160];           /* missing/replaced: what is wrong */
	struct hwt_elf_file elf; /* mapped when ok */
	int image;               /* profile image, -1 for anonymous code */
	int trace_unit;          /* counts are not reported */
	size_t index;            /* in hwt_decode_shared.files */
	struct hwt_file_fail fail; /* serial decode; workers count in their own */
};

/* One mapping of a file into an address space. */
struct hwt_mapping {
	uint64_t start, end;     /* [start, end) */
	uint64_t pgoff;          /* file offset of start */
	struct hwt_file *file;
	int isid;                /* in the section cache, 0 when not added (yet) */
};

/* The address space of a process image from one sideband time on. */
struct hwt_epoch {
	uint64_t time;           /* applies once the stream passed this TSC */
	struct hwt_mapping *maps;/* sorted by start, not overlapping */
	size_t count;
	struct pt_image *image;  /* built on first use */
};

/* The changing address space of one process image. */
struct hwt_space {
	struct hwt_epoch *epochs;/* sorted by time; epochs[0].time == 0 */
	size_t count;
	char *command;           /* PROCESS_START's path, or NULL */
};

/*
 * What every decoder of one decode shares: the bundle, the options, the
 * settings of the bundle's header and the table of files. The main thread
 * writes it (hwt_decoder_set_bundle, loading spaces) while no worker runs;
 * workers only read it. Initialised by hwt_decode_shared_init; its files
 * are freed by hwt_files_free.
 */
struct hwt_decode_shared {
	struct hwt_bundle *bundle;
	const struct hwt_decode_options *options;
	struct hwt_file **files;
	size_t file_count, file_capacity;
	int64_t bundle_start;    /* header key start (UNIX time), or -1 */
	uint32_t clock;          /* enum hwt_flow_clock, from the header */
	struct pt_config pt;     /* libipt's configuration from the bundle's header */
	int pt_kernel;           /* header pt_streams_kernel=1: Intel PT streams hold kernel-mode trace (kernel_cut.c) */
	/* Kernel-mode trace was cut out, here (pt_kernel) or at the import
	   (header pt_kernel=1): an asynchronous stop and the enable at the same
	   address are a kernel excursion (an interrupt), whose return resumes
	   the block; libipt decodes such streams (stream.c). */
	int pt_async_resume;
	/* Recorded with --max-trace-size (header max_trace_size): a stream that
	   ends while tracing is enabled was stopped at the cap, no warning. */
	int trace_cap;
	/* The run's progress, the main thread's (hwt_decoder_run). */
	int64_t run_began_ns;    /* hwt_decode_now_ns() at hwt_decoder_run: stats.wall_ns */
	uint64_t total_bytes;
};

/* Settings from options (NULL: none), no bundle yet, no files. */
void hwt_decode_shared_init(struct hwt_decode_shared *s, const struct hwt_decode_options *options);

/*
 * One thread's decoder: what it counts into and what it keeps, over the
 * settings it shares with the other threads of the decode. Made by
 * hwt_decoder_init, never by copying another (their caches would be
 * shared between threads): a field added here starts at zero in every
 * decoder, and what it holds is freed in hwt_decoder_caches_free.
 */
struct hwt_decoder {
	struct hwt_decode_shared *shared;
	struct hwt_profile *profile;
	struct hwt_decode_stats stats;
	uint64_t done_bytes;     /* progress: trace bytes this decoder decoded */
	int nomem;               /* out of memory somewhere: fail the decode */
	struct pt_image_section_cache *iscache; /* of the process image being decoded */
	struct hwt_diag_list *diags; /* of the process image being decoded; NULL: to the bundle */
	/* A worker of a parallel decode (decode.c); all 0 in the serial one. */
	struct hwt_par *par;     /* shared by the workers */
	struct hwt_file_fail *fails; /* this worker's, by hwt_file.index */
	uint64_t reported;       /* bytes of done_bytes added to par's count */
	unsigned split;          /* threads for one stream (edge decoder); 0 or 1: one */
	unsigned pool_parts;     /* parts its edge pool keeps counts in (hwt_edge_pool_part) */
	/* Caches, this thread's (hwt_decoder_caches_free). */
	struct hwt_code_cache *code; /* code_cache.c; NULL: empty */
	struct hwt_edge_pool *edge_pool; /* counts not yet in profile (edge/) */
	struct hwt_edge_layouts *edge_layouts; /* tables by layout (edge/) */
	struct hwt_edge_runs *edge_runs; /* memoised runs of TNT bits (edge/) */
	uint8_t *stream_buf;     /* for short streams (hwt_stream_bytes) */
};

/* A decoder over shared counting into profile, with nothing cached. */
void hwt_decoder_init(struct hwt_decoder *d, struct hwt_decode_shared *shared,
		      struct hwt_profile *profile);
/* Frees what d keeps: its caches (counts not flushed are dropped; they
   name the files, so before hwt_files_free frees those) and its failure
   counts. Not its profile, nor what it shares. */
void hwt_decoder_fini(struct hwt_decoder *d);
/* The caches alone: the counts the edge decoder holds, code read, the
   stream buffer. */
void hwt_decoder_caches_free(struct hwt_decoder *d);

/* A diagnostic held back until the workers are done. */
struct hwt_diag_entry {
	enum hwt_diag_kind kind;
	char *path;              /* NULL: none */
	int64_t offset;
	char *message;
};

struct hwt_diag_list {
	struct hwt_diag_entry *items;
	size_t count, capacity;
};

/*
 * code_cache.c: what was read from code, by mapping and address, kept
 * across streams by one decoder (one thread: a worker has its own). A
 * key names a file mapped over the same pages in any process; addresses
 * in values are relative to the mapping's bias (hwt_code_bias).
 */
enum hwt_code_what {
	hwt_code_edge_node = 1, /* edge/: a block's node */
	hwt_code_chain,         /* stream.c: a libipt block split into flow blocks */
	hwt_code_exit,          /* stream.c: a block's last instruction */
};
struct hwt_code_key {
	const struct hwt_file *file;
	uint64_t pgoff, size;    /* the mapping: file offset and length */
	uint64_t offset;         /* the file offset of the address */
	uint32_t what, extra;    /* enum hwt_code_what; the caller's (instructions) */
};
struct hwt_code_key hwt_code_key(const struct hwt_mapping *m, uint64_t ip, uint32_t what,
				 uint32_t extra);
/* What an address of m is in values: virtual address - bias. */
static inline uint64_t hwt_code_bias(const struct hwt_mapping *m)
{
	return m->start - m->pgoff;
}
/* The value added for key, or NULL; valid until the next hwt_code_add. */
const void *hwt_code_find(const struct hwt_decoder *d, const struct hwt_code_key *key);
/* Room for the value of a new key (size bytes, 16-aligned, for the caller
   to fill), or NULL when out of memory (the caller goes on uncached). */
void *hwt_code_add(struct hwt_decoder *d, const struct hwt_code_key *key, size_t size);
void hwt_code_cache_free(struct hwt_decoder *d);

/* CLOCK_MONOTONIC in nanoseconds. */
static inline int64_t hwt_decode_now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000ll + t.tv_nsec;
}

/*
 * A zeroed table, its pages faulted in by writing to them. A hash table is
 * read before it is written (probes of empty slots): a fresh page read first
 * maps the shared zero page, and the first write then copies it, which with
 * several decode threads in the process flushes the other CPUs' TLBs (an
 * IPI each, slow in a VM, with the page table lock held meanwhile; what it
 * cost is in docs/decode.md, "Figures").
 */
static inline void *hwt_table_calloc(size_t n, size_t size)
{
	unsigned char *p = calloc(n, size);

	for (size_t k = 0; p && k < n * size; k += 4096)
		((volatile unsigned char *)p)[k] = 0;
	return p;
}

/*
 * The same for a table of size bytes that a decoder thread keeps for its
 * life and reads at random: from a size of one huge page (2 MiB) on, its
 * own huge pages where the kernel gives them (transparent huge pages
 * "madvise" or "always"), 64-aligned at least. One fault instead of 512
 * (slow in a VM, docs/decode.md, and a parallel decode takes them at
 * once), and one TLB entry for the walk's look-ups. Freed with free().
 */
void *hwt_table_calloc_huge(size_t size);

/*
 * The slots in use of an open-addressing table, in the order they were
 * filled: a table emptied at every address space change is emptied in time
 * proportional to what it held, not to its size.
 */
struct hwt_slot_list {
	size_t *items;
	size_t count, capacity;
};
/* 0, or -1 when out of memory. */
static inline int hwt_slot_list_add(struct hwt_slot_list *l, size_t slot)
{
	size_t *items = hwt_grow_array(l->items, &l->capacity, l->count + 1, sizeof(*items));

	if (!items)
		return -1;
	l->items = items;
	l->items[l->count++] = slot;
	return 0;
}

/* space.c */
int hwt_space_load(struct hwt_decoder *d, const struct hwt_bundle_image *image,
		   struct hwt_space *space);
void hwt_space_fini(struct hwt_space *space);
/* The pt_image of an epoch (built on first use), or NULL when out of memory. */
struct pt_image *hwt_epoch_image(struct hwt_decoder *d, struct hwt_epoch *epoch);
/* What building the image finds of an epoch's files (one shorter than its
   mapping is marked replaced), for the edge decoder, which reads code
   without libipt's image and its file sections. */
void hwt_epoch_check_files(struct hwt_decoder *d, const struct hwt_epoch *epoch);
/* The mapping holding ip, or NULL. */
const struct hwt_mapping *hwt_epoch_find(const struct hwt_epoch *epoch, uint64_t ip);
/* An epoch's layout: its mappings (files, places, pages), not its time.
   Epochs of one layout hold the same code at the same addresses. */
uint64_t hwt_epoch_layout_hash(const struct hwt_epoch *epoch);
int hwt_epoch_layout_same(const struct hwt_epoch *a, const struct hwt_epoch *b);
/* Frees the files of d's shared settings, and first what d keeps about
   their code (hwt_decoder_caches_free: counts not flushed are dropped). */
void hwt_files_free(struct hwt_decoder *d);
/* Parallel decode: marks files shorter than a mapping of them replaced, as
   hwt_epoch_image would on first use, before the workers start. */
void hwt_space_check(struct hwt_decoder *d, struct hwt_space *space);
/* Whether a file is shorter than a mapping of it and not yet marked so
   (hwt_epoch_image would mark it on first use of the epoch). */
int hwt_space_short_files(const struct hwt_space *space);
/* The same for one epoch (its first use would mark one, and drop what the
   edge decoder keeps: hwt_edge_layouts_free). */
int hwt_epoch_short_files(const struct hwt_epoch *epoch);

/* flow_profile.c: the consumer that counts into hwt_decoder.profile. */
extern const struct hwt_flow_consumer hwt_flow_profile_consumer;
/* The profile's edge kind of a flow step's kind, or -1 when it is none. */
int hwt_flow_edge_kind(uint64_t kind);
/* Whether a flow block is counted into the profile. */
static inline int flow_block_reported(const struct hwt_flow_block *b)
{
	return b && b->image >= 0 &&
	       !(b->flags & (HWT_FLOW_BLOCK_TRACE_UNIT | HWT_FLOW_BLOCK_UNREADABLE));
}

/*
 * flow_out.c: a producer's side of hwt_flow.h, the same for every trace
 * format: the consumer, steps batched, events, the stream's blocks.
 */
#define HWT_FLOW_BATCH 256
struct hwt_flow_chunk;
struct hwt_flow_out {
	const struct hwt_flow_consumer *consumer;
	void *context;               /* begin's; NULL before and after */
	int want_time;               /* hand out hwt_flow_ev_time events */
	struct hwt_flow_stream info;
	struct hwt_flow_consumer counting; /* the profile's, when the options name none */
	struct hwt_flow_step batch[HWT_FLOW_BATCH];
	size_t batched;
	struct hwt_flow_chunk *chunks;
	uint32_t block_count;        /* blocks made: the next block's id */
};
/* Calls the consumer's begin (d->shared->options->flow, or the profile accumulator
   into d->profile). 0, or -1 when out of memory. */
int hwt_flow_out_begin(struct hwt_flow_out *o, struct hwt_decoder *d,
		       const struct hwt_bundle_stream *stream, const struct hwt_space *space);
/* Hands out the steps batched. */
void hwt_flow_out_flush(struct hwt_flow_out *o);
/* Hands out the steps batched, then the event. */
void hwt_flow_out_event(struct hwt_flow_out *o, const struct hwt_flow_event *ev);
/* Room for n blocks that stay where they are until hwt_flow_out_end (ids
   are the caller's to give, from block_count), or NULL when out of memory. */
struct hwt_flow_block *hwt_flow_out_blocks(struct hwt_flow_out *o, size_t n);
/* Hands out what is batched, calls the consumer's end (when begun), frees
   the blocks. 0, or -1 when out of memory. */
int hwt_flow_out_end(struct hwt_flow_out *o);

/* The kind of the step into the block after one whose last instruction is
   of class exit (enum hwt_flow_exit), where the class says it alone; else
   (a conditional branch, no branch) hwt_flow_kind_count: the producer's to say. */
static inline uint32_t hwt_flow_exit_kind(uint32_t exit)
{
	switch (exit) {
	case hwt_flow_exit_jump: return hwt_flow_jump;
	case hwt_flow_exit_call: return hwt_flow_call;
	case hwt_flow_exit_indirect_jump: return hwt_flow_indirect_jump;
	case hwt_flow_exit_indirect_call: return hwt_flow_indirect_call;
	case hwt_flow_exit_return: return hwt_flow_return;
	case hwt_flow_exit_far: return hwt_flow_far;
	case hwt_flow_exit_unknown: return hwt_flow_unknown;
	default: return hwt_flow_kind_count;
	}
}

static inline void hwt_flow_out_step(struct hwt_flow_out *o, const struct hwt_flow_block *block,
				     uint32_t kind)
{
	struct hwt_flow_step *step;

	if (o->batched == HWT_FLOW_BATCH)
		hwt_flow_out_flush(o);
	step = &o->batch[o->batched++];
	step->block = block;
	step->kind = kind;
	step->reserved = 0;
}

/*
 * The decoder of one trace format: decodes one stream of it, in the
 * address space of its process image, into control flow for the
 * consumer of d's options, or for the profile accumulator into d's profile. One small struct
 * per format, so that each decoder library sits behind the same call:
 * stream.c (Intel PT, libipt), etm_stream.c (ETMv4, OpenCSD).
 */
struct hwt_trace_decoder {
	const char *name;  /* as the bundle header's trace= names it */
	int (*decode_stream)(struct hwt_decoder *d, const struct hwt_bundle_stream *stream,
			     struct hwt_space *space);
};
extern const struct hwt_trace_decoder hwt_pt_decoder, hwt_etm_decoder;
/* Intel PT over cached control flow (edge/); hands a stream it cannot
   decode as libipt does to hwt_pt_decoder, and compares both in
   hwt_decoder_check mode. */
extern const struct hwt_trace_decoder hwt_edge_decoder;

/*
 * A libipt block of ninsn instructions from ip to end (through direct
 * jumps and calls) that ran count times after the block whose last
 * instruction is at prev (0: none). The edge decoder hands its counts
 * over in this form; stream.c splits them as it splits libipt's blocks.
 */
struct hwt_pt_block_count {
	uint64_t prev, ip, end;
	uint32_t ninsn, reserved;
	uint64_t count;
};

/* A transition that crossed an address space change (stream.c). */
struct hwt_pt_crossing {
	size_t from_epoch, to_epoch;
	uint64_t prev, ip;
};

/*
 * Adds counts to d's profile as stream.c's flow and flow_profile.c do
 * (the same straight-line blocks, edges and edge kinds): counts[k] are
 * those of epoch epochs[k] (in stream order), then the crossings.
 * Reports blocks that do not match the image files (in stream, or in no
 * stream when it is NULL). 0 or -hbe_nomem.
 */
int hwt_pt_counts_add(struct hwt_decoder *d, const struct hwt_bundle_stream *stream,
		      struct hwt_space *space, struct hwt_pt_block_count *const *counts,
		      const size_t *sizes, const size_t *epochs, size_t n,
		      const struct hwt_pt_crossing *crossings, size_t ncrossings);

/*
 * edge/edge_pool.c: hwt_pt_counts_add's counts (the edge decoder's),
 * summed over streams by address space layout and added to the profile
 * by hwt_edge_pool_flush, into the profile d had when they were added.
 * Flushed before anything reads that profile, and before a file's state
 * changes. 0 or -hbe_nomem (the flush also sets d->nomem).
 */
int hwt_edge_pool_add(struct hwt_decoder *d, struct hwt_space *space,
		      struct hwt_pt_block_count *const *counts, const size_t *sizes,
		      const size_t *epochs, size_t n, const struct hwt_pt_crossing *crossings,
		      size_t ncrossings);
int hwt_edge_pool_flush(struct hwt_decoder *d);
void hwt_edge_pool_free(struct hwt_decoder *d);
/* A new pool, for d's profile, of part `part` of n of the counts in the
   pools of workers[0..n) (by block: every pool's counts of one block are
   in one part), with the crossings of workers[part]'s; NULL when out of
   memory. d (workers[part]) gives its own table of the part to it, when
   its pool keeps n parts; the other pools are only read, each worker
   reading their tables of its own part. */
struct hwt_edge_pool *hwt_edge_pool_part(struct hwt_decoder *d, const struct hwt_decoder *workers,
					 unsigned n, unsigned part);
/* edge/edge_layout.c: the counts kept by layout into the edge pool, and
   the pool into the profile (hwt_edge_pool_flush): before the profile is
   read or a file's state changes. 0 or -hbe_nomem (d->nomem set). */
int hwt_edge_flush(struct hwt_decoder *d);
/* The first half of hwt_edge_flush: the counts kept by layout into d's
   edge pool. */
int hwt_edge_drain(struct hwt_decoder *d);
/* Forgets the blocks kept by layout and their counts (flushed first, or dropped). */
void hwt_edge_layouts_free(struct hwt_decoder *d);
/* edge/edge_runs.c: frees the runs of TNT bits that the tables of d's thread share (after
   the tables: hwt_decoder_caches_free). */
void hwt_edge_runs_free(struct hwt_decoder *d);

/* The stream file mapped read-only (*size bytes; munmap it), or NULL when
   it cannot be read or is empty. (decode.c) */
void *hwt_stream_map(const char *path, size_t *size);
/* A stream's bytes: a short one (a suite's processes have tens of KB each)
   read into d->stream_buf, cheaper than a mapping, its faults and its
   unmapping; a longer one mapped. NULL when it cannot be read or is empty.
   Given back with hwt_stream_bytes_done. */
uint8_t *hwt_stream_bytes(struct hwt_decoder *d, const struct hwt_bundle_stream *stream,
			  size_t *size);
void hwt_stream_bytes_done(struct hwt_decoder *d, uint8_t *bytes, size_t size);
/* Trace stopped at code of file f; skipped bytes of stream until it resumed. (space.c) */
void hwt_file_failed(struct hwt_decoder *d, struct hwt_file *f,
		     const struct hwt_bundle_stream *stream, uint64_t skipped);

/* pt_config.c: s->pt from the bundle's header keys (pt_cpu, pt_mtc_freq, ...). */
void hwt_decode_shared_pt_config(struct hwt_decode_shared *s, const struct hwt_bundle *bundle);

/* Decodes a stream with the decoder of its trace format (decode.c). */
int hwt_stream_decode(struct hwt_decoder *d, const struct hwt_bundle_stream *stream,
		      struct hwt_space *space);

/* decode.c: a decode's life, also driven by live.c; on the main decoder
   (hwt_decoder_init), whose shared settings the workers read. */
/* Options from now on (progress, jobs, stats; NULL: none). */
void hwt_decoder_set_options(struct hwt_decoder *d, const struct hwt_decode_options *options);
/* Sets the bundle read from now on (its "start" key, the first time). */
void hwt_decoder_set_bundle(struct hwt_decoder *d, struct hwt_bundle *bundle);
/* Decodes one process image of d->shared->bundle, serially. 0 or a negative
   enum hwt_bundle_error (its space cannot be loaded, out of memory). */
int hwt_decoder_decode_image(struct hwt_decoder *d, const struct hwt_bundle_image *image);
/*
 * Decodes every process image of bundle with streams (options->jobs
 * threads) but those that done names: done is NULL or holds, per image
 * index, NULL or the diagnostics of that image's earlier decode, which are
 * added to the bundle in bundle order (and emptied) as if decoded here.
 */
int hwt_decoder_run(struct hwt_decoder *d, struct hwt_bundle *bundle,
		    struct hwt_diag_list *const *done);
/* Reports files trace could not be decoded in, frees the files; status. */
int hwt_decoder_finish(struct hwt_decoder *d, int status);
/* Adds held-back diagnostics to bundle (NULL: drops them), empties list. */
void hwt_diag_list_flush(struct hwt_diag_list *list, struct hwt_bundle *bundle);
void hwt_decode_progress(struct hwt_decoder *d, uint64_t done);
/* An empty profile with the images of d's profile, same indexes, or NULL. */
struct hwt_profile *hwt_decoder_profile_like(struct hwt_decoder *d);
/* hwt_bundle_diag_add, or held back in a worker (added after the join). */
void hwt_decode_diag(struct hwt_decoder *d, enum hwt_diag_kind kind, const char *path,
		     int64_t offset, const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/*
 * kernel_cut.c: the user-mode trace of an Intel PT stream buf that has
 * kernel-mode trace too (header key pt_streams_kernel=1), as a PMU tracing user
 * mode only would have written it: *out (malloc'd; free it), *out_size
 * bytes; *kernel_bytes of kernel-mode trace left out. 0 or -hbe_nomem.
 */
int hwt_kernel_cut(const uint8_t *buf, size_t size, uint8_t **out, size_t *out_size,
		   uint64_t *kernel_bytes);
/* Names whose trace stream is lost, for the warnings that count lost
   bytes: "process PID (COMMAND), thread TID" into out. (decode.c) */
void hwt_stream_owner(const struct hwt_bundle_stream *stream, const struct hwt_space *space,
		      char *out, size_t size);
/* Where the failures of a file are counted. */
static inline struct hwt_file_fail *hwt_file_fail(struct hwt_decoder *d, struct hwt_file *f)
{
	return d->fails ? &d->fails[f->index] : &f->fail;
}

#endif /* HWT_DECODE_INT_H */
