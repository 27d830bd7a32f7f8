/*
 * The listing of a trace bundle that `hwt dump` prints, for people and
 * tests; it writes to the caller's FILE and adds problems it finds to the
 * bundle's diagnostics.
 *
 * The header keys, the summary, per process image its sideband records one
 * per line, per thread stream its size and (with packets) every Intel PT
 * packet as libipt's packet decoder reads it.
 */
#ifndef HWT_DUMP_H
#define HWT_DUMP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct hwt_bundle;
struct hwt_bundle_image;
struct hwt_bundle_stream;
struct hwt_sideband_record;

struct hwt_dump_options {
	int64_t pid;        /* only this pid, or -1 for all */
	int sideband_only;  /* no streams */
	int packets;        /* decode every packet of every stream */
	int spe;            /* list only the SPE streams, a line per record (spe.c) */
};

/*
 * Lists the open bundle to out; decode errors of its packets (with
 * options->packets) go to its diagnostics. Returns 0, or -hbe_nomem.
 */
int hwt_dump_bundle(FILE *out, struct hwt_bundle *bundle, const struct hwt_dump_options *options);

/* record.c: one sideband record as one line (without indent or newline). */
void hwt_dump_record(FILE *out, const struct hwt_sideband_record *record);

/*
 * packet.c: every packet of a stream (its size bytes at begin, read from
 * path), one per line, indented by two spaces. Decode errors are listed
 * and added to the bundle's diagnostics. Returns the number of problems
 * found, or -1 when the decoder cannot be set up.
 */
int hwt_dump_packets(FILE *out, struct hwt_bundle *bundle, const char *path,
		     const uint8_t *begin, size_t size);
/* etm_packet.c: the same for an ETMv4 stream (OpenCSD's packet processor). */
int hwt_dump_etm_packets(FILE *out, struct hwt_bundle *bundle, const char *path,
			 const uint8_t *begin, size_t size);

/*
 * spe.c: the records of every SPE stream (of process pid, or all when -1),
 * one line each; damage is listed and added to the diagnostics.
 */
void hwt_dump_spe(FILE *out, struct hwt_bundle *bundle, int64_t pid);

#endif /* HWT_DUMP_H */
