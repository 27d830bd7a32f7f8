/*
 * hwt import: a perf.data file holding Intel PT AUX data (perf record -e
 * intel_pt//...) turned into a trace bundle that every hwt report reads
 * (docs/perf.md).
 *
 * The bundle gets one stream per thread and process image, as the software
 * units write them: a per-CPU AUX buffer is split into the threads that ran
 * on that CPU by the context switch records (SWITCH, SWITCH_CPU_WIDE,
 * ITRACE_START) and the trace's own timestamps, a per-thread buffer into
 * the images an exec separates. Kernel-mode trace is cut out (tracing reads
 * as disabled there) and counted. The sideband (COMM exec, MMAP2, FORK,
 * EXIT) becomes the images' records, on the TSC clock; the PMU's
 * configuration (CPU, MTC frequency, TSC:CTC ratio, return compression)
 * becomes header keys that the decoder gives libipt. Binaries are found by
 * build-id (perf's build-id cache, --symfs) or by path. Everything lost
 * (AUX records flagged TRUNCATED, PARTIAL or COLLISION, LOST and
 * LOST_SAMPLES records, AUXTRACE_ERROR, AUX data missing or cut, trace of
 * no known thread) is written to the bundle as LOST records and reported.
 *
 * A library: prints nothing, returns negative enum hwt_perf_import_error
 * codes, hands warnings to the caller's sink (options.warn, hwt_warn.h).
 */
#ifndef HWT_PERF_IMPORT_H
#define HWT_PERF_IMPORT_H

#include "hwt_errors.h"
#include "hwt_warn.h"
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum hwt_perf_import_error {
	hie_ok = hwt_ok,
	hie_internal = hwt_err_internal,          /* a bug in this library */
	hie_invalid = hwt_err_invalid,            /* bad argument */
	hie_nomem = hwt_err_nomem,
	hie_io = hwt_err_io,                      /* a file could not be read or written; errno tells why */
	hie_perf_data = HWT_ERR_PERF_IMPORT_BASE, /* the perf.data file cannot be read (see the message) */
	hie_no_trace,                             /* no Intel PT, ETM or SPE trace (intel_pt, cs_etm, arm_spe AUXTRACE_INFO) */
	hie_exists,                               /* the bundle directory exists and is not empty */
	hie_opencsd,                              /* CoreSight trace, and OpenCSD cannot be loaded */
};

const char *hwt_perf_import_errstr(int code);

/*
 * Whether the process image running the executable at path is traced (1),
 * or was to run natively (0, *reason says why): perf traced every process,
 * the bundle keeps those that the recording's selection (docs/select.md)
 * would have traced and lists the others as untraced.
 */
typedef int hwt_perf_import_select_fn(void *context, const char *path, const char **reason);

struct hwt_perf_import_options {
	/* Look for binaries under this directory first (perf's --symfs); NULL: none. */
	const char *symfs;
	/* perf's build-id cache; NULL: $PERF_BUILDID_DIR, else $HOME/.debug. */
	const char *buildid_dir;
	struct hwt_warn_sink warn;        /* fn NULL: warnings dropped */
	hwt_perf_import_select_fn *select; /* NULL: every process is kept */
	void *select_context;
	/* Filled with the error's text when hwt_perf_import fails (may be NULL). */
	char *error;
	size_t error_size;
};

struct hwt_perf_import_stats {
	int pipe_mode;
	int per_cpu;              /* AUX buffers per CPU (else per thread) */
	int snapshot;             /* snapshot mode */
	uint64_t records;         /* perf records read */
	uint64_t aux_buffers;     /* AUXTRACE records */
	uint64_t aux_bytes;       /* their data */
	uint64_t images;          /* process images written */
	uint64_t streams;         /* thread streams written */
	uint64_t trace_bytes;     /* bytes written to the streams */
	uint64_t kernel_bytes;    /* kernel-mode trace cut out */
	uint64_t orphan_bytes;    /* trace of no known thread (dropped) */
	uint64_t damaged_bytes;   /* trace that does not decode as packets, or lost */
	uint64_t lost_events;     /* LOST, LOST_SAMPLES, AUXTRACE_ERROR, flagged AUX */
	uint64_t missing_binaries;/* files a mapping names that were not found */
	uint64_t untraced;        /* process images left out by the selection */
	uint64_t untraced_bytes;  /* their trace */
};

/*
 * Reads the perf.data file at perf_data ("-": standard input) and writes
 * the bundle directory bundle_dir (which must not exist or be empty).
 * Returns 0 (the bundle may still be partial: see the warnings), or a
 * negative enum hwt_perf_import_error when no bundle was written.
 */
int hwt_perf_import(const char *perf_data, const char *bundle_dir,
		    const struct hwt_perf_import_options *options,
		    struct hwt_perf_import_stats *stats);

#ifdef __cplusplus
}
#endif

#endif /* HWT_PERF_IMPORT_H */
