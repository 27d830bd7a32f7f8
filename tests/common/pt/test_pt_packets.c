/*
 * Packet-level round trip: a seeded random sequence of every encoder call,
 * decoded by libipt's packet decoder and compared packet by packet with
 * what the test expects (its own model of TNT packing, of the packets the
 * SDM puts in PSB+ and before TIP.PGE, and of the last IP).
 *
 * Usage: test_pt_packets [seed] [calls]
 */
#include "pt_encoder.h"
#include "pt_test.h"

#include <intel-pt.h>
#include <string.h>

enum { TNT_MAX = 47 };

struct expect {
	enum pt_packet_type type;
	uint64_t ip;            /* IP packets: the full IP */
	int suppressed;         /* TIP.PGD without IP */
	uint8_t tnt[TNT_MAX];   /* oldest first */
	uint32_t tnt_count;
	unsigned int exec_bits; /* MODE.Exec */
	uint64_t value;         /* TSC, CYC */
};

struct model {
	uint8_t tnt[TNT_MAX];
	uint32_t tnt_count;
	int mode_sent;
	unsigned int exec_bits;
	uint64_t last_ip;       /* as the decoder will see it, for pick_ip */
	struct expect *exp;
	size_t nexp, capexp;
};

static struct expect *push(struct model *m, enum pt_packet_type type)
{
	struct expect *e;

	if (m->nexp == m->capexp) {
		m->capexp = m->capexp ? 2 * m->capexp : 4096;
		m->exp = realloc(m->exp, m->capexp * sizeof(*m->exp));
		if (!m->exp)
			exit(2);
	}
	e = &m->exp[m->nexp++];
	memset(e, 0, sizeof(*e));
	e->type = type;
	return e;
}

static void model_flush(struct model *m)
{
	struct expect *e;

	if (!m->tnt_count)
		return;
	e = push(m, m->tnt_count <= 6 ? ppt_tnt_8 : ppt_tnt_64);
	memcpy(e->tnt, m->tnt, m->tnt_count);
	e->tnt_count = m->tnt_count;
	m->tnt_count = 0;
}

static void model_ip(struct model *m, enum pt_packet_type type, uint64_t ip)
{
	model_flush(m);
	push(m, type)->ip = ip;
	m->last_ip = ip;
}

/* Output: the encoder writes into a small buffer we drain into out. */
struct sink {
	struct hwt_pt_encoder enc;
	uint8_t small[256];
	uint8_t *out;
	size_t len, cap;
};

static void drain(struct sink *s)
{
	if (s->len + s->enc.pos > s->cap) {
		s->cap = 2 * (s->cap + s->enc.pos);
		s->out = realloc(s->out, s->cap);
		if (!s->out)
			exit(2);
	}
	memcpy(s->out + s->len, s->enc.buf, s->enc.pos);
	s->len += s->enc.pos;
	hwt_pt_encoder_reset_buffer(&s->enc);
}

static void need_room(struct sink *s)
{
	if (hwt_pt_encoder_space(&s->enc) < HWT_PT_MAX_WRITE)
		drain(s);
}

static uint64_t pick_cyc(struct rng *r)
{
	unsigned int bits = rng_below(r, 62);

	if (!bits)
		return 0;
	return rng_next(r) >> (64 - bits);
}

