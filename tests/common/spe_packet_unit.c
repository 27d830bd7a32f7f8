/*
 * The SPE packet codec: every packet kind encoded then decoded at its
 * boundary payloads, byte layouts checked against the Arm ARM's header
 * encodings, whole records, and the decoder's errors and resynchronisation
 * on damaged input.
 */
#include <stdint.h>
#include <string.h>

#include "spe_packet.h"
#include "unit_check.h"

static const uint64_t payloads[] = {
	0, 1, 0x7f, 0x80, 0xff, 0x100, 0xffff, 0x10000, 0xffffffffu, 0x100000000ull,
	0x00ffffffffffffffull, 0x8000000000000000ull, 0xffffffffffffffffull,
};

static uint64_t fit(uint64_t v, unsigned size)
{
	return size == 8 ? v : v & ((1ull << (8 * size)) - 1);
}

/* p encodes to len bytes starting with header hdr, and decodes back to itself. */
static void roundtrip(unsigned kind, unsigned index, unsigned size, uint64_t payload, int len,
		      const uint8_t *hdr, unsigned nhdr)
{
	struct hwt_spe_packet p = { (uint8_t)kind, (uint8_t)index, (uint8_t)size, fit(payload, size) }, q;
	uint8_t buf[16];
	int n = hwt_spe_packet_encode(&p, buf, sizeof(buf));

	CHECK(n == len);
	if (n != len)
		return;
	CHECK(memcmp(buf, hdr, nhdr) == 0);
	for (unsigned i = 0; i < size; i++)
		CHECK(buf[nhdr + i] == (uint8_t)(p.payload >> (8 * i)));
	CHECK(hwt_spe_packet_decode(buf, (size_t)n, &q) == n);
	CHECK(q.kind == kind && q.index == index && q.size == size && q.payload == p.payload);
	/* Every shorter buffer is a truncated packet, never another packet. */
	for (int cut = 0; cut < n; cut++)
		CHECK(hwt_spe_packet_decode(buf, (size_t)cut, &q) == HWT_SPE_ERR_TRUNCATED);
	/* One byte short of room: the encoder writes nothing. */
	CHECK(hwt_spe_packet_encode(&p, buf, (size_t)n - 1) == HWT_SPE_ERR_NOSPACE);
}

static void packets(void)
{
	for (unsigned k = 0; k < sizeof(payloads) / sizeof(payloads[0]); k++) {
		uint64_t v = payloads[k];
		uint8_t h[2];

		h[0] = 0x71;
		roundtrip(HWT_SPE_TIMESTAMP, 0, 8, v, 9, h, 1);
		for (unsigned sc = 0; sc < 4; sc++) {
			h[0] = (uint8_t)(0x42 | sc << 4);
			roundtrip(HWT_SPE_EVENTS, 0, 1u << sc, v, 1 + (1 << sc), h, 1);
			h[0] = (uint8_t)(0x43 | sc << 4);
			roundtrip(HWT_SPE_DATA_SOURCE, 0, 1u << sc, v, 1 + (1 << sc), h, 1);
		}
		for (unsigned i = 0; i < 4; i++) {
			h[0] = (uint8_t)(0x64 | i);
			roundtrip(HWT_SPE_CONTEXT, i, 4, v, 5, h, 1);
			h[0] = (uint8_t)(0x48 | i);
			roundtrip(HWT_SPE_OP_TYPE, i, 1, v, 2, h, 1);
		}
		for (unsigned i = 0; i < 32; i++) {
			unsigned ext = i > 7;

			h[0] = (uint8_t)(0x20 | i >> 3);
			h[ext] = (uint8_t)(0xb0 | (i & 7));
			roundtrip(HWT_SPE_ADDRESS, i, 8, v, 9 + (int)ext, h, 1 + ext);
			h[ext] = (uint8_t)(0x98 | (i & 7));
			roundtrip(HWT_SPE_COUNTER, i, 2, v, 3 + (int)ext, h, 1 + ext);
		}
	}
	{
		struct hwt_spe_packet p = { HWT_SPE_END, 0, 0, 0 }, q;
		uint8_t b[1];

		CHECK(hwt_spe_packet_encode(&p, b, 1) == 1 && b[0] == 0x01);
		CHECK(hwt_spe_packet_decode(b, 1, &q) == 1 && q.kind == HWT_SPE_END);
		p.kind = HWT_SPE_PADDING;
		CHECK(hwt_spe_packet_encode(&p, b, 1) == 1 && b[0] == 0x00);
		CHECK(hwt_spe_packet_decode(b, 1, &q) == 1 && q.kind == HWT_SPE_PADDING);
		CHECK(hwt_spe_packet_encode(&p, b, 0) == HWT_SPE_ERR_NOSPACE);
		/* What SPE cannot say. */
		p.kind = HWT_SPE_EVENTS;
		p.size = 3;
		CHECK(hwt_spe_packet_encode(&p, b, 1) == HWT_SPE_ERR_INVALID);
		p.kind = HWT_SPE_ADDRESS;
		p.index = 32;
		CHECK(hwt_spe_packet_encode(&p, b, 1) == HWT_SPE_ERR_INVALID);
		p.kind = HWT_SPE_CONTEXT;
		p.index = 4;
		CHECK(hwt_spe_packet_encode(&p, b, 1) == HWT_SPE_ERR_INVALID);
		p.kind = 42;
		CHECK(hwt_spe_packet_encode(&p, b, 1) == HWT_SPE_ERR_INVALID);
	}
	/* Every header byte: a packet, or HWT_SPE_ERR_HEADER, never anything else. */
	for (unsigned b = 0; b < 256; b++) {
		uint8_t buf[16] = { (uint8_t)b };
		struct hwt_spe_packet q;
		int n = hwt_spe_packet_decode(buf, sizeof(buf), &q);
		int known = b <= 1 || b == 0x71 || (b & 0xcf) == 0x42 || (b & 0xcf) == 0x43 ||
			    (b & 0xfc) == 0x64 || (b & 0xfc) == 0x48 || (b & 0xf8) == 0xb0 ||
			    (b & 0xf8) == 0x98;

		if ((b & 0xfc) == 0x20)
			/* Extended header before a zero byte: not an Address or Counter. */
			CHECK(n == HWT_SPE_ERR_HEADER);
		else
			CHECK(known ? n > 0 : n == HWT_SPE_ERR_HEADER);
	}
	/* Address payload fields. */
	{
		uint64_t pl = hwt_spe_addr_payload(0xffff800012345678ull, 1, 1);

		CHECK(hwt_spe_addr(pl) == 0xffff800012345678ull);
		CHECK(hwt_spe_addr_el(pl) == 1 && hwt_spe_addr_ns(pl) == 1);
		pl = hwt_spe_addr_payload(0x0000aaaabbbbccccull, 0, 1);
		CHECK(pl == 0x8000aaaabbbbccccull);
		CHECK(hwt_spe_addr(pl) == 0x0000aaaabbbbccccull && hwt_spe_addr_el(pl) == 0);
		CHECK(hwt_spe_addr((1ull << 56) - 1) == ~0ull);
	}
}

