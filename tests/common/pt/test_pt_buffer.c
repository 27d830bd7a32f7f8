/*
 * Buffer discipline of the PT encoder:
 * - a call that does not fit returns HWT_PT_ERR_NOSPACE, writes no byte
 *   and leaves the encoder state as it was;
 * - the room a call needs is exactly what it writes (it fits with that
 *   much and not with one byte less), and never more than
 *   HWT_PT_MAX_WRITE;
 * - in a fuzz loop with random buffer sizes and random free space every
 *   call with HWT_PT_MAX_WRITE free succeeds, and the stream, including
 *   the refused calls' retries, still decodes with libipt.
 *
 * Usage: test_pt_buffer [seed]
 */
#include "pt_encoder.h"
#include "pt_test.h"

#include <intel-pt.h>
#include <string.h>

enum op {
	OP_TNT, OP_FLUSH, OP_PSB, OP_TIP, OP_PGE, OP_PGD, OP_FUP, OP_MODE,
	OP_OVF, OP_PAD, OP_TSC, OP_CYC, OP_COUNT
};

static const char *const op_name[OP_COUNT] = {
	"tnt", "flush_tnt", "psb_plus", "tip", "tip_pge", "tip_pgd", "fup",
	"mode_exec", "ovf", "pad", "tsc", "cyc",
};

struct call {
	enum op op;
	uint64_t a, b;
	int x, y;
};

static struct call random_call(struct rng *r, uint64_t last_ip)
{
	struct call c;

	memset(&c, 0, sizeof(c));
	c.op = (enum op)rng_below(r, OP_COUNT);
	/* Bias towards TNT so that pending bits build up. */
	if (rng_below(r, 2))
		c.op = OP_TNT;
	c.a = pick_ip(r, last_ip);
	c.b = rng_next(r);
	c.x = (int)rng_below(r, 2);
	c.y = (int)rng_below(r, 2);
	if (c.op == OP_CYC)
		c.b >>= rng_below(r, 61) + 3;
	return c;
}

static int do_call(struct hwt_pt_encoder *enc, const struct call *c)
{
	static const unsigned int modes[] = { 64, 32, 16, 64 };

	switch (c->op) {
	case OP_TNT: return hwt_pt_tnt(enc, c->x);
	case OP_FLUSH: return hwt_pt_flush_tnt(enc);
	case OP_PSB: return hwt_pt_psb_plus(enc, c->x, c->a, c->y, c->b);
	case OP_TIP: return hwt_pt_tip(enc, c->a);
	case OP_PGE: return hwt_pt_tip_pge(enc, c->a);
	case OP_PGD: return hwt_pt_tip_pgd(enc, c->a, c->x);
	case OP_FUP: return hwt_pt_fup(enc, c->a);
	case OP_MODE: return hwt_pt_mode_exec(enc, modes[c->b & 3]);
	case OP_OVF: return hwt_pt_ovf(enc);
	case OP_PAD: return hwt_pt_pad(enc);
	case OP_TSC: return hwt_pt_tsc(enc, c->b);
	case OP_CYC: return hwt_pt_cyc(enc, c->b);
	default: return HWT_PT_ERR_INVALID;
	}
}

static int same_state(const struct hwt_pt_encoder *a,
		      const struct hwt_pt_encoder *b)
{
	return a->buf == b->buf && a->size == b->size && a->pos == b->pos &&
	       a->last_ip == b->last_ip && a->tnt_bits == b->tnt_bits &&
	       a->tnt_count == b->tnt_count && a->exec_bits == b->exec_bits &&
	       a->flags == b->flags;
}

enum { CANARY = 0xa5, AREA = 256 };

/*
 * Runs call c on a copy of enc for every amount of free space from 0 up,
 * checking the refusals, and returns the bytes the call wrote once it fit.
 */
