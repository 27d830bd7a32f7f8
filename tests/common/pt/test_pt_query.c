/*
 * Instruction-level sanity with libipt's query decoder: the test makes up
 * a branch history (conditional branches, indirect branches, far branches
 * with a mode change, interrupts, tracing disabled and enabled again,
 * overflows resolving with tracing on or off, PSB+ in the middle),
 * encodes it, and asks libipt for it back one query at a time, in the
 * order a flow decoder would ask. Every outcome and event must match, and
 * libipt must announce an event exactly when one is next.
 *
 * Usage: test_pt_query [seed]
 */
#include "pt_encoder.h"
#include "pt_test.h"

#include <intel-pt.h>
#include <string.h>

enum item_kind { I_COND, I_TIP, I_EVENT };

struct item {
	enum item_kind kind;
	int taken;                 /* I_COND */
	uint64_t ip;               /* I_TIP; event's main IP */
	uint64_t ip2;              /* async_branch.to, async_disabled.ip */
	enum pt_event_type ev;     /* I_EVENT */
	int ip_suppressed;
	int status_update;
	enum pt_exec_mode mode;
};

struct script {
	struct item *it;
	size_t n, cap;
	unsigned long counts[3];
	unsigned long events[ptev_mnt + 1];
};

static struct item *add(struct script *s, enum item_kind kind)
{
	struct item *it;

	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 1024;
		s->it = realloc(s->it, s->cap * sizeof(*s->it));
		if (!s->it)
			exit(2);
	}
	it = &s->it[s->n++];
	memset(it, 0, sizeof(*it));
	it->kind = kind;
	s->counts[kind]++;
	return it;
}

static struct item *add_event(struct script *s, enum pt_event_type ev)
{
	struct item *it = add(s, I_EVENT);

	it->ev = ev;
	s->events[ev]++;
	return it;
}

static enum pt_exec_mode mode_of(unsigned int bits)
{
	return bits == 64 ? ptem_64bit : bits == 32 ? ptem_32bit : ptem_16bit;
}

/* The traced machine: what the test knows about the program's state. */
struct world {
	struct hwt_pt_encoder enc;
	uint8_t *buf;
	int enabled;           /* PacketEn */
	unsigned int bits;     /* current code mode */
	int mode_known;        /* a MODE.Exec since the last PSB/OVF */
	uint64_t ip;           /* somewhere near the current code */
	struct rng r;
	struct script s;
};

static void ok(int rc, const char *what)
{
	CHECK(rc == 0, "%s: rc %d", what, rc);
}

static uint64_t new_ip(struct world *w)
{
	w->ip = pick_ip(&w->r, w->ip);
	return w->ip;
}

static void noise(struct world *w)
{
	/* Timing and padding packets must not disturb the queries. */
	switch (rng_below(&w->r, 8)) {
	case 0:
		ok(hwt_pt_tsc(&w->enc, rng_next(&w->r)), "tsc");
		break;
	case 1:
		ok(hwt_pt_pad(&w->enc), "pad");
		break;
	case 2:
		ok(hwt_pt_cyc(&w->enc, rng_below(&w->r, 5000)), "cyc");
		break;
	default:
		break;
	}
}

static void conds(struct world *w, uint32_t n)
{
	while (n--) {
		int taken = (int)rng_below(&w->r, 2);

		ok(hwt_pt_tnt(&w->enc, taken), "tnt");
		add(&w->s, I_COND)->taken = taken;
		if (!rng_below(&w->r, 16))
			noise(w);
	}
}

static void psb_plus(struct world *w)
{
	uint64_t ip = new_ip(w);

	ok(hwt_pt_psb_plus(&w->enc, w->enabled, ip, (int)rng_below(&w->r, 2),
			   rng_next(&w->r)), "psb+");
	/* libipt reports PSB+ state as status updates at PSBEND. */
	if (w->enabled) {
		struct item *it = add_event(&w->s, ptev_exec_mode);

		it->mode = mode_of(w->bits);
		it->ip = ip;
		it->status_update = 1;
	}
	w->mode_known = w->enabled;
}

/* Tracing resumes: TIP.PGE, with MODE.Exec if the decoder lacks the mode. */
static void enable(struct world *w)
{
	uint64_t ip = new_ip(w);
	struct item *it;

	ok(hwt_pt_tip_pge(&w->enc, ip), "pge");
	add_event(&w->s, ptev_enabled)->ip = ip;
	if (!w->mode_known) {
		it = add_event(&w->s, ptev_exec_mode);
		it->mode = mode_of(w->bits);
		it->ip = ip;
	}
	w->mode_known = 1;
	w->enabled = 1;
}

