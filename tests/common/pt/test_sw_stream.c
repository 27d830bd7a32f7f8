/*
 * A software unit's stream (common/sw_stream.c) when writing out fails:
 * the bytes of every failed drain are dropped and recorded as lost (the
 * branches between two drains sync the stream, which marks the drop before
 * with OVF), the stream goes on with OVF (then FUP, tracing being enabled),
 * and what was written is a packet stream libipt's packet decoder reads
 * from its PSB to its end, with one OVF for each run of failures (the OVFs
 * written during a run are dropped with it) and the written bytes counted
 * exactly.
 */
#include <intel-pt.h>
#include <string.h>

#include "pt_test.h"
#include "sw_stream.h"

/* The "file": what the unit's write appended; writes fail while failing is set. */
static uint8_t file[1 << 20];
static size_t file_len;
static int failing, failed_drains, losses;
static size_t lost_bytes;

static int write_out(struct hwt_sw_stream *s, const uint8_t *buf, size_t len)
{
	(void)s;
	if (failing) {
		failed_drains++;
		return 0;
	}
	CHECK(file_len + len <= sizeof(file), "file full");
	memcpy(file + file_len, buf, len);
	file_len += len;
	return 1;
}

static void lost(struct hwt_sw_stream *s, size_t len)
{
	(void)s;
	losses++;
	lost_bytes += len;
}

static const struct hwt_sw_stream_ops ops = { write_out, lost };

/* Packets of the file: OVF packets, and whether the decoder read it all cleanly. */
static int count_ovf(size_t *end)
{
	struct pt_config config;
	struct pt_packet_decoder *dec;
	int ovf = 0, rc;

	pt_config_init(&config);
	config.begin = file;
	config.end = file + file_len;
	dec = pt_pkt_alloc_decoder(&config);
	CHECK(dec != NULL, "pt_pkt_alloc_decoder");
	CHECK(pt_pkt_sync_forward(dec) >= 0, "no PSB");
	for (;;) {
		struct pt_packet p;
		uint64_t off = 0;

		pt_pkt_get_offset(dec, &off);
		*end = (size_t)off;
		rc = pt_pkt_next(dec, &p, sizeof(p));
		if (rc < 0)
			break;
		ovf += p.type == ppt_ovf;
	}
	CHECK(rc == -pte_eos, "decode error %s at 0x%zx", pt_errstr(pt_errcode(rc)), *end);
	pt_pkt_free_decoder(dec);
	return ovf;
}

int main(void)
{
	static uint8_t buf[512];
	struct hwt_sw_stream s;
	uint64_t ip = 0x401000;
	size_t end = 0;
	int runs = 0;

	hwt_sw_stream_start(&s, buf, sizeof(buf), 1, 4096, &ops);
	hwt_sw_stream_enable(&s, ip, 1);
	/* 20000 indirect branches (TIP, up to 7 bytes each): many drains. Writes
	   fail from branch 3000 to 3400 and from 9000 to 12000 (several drains). */
	for (unsigned i = 0; i < 20000; i++) {
		int fail_now = (i >= 3000 && i < 3400) || (i >= 9000 && i < 12000);

		if (fail_now && !failing)
			runs++;
		failing = fail_now;
		ip = 0x401000 + (i * 0x9e37u) % 0x100000;
		hwt_sw_stream_sync(&s, 1, ip);
		hwt_sw_stream_psb_if_due(&s, ip);
		hwt_sw_stream_branch(&s, HWT_X86_JUMP_INDIRECT, ip, 0);
	}
	failing = 0;
	hwt_sw_stream_sync(&s, 1, ip);
	hwt_sw_stream_flush(&s);

	CHECK(runs == 2, "the test's own runs: %d", runs);
	CHECK(failed_drains > runs, "only %d failed drains: not several per run", failed_drains);
	CHECK(losses == failed_drains, "%d LOST records for %d failed drains", losses,
	      failed_drains);
	CHECK(lost_bytes > 0 && lost_bytes <= (size_t)losses * sizeof(buf), "lost %zu bytes",
	      lost_bytes);
	CHECK(s.bytes_out == file_len, "bytes_out %" PRIu64 ", written %zu", s.bytes_out, file_len);
	CHECK(s.enc.pos == 0 && !s.lost, "the stream ends drained, no loss pending");
	CHECK(count_ovf(&end) == runs, "OVF packets differ from the runs of failures");
	CHECK(end == file_len, "decoding stopped at 0x%zx of 0x%zx", end, file_len);
	printf("sw_stream: %zu bytes written, %d failed drains in %d runs, %zu bytes lost, "
	       "%d failures\n", file_len, failed_drains, runs, lost_bytes, pt_test_failures);
	return pt_test_failures != 0;
}