static size_t probe(const struct hwt_pt_encoder *enc, const struct call *c,
		    size_t *max_seen, unsigned long *worst_op)
{
	uint8_t area[AREA];
	struct hwt_pt_encoder e, before;
	size_t space, k, wrote = 0;
	int rc;

	for (space = 0; space <= HWT_PT_MAX_WRITE; space++) {
		memset(area, CANARY, sizeof(area));
		e = *enc;
		e.buf = area;
		e.pos = 16;  /* not at the start, to catch offset mistakes */
		e.size = e.pos + space;
		before = e;
		rc = do_call(&e, c);
		if (rc == HWT_PT_ERR_NOSPACE) {
			CHECK(same_state(&e, &before),
			      "%s: state changed on NOSPACE (space %zu)",
			      op_name[c->op], space);
			for (k = 0; k < sizeof(area); k++)
				if (area[k] != CANARY)
					break;
			CHECK(k == sizeof(area), "%s: wrote on NOSPACE",
			      op_name[c->op]);
			continue;
		}
		CHECK(rc == 0, "%s: rc %d", op_name[c->op], rc);
		wrote = e.pos - before.pos;
		/* It needs exactly what it writes: one byte less was refused. */
		CHECK(wrote == space || (wrote == 0 && space == 0),
		      "%s: fit in %zu bytes but wrote %zu", op_name[c->op],
		      space, wrote);
		for (k = e.pos; k < sizeof(area); k++)
			if (area[k] != CANARY)
				break;
		CHECK(k == sizeof(area), "%s: wrote past pos", op_name[c->op]);
		for (k = 0; k < before.pos; k++)
			if (area[k] != CANARY)
				break;
		CHECK(k == before.pos, "%s: wrote before pos", op_name[c->op]);
		break;
	}
	CHECK(space <= HWT_PT_MAX_WRITE, "%s: no fit within HWT_PT_MAX_WRITE",
	      op_name[c->op]);
	if (wrote > *max_seen) {
		*max_seen = wrote;
		*worst_op = c->op;
	}
	return wrote;
}

/* The named worst cases, built on purpose rather than hoped for. */
static void worst_cases(size_t *max_seen, unsigned long *worst_op)
{
	struct hwt_pt_encoder enc;
	uint8_t buf[128];
	struct call c;
	size_t wrote;
	unsigned int i;
	int rc;

	/* PSB+ with TSC and a full 8-byte FUP after 46 pending bits. */
	hwt_pt_encoder_init(&enc, buf, sizeof(buf));
	for (i = 0; i < HWT_PT_TNT_LONG_BITS - 1; i++)
		hwt_pt_tnt(&enc, (int)(i & 1));
	CHECK(enc.pos == 0 && enc.tnt_count == 46, "46 bits pending");
	memset(&c, 0, sizeof(c));
	c.op = OP_PSB;
	c.x = 1;
	c.y = 1;
	c.a = 0x8000000000000000ull; /* non-canonical: IPBytes 110 */
	wrote = probe(&enc, &c, max_seen, worst_op);
	CHECK(wrote == 8 + 16 + 8 + 2 + 9 + 2, "psb+ worst case wrote %zu",
	      wrote);

	/* TIP.PGE after OVF (MODE.Exec again) with 46 bits pending. */
	rc = hwt_pt_ovf(&enc);
	CHECK(rc == 0, "ovf");
	for (i = 0; i < HWT_PT_TNT_LONG_BITS - 1; i++)
		hwt_pt_tnt(&enc, 1);
	c.op = OP_PGE;
	wrote = probe(&enc, &c, max_seen, worst_op);
	CHECK(wrote == 8 + 2 + 9, "pge worst case wrote %zu", wrote);

	/* The 47th bit writes one long TNT, 8 bytes, never more. */
	c.op = OP_TNT;
	wrote = probe(&enc, &c, max_seen, worst_op);
	CHECK(wrote == 8, "filling tnt wrote %zu", wrote);
	hwt_pt_encoder_init(&enc, buf, sizeof(buf));
	for (i = 0; i < 1000; i++) {
		size_t pos = enc.pos;

		rc = hwt_pt_tnt(&enc, (int)(i % 3 == 0));
		CHECK(rc == 0, "tnt rc %d", rc);
		CHECK(enc.pos - pos == ((i + 1) % 47 ? 0u : 8u),
		      "tnt %u wrote %zu", i, enc.pos - pos);
		CHECK(enc.tnt_count < HWT_PT_TNT_LONG_BITS, "tnt_count %u",
		      enc.tnt_count);
		hwt_pt_encoder_reset_buffer(&enc);
	}

	/* Largest CYC, and the one past it refused without writing. */
	hwt_pt_encoder_init(&enc, buf, sizeof(buf));
	c.op = OP_CYC;
	c.b = HWT_PT_CYC_MAX;
	wrote = probe(&enc, &c, max_seen, worst_op);
	CHECK(wrote == 9, "max cyc wrote %zu", wrote);
	rc = hwt_pt_cyc(&enc, HWT_PT_CYC_MAX + 1);
	CHECK(rc == HWT_PT_ERR_INVALID && enc.pos == 0, "cyc 2^61 rc %d", rc);
	rc = hwt_pt_mode_exec(&enc, 48);
	CHECK(rc == HWT_PT_ERR_INVALID && enc.pos == 0, "mode 48 rc %d", rc);
}

