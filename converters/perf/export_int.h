/* Internals of hwt export, shared by its files. */
#ifndef HWT_PERF_EXPORT_INT_H
#define HWT_PERF_EXPORT_INT_H

#include "hwt_perf_export.h"
#include "hwt_perfdata.h"
#include "hwt_perf_cs_etm.h"

/* One process image with streams, its records in memory. */
struct xport_image {
	const struct hwt_bundle_image *bi;
	struct hwt_record_header **recs;  /* copies, in file order */
	uint64_t *times;         /* each record's time in the export (perf time) */
	size_t nrecs;
	uint64_t max_time;       /* of its records and its streams' TSC packets */
	uint64_t base;           /* global time of its time 0 */
	int exec_entered;        /* the image before it (same pid) ended in EXEC */
	long parent;             /* image index of the process that forked it, or -1 */
	uint32_t fork_tid;       /* the thread that forked it (else its ppid) */
	long prev_gen;           /* image index of the same pid's previous generation, or -1 */
	/* timeline.c */
	size_t pending;          /* images it must follow that are not placed yet */
	int placed;
	/* its threads' first TSC (sequence clock) and when their trace begins in
	   the export, to put their FORK before it */
	struct { uint32_t tid; uint64_t tsc, time; } *first;
	size_t nfirst;
};

/* Where a stream goes: the AUX buffer of its thread (one per tid, as perf
   record --per-thread has it: an exec's images follow on in it). */
struct xport_aux {
	const struct hwt_bundle_stream *stream;
	const struct xport_image *image;
	uint32_t idx;
	uint64_t offset, size;   /* in the buffer; size padded to 8 bytes */
	uint64_t trace_size;     /* the bytes of trace in it (its AUX record's size) */
	uint64_t time;           /* when its trace begins (for its AUX record) */
	int written;
};

struct xport {
	struct hwt_bundle *bundle;
	const struct hwt_perf_export_options *options;
	struct hwt_perf_export_stats stats;
	struct xport_image *images;
	size_t nimages;
	long *image_of;          /* bundle image index -> images index, or -1 */
	uint64_t scale;          /* global ticks per sequence step */
	int identity;            /* the bundle's clock is the TSC: times kept */
	int one_cpu;             /* every thread's trace on one CPU (one_cpu.c) */
	struct xport_aux *aux;
	size_t naux;
	uint32_t nidx;           /* AUX buffers (threads) */
	/* A bundle of ETMv4 streams: cs_etm (cs_etm_export.c) */
	int etm;
	struct hwt_perf_cs_etm_cpu etm_unit;
	uint64_t *etm_sizes;     /* per bundle stream: its size once exported */
	/* HWT_PERF_EXPORT_SPE: the SPE streams are the AUX data (arm_spe_export.c) */
	int spe;
};

/* The streams the export writes as AUX data: the bundle's SPE streams
   (x->spe), else its thread streams. */
size_t hwt_xport_stream_count(const struct xport *x);
const struct hwt_bundle_stream *hwt_xport_stream_at(const struct xport *x, size_t i);

/* The file at path into memory, pad zero bytes and a NUL after it; its
   size (what could be read) into *size. NULL when it cannot be opened or
   out of memory. */
uint8_t *hwt_xport_read_file(const char *path, size_t *size, size_t pad);

