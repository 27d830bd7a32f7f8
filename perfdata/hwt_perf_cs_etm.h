/*
 * CoreSight ETM in perf.data: the private words of perf's AUXTRACE_INFO
 * record for the cs_etm PMU (type HWT_PERF_AUXTRACE_CS_ETM), as Linux's
 * perf lays them out (tools/perf/util/cs-etm.h; docs/perf.md, "cs_etm"):
 *
 *   header:  version, (PMU type << 32 | number of CPUs), snapshot mode
 *   then one block per CPU:
 *     version 0: magic, CPU, then a fixed number of registers
 *                (ETMv3/PTM 4, ETMv4 7; ETE did not exist yet)
 *     version 1 and 2: magic, CPU, the number N of registers, then N
 *
 * The magic says the trace unit: ETMv3/PTM, ETMv4 or ETE. Registers a
 * newer perf adds after the ones below are skipped by N. In version 2
 * the trace IDs are not in TRCTRACEIDR but in AUX_OUTPUT_HW_ID records.
 */
#ifndef HWT_PERF_CS_ETM_H
#define HWT_PERF_CS_ETM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HWT_PERF_AUXTRACE_CS_ETM 3u

/* Header words. */
enum {
	HWT_CS_ETM_HDR_VERSION,
	HWT_CS_ETM_HDR_PMU_TYPE_CPUS,
	HWT_CS_ETM_HDR_SNAPSHOT,
	HWT_CS_ETM_HDR_WORDS,
};
#define HWT_CS_ETM_VERSION_MAX 2u  /* the newest layout read */

/* Magic numbers of the per-CPU blocks. */
#define HWT_CS_ETMV3_MAGIC 0x3030303030303030ull
#define HWT_CS_ETMV4_MAGIC 0x4040404040404040ull
#define HWT_CS_ETE_MAGIC   0x5050505050505050ull

/*
 * Register counts of each kind: fixed in version 0; in version 1 as perf
 * 6.1 writes them (newer perf adds TS_SOURCE after them: read, and written
 * when hwt_perf_cs_etm_build is asked for it).
 */
#define HWT_CS_ETMV3_REGS_V0 4u   /* ETMCR, ETMTRACEIDR, ETMCCER, ETMIDR */
#define HWT_CS_ETMV4_REGS_V0 7u   /* TRCCONFIGR .. TRCAUTHSTATUS */
#define HWT_CS_ETMV4_REGS 7u
#define HWT_CS_ETE_REGS 8u        /* ETMv4's 7 and TRCDEVARCH */

enum hwt_cs_etm_kind {
	HWT_CS_ETMV3 = 3,
	HWT_CS_ETMV4 = 4,
	HWT_CS_ETE = 5,
};

/* One CPU's trace unit. Registers it does not give are 0 (ts_source: -1). */
struct hwt_perf_cs_etm_cpu {
	enum hwt_cs_etm_kind kind;
	uint64_t cpu;
	/* ETMv4 and ETE */
	uint64_t trcconfigr, trctraceidr, trcidr0, trcidr1, trcidr2, trcidr8;
	uint64_t trcauthstatus, trcdevarch, ts_source; /* ts_source: -1 when absent */
	/* ETMv3/PTM */
	uint64_t etmcr, etmtraceidr, etmccer, etmidr;
	size_t nregs;            /* as the block says (extra ones skipped) */
};

struct hwt_perf_cs_etm_info {
	uint64_t version;
	uint32_t pmu_type;
	uint32_t ncpus;
	uint64_t snapshot;
	struct hwt_perf_cs_etm_cpu *cpus;  /* ncpus of them */
};

/*
 * Parses AUXTRACE_INFO's private words (npriv of them) into *info (cpus
 * malloc'd: hwt_perf_cs_etm_info_free). Returns 0, -hpf_nomem, or
 * -hpf_bad_record with what is wrong (the word it is at) in error.
 */
int hwt_perf_cs_etm_parse(const uint64_t *priv, size_t npriv, struct hwt_perf_cs_etm_info *info,
			  char *error, size_t error_size);
void hwt_perf_cs_etm_info_free(struct hwt_perf_cs_etm_info *info);

/*
 * The private words of info in version info->version (0 or 1; ETE needs
 * 1), into priv (malloc'd, *npriv words), with TS_SOURCE for the CPUs
 * whose ts_source is not -1 (version 1). 0, -hpf_invalid or -hpf_nomem.
 */
int hwt_perf_cs_etm_build(const struct hwt_perf_cs_etm_info *info, uint64_t **priv,
			  size_t *npriv);

/* The kind's name: "ETMv3", "ETMv4", "ETE". */
const char *hwt_perf_cs_etm_kind_name(enum hwt_cs_etm_kind kind);

/* The cs_etm event's config bits on Linux (the PMU's format directory). */
#define HWT_CS_ETM_CONFIG_CYCACC    (1ull << 12)
#define HWT_CS_ETM_CONFIG_CONTEXTID (1ull << 14)
#define HWT_CS_ETM_CONFIG_TS        (1ull << 28)
#define HWT_CS_ETM_CONFIG_RETSTACK  (1ull << 29)

/*
 * The packets of ETMv4 or ETE trace (unformatted: one trace unit's bytes),
 * as OpenCSD's ETMv4 packet processor with the registers of c cuts them: fn is
 * called for each packet in order with its offset, size and type, and for
 * a Timestamp packet the timestamp it gives (the bits it carries over the
 * ones before). HWT_CS_ETM_PKT_BAD stands for bytes that are no packet
 * (before the first A-Sync, a bad or reserved header, cut by the end).
 * fn returns 0 to go on. Returns 0, fn's non-zero value, -hpf_nomem,
 * -hpf_invalid when OpenCSD refuses the configuration, or -hpf_opencsd
 * when it cannot be loaded (hwt_opencsd.h).
 */
enum hwt_cs_etm_packet {
	HWT_CS_ETM_PKT_OTHER,
	HWT_CS_ETM_PKT_ASYNC,
	HWT_CS_ETM_PKT_TRACE_INFO,
	HWT_CS_ETM_PKT_TIMESTAMP,
	HWT_CS_ETM_PKT_OVERFLOW,
	HWT_CS_ETM_PKT_BAD,
};
typedef int hwt_perf_cs_etm_packet_fn(void *context, enum hwt_cs_etm_packet type,
				      uint64_t offset, uint64_t size, uint64_t timestamp);
int hwt_perf_cs_etm_packets(const struct hwt_perf_cs_etm_cpu *c, const uint8_t *buf,
			    size_t size, hwt_perf_cs_etm_packet_fn *fn, void *context);

/* The AUX record flag of unformatted trace (a TRBE; no CoreSight frames). */
#define HWT_PERF_AUX_FLAG_CORESIGHT_FORMAT_RAW 0x0100u

#ifdef __cplusplus
}
#endif

#endif /* HWT_PERF_CS_ETM_H */