static void full_record(struct hwt_spe_record *r, uint64_t pc)
{
	hwt_spe_record_clear(r);
	r->has = HWT_SPE_HAS_CONTEXT | HWT_SPE_HAS_ADDR(HWT_SPE_ADDR_PC) | HWT_SPE_HAS_OP |
		 HWT_SPE_HAS_EVENTS | HWT_SPE_HAS_COUNT(0) | HWT_SPE_HAS_COUNT(1) |
		 HWT_SPE_HAS_COUNT(2) | HWT_SPE_HAS_SOURCE | HWT_SPE_HAS_ADDR(1) |
		 HWT_SPE_HAS_ADDR(2) | HWT_SPE_HAS_ADDR(3) | HWT_SPE_HAS_ADDR(4) |
		 HWT_SPE_HAS_TIMESTAMP;
	r->context = 4242;
	r->addr[0] = hwt_spe_addr_payload(pc, 0, 1);
	r->addr[1] = hwt_spe_addr_payload(pc + 0x40, 0, 1);
	r->addr[2] = 0x0000ffffdeadbeefull;
	r->addr[3] = 0x8000000012345000ull;
	r->addr[4] = hwt_spe_addr_payload(pc - 0x10, 0, 1);
	r->op_class = HWT_SPE_OP_BRANCH;
	r->op = HWT_SPE_OP_COND;
	r->events = HWT_SPE_EV_RETIRED | HWT_SPE_EV_NOT_TAKEN | (1ull << 40);
	r->count[0] = 0xffff;
	r->count[1] = 1;
	r->count[2] = 0x1234;
	r->source = 0xbeef;
	r->timestamp = 0xfedcba9876543210ull;
}

static int same(const struct hwt_spe_record *a, const struct hwt_spe_record *b)
{
	if (a->has != b->has || a->op_class != b->op_class || a->op != b->op ||
	    a->context != b->context || a->events != b->events || a->source != b->source ||
	    a->timestamp != b->timestamp)
		return 0;
	for (unsigned i = 0; i < HWT_SPE_ADDR_KNOWN; i++)
		if (a->addr[i] != b->addr[i])
			return 0;
	for (unsigned i = 0; i < HWT_SPE_COUNT_KNOWN; i++)
		if (a->count[i] != b->count[i])
			return 0;
	return 1;
}