/* A warning through the caller's callback. */
void hwt_xport_warn(struct xport *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* timeline.c: orders the images and gives each its base. 0 or -hxe_clock. */
int hwt_xport_timeline(struct xport *x);
/* The global time of record time t of image im, and of TSC value t. */
static inline uint64_t hwt_xport_record_time(const struct xport *x,
					     const struct xport_image *im, uint64_t t)
{
	return x->identity ? t : im->base + t * x->scale - x->scale / 2;
}
static inline uint64_t hwt_xport_tsc(const struct xport *x, const struct xport_image *im,
				     uint64_t t)
{
	return x->identity ? t : im->base + t * x->scale;
}

/*
 * stream.c: walks the packets of size bytes at buf. With im NULL, finds the
 * smallest and largest TSC values into *min_tsc and *max_tsc (unchanged when
 * there is none); else rewrites every TSC packet onto the global clock.
 * Bytes that are not packets (up to the next PSB) are counted in *damaged
 * and left as they are.
 */
int hwt_xport_stream_tsc(const struct xport *x, const struct xport_image *im, uint8_t *buf,
			 size_t size, uint64_t *min_tsc, uint64_t *max_tsc, uint64_t *damaged);

/*
 * one_cpu.c: every stream's trace as one CPU's (HWT_PERF_EXPORT_ONE_CPU):
 * the streams cut where tracing stops (TIP.PGD) and the pieces run one
 * after another in time order, on a clock of their own, with a
 * SWITCH_CPU_WIDE pair where the thread changes. Sets every record's time
 * onto that clock (im->times) and writes the AUX data; the switches come
 * back as events (hwt_xport_one_cpu_switches) for the sorted sideband.
 */
struct xport_cpu;
int hwt_xport_one_cpu_plan(struct xport *x, struct xport_cpu **cpu);
int hwt_xport_one_cpu_write(struct xport *x, struct xport_cpu *cpu, struct hwt_perf_writer *w);
/* The i-th switch: its time, whether it is the OUT half, who leaves and who comes. */
size_t hwt_xport_one_cpu_switches(const struct xport_cpu *cpu);
void hwt_xport_one_cpu_switch(const struct xport_cpu *cpu, size_t i, uint64_t *time, int *out,
			      uint32_t *pid, uint32_t *tid, uint32_t *other_pid,
			      uint32_t *other_tid);
void hwt_xport_one_cpu_free(struct xport_cpu *cpu);

/*
 * cs_etm_export.c: the trace unit a bundle's ETMv4 streams claim (its
 * header's etm_* keys, else hwt's software unit), on CPU 0.
 */
void hwt_xport_etm_unit(const struct hwt_bundle *bundle, struct hwt_perf_cs_etm_cpu *c);
/*
 * An ETMv4 stream's Timestamp packets: their smallest and largest values
 * into *min_ts and *max_ts (as hwt_xport_stream_tsc). With im, the stream
 * as exported (every timestamp in full, on the export's clock) into out,
 * *out_size bytes; without, only its size. Bytes that are no packets are
 * counted in *damaged and kept.
 */
int hwt_xport_etm_stream(const struct xport *x, const struct xport_image *im,
			 const uint8_t *buf, size_t size, uint8_t *out, uint64_t *out_size,
			 uint64_t *min_ts, uint64_t *max_ts, uint64_t *damaged);
/*
 * cs_etm's AUXTRACE_INFO words (malloc'd): a CPU per AUX buffer (thread),
 * each with the trace unit and a trace ID of its own (1 and up; there are
 * HWT_XPORT_ETM_CPUS). 0 or -hxe_nomem.
 */
#define HWT_XPORT_ETM_CPUS 0x6fu
int hwt_xport_etm_info(const struct xport *x, uint64_t **priv, size_t *npriv);

/*
 * arm_spe_export.c: an SPE stream's Timestamp packets: their smallest and
 * largest values into *min_ts and *max_ts (as hwt_xport_stream_tsc); with
 * im, each moved onto the export's clock in place. Bytes that are not
 * packets are counted in *damaged and kept.
 */
void hwt_xport_spe_stream(const struct xport *x, const struct xport_image *im, uint8_t *buf,
			  size_t size, uint64_t *min_ts, uint64_t *max_ts, uint64_t *damaged);
/* arm_spe's AUXTRACE_INFO words. */
void hwt_xport_spe_info(const struct xport *x, uint64_t priv[HWT_PERF_ARM_SPE_INFO_WORDS]);

/* note.c: hwt's own feature section (docs/perf.md), text (malloc'd). 0 or -hxe_nomem. */
int hwt_xport_note(struct xport *x, char **text, size_t *len);

#endif /* HWT_PERF_EXPORT_INT_H */
