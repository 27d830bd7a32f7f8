/*
 * hwt export: a trace bundle written as a perf.data file with Intel PT AUX
 * data, as `perf record -e intel_pt//u --per-thread` would have written it
 * on hardware, so that Linux perf (perf script, perf report, perf inject)
 * decodes it with its own Intel PT decoder (docs/perf.md).
 *
 * What the file holds: an intel_pt event and a dummy tracking event; the
 * PMU's AUXTRACE_INFO (TSC on, return compression off: what the software
 * units write); TIME_CONV (perf time = TSC); per thread stream one AUX
 * buffer (AUXTRACE records, the stream's packets with their TSC values
 * moved onto one global clock); the sideband as COMM (exec), MMAP2 with
 * build-ids, FORK, EXIT, LOST and AUX (truncated) records in time order;
 * header features (build-ids, CPUID, command line, ...) and hwt's own
 * section for what perf.data cannot say (trace-unit and vDSO mappings,
 * MUNMAP, the bundle's header), which `hwt import` reads back.
 *
 * The global clock: every process image's sequence clock (docs/bundle.md)
 * is placed on one timeline, images one after another in an order where a
 * fork child follows its parent and an exec'd image its predecessor;
 * record time t of an image becomes base + t * scale - scale / 2 and TSC
 * value t base + t * scale, so a record still applies where the bundle
 * says: before the trace that follows a TSC at least as large.
 *
 * A library: prints nothing, returns negative enum hwt_perf_export_error
 * codes, hands warnings to the caller's sink (options.warn, hwt_warn.h).
 */
#ifndef HWT_PERF_EXPORT_H
#define HWT_PERF_EXPORT_H

#include "hwt_errors.h"
#include "hwt_warn.h"
#include <stddef.h>
#include <stdint.h>

#include "hwt_bundle.h"

#ifdef __cplusplus
extern "C" {
#endif

enum hwt_perf_export_error {
	hxe_ok = hwt_ok,
	hxe_internal = hwt_err_internal,      /* a bug in this library */
	hxe_invalid = hwt_err_invalid,        /* bad argument */
	hxe_nomem = hwt_err_nomem,
	hxe_io = hwt_err_io,                  /* a file could not be read or written; errno tells why */
	hxe_empty = HWT_ERR_PERF_EXPORT_BASE, /* the bundle has no streams to export */
	hxe_clock,                            /* the bundle's times do not fit perf's 56-bit TSC */
	hxe_mixed,                            /* Intel PT and ETMv4 streams: a perf.data holds one kind */
	hxe_one_cpu,                          /* the one-CPU form of ETMv4 streams (it is Intel PT's) */
	hxe_opencsd,                          /* ETMv4 streams, and OpenCSD cannot be loaded */
	hxe_no_spe,                           /* HWT_PERF_EXPORT_SPE and the bundle has no SPE streams */
};

const char *hwt_perf_export_errstr(int code);

/* Option flags. */
#define HWT_PERF_EXPORT_PIPE     0x1u /* pipe mode (as perf record -o -) */
#define HWT_PERF_EXPORT_COMPRESS 0x2u /* zstd-compressed records (perf record -z) */
/*
 * Every thread on one CPU, as a CPU-wide recording (perf record -a
 * --switch-events) would see them: one AUX buffer, the threads' trace cut
 * where they leave user mode and run one after another, SWITCH_CPU_WIDE
 * records between, all on a clock of its own. For tests of per-CPU imports
 * and decoders: it changes when things ran, not what ran.
 */
#define HWT_PERF_EXPORT_ONE_CPU  0x4u
/*
 * The bundle's Arm SPE streams (spe/) instead of its branch trace: an
 * arm_spe recording (perf record -e arm_spe_0//u --per-thread), one AUX
 * buffer per thread of SPE records, their timestamps on the export's clock
 * (arm_spe_export.c). perf.data holds one kind of AUX trace per file as
 * perf 6.1 reads it: the ETMv4 streams of the same run go in another file.
 */
#define HWT_PERF_EXPORT_SPE      0x8u

/* The PMU type number the exported intel_pt event claims. */
#define HWT_PERF_EXPORT_PMU_TYPE 10u
/* The PMU type number the cs_etm event of a bundle of ETMv4 streams claims. */
#define HWT_PERF_EXPORT_CS_ETM_PMU_TYPE 11u
/* The PMU type number the arm_spe event claims (HWT_PERF_EXPORT_SPE). */
#define HWT_PERF_EXPORT_ARM_SPE_PMU_TYPE 12u

struct hwt_perf_export_options {
	uint32_t flags;             /* HWT_PERF_EXPORT_* */
	/* The CPU the file claims (HEADER_CPUID, "GenuineIntel,6,M,S"); NULL: the
	   bundle's pt_cpu key, else a default model without libipt errata. */
	const char *cpuid;
	/* The command line written as HEADER_CMDLINE; NULL: none. */
	const char *const *argv;
	size_t argc;
	struct hwt_warn_sink warn;   /* fn NULL: warnings dropped */
};

struct hwt_perf_export_stats {
	uint64_t images;          /* process images with streams */
	uint64_t streams;         /* AUX buffers written */
	uint64_t trace_bytes;
	uint64_t records;         /* perf records written (sideband) */
	uint64_t skipped_records; /* hwt records perf.data has no place for (SIGNAL...) */
	uint64_t damaged_bytes;   /* stream bytes that are not packets (exported as they are) */
};

/*
 * Writes the open bundle as a perf.data file at path ("-": standard output,
 * pipe mode). Returns 0, or a negative enum hwt_perf_export_error; errors
 * that name a file set errno.
 */
int hwt_perf_export(struct hwt_bundle *bundle, const char *path,
		    const struct hwt_perf_export_options *options,
		    struct hwt_perf_export_stats *stats);

#ifdef __cplusplus
}
#endif

#endif /* HWT_PERF_EXPORT_H */
