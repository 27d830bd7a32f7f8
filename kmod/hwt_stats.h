/* SPDX-License-Identifier: GPL-2.0 */
/* Counters of live objects and events, reported by HWT_IOC_STATS. */
#ifndef HWT_STATS_H
#define HWT_STATS_H

#include <linux/atomic.h>

struct hwt_stats_counters {
	atomic64_t	contexts;
	atomic64_t	threads;
	atomic64_t	buffers;
	atomic64_t	works;
	atomic64_t	paused;
	atomic64_t	pause_timeouts;
	atomic64_t	records_lost;
	atomic64_t	hook_registrations;	/* hwt_probe_register calls since load */
	atomic64_t	untraced_lookups;	/* hash look-ups that found no thread */
	atomic64_t	locked_pages;	/* buffer pages charged to users' locked memory */
};

extern struct hwt_stats_counters hwt_stats;

#endif /* HWT_STATS_H */