/* One random encoder call, mirrored into the model. */
static void step(struct rng *r, struct sink *s, struct model *m)
{
	struct hwt_pt_encoder *enc = &s->enc;
	uint32_t what = rng_below(r, 100);
	uint64_t ip;
	int rc = 0;

	need_room(s);
	if (what < 40) {
		/* A run of conditional branches. */
		uint32_t n = rng_below(r, 4) ? rng_below(r, 8) : rng_below(r, 120);

		while (n--) {
			int taken = (int)rng_below(r, 2);

			need_room(s);
			rc = hwt_pt_tnt(enc, taken);
			CHECK(rc == 0, "tnt rc %d", rc);
			m->tnt[m->tnt_count++] = (uint8_t)taken;
			if (m->tnt_count == TNT_MAX)
				model_flush(m);
		}
	} else if (what < 52) {
		ip = pick_ip(r, m->last_ip);
		rc = hwt_pt_tip(enc, ip);
		model_ip(m, ppt_tip, ip);
	} else if (what < 60) {
		ip = pick_ip(r, m->last_ip);
		rc = hwt_pt_fup(enc, ip);
		model_ip(m, ppt_fup, ip);
	} else if (what < 66) {
		ip = pick_ip(r, m->last_ip);
		rc = hwt_pt_tip_pge(enc, ip);
		model_flush(m);
		if (!m->mode_sent)
			push(m, ppt_mode)->exec_bits = m->exec_bits;
		m->mode_sent = 1;
		push(m, ppt_tip_pge)->ip = ip;
		m->last_ip = ip;
	} else if (what < 72) {
		ip = pick_ip(r, m->last_ip);
		if (rng_below(r, 2)) {
			rc = hwt_pt_tip_pgd(enc, ip, 1);
			model_flush(m);
			push(m, ppt_tip_pgd)->suppressed = 1;
		} else {
			rc = hwt_pt_tip_pgd(enc, ip, 0);
			model_ip(m, ppt_tip_pgd, ip);
		}
	} else if (what < 76) {
		static const unsigned int modes[] = { 64, 64, 32, 16 };
		unsigned int bits = modes[rng_below(r, 4)];

		rc = hwt_pt_mode_exec(enc, bits);
		model_flush(m);
		push(m, ppt_mode)->exec_bits = bits;
		m->exec_bits = bits;
		m->mode_sent = 1;
	} else if (what < 79) {
		rc = hwt_pt_ovf(enc);
		model_flush(m);
		push(m, ppt_ovf);
		m->last_ip = 0;
		m->mode_sent = 0;
	} else if (what < 83) {
		rc = hwt_pt_pad(enc);
		push(m, ppt_pad);
	} else if (what < 88) {
		uint64_t tsc = rng_next(r);

		rc = hwt_pt_tsc(enc, tsc);
		push(m, ppt_tsc)->value = tsc & 0x00ffffffffffffffull;
	} else if (what < 93) {
		uint64_t cyc = pick_cyc(r);

		rc = hwt_pt_cyc(enc, cyc);
		push(m, ppt_cyc)->value = cyc;
	} else if (what < 96) {
		rc = hwt_pt_flush_tnt(enc);
		model_flush(m);
	} else {
		int enabled = (int)rng_below(r, 3) != 0;
		int with_tsc = (int)rng_below(r, 2);
		uint64_t tsc = rng_next(r);

		/* PSB resets the last IP before the FUP is picked. */
		m->last_ip = 0;
		ip = pick_ip(r, 0);
		rc = hwt_pt_psb_plus(enc, enabled, ip, with_tsc, tsc);
		model_flush(m);
		push(m, ppt_psb);
		if (with_tsc)
			push(m, ppt_tsc)->value = tsc & 0x00ffffffffffffffull;
		if (enabled) {
			push(m, ppt_mode)->exec_bits = m->exec_bits;
			push(m, ppt_fup)->ip = ip;
			m->last_ip = ip;
		}
		m->mode_sent = enabled;
		push(m, ppt_psbend);
	}
	CHECK(rc == 0, "call %u rc %d", what, rc);
}

static const char *type_name(enum pt_packet_type t)
{
	switch (t) {
	case ppt_pad: return "pad";
	case ppt_psb: return "psb";
	case ppt_psbend: return "psbend";
	case ppt_fup: return "fup";
	case ppt_tip: return "tip";
	case ppt_tip_pge: return "tip.pge";
	case ppt_tip_pgd: return "tip.pgd";
	case ppt_tnt_8: return "tnt8";
	case ppt_tnt_64: return "tnt64";
	case ppt_mode: return "mode";
	case ppt_tsc: return "tsc";
	case ppt_cyc: return "cyc";
	case ppt_ovf: return "ovf";
	default: return "other";
	}
}

static unsigned int mode_bits(const struct pt_packet_mode *mode)
{
	switch (pt_get_exec_mode(&mode->bits.exec)) {
	case ptem_64bit: return 64;
	case ptem_32bit: return 32;
	case ptem_16bit: return 16;
	default: return 0;
	}
}

/* Decoder side of the comparison: the SDM's last-IP rules, kept here. */
struct dec_ip {
	uint64_t last;
	int after_ovf;   /* encoder promises an uncompressed IP next */
};

