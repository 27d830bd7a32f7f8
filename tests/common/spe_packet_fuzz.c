/*
 * Mutation fuzz of the SPE decoder: a stream of valid records is damaged
 * (bytes flipped, inserted, dropped, cut) a fixed number of times with a
 * fixed seed. Each run must end (no hang), read no byte outside the
 * buffer (ASan), account for every byte (records returned, padding and
 * lost bytes cover the stream exactly), and return every record that lies
 * wholly before the first damaged byte unchanged.
 *
 * usage: spe_packet_fuzz [ITERATIONS [SEED]]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spe_packet.h"

static uint64_t rng;

static uint32_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 32);
}

#define NREC 24

static size_t make_stream(uint8_t *buf, size_t size, size_t *ends)
{
	size_t n = 0;

	for (unsigned i = 0; i < NREC; i++) {
		struct hwt_spe_record r;
		int w;

		hwt_spe_record_clear(&r);
		r.has = HWT_SPE_HAS_ADDR(HWT_SPE_ADDR_PC) | HWT_SPE_HAS_OP | HWT_SPE_HAS_CONTEXT |
			HWT_SPE_HAS_COUNT(HWT_SPE_COUNT_TOTAL);
		r.addr[0] = hwt_spe_addr_payload(0x400000 + 4 * (uint64_t)next(), 0, 1);
		r.op_class = (uint8_t)(next() % 3);
		r.context = next();
		r.count[0] = (uint16_t)next();
		if (r.op_class == HWT_SPE_OP_BRANCH) {
			r.has |= HWT_SPE_HAS_ADDR(HWT_SPE_ADDR_TARGET) | HWT_SPE_HAS_EVENTS;
			r.addr[1] = hwt_spe_addr_payload(0x400000 + 4 * (uint64_t)next(), 0, 1);
			r.events = HWT_SPE_EV_RETIRED | (next() & 1 ? HWT_SPE_EV_NOT_TAKEN : 0);
		} else if (r.op_class == HWT_SPE_OP_LDST) {
			r.has |= HWT_SPE_HAS_ADDR(HWT_SPE_ADDR_DATA_VA);
			r.addr[2] = (uint64_t)next() << 16 | next();
		}
		if (next() & 1) {
			r.has |= HWT_SPE_HAS_TIMESTAMP;
			r.timestamp = (uint64_t)next() << 32 | next();
		}
		w = hwt_spe_record_encode(&r, buf + n, size - n);
		if (w < 0)
			break;
		n += (size_t)w;
		ends[i] = n;
		while (next() % 4 == 0 && n < size)
			buf[n++] = 0; /* padding */
	}
	return n;
}

int main(int argc, char **argv)
{
	unsigned long iterations = argc > 1 ? strtoul(argv[1], NULL, 0) : 20000;
	uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 0x5be5eedull;
	uint8_t clean[NREC * HWT_SPE_RECORD_ENCODED_MAX * 2];
	size_t ends[NREC];
	unsigned long failures = 0, damaged_runs = 0, total_lost = 0;

	rng = seed | 1;
	for (unsigned long it = 0; it < iterations; it++) {
		size_t len = make_stream(clean, sizeof(clean), ends);
		/* malloc'd at its exact length: ASan sees any read past the end. */
		uint8_t *buf = malloc(len + 16);
		size_t first = len, n = len, covered = 0;
		unsigned edits = 1 + next() % 4;
		struct hwt_spe_decoder d;
		struct hwt_spe_record rec;
		unsigned records = 0, steps = 0;
		int ret;

		if (!buf)
			return 2;
		memcpy(buf, clean, len);
		for (unsigned e = 0; e < edits && n > 0; e++) {
			size_t at = next() % n;

			switch (next() % 4) {
			case 0: /* flip a byte */
				buf[at] ^= (uint8_t)(1 + next() % 255);
				break;
			case 1: /* insert a byte */
				memmove(buf + at + 1, buf + at, n - at);
				buf[at] = (uint8_t)next();
				n++;
				break;
			case 2: /* drop bytes */
				{
					size_t k = 1 + next() % 8;

					if (k > n - at)
						k = n - at;
					memmove(buf + at, buf + at + k, n - at - k);
					n -= k;
				}
				break;
			default: /* cut */
				n = at;
				break;
			}
			if (at < first)
				first = at;
		}
		{
			uint8_t *exact = malloc(n ? n : 1);

			if (!exact)
				return 2;
			memcpy(exact, buf, n);
			free(buf);
			buf = exact;
		}
		hwt_spe_decoder_init(&d, buf, n);
		while ((ret = hwt_spe_decoder_next(&d, &rec)) != 0) {
			if (++steps > 4 * n + 8) {
				fprintf(stderr, "iteration %lu: the decoder does not end\n", it);
				failures++;
				break;
			}
			if (ret < 0) {
				if (!hwt_spe_errstr(ret)[0] || d.lost_from > d.pos) {
					failures++;
					break;
				}
				continue;
			}
			/* An undamaged record before the first edit is the one written. */
			if (records < NREC && ends[records] <= first) {
				if (d.pos != ends[records]) {
					fprintf(stderr, "iteration %lu: record %u ends at %zu, not %zu\n",
						it, records, d.pos, ends[records]);
					failures++;
				}
			}
			records++;
		}
		/* Every record ending before the damage came back. */
		for (unsigned i = 0; i < NREC; i++)
			if (ends[i] <= first)
				covered++;
		if (records < covered) {
			fprintf(stderr, "iteration %lu: %u records, %zu before the damage\n", it,
				records, covered);
			failures++;
		}
		if (d.pos != n || d.lost_bytes > n) {
			fprintf(stderr, "iteration %lu: stopped at %zu of %zu\n", it, d.pos, n);
			failures++;
		}
		if (d.errors)
			damaged_runs++;
		total_lost += (unsigned long)d.lost_bytes;
		free(buf);
		if (failures > 10)
			break;
	}
	printf("spe_packet_fuzz: %lu iterations, %lu with errors, %lu bytes lost in all, "
	       "%lu failures\n", iterations, damaged_runs, total_lost, failures);
	return failures != 0 || damaged_runs == 0;
}
