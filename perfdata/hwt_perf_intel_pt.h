/*
 * Intel PT in perf.data: the private words of perf's AUXTRACE_INFO record
 * for the intel_pt PMU (perf's tools/perf/util/intel-pt.h order) and the
 * bits of the intel_pt event's config as the PMU's format directory names
 * them (/sys/bus/event_source/devices/intel_pt/format on Linux: pt,
 * cyc, mtc, tsc, noretcomp, branch, mtc_period, psb_period, ...).
 */
#ifndef HWT_PERF_INTEL_PT_H
#define HWT_PERF_INTEL_PT_H

/* AUXTRACE_INFO priv[] of type HWT_PERF_AUXTRACE_INTEL_PT. */
enum hwt_perf_intel_pt_info {
	HWT_PT_INFO_PMU_TYPE,
	HWT_PT_INFO_TIME_SHIFT,
	HWT_PT_INFO_TIME_MULT,
	HWT_PT_INFO_TIME_ZERO,
	HWT_PT_INFO_CAP_USER_TIME_ZERO,
	HWT_PT_INFO_TSC_BIT,
	HWT_PT_INFO_NORETCOMP_BIT,
	HWT_PT_INFO_HAVE_SCHED_SWITCH,
	HWT_PT_INFO_SNAPSHOT_MODE,
	HWT_PT_INFO_PER_CPU_MMAPS,
	/* Older perf stops here (all of the above are required). */
	HWT_PT_INFO_MTC_BIT,
	HWT_PT_INFO_MTC_FREQ_BITS,
	HWT_PT_INFO_TSC_CTC_N,
	HWT_PT_INFO_TSC_CTC_D,
	HWT_PT_INFO_CYC_BIT,
	HWT_PT_INFO_MAX_NONTURBO_RATIO,
	HWT_PT_INFO_FILTER_STR_LEN,
	/* Then the address filter string, NUL-padded to 8 bytes. */
	HWT_PT_INFO_WORDS,
};

/* The intel_pt event's config bits on Linux. */
#define HWT_PT_CONFIG_PT         (1ull << 0)
#define HWT_PT_CONFIG_CYC        (1ull << 1)
#define HWT_PT_CONFIG_PWR_EVT    (1ull << 4)
#define HWT_PT_CONFIG_MTC        (1ull << 9)
#define HWT_PT_CONFIG_TSC        (1ull << 10)
#define HWT_PT_CONFIG_NORETCOMP  (1ull << 11)
#define HWT_PT_CONFIG_PTW        (1ull << 12)
#define HWT_PT_CONFIG_BRANCH     (1ull << 13)
#define HWT_PT_CONFIG_MTC_PERIOD (0xfull << 14)
#define HWT_PT_CONFIG_CYC_THRESH (0xfull << 19)
#define HWT_PT_CONFIG_PSB_PERIOD (0xfull << 24)

#endif /* HWT_PERF_INTEL_PT_H */
