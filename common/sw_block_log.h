/*
 * The executed-block log of a software trace unit's thread (--debug-blocks;
 * docs/bundle.md, "Block log"): every run of straight-line instructions in
 * the order it ran, so that a test can compare what a decoder reconstructs
 * from the packets with what ran. Shared by the Valgrind tool, the QEMU
 * plugin and the round-trip test that reads the log, so libc-free.
 */
#ifndef HWT_SW_BLOCK_LOG_H
#define HWT_SW_BLOCK_LOG_H

#include "hwt_types.h"

/* One entry, as the log file holds it (little-endian). */
struct hwt_block_entry {
	uint64_t start;   /* first instruction */
	uint32_t insns;   /* instructions that ran from there */
	uint32_t flags;   /* 0 */
};

#define HWT_SW_BLOCK_LOG_ENTRIES 4096u

struct hwt_sw_block_log {
	struct hwt_block_entry *entries; /* HWT_SW_BLOCK_LOG_ENTRIES, the unit's; NULL: no log */
	unsigned count;
	/* Appends len bytes of entries to the thread's log file. */
	void (*write)(struct hwt_sw_block_log *log, const void *buf, size_t len);
};

/* Writes out the entries so far. */
static inline void hwt_sw_block_log_drain(struct hwt_sw_block_log *log)
{
	if (log->count)
		log->write(log, log->entries, log->count * sizeof(*log->entries));
	log->count = 0;
}

/* Logs a run of insns instructions from start (the log must have entries). */
static inline void hwt_sw_block_log_add(struct hwt_sw_block_log *log, uint64_t start,
					uint32_t insns)
{
	struct hwt_block_entry *e;

	if (log->count == HWT_SW_BLOCK_LOG_ENTRIES)
		hwt_sw_block_log_drain(log);
	e = &log->entries[log->count++];
	e->start = start;
	e->insns = insns;
	e->flags = 0;
}

#endif /* HWT_SW_BLOCK_LOG_H */