static void check_ip(struct dec_ip *d, const struct pt_packet *p,
		     const struct expect *e, size_t i, unsigned long *ipc_seen)
{
	const struct pt_packet_ip *pip = &p->payload.ip;
	uint64_t ip = 0;
	int len = ipb_len(pip->ipc);

	ipc_seen[pip->ipc & 7]++;
	if (pip->ipc == pt_ipc_suppressed) {
		CHECK(e->suppressed, "packet %zu: unexpected suppressed IP", i);
		return;
	}
	CHECK(!e->suppressed, "packet %zu: IP not suppressed", i);
	CHECK(ipb_rebuild(pip->ipc, pip->ip, d->last, &ip) == 0,
	      "packet %zu: reserved IPBytes %d", i, pip->ipc);
	CHECK(ip == e->ip, "packet %zu (%s): ip %#" PRIx64 " want %#" PRIx64
	      " (ipc %d, last %#" PRIx64 ")", i, type_name(p->type), ip, e->ip,
	      pip->ipc, d->last);
	CHECK(len == ipb_min_len(e->ip, d->last, d->after_ovf),
	      "packet %zu: %d payload bytes, %d would do", i, len,
	      ipb_min_len(e->ip, d->last, d->after_ovf));
	CHECK(p->size == 1 + len, "packet %zu: size %u", i, p->size);
	d->last = ip;
	d->after_ovf = 0;
}

static void check_packet(struct dec_ip *d, const struct pt_packet *p,
			 const struct expect *e, size_t i,
			 unsigned long *ipc_seen)
{
	uint32_t k;

	CHECK(p->type == e->type, "packet %zu: type %s want %s", i,
	      type_name(p->type), type_name(e->type));
	if (p->type != e->type)
		return;
	switch (p->type) {
	case ppt_tnt_8:
	case ppt_tnt_64:
		CHECK(p->payload.tnt.bit_size == e->tnt_count,
		      "packet %zu: %u TNT bits want %u", i,
		      p->payload.tnt.bit_size, e->tnt_count);
		CHECK(p->size == (p->type == ppt_tnt_8 ? 1 : 8),
		      "packet %zu: TNT size %u", i, p->size);
		for (k = 0; k < e->tnt_count && k < p->payload.tnt.bit_size; k++) {
			/* Oldest branch in the highest payload bit. */
			int bit = (int)((p->payload.tnt.payload >>
					 (p->payload.tnt.bit_size - 1 - k)) & 1);

			CHECK(bit == e->tnt[k], "packet %zu: TNT bit %u is %d",
			      i, k, bit);
		}
		break;
	case ppt_tip:
	case ppt_tip_pge:
	case ppt_tip_pgd:
	case ppt_fup:
		check_ip(d, p, e, i, ipc_seen);
		break;
	case ppt_mode:
		CHECK(p->payload.mode.leaf == pt_mol_exec, "packet %zu: leaf", i);
		CHECK(mode_bits(&p->payload.mode) == e->exec_bits,
		      "packet %zu: mode %u want %u", i,
		      mode_bits(&p->payload.mode), e->exec_bits);
		break;
	case ppt_tsc:
		CHECK(p->payload.tsc.tsc == e->value,
		      "packet %zu: tsc %#" PRIx64 " want %#" PRIx64, i,
		      p->payload.tsc.tsc, e->value);
		break;
	case ppt_cyc:
		CHECK(p->payload.cyc.value == e->value,
		      "packet %zu: cyc %#" PRIx64 " want %#" PRIx64, i,
		      p->payload.cyc.value, e->value);
		break;
	case ppt_psb:
		d->last = 0;
		d->after_ovf = 0;
		CHECK(p->size == 16, "packet %zu: psb size %u", i, p->size);
		break;
	case ppt_ovf:
		/* libipt resets its last IP on OVF; so do we. */
		d->last = 0;
		d->after_ovf = 1;
		break;
	default:
		break;
	}
}