static void disable(struct world *w)
{
	uint64_t ip = new_ip(w);
	struct item *it;

	switch (rng_below(&w->r, 4)) {
	case 0:
		/* Branch out of the traced range. */
		ok(hwt_pt_tip_pgd(&w->enc, ip, 0), "pgd");
		add_event(&w->s, ptev_disabled)->ip = ip;
		break;
	case 1:
		/* Branch into untraced context: target suppressed. */
		ok(hwt_pt_tip_pgd(&w->enc, ip, 1), "pgd");
		add_event(&w->s, ptev_disabled)->ip_suppressed = 1;
		break;
	default: {
		/* Asynchronous: FUP(source) then TIP.PGD. */
		uint64_t at = ip;
		int suppress = (int)rng_below(&w->r, 2);

		ip = new_ip(w);
		ok(hwt_pt_fup(&w->enc, at), "fup");
		ok(hwt_pt_tip_pgd(&w->enc, ip, suppress), "pgd");
		it = add_event(&w->s, ptev_async_disabled);
		it->ip = at;
		it->ip2 = ip;
		it->ip_suppressed = suppress;
		break;
	}
	}
	w->enabled = 0;
}

static void overflow(struct world *w)
{
	struct item *it;

	ok(hwt_pt_ovf(&w->enc), "ovf");
	noise(w);
	w->mode_known = 0;
	if (w->enabled && rng_below(&w->r, 3)) {
		/* Resolved with PacketEn=1: FUP where tracing resumes. */
		uint64_t ip = new_ip(w);

		ok(hwt_pt_fup(&w->enc, ip), "fup");
		add_event(&w->s, ptev_overflow)->ip = ip;
		/* The encoder still resends MODE.Exec at the next TIP.PGE. */
		return;
	}
	/* Resolved with PacketEn=0: TIP.PGE follows when tracing resumes. */
	it = add_event(&w->s, ptev_overflow);
	it->ip_suppressed = 1;
	w->enabled = 0;
	if (!rng_below(&w->r, 4))
		psb_plus(w);
	enable(w);
}

static void step(struct world *w)
{
	uint32_t what = rng_below(&w->r, 100);
	uint64_t ip;
	struct item *it;

	if (hwt_pt_encoder_space(&w->enc) < 4096)
		return;	/* the test stops when its big buffer is nearly full */

	if (!w->enabled) {
		if (what < 15)
			psb_plus(w);
		else if (what < 20)
			overflow(w);
		else
			enable(w);
		return;
	}
	if (what < 45) {
		conds(w, rng_below(&w->r, 4) ? rng_below(&w->r, 10) :
		      rng_below(&w->r, 150));
	} else if (what < 62) {
		/* Indirect branch. */
		ip = new_ip(w);
		ok(hwt_pt_tip(&w->enc, ip), "tip");
		add(&w->s, I_TIP)->ip = ip;
	} else if (what < 68) {
		/* Far branch changing the mode: MODE.Exec binds to the TIP. */
		static const unsigned int modes[] = { 64, 32, 16 };

		w->bits = modes[rng_below(&w->r, 3)];
		ip = new_ip(w);
		ok(hwt_pt_mode_exec(&w->enc, w->bits), "mode");
		ok(hwt_pt_tip(&w->enc, ip), "tip");
		w->mode_known = 1;
		it = add_event(&w->s, ptev_exec_mode);
		it->mode = mode_of(w->bits);
		it->ip = ip;
		add(&w->s, I_TIP)->ip = ip;
	} else if (what < 76) {
		/* Interrupt: FUP(source), TIP(handler). */
		uint64_t from = new_ip(w);

		ip = new_ip(w);
		ok(hwt_pt_fup(&w->enc, from), "fup");
		ok(hwt_pt_tip(&w->enc, ip), "tip");
		it = add_event(&w->s, ptev_async_branch);
		it->ip = from;
		it->ip2 = ip;
	} else if (what < 86) {
		disable(w);
	} else if (what < 92) {
		overflow(w);
	} else if (what < 97) {
		psb_plus(w);
	} else {
		noise(w);
	}
}

static const char *ev_name(enum pt_event_type t)
{
	switch (t) {
	case ptev_enabled: return "enabled";
	case ptev_disabled: return "disabled";
	case ptev_async_disabled: return "async_disabled";
	case ptev_async_branch: return "async_branch";
	case ptev_overflow: return "overflow";
	case ptev_exec_mode: return "exec_mode";
	default: return "other";
	}
}