static int decode_all(const uint8_t *buf, size_t len, unsigned long *packets)
{
	struct pt_config config;
	struct pt_packet_decoder *dec;
	struct pt_packet p;
	uint64_t bytes = 0;
	int rc;

	pt_config_init(&config);
	config.begin = (uint8_t *)buf;
	config.end = (uint8_t *)buf + len;
	dec = pt_pkt_alloc_decoder(&config);
	if (!dec)
		return -1;
	rc = pt_pkt_sync_forward(dec);
	while (rc >= 0) {
		rc = pt_pkt_next(dec, &p, sizeof(p));
		if (rc >= 0) {
			bytes += p.size;
			(*packets)++;
		}
	}
	pt_pkt_free_decoder(dec);
	if (rc != -pte_eos)
		return rc;
	return bytes == len ? 0 : -1;
}

int main(int argc, char **argv)
{
	uint64_t seed = seed_from_args(argc, argv, 0x5eed0003);
	struct rng r = { seed };
	size_t max_seen = 0, out_len = 0, out_cap = 32u << 20;
	unsigned long worst_op = 0, calls = 0, refused = 0, packets = 0;
	uint8_t *out = malloc(out_cap);
	uint8_t *buf;
	struct hwt_pt_encoder enc;
	size_t bufsize, wrote;
	int round, rc;

	if (!out)
		return 2;
	worst_cases(&max_seen, &worst_op);

	/*
	 * Fuzz: buffers from HWT_PT_MAX_WRITE to a few KiB; the caller drains
	 * only when a call is refused, so refusals happen at every fill level.
	 */
	for (round = 0; round < 40; round++) {
		long n;

		bufsize = HWT_PT_MAX_WRITE + rng_below(&r, 4096);
		buf = malloc(bufsize);
		if (!buf)
			return 2;
		hwt_pt_encoder_init(&enc, buf, bufsize);
		rc = hwt_pt_psb_plus(&enc, 1, 0x401000, 0, 0);
		CHECK(rc == 0, "psb rc %d", rc);
		for (n = 0; n < 20000; n++) {
			struct call c = random_call(&r, enc.last_ip);
			size_t space = hwt_pt_encoder_space(&enc);

			/* Check the refusal rules on this very state, now and then. */
			if (!rng_below(&r, 64))
				probe(&enc, &c, &max_seen, &worst_op);
			rc = do_call(&enc, &c);
			calls++;
			if (rc == HWT_PT_ERR_NOSPACE) {
				refused++;
				CHECK(space < HWT_PT_MAX_WRITE,
				      "%s refused with %zu free",
				      op_name[c.op], space);
				if (out_len + enc.pos > out_cap)
					break;
				memcpy(out + out_len, buf, enc.pos);
				out_len += enc.pos;
				hwt_pt_encoder_reset_buffer(&enc);
				space = hwt_pt_encoder_space(&enc);
				rc = do_call(&enc, &c);
			}
			CHECK(rc == 0, "%s rc %d", op_name[c.op], rc);
			wrote = space - hwt_pt_encoder_space(&enc);
			CHECK(wrote <= HWT_PT_MAX_WRITE, "%s wrote %zu bytes",
			      op_name[c.op], wrote);
			if (wrote > max_seen) {
				max_seen = wrote;
				worst_op = c.op;
			}
			if (pt_test_failures)
				break;
		}
		if (out_len + enc.pos <= out_cap) {
			rc = hwt_pt_flush_tnt(&enc);
			if (rc == HWT_PT_ERR_NOSPACE) {
				memcpy(out + out_len, buf, enc.pos);
				out_len += enc.pos;
				hwt_pt_encoder_reset_buffer(&enc);
				rc = hwt_pt_flush_tnt(&enc);
			}
			CHECK(rc == 0, "flush rc %d", rc);
			if (out_len + enc.pos <= out_cap) {
				memcpy(out + out_len, buf, enc.pos);
				out_len += enc.pos;
			}
		}
		free(buf);
		if (pt_test_failures)
			break;
	}

	rc = decode_all(out, out_len, &packets);
	CHECK(rc == 0, "libipt: %s", rc < 0 && rc != -1 ?
	      pt_errstr(pt_errcode(rc)) : "length mismatch");

	printf("seed %#" PRIx64 ": %lu calls, %lu refused and retried after a"
	       " drain, %lu packets decoded; largest single call %zu bytes"
	       " (%s), HWT_PT_MAX_WRITE %u\n", seed, calls, refused, packets,
	       max_seen, op_name[worst_op], HWT_PT_MAX_WRITE);
	free(out);
	if (pt_test_failures) {
		fprintf(stderr, "FAIL: %d checks failed\n", pt_test_failures);
		return 1;
	}
	printf("PASS\n");
	return 0;
}
