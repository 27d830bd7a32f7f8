/*
 * The CoreSight frame formatter against OpenCSD's deformatter: three ETMv4
 * streams (random, one seed each) are interleaved in random chunks into
 * one buffer of 16-byte frames, as an ETR stores the trace of several
 * sources, with flushes in the middle (padding frames) and an output
 * buffer so small that writes stop and resume. trc_pkt_lister over that
 * buffer (format=coresight) must list, for each trace ID, exactly the
 * packets it lists for the source's stream on its own (format=source_data).
 * The test also checks that the frames it wrote exercise every layout
 * case: an ID change at an even and at an odd position, an ID in byte 14,
 * data in byte 14, null-ID padding.
 *
 * Usage: test_etm4_frames [seed]. Exits 77 without trc_pkt_lister.
 */
#include "etm4_test.h"

#include <string.h>

#include "cs_formatter.h"

#define NSRC 3

struct cases {
	unsigned long id_even, id_odd, id_byte14, data_byte14, null_id, frames;
};

/* Reads back the layout of each frame, to count the cases exercised. */
static void scan_frames(const struct bytes *f, struct cases *c)
{
	size_t at;
	unsigned int i;

	CHECK(f->len % HWT_CS_FRAME_SIZE == 0, "%zu bytes: not whole frames", f->len);
	for (at = 0; at < f->len; at += HWT_CS_FRAME_SIZE) {
		const uint8_t *fr = f->p + at;

		c->frames++;
		for (i = 0; i < 15; i += 2) {
			int flag = (fr[15] >> (i / 2)) & 1;

			if (!(fr[i] & 1)) {
				c->data_byte14 += i == 14;
				continue;
			}
			c->null_id += (fr[i] >> 1) == 0;
			if (i == 14)
				c->id_byte14++;
			else if (flag)
				c->id_odd++;
			else
				c->id_even++;
		}
	}
}

static void drain(struct hwt_cs_formatter *fmt, struct bytes *frames)
{
	bytes_add(frames, fmt->buf, fmt->pos);
	hwt_cs_formatter_reset_buffer(fmt);
}

int main(int argc, char **argv)
{
	uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 0xf00dull;
	static const unsigned int ids[NSRC] = { 0x10, 0x11, 0x6f };
	struct bytes streams[NSRC], frames = { 0 };
	struct listing alone[NSRC], mixed;
	struct source src[NSRC];
	size_t at[NSRC], left;
	struct hwt_cs_formatter fmt;
	struct cases c;
	uint8_t small[40];  /* room for two frames: writes stop halfway */
	unsigned int i;
	size_t k;

	if (!lister_available())
		return SKIP;
	memset(streams, 0, sizeof(streams));
	for (i = 0; i < NSRC; i++) {
		struct truth w;

		memset(&w, 0, sizeof(w));
		random_stream(seed + i, 4000, &streams[i], &w);
		free(w.atoms);
		free(w.addrs);
		free(w.stamps);
		src[i].trace_id = ids[i];
		src[i].data = &streams[i];
		lister_run(&src[i], 1, NULL, &alone[i]);
		at[i] = 0;
	}

	/* Interleave: a random source, a random chunk (1 byte often, to land IDs anywhere). */
	hwt_cs_formatter_init(&fmt, small, sizeof(small));
	left = streams[0].len + streams[1].len + streams[2].len;
	CHECK(hwt_cs_formatter_write(&fmt, 0, small, 1) == HWT_CS_ERR_INVALID, "ID 0 accepted");
	CHECK(hwt_cs_formatter_write(&fmt, 0x70, small, 1) == HWT_CS_ERR_INVALID, "ID 0x70 accepted");
	while (left) {
		uint64_t r = rnd(&seed);
		size_t n = (r & 0x300) ? 1 + (r >> 16) % 3 : 1 + (r >> 16) % 60;
		const uint8_t *p;
		long used;

		i = (unsigned int)((r >> 8) % NSRC);
		if (at[i] == streams[i].len)
			continue;
		if (n > streams[i].len - at[i])
			n = streams[i].len - at[i];
		p = streams[i].p + at[i];
		while (n) {
			used = hwt_cs_formatter_write(&fmt, ids[i], p, n);
			CHECK(used >= 0, "formatter write failed: %ld", used);
			p += used;
			n -= (size_t)used;
			at[i] += (size_t)used;
			left -= (size_t)used;
			drain(&fmt, &frames);
		}
		/* Now and then the sink is flushed mid-trace: the frame is padded. */
		if ((r >> 40) % 97 == 0) {
			while (hwt_cs_formatter_flush(&fmt))
				drain(&fmt, &frames);
			drain(&fmt, &frames);
		}
	}
	while (hwt_cs_formatter_flush(&fmt))
		drain(&fmt, &frames);
	drain(&fmt, &frames);

	memset(&c, 0, sizeof(c));
	scan_frames(&frames, &c);
	printf("frames: %lu; IDs at even positions %lu, at odd ones %lu, in byte 14 %lu; data in byte 14 "
	       "%lu; null IDs %lu\n", c.frames, c.id_even, c.id_odd, c.id_byte14, c.data_byte14,
	       c.null_id);
	CHECK(c.id_even && c.id_odd && c.id_byte14 && c.data_byte14 && c.null_id,
	      "some frame layout case not exercised");

	lister_run(src, NSRC, &frames, &mixed);
	for (i = 0; i < NSRC; i++) {
		size_t n = 0;

		for (k = 0; k < mixed.n; k++) {
			if (mixed.p[k].id != ids[i])
				continue;
			CHECK(n < alone[i].n, "ID 0x%x: more packets in frames than alone", ids[i]);
			CHECK(!strcmp(mixed.p[k].text, alone[i].p[n].text),
			      "ID 0x%x packet %zu:\n  in frames \"%s\"\n  alone     \"%s\"", ids[i], n,
			      mixed.p[k].text, alone[i].p[n].text);
			n++;
		}
		CHECK(n == alone[i].n, "ID 0x%x: %zu packets in frames, %zu alone", ids[i], n,
		      alone[i].n);
		printf("ID 0x%x: %zu packets, %zu bytes, listed the same from frames\n", ids[i], n,
		       streams[i].len);
	}
	for (k = 0; k < mixed.n; k++) {
		unsigned int id = mixed.p[k].id;

		CHECK(id == ids[0] || id == ids[1] || id == ids[2], "packet of unknown ID 0x%x: %s", id,
		      mixed.p[k].text);
	}
	CHECK(mixed.processed == frames.len, "lister processed %lu of %zu bytes", mixed.processed,
	      frames.len);

	for (i = 0; i < NSRC; i++) {
		listing_free(&alone[i]);
		free(streams[i].p);
	}
	listing_free(&mixed);
	free(frames.p);
	return 0;
}