int main(int argc, char **argv)
{
	uint64_t seed = seed_from_args(argc, argv, 0x5eed0001);
	long calls = argc > 2 ? strtol(argv[2], NULL, 0) : 200000;
	struct rng r = { seed };
	struct sink s;
	struct model m;
	struct pt_config config;
	struct pt_packet_decoder *dec;
	struct pt_packet p;
	struct dec_ip d = { 0, 0 };
	unsigned long ipc_seen[8] = { 0 };
	unsigned long type_seen[ppt_ptw + 1] = { 0 };
	uint64_t off, bytes = 0;
	size_t i;
	long c;
	int rc;

	memset(&s, 0, sizeof(s));
	memset(&m, 0, sizeof(m));
	m.exec_bits = 64;
	hwt_pt_encoder_init(&s.enc, s.small, sizeof(s.small));

	/* A decoder syncs at a PSB: start with PSB+ (tracing enabled). */
	rc = hwt_pt_psb_plus(&s.enc, 1, 0x401000, 1, 1);
	CHECK(rc == 0, "first psb rc %d", rc);
	push(&m, ppt_psb);
	push(&m, ppt_tsc)->value = 1;
	push(&m, ppt_mode)->exec_bits = 64;
	push(&m, ppt_fup)->ip = 0x401000;
	push(&m, ppt_psbend);
	m.last_ip = 0x401000;
	m.mode_sent = 1;

	for (c = 0; c < calls; c++)
		step(&r, &s, &m);
	need_room(&s);
	rc = hwt_pt_flush_tnt(&s.enc);
	CHECK(rc == 0, "final flush rc %d", rc);
	model_flush(&m);
	drain(&s);

	pt_config_init(&config);
	config.begin = s.out;
	config.end = s.out + s.len;
	dec = pt_pkt_alloc_decoder(&config);
	CHECK(dec != NULL, "pt_pkt_alloc_decoder");
	if (!dec)
		return 1;
	rc = pt_pkt_sync_forward(dec);
	CHECK(rc >= 0, "sync: %s", pt_errstr(pt_errcode(rc)));
	rc = pt_pkt_get_sync_offset(dec, &off);
	CHECK(rc >= 0 && off == 0, "sync offset %" PRIu64, off);

	for (i = 0;; i++) {
		rc = pt_pkt_next(dec, &p, sizeof(p));
		if (rc == -pte_eos)
			break;
		CHECK(rc >= 0, "packet %zu: libipt error %s", i,
		      pt_errstr(pt_errcode(rc)));
		if (rc < 0)
			break;
		bytes += p.size;
		if (p.type <= ppt_ptw)
			type_seen[p.type]++;
		if (i < m.nexp)
			check_packet(&d, &p, &m.exp[i], i, ipc_seen);
	}
	CHECK(i == m.nexp, "decoded %zu packets, expected %zu", i, m.nexp);
	CHECK(bytes == s.len, "decoded %" PRIu64 " bytes of %zu", bytes, s.len);

	/* Every packet type and every IP compression case must have occurred. */
	{
		static const enum pt_packet_type want[] = {
			ppt_pad, ppt_psb, ppt_psbend, ppt_fup, ppt_tip,
			ppt_tip_pge, ppt_tip_pgd, ppt_tnt_8, ppt_tnt_64,
			ppt_mode, ppt_tsc, ppt_cyc, ppt_ovf,
		};
		static const int ipcs[] = { 0, 1, 2, 3, 4, 6 };
		unsigned int k;

		if (calls >= 10000) {
			for (k = 0; k < sizeof(want) / sizeof(want[0]); k++)
				CHECK(type_seen[want[k]] > 0, "no %s packet",
				      type_name(want[k]));
			for (k = 0; k < sizeof(ipcs) / sizeof(ipcs[0]); k++)
				CHECK(ipc_seen[ipcs[k]] > 0, "no IPBytes %d",
				      ipcs[k]);
		}
	}

	printf("seed %#" PRIx64 ": %ld calls, %zu packets (%" PRIu64
	       " bytes) round-tripped\n", seed, calls, i, bytes);
	printf("  tnt8 %lu tnt64 %lu tip %lu pge %lu pgd %lu fup %lu mode %lu"
	       " psb %lu ovf %lu pad %lu tsc %lu cyc %lu\n",
	       type_seen[ppt_tnt_8], type_seen[ppt_tnt_64], type_seen[ppt_tip],
	       type_seen[ppt_tip_pge], type_seen[ppt_tip_pgd],
	       type_seen[ppt_fup], type_seen[ppt_mode], type_seen[ppt_psb],
	       type_seen[ppt_ovf], type_seen[ppt_pad], type_seen[ppt_tsc],
	       type_seen[ppt_cyc]);
	printf("  IPBytes 000:%lu 001:%lu 010:%lu 011:%lu 100:%lu 110:%lu\n",
	       ipc_seen[0], ipc_seen[1], ipc_seen[2], ipc_seen[3], ipc_seen[4],
	       ipc_seen[6]);

	pt_pkt_free_decoder(dec);
	free(s.out);
	free(m.exp);
	if (pt_test_failures) {
		fprintf(stderr, "FAIL: %d checks failed\n", pt_test_failures);
		return 1;
	}
	printf("PASS\n");
	return 0;
}
