/*
 * hwt dump: a readable listing of a trace bundle, for people and tests.
 *
 * The header keys, the summary, per process image its sideband records one
 * per line, per thread stream its size and (with packets) every Intel PT
 * packet as libipt's packet decoder reads it.
 */
#ifndef HWT_DUMP_H
#define HWT_DUMP_H

#include <stdint.h>
#include <stdio.h>

struct hwt_bundle;
struct hwt_bundle_image;
struct hwt_bundle_stream;
struct hwt_sideband_record;

/* Exit statuses of hwt dump. */
#define HWT_DUMP_OK       0  /* clean */
#define HWT_DUMP_WARNINGS 1  /* readable, with warnings */
#define HWT_DUMP_UNUSABLE 2  /* not a bundle, bad usage */

struct hwt_dump_options {
	int64_t pid;        /* only this pid, or -1 for all */
	int sideband_only;  /* no streams */
	int packets;        /* decode every packet of every stream */
};

/* Lists the bundle in dir to out, diagnostics to err; returns an exit status. */
int hwt_dump(const char *dir, const struct hwt_dump_options *options, FILE *out, FILE *err);

/* The `hwt dump` command: argv[0] is "dump". */
int hwt_dump_main(int argc, char **argv);

/* record.c: one sideband record as one line (without indent or newline). */
void hwt_dump_record(FILE *out, const struct hwt_sideband_record *record);
/* Prints s double-quoted with C escapes. */
void hwt_dump_quoted(FILE *out, const char *s);

/*
 * packet.c: every packet of a stream, one per line, indented by two spaces.
 * Decode errors are listed and added to the bundle's diagnostics. Returns
 * the number of problems found, or a negative error (cannot read).
 */
int hwt_dump_packets(FILE *out, struct hwt_bundle *bundle, const struct hwt_bundle_stream *stream);
/* etm_packet.c: the same for an ETMv4 stream (OpenCSD's packet processor). */
int hwt_dump_etm_packets(FILE *out, struct hwt_bundle *bundle,
			 const struct hwt_bundle_stream *stream);

#endif /* HWT_DUMP_H */