static void check_event(const struct pt_event *ev, const struct item *want,
			size_t i)
{
	CHECK(ev->type == want->ev, "item %zu: event %s (%d) want %s", i,
	      ev_name(ev->type), ev->type, ev_name(want->ev));
	if (ev->type != want->ev)
		return;
	CHECK(ev->status_update == (uint32_t)want->status_update,
	      "item %zu: status_update %u", i, ev->status_update);
	switch (ev->type) {
	case ptev_enabled:
		CHECK(ev->variant.enabled.ip == want->ip,
		      "item %zu: enabled at %#" PRIx64 " want %#" PRIx64, i,
		      ev->variant.enabled.ip, want->ip);
		break;
	case ptev_disabled:
		CHECK(ev->ip_suppressed == (uint32_t)want->ip_suppressed,
		      "item %zu: disabled ip_suppressed %u", i,
		      ev->ip_suppressed);
		if (!want->ip_suppressed)
			CHECK(ev->variant.disabled.ip == want->ip,
			      "item %zu: disabled at %#" PRIx64, i,
			      ev->variant.disabled.ip);
		break;
	case ptev_async_disabled:
		CHECK(ev->variant.async_disabled.at == want->ip,
		      "item %zu: async_disabled at %#" PRIx64 " want %#" PRIx64,
		      i, ev->variant.async_disabled.at, want->ip);
		CHECK(ev->ip_suppressed == (uint32_t)want->ip_suppressed,
		      "item %zu: async_disabled ip_suppressed %u", i,
		      ev->ip_suppressed);
		if (!want->ip_suppressed)
			CHECK(ev->variant.async_disabled.ip == want->ip2,
			      "item %zu: async_disabled ip %#" PRIx64, i,
			      ev->variant.async_disabled.ip);
		break;
	case ptev_async_branch:
		CHECK(ev->variant.async_branch.from == want->ip &&
		      ev->variant.async_branch.to == want->ip2,
		      "item %zu: async_branch %#" PRIx64 " -> %#" PRIx64, i,
		      ev->variant.async_branch.from,
		      ev->variant.async_branch.to);
		break;
	case ptev_overflow:
		CHECK(ev->ip_suppressed == (uint32_t)want->ip_suppressed,
		      "item %zu: overflow ip_suppressed %u", i,
		      ev->ip_suppressed);
		if (!want->ip_suppressed)
			CHECK(ev->variant.overflow.ip == want->ip,
			      "item %zu: overflow at %#" PRIx64 " want %#" PRIx64,
			      i, ev->variant.overflow.ip, want->ip);
		break;
	case ptev_exec_mode:
		CHECK(ev->variant.exec_mode.mode == want->mode,
		      "item %zu: mode %d want %d", i,
		      ev->variant.exec_mode.mode, want->mode);
		CHECK(ev->variant.exec_mode.ip == want->ip,
		      "item %zu: mode at %#" PRIx64 " want %#" PRIx64, i,
		      ev->variant.exec_mode.ip, want->ip);
		break;
	default:
		break;
	}
}

/* Replays the script against libipt; returns the number of items matched. */
static size_t replay(const uint8_t *buf, size_t len, const struct script *s,
		     uint64_t start_ip)
{
	struct pt_config config;
	struct pt_query_decoder *q;
	uint64_t ip = 0;
	size_t i;
	int status;

	pt_config_init(&config);
	config.begin = (uint8_t *)buf;
	config.end = (uint8_t *)buf + len;
	q = pt_qry_alloc_decoder(&config);
	CHECK(q != NULL, "pt_qry_alloc_decoder");
	if (!q)
		return 0;

	status = pt_qry_sync_forward(q, &ip);
	CHECK(status >= 0, "sync: %s", pt_errstr(pt_errcode(status)));
	CHECK(!(status & pts_ip_suppressed) && ip == start_ip,
	      "sync ip %#" PRIx64 " status %#x", ip, status);

	for (i = 0; i < s->n && status >= 0; i++) {
		const struct item *want = &s->it[i];
		struct pt_event ev;
		int taken;

		/* libipt flags an event exactly when the next query is one. */
		CHECK(!!(status & pts_event_pending) == (want->kind == I_EVENT),
		      "item %zu: event_pending %d before %s", i,
		      !!(status & pts_event_pending),
		      want->kind == I_EVENT ? "event" :
		      want->kind == I_TIP ? "tip" : "cond");
		CHECK(!(status & pts_eos), "item %zu: early eos", i);

		switch (want->kind) {
		case I_COND:
			status = pt_qry_cond_branch(q, &taken);
			CHECK(status >= 0, "item %zu: cond: %s", i,
			      pt_errstr(pt_errcode(status)));
			if (status >= 0)
				CHECK(taken == want->taken,
				      "item %zu: taken %d want %d", i, taken,
				      want->taken);
			break;
		case I_TIP:
			status = pt_qry_indirect_branch(q, &ip);
			CHECK(status >= 0, "item %zu: tip: %s", i,
			      pt_errstr(pt_errcode(status)));
			if (status >= 0)
				CHECK(!(status & pts_ip_suppressed) &&
				      ip == want->ip,
				      "item %zu: tip %#" PRIx64 " want %#" PRIx64,
				      i, ip, want->ip);
			break;
		case I_EVENT:
			status = pt_qry_event(q, &ev, sizeof(ev));
			CHECK(status >= 0, "item %zu: event: %s", i,
			      pt_errstr(pt_errcode(status)));
			if (status >= 0)
				check_event(&ev, want, i);
			break;
		}
		if (pt_test_failures) {
			size_t k;

			for (k = i > 12 ? i - 12 : 0; k < i + 4 && k < s->n; k++)
				fprintf(stderr, "  item %zu: %s %s %#" PRIx64 "\n", k,
					s->it[k].kind == I_EVENT ? "event" :
					s->it[k].kind == I_TIP ? "tip" : "cond",
					s->it[k].kind == I_EVENT ?
					ev_name(s->it[k].ev) : "",
					s->it[k].ip);
			break;
		}
	}
	if (i == s->n)
		CHECK(status >= 0 && (status & pts_eos),
		      "no eos after the last item: status %#x", status);
	pt_qry_free_decoder(q);
	return i;
}