static void records(void)
{
	struct hwt_spe_record r[4], out;
	struct hwt_spe_decoder d;
	uint8_t buf[4 * HWT_SPE_RECORD_ENCODED_MAX + 8];
	size_t at[5], n = 0;
	int w;

	full_record(&r[0], 0x400000);
	CHECK((w = hwt_spe_record_encode(&r[0], buf, sizeof(buf))) > 0 &&
	      w <= (int)HWT_SPE_RECORD_ENCODED_MAX);
	/* Packets in hardware order: Context first, then the PC; a Timestamp ends it. */
	CHECK(buf[0] == 0x64 && buf[5] == 0xb0 && buf[14] == 0x4a && buf[w - 9] == 0x71);
	CHECK(hwt_spe_record_encode(&r[0], buf, (size_t)w - 1) == HWT_SPE_ERR_NOSPACE);
	/* A load with no timestamp: End. */
	hwt_spe_record_clear(&r[1]);
	r[1].has = HWT_SPE_HAS_ADDR(0) | HWT_SPE_HAS_OP | HWT_SPE_HAS_ADDR(2);
	r[1].addr[0] = hwt_spe_addr_payload(0x400100, 0, 1);
	r[1].op_class = HWT_SPE_OP_LDST;
	r[1].addr[2] = 0x7fff0000;
	full_record(&r[2], 0xffffffff00000000ull);
	hwt_spe_record_clear(&r[3]);
	r[3].has = HWT_SPE_HAS_ADDR(0);
	for (unsigned i = 0; i < 4; i++) {
		at[i] = n;
		w = hwt_spe_record_encode(&r[i], buf + n, sizeof(buf) - n);
		CHECK(w > 0);
		n += (size_t)w;
		if (i == 1)
			buf[n++] = 0, buf[n++] = 0; /* padding between records */
	}
	at[4] = n;
	CHECK(buf[at[2] - 3] == 0x01); /* r[1] ends with End, then padding */
	hwt_spe_decoder_init(&d, buf, n);
	for (unsigned i = 0; i < 4; i++) {
		CHECK(hwt_spe_decoder_next(&d, &out) == 1);
		CHECK(same(&out, &r[i]));
		CHECK(d.record_at == at[i]);
	}
	CHECK(hwt_spe_decoder_next(&d, &out) == 0);
	CHECK(d.lost_bytes == 0 && d.errors == 0);

	/* A bad header in record 1: records 0 is kept, 1 is lost, 2 and 3 come back. */
	buf[at[1] + 9] = 0x0f;
	hwt_spe_decoder_init(&d, buf, n);
	CHECK(hwt_spe_decoder_next(&d, &out) == 1 && same(&out, &r[0]));
	CHECK(hwt_spe_decoder_next(&d, &out) == HWT_SPE_ERR_HEADER);
	CHECK(d.error_at == at[1] + 9 && d.lost_from == at[1]);
	CHECK(hwt_spe_decoder_next(&d, &out) == 1 && same(&out, &r[2]));
	CHECK(d.lost_bytes == at[2] - at[1]);
	CHECK(hwt_spe_decoder_next(&d, &out) == 1 && same(&out, &r[3]));
	CHECK(hwt_spe_decoder_next(&d, &out) == 0 && d.errors == 1);

	/* Cut inside record 3: three records, then a truncation that loses the rest. */
	hwt_spe_decoder_init(&d, buf, at[3] + 4);
	CHECK(hwt_spe_decoder_next(&d, &out) == 1);
	CHECK(hwt_spe_decoder_next(&d, &out) == HWT_SPE_ERR_HEADER);
	CHECK(hwt_spe_decoder_next(&d, &out) == 1 && same(&out, &r[2]));
	CHECK(hwt_spe_decoder_next(&d, &out) == HWT_SPE_ERR_TRUNCATED);
	CHECK(d.pos == at[3] + 4 && d.lost_from == at[3]);
	CHECK(hwt_spe_decoder_next(&d, &out) == 0);

	/* A record with no End within the limit. */
	{
		static uint8_t longrec[HWT_SPE_RECORD_MAX + 64];

		for (size_t i = 0; i + 3 <= sizeof(longrec); i += 3) {
			longrec[i] = 0x98;
			longrec[i + 1] = longrec[i + 2] = 0x11;
		}
		hwt_spe_decoder_init(&d, longrec, sizeof(longrec) - sizeof(longrec) % 3);
		CHECK(hwt_spe_decoder_next(&d, &out) == HWT_SPE_ERR_TOO_LONG);
		CHECK(hwt_spe_decoder_next(&d, &out) == 0);
		CHECK(d.lost_bytes == sizeof(longrec) - sizeof(longrec) % 3);
	}
	/* Only padding: no record, no error. */
	{
		uint8_t pad[5] = { 0 };

		hwt_spe_decoder_init(&d, pad, sizeof(pad));
		CHECK(hwt_spe_decoder_next(&d, &out) == 0 && d.errors == 0);
	}
	CHECK(hwt_spe_errstr(HWT_SPE_ERR_HEADER)[0] != 0);
	CHECK(hwt_spe_packet_name(HWT_SPE_ADDRESS)[0] == 'A');
}

int main(void)
{
	packets();
	records();
	return check_summary("spe_packet_unit");
}
