/*
 * Counts from Arm SPE samples: turns the SPE records of a trace bundle
 * (spe/<pid>.<gen>-<tid>.spe, docs/bundle.md) into a profile
 * (converters/profile/profile.h), so that every report that reads a
 * profile (lcov, the LLVM sample profile, the BOLT profile, flame graphs)
 * reads a sampled one the same way.
 *
 * Each record is one sampled operation, standing for the interval of
 * operations that the unit counted down before it (hwt record --spe=N):
 *
 *  - its PC becomes a one-instruction block counted `interval` times;
 *  - a branch record (PC, target, taken or not) becomes an edge counted
 *    `interval` times: a conditional branch taken or not taken (to: the
 *    next instruction), else the kind of the instruction at the PC (the
 *    A64 classifier on the image's file: jump, call, return, indirect),
 *    or the record's own class when the file cannot be read.
 *
 * Counts are estimates: with an interval of 1 they are exact (every
 * operation sampled); above it an operation that ran fewer times than the
 * interval may have no sample at all. What SPE cannot say: call stacks
 * (a record is one operation), the order of operations, how often a block
 * ran from its start to its end (only which instructions were sampled).
 *
 * PCs are mapped to (image, file offset) through the MMAP and MUNMAP
 * records of the stream's process image, at the record's timestamp (the
 * sideband clock). A record whose PC lies in no mapping is counted in
 * stats->unmapped; a damaged SPE file (the codec's error) is a bundle
 * diagnostic (hwt_diag_stream) with the offset and the bytes lost, and the
 * records before and after it are kept.
 *
 * Prints nothing: errors are negative enum hwt_spe_profile_error values
 * (hwt_spe_profile_errstr names them), warnings bundle diagnostics.
 */
#ifndef HWT_SPE_PROFILE_H
#define HWT_SPE_PROFILE_H

#include "hwt_errors.h"
#include <stdint.h>

#include "hwt_bundle.h"
#include "profile.h"

#ifdef __cplusplus
extern "C" {
#endif

enum hwt_spe_profile_error {
	hspe_ok = hwt_ok,
	hspe_internal = hwt_err_internal,
	hspe_invalid = hwt_err_invalid,         /* bad argument */
	hspe_nomem = hwt_err_nomem,
	hspe_io = hwt_err_io,
	hspe_no_spe = HWT_ERR_SPE_PROFILE_BASE, /* the bundle has no SPE records */
};

const char *hwt_spe_profile_errstr(int code);

struct hwt_spe_profile_stats {
	uint64_t interval;    /* the operations each sample stands for */
	uint64_t streams;     /* SPE files read */
	uint64_t bytes;       /* their bytes */
	uint64_t samples;     /* records decoded */
	uint64_t branches;    /* of them branch records with a target */
	uint64_t unmapped;    /* records whose PC (or target) is in no image */
	uint64_t errors;      /* damage in the SPE files */
	uint64_t lost_bytes;  /* bytes the damage dropped */
};

/*
 * Adds the counts of every SPE record of an open bundle to profile, each
 * sample counted interval times (0: the interval the bundle was recorded
 * with, its header's spe_interval, else 1 for an older bundle, whose counts
 * are then samples). stats may be NULL. Returns 0 (damage is in the bundle's diagnostics), or
 * -hspe_no_spe, -hspe_nomem, -hspe_invalid.
 */
int hwt_spe_profile(struct hwt_bundle *bundle, struct hwt_profile *profile, uint64_t interval,
		    struct hwt_spe_profile_stats *stats);

#ifdef __cplusplus
}
#endif

#endif /* HWT_SPE_PROFILE_H */