int main(int argc, char **argv)
{
	uint64_t seed = seed_from_args(argc, argv, 0x5eed0002);
	size_t cap = 16u << 20, matched;
	struct world w;
	uint64_t start = 0x7f0000401000ull;
	int guard = 0;

	memset(&w, 0, sizeof(w));
	w.r.s = seed;
	w.buf = malloc(cap);
	if (!w.buf)
		return 2;
	hwt_pt_encoder_init(&w.enc, w.buf, cap);
	w.bits = 64;
	w.enabled = 1;
	w.ip = start;

	/* Start: PSB+ with tracing on at start. */
	ok(hwt_pt_psb_plus(&w.enc, 1, start, 1, 1000), "psb+");
	{
		struct item *it = add_event(&w.s, ptev_exec_mode);

		it->mode = ptem_64bit;
		it->ip = start;
		it->status_update = 1;
	}
	w.mode_known = 1;

	/* A fixed prologue covering each required case once, then random. */
	conds(&w, 5);              /* short TNT */
	conds(&w, 30);             /* long TNT on flush */
	add(&w.s, I_TIP)->ip = start + 0x40;
	ok(hwt_pt_tip(&w.enc, start + 0x40), "tip");
	conds(&w, 47 * 3 + 2);     /* full long TNTs, then a short one */
	disable(&w);               /* some PGD */
	enable(&w);                /* its PGE */
	conds(&w, 3);
	w.enabled = 1;
	ok(hwt_pt_ovf(&w.enc), "ovf");      /* OVF resolved while tracing */
	ok(hwt_pt_fup(&w.enc, start + 0x80), "fup");
	add_event(&w.s, ptev_overflow)->ip = start + 0x80;
	conds(&w, 2);
	ok(hwt_pt_ovf(&w.enc), "ovf");      /* OVF resolved while not */
	add_event(&w.s, ptev_overflow)->ip_suppressed = 1;
	w.enabled = 0;
	w.mode_known = 0;
	enable(&w);

	while (hwt_pt_encoder_space(&w.enc) >= 4096 && guard++ < 60000)
		step(&w);
	ok(hwt_pt_flush_tnt(&w.enc), "flush");

	matched = replay(w.buf, w.enc.pos, &w.s, start);
	CHECK(matched == w.s.n, "matched %zu of %zu items", matched, w.s.n);
	CHECK(w.s.events[ptev_overflow] && w.s.events[ptev_enabled] &&
	      w.s.events[ptev_disabled] && w.s.events[ptev_async_disabled] &&
	      w.s.events[ptev_async_branch] && w.s.events[ptev_exec_mode],
	      "an event kind never occurred");

	printf("seed %#" PRIx64 ": %zu bytes, %zu queries answered: %lu cond,"
	       " %lu tip, %lu events (enabled %lu, disabled %lu,"
	       " async_disabled %lu, async_branch %lu, overflow %lu,"
	       " exec_mode %lu)\n", seed, w.enc.pos, matched,
	       w.s.counts[I_COND], w.s.counts[I_TIP], w.s.counts[I_EVENT],
	       w.s.events[ptev_enabled], w.s.events[ptev_disabled],
	       w.s.events[ptev_async_disabled], w.s.events[ptev_async_branch],
	       w.s.events[ptev_overflow], w.s.events[ptev_exec_mode]);
	free(w.s.it);
	free(w.buf);
	if (pt_test_failures) {
		fprintf(stderr, "FAIL: %d checks failed\n", pt_test_failures);
		return 1;
	}
	printf("PASS\n");
	return 0;
}
