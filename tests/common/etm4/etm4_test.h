/*
 * Helpers of the ETMv4 encoder tests: collecting an encoder's output,
 * writing an OpenCSD snapshot directory around trace buffers, running
 * OpenCSD's trc_pkt_lister over it and reading back the packets it lists.
 */
#ifndef HWT_ETM4_TEST_H
#define HWT_ETM4_TEST_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "etm4_encoder.h"

#define SKIP 77

#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);   \
			fprintf(stderr, __VA_ARGS__);                          \
			fprintf(stderr, "\n");                                 \
			exit(1);                                               \
		}                                                              \
	} while (0)

/* A growing byte buffer. */
struct bytes {
	uint8_t *p;
	size_t len, cap;
};

void bytes_add(struct bytes *b, const uint8_t *p, size_t n);

/* An encoder writing into a small buffer that is drained into out before each call. */
struct sink {
	struct hwt_etm4_encoder enc;
	uint8_t small[64];
	struct bytes out;
};

void sink_init(struct sink *s);
/* Moves what the encoder wrote to out; call before each encoder call and at the end. */
void sink_drain(struct sink *s);

/* One packet as trc_pkt_lister prints it. */
struct listed {
	unsigned long idx;      /* byte index in the buffer */
	unsigned int id;        /* trace ID */
	char text[256];         /* "NAME : description; fields", trailing blanks cut */
};

struct listing {
	struct listed *p;
	size_t n, cap;
	unsigned long processed;  /* "processed N bytes" */
};

/* A trace source of a snapshot: its trace ID and (unformatted) its own buffer. */
struct source {
	unsigned int trace_id;
	const struct bytes *data;
};

/* 1 when trc_pkt_lister can be run, else prints why and returns 0. */
int lister_available(void);

/*
 * Writes a snapshot of nsrc ETMv4 sources (hwt's ID registers) to a new
 * temporary directory and lists it: unformatted (format=source_data, one
 * buffer per source) when frames is NULL, else one buffer of CoreSight
 * frames that all sources share (format=coresight). Fails the test on any
 * error; the directory is removed.
 */
void lister_run(const struct source *src, unsigned int nsrc, const struct bytes *frames,
		struct listing *out);

void listing_free(struct listing *l);

/* What a random stream was made of, for checking a listing against. */
struct truth {
	char *atoms;           /* E/N, in order */
	size_t natoms, capatoms;
	uint64_t *addrs;       /* every address packet's address, in order */
	size_t naddrs, capaddrs;
	uint64_t *stamps;
	size_t nstamps, capstamps;
};

/*
 * A seeded random stream of about `events` encoder calls: runs of atoms
 * (mostly taken, as loops make them), addresses near and far and repeated,
 * exceptions, timestamps, address with context, syncs. Appends the bytes
 * to out and what was written to w.
 */
void random_stream(uint64_t seed, unsigned long events, struct bytes *out, struct truth *w);

/* xorshift64*: deterministic streams for a given seed. */
static inline uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

#endif /* HWT_ETM4_TEST_H */
