/*
 * The ETMv4 encoder against OpenCSD's packet lister (trc_pkt_lister), on
 * unformatted trace (format=source_data, as a TRBE writes it):
 *
 * 1. a scripted stream that writes every packet type, every atom format
 *    and pattern, every address compression case and the greedy atom
 *    packing at work; the lister must list exactly the packets the test
 *    expects, text for text;
 * 2. a seeded random stream (atoms, addresses near and far, repeats,
 *    exceptions, timestamps, contexts, syncs); the lister's atoms must be
 *    the atoms fed, its addresses the addresses given, and each packet the
 *    densest the rules allow: an atom packet could not have taken the next
 *    atom, an address packet is the shortest form that rebuilds the
 *    address from the history the lister decoded.
 *
 * Usage: test_etm4_packets [seed] [events]. Exits 77 without trc_pkt_lister.
 */
#include "etm4_test.h"

#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

/* ---- 1. The scripted stream ---- */

struct script {
	struct sink s;
	char (*exp)[256];
	size_t n, cap;
};

static void expect(struct script *t, const char *fmt, ...)
{
	va_list ap;
	char *end;

	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 256;
		t->exp = realloc(t->exp, t->cap * sizeof(*t->exp));
		CHECK(t->exp, "out of memory");
	}
	va_start(ap, fmt);
	vsnprintf(t->exp[t->n], sizeof(t->exp[t->n]), fmt, ap);
	va_end(ap);
	/* The lister ends some lines with "; ": compared without trailing blanks. */
	end = t->exp[t->n] + strlen(t->exp[t->n]);
	while (end > t->exp[t->n] && end[-1] == ' ')
		*--end = 0;
	t->n++;
}

static void ok(struct script *t, int rc, const char *what)
{
	CHECK(rc == 0, "%s returned %d", what, rc);
	sink_drain(&t->s);
}

static const char *exception_name(unsigned int type)
{
	static const char *names[16] = { "PE Reset", "Debug Halt", "Call", "Trap",
					 "System Error", "Reserved", "Inst Debug", "Data Debug",
					 "Reserved", "Reserved", "Alignment", "Inst Fault",
					 "Data Fault", "Reserved", "IRQ", "FIQ" };
	return type < 16 ? names[type] : "Reserved";
}

static void ctx_text(const struct hwt_etm4_context *c, char *buf, size_t size)
{
	size_t n = (size_t)snprintf(buf, size, "Ctxt: %s" "EL%u, %s", c->sf ? "AArch64," : "AArch32, ",
				    c->el, c->ns ? "NS; " : "S; ");

	if (c->flags & HWT_ETM4_CTX_CID)
		n += (size_t)snprintf(buf + n, size - n, "CID=0x%08x; ", c->cid);
	if (c->flags & HWT_ETM4_CTX_VMID)
		snprintf(buf + n, size - n, "VMID=0x%04x; ", c->vmid);
}

/* Atoms given as a string of E and N, oldest first. */
static void atoms(struct script *t, const char *seq)
{
	for (; *seq; seq++)
		ok(t, hwt_etm4_atom(&t->s.enc, *seq == 'E'), "atom");
}

static void expect_atoms(struct script *t, unsigned int format, const char *seq)
{
	expect(t, "I_ATOM_F%u : Atom format %u.; %s", format, format, seq);
}

/* Atoms then a flush: one packet of the given format. */
static void atom_packet(struct script *t, unsigned int format, const char *seq)
{
	atoms(t, seq);
	ok(t, hwt_etm4_flush_atoms(&t->s.enc), "flush_atoms");
	expect_atoms(t, format, seq);
}

enum form { SHORT_1, SHORT_2, LONG_32, LONG_64, MATCH_0, MATCH_1, MATCH_2 };

static void expect_address(struct script *t, uint64_t a, enum form f)
{
	switch (f) {
	case SHORT_1:
	case SHORT_2: {
		unsigned int bits = f == SHORT_1 ? 9 : 17;

		expect(t, "I_ADDR_S_IS0 : Address, Short, IS0.; Addr=0x%016" PRIX64 " ~[0x%" PRIX64 "]",
		       a, a & ((1ull << bits) - 1));
		break;
	}
	case LONG_32:
		expect(t, "I_ADDR_L_32IS0 : Address, Long, 32 bit, IS0.; Addr=0x%016" PRIX64 ";", a);
		break;
	case LONG_64:
		expect(t, "I_ADDR_L_64IS0 : Address, Long, 64 bit, IS0.; Addr=0x%016" PRIX64 ";", a);
		break;
	case MATCH_0:
	case MATCH_1:
	case MATCH_2:
		expect(t, "I_ADDR_MATCH : Exact Address Match., [%d]; Addr=0x%016" PRIX64 ";",
		       (int)(f - MATCH_0), a);
		break;
	}
}

static void address(struct script *t, uint64_t a, enum form f)
{
	ok(t, hwt_etm4_address(&t->s.enc, a), "address");
	expect_address(t, a, f);
}

static void address_context(struct script *t, uint64_t a, const struct hwt_etm4_context *c,
			    int bits)
{
	char ctx[128];

	ok(t, hwt_etm4_address_context(&t->s.enc, a, c), "address_context");
	ctx_text(c, ctx, sizeof(ctx));
	expect(t, "I_ADDR_CTXT_L_%dIS0 : Address & Context, Long, %d bit, IS0.; Addr=0x%016" PRIX64 "; %s",
	       bits, bits, a, ctx);
}

static void context(struct script *t, const struct hwt_etm4_context *c)
{
	char ctx[128];

	ok(t, hwt_etm4_context(&t->s.enc, c), "context");
	if (c)
		ctx_text(c, ctx, sizeof(ctx));
	else
		snprintf(ctx, sizeof(ctx), "Ctxt: Same");
	expect(t, "I_CTXT : Context Packet.; %s", ctx);
}

static void exception(struct script *t, unsigned int type, uint64_t ret, enum form f)
{
	ok(t, hwt_etm4_exception(&t->s.enc, type, ret), "exception");
	expect(t, "I_EXCEPT : Exception.;  %s; Ret Addr Follows;", exception_name(type));
	expect_address(t, ret, f);
}

static void timestamp(struct script *t, uint64_t ts)
{
	ok(t, hwt_etm4_timestamp(&t->s.enc, ts), "timestamp");
	expect(t, "I_TIMESTAMP : Timestamp.; Updated val = 0x%" PRIx64, ts);
}

static void sync_point(struct script *t)
{
	ok(t, hwt_etm4_sync(&t->s.enc), "sync");
	expect(t, "I_ASYNC : Alignment Synchronisation.");
	expect(t, "I_TRACE_INFO : Trace Info.; INFO=0x0 { CC.0 }");
}

static void scripted(struct bytes *out)
{
	static const struct hwt_etm4_context user = { 0, 1, 1, HWT_ETM4_CTX_CID, 1234, 0 };
	static const struct hwt_etm4_context kernel = { 1, 1, 0, HWT_ETM4_CTX_CID | HWT_ETM4_CTX_VMID,
							0x12345678, 0x42 };
	static const struct hwt_etm4_context bare = { 2, 1, 1, 0, 0, 0 };
	const uint64_t b = 0x0000aaaa00401000ull;
	struct script t;
	struct listing l;
	struct source src = { 0x10, NULL };
	char pattern[32];
	unsigned int i, k;

	memset(&t, 0, sizeof(t));
	sink_init(&t.s);

	sync_point(&t);
	ok(&t, hwt_etm4_trace_on(&t.s.enc), "trace_on");
	expect(&t, "I_TRACE_ON : Trace On.");
	timestamp(&t, 0x1234);
	/* The decoder does not know the state yet: 64 bits. */
	address_context(&t, b, &user, 64);

	/* Address compression, each case in turn. */
	atoms(&t, "E");
	expect_atoms(&t, 1, "E");
	address(&t, b + 0x40, SHORT_1);          /* bits 63:9 unchanged */
	atoms(&t, "NNNN");
	expect_atoms(&t, 4, "NNNN");
	address(&t, b + 0x10040, SHORT_2);       /* bits 63:17 unchanged */
	address(&t, b + 0x20000000, LONG_32);    /* bits 63:32 unchanged */
	address(&t, 0x0000ffff80001000ull, LONG_64);
	/* History: ffff80001000, b+2e8, b+10040; an exact match pushes what it names. */
	address(&t, b + 0x10040, MATCH_2);
	address(&t, b + 0x20000000, MATCH_2);
	address(&t, b + 0x10040, MATCH_1);
	address(&t, b + 0x10040, MATCH_0);
	address(&t, b + 0x10044, SHORT_1);       /* no exact match: shortest form */
	address(&t, b + 0x1effc, SHORT_2);       /* 0xaaaa0041fffc */
	address(&t, 0x0000aaaa00000000ull, LONG_32);
	address(&t, 0xffffffc010000000ull, LONG_64);   /* a kernel address */
	address(&t, 0xffffffc0100001fcull, SHORT_1);

	/* Every format, every pattern; a flush ends each packet. */
	atom_packet(&t, 1, "E");
	atom_packet(&t, 1, "N");
	for (i = 0; i < 4; i++) {
		pattern[0] = (i & 1) ? 'E' : 'N';
		pattern[1] = (i & 2) ? 'E' : 'N';
		pattern[2] = 0;
		atom_packet(&t, 2, pattern);
	}
	for (i = 0; i < 8; i++) {
		for (k = 0; k < 3; k++)
			pattern[k] = (i >> k) & 1 ? 'E' : 'N';
		pattern[3] = 0;
		atom_packet(&t, 3, pattern);
	}
	atom_packet(&t, 4, "NEEE");
	atom_packet(&t, 4, "NNNN");
	atom_packet(&t, 4, "NENE");
	atom_packet(&t, 4, "ENEN");
	atom_packet(&t, 5, "NEEEE");
	atom_packet(&t, 5, "NNNNN");
	atom_packet(&t, 5, "NENEN");
	atom_packet(&t, 5, "ENENE");
	atom_packet(&t, 6, "EEEE");
	atom_packet(&t, 6, "EEEEE");
	atom_packet(&t, 6, "EEEN");
	atom_packet(&t, 6, "EEEEEEEEEEEEEEEEEEEEEEEE");  /* 24 E */
	atom_packet(&t, 6, "EEEEEEEEEEEEEEEEEEEEEEEN");  /* 23 E, N */

	/* Greedy packing: a run grows while some format can hold it. */
	atoms(&t, "EEEEEEEEEEEEEEEEEEEEEEEEEEEEEE");  /* 30 E */
	expect_atoms(&t, 6, "EEEEEEEEEEEEEEEEEEEEEEEE");
	atoms(&t, "EEENE");     /* the 6 E left, then N: 6 E N fits format 6 */
	expect_atoms(&t, 6, "EEEEEEEEEN");
	atoms(&t, "NEEEEE");    /* E N E fits, E N E E does not */
	expect_atoms(&t, 3, "ENE");
	atoms(&t, "EENEEN");    /* E E E E (left) E E N, then E does not fit */
	expect_atoms(&t, 6, "EEEEEEN");
	atoms(&t, "ENENEN");    /* E E N (left) E: no; E N E N E, then N: no */
	expect_atoms(&t, 3, "EEN");
	expect_atoms(&t, 5, "ENENE");
	atoms(&t, "NNNNNN");    /* N (left) N N N N, then N: no */
	expect_atoms(&t, 5, "NNNNN");
	atoms(&t, "ENEE");      /* N (left) N E, then N: no; N E E flushed */
	expect_atoms(&t, 3, "NNE");
	expect_atoms(&t, 3, "NEE");
	ok(&t, hwt_etm4_flush_atoms(&t.s.enc), "flush_atoms");

	/* Exceptions: a system call, its return address compressed like any other. */
	atoms(&t, "EN");
	expect_atoms(&t, 2, "EN");
	exception(&t, HWT_ETM4_EXC_CALL, 0xffffffc010000204ull, SHORT_2);  /* bit 9 differs */
	ok(&t, hwt_etm4_exception_return(&t.s.enc), "exception_return");
	expect(&t, "I_EXCEPT_RTN : Exception Return.");
	exception(&t, HWT_ETM4_EXC_CALL, 0xffffffc010000204ull, MATCH_0);
	for (i = 0; i < 16; i++)
		if (strcmp(exception_name(i), "Reserved"))
			exception(&t, i, 0xffffffc010000204ull + 4 * i, i ? SHORT_1 : MATCH_0);

	/* Timestamps: only the changed low-order bits, up to all 64. */
	timestamp(&t, 0x1240);
	timestamp(&t, 0x5678);
	timestamp(&t, 0x0123456789abcdefull);
	timestamp(&t, 0x0123456789abcdf0ull);
	timestamp(&t, 0x4000000000000005ull);

	/* Contexts. */
	context(&t, NULL);
	context(&t, &kernel);
	context(&t, &bare);
	context(&t, &user);
	/* AArch64 known and the upper bits unchanged: 32 bits. */
	address_context(&t, 0xffffffc000004000ull, &user, 32);
	address_context(&t, b, &kernel, 64);

	ok(&t, hwt_etm4_discard(&t.s.enc), "discard");
	expect(&t, "I_DISCARD : Discard.");

	/* Overflow, then Trace Info: history, timestamp and state start again from zero. */
	atoms(&t, "E");
	expect_atoms(&t, 1, "E");
	ok(&t, hwt_etm4_overflow(&t.s.enc), "overflow");
	expect(&t, "I_OVERFLOW : Overflow.");
	ok(&t, hwt_etm4_trace_info(&t.s.enc), "trace_info");
	expect(&t, "I_TRACE_INFO : Trace Info.; INFO=0x0 { CC.0 }");
	timestamp(&t, 0x55);
	address(&t, 0x1fc, SHORT_1);             /* against the zeroed history */
	address(&t, 0x0000aaaa00401000ull, LONG_64);
	address_context(&t, b + 8, &user, 64);
	address(&t, 0x1fc, MATCH_2);

	/* A periodic sync in the middle of the trace. */
	atoms(&t, "EE");
	expect_atoms(&t, 2, "EE");
	sync_point(&t);
	address_context(&t, b, &user, 64);
	atoms(&t, "N");
	expect_atoms(&t, 1, "N");
	ok(&t, hwt_etm4_trace_on(&t.s.enc), "trace_on");
	expect(&t, "I_TRACE_ON : Trace On.");
	address(&t, b, MATCH_0);
	ok(&t, hwt_etm4_flush_atoms(&t.s.enc), "flush_atoms");

	src.data = &t.s.out;
	lister_run(&src, 1, NULL, &l);
	for (i = 0; i < l.n && i < t.n; i++)
		CHECK(!strcmp(l.p[i].text, t.exp[i]),
		      "scripted packet %u at byte %lu:\n  listed   \"%s\"\n  expected \"%s\"", i,
		      l.p[i].idx, l.p[i].text, t.exp[i]);
	CHECK(l.n == t.n, "scripted: %zu packets listed, %zu expected", l.n, t.n);
	CHECK(l.processed == t.s.out.len, "lister processed %lu of %zu bytes", l.processed,
	      t.s.out.len);
	printf("scripted: %zu packets in %zu bytes listed as written\n", l.n, t.s.out.len);
	bytes_add(out, t.s.out.p, t.s.out.len);
	free(t.s.out.p);
	free(t.exp);
	listing_free(&l);
}

/* ---- 2. The random stream (random_stream() in etm4_test.c) ---- */

static uint64_t listed_addr(const char *text)
{
	const char *p = strstr(text, "Addr=0x");

	CHECK(p, "no address in \"%s\"", text);
	return strtoull(p + 7, NULL, 16);
}

static int holdable(const char *seq, size_t n)
{
	size_t e = 0;

	while (e < n && seq[e] == 'E')
		e++;
	if (n <= 3)
		return 1;
	if (n > 24)
		return 0;
	if (e == n || (e == n - 1 && e >= 3))
		return 1;
	if (n == 4)
		return !strncmp(seq, "NEEE", 4) || !strncmp(seq, "NNNN", 4) ||
		       !strncmp(seq, "NENE", 4) || !strncmp(seq, "ENEN", 4);
	if (n == 5)
		return !strncmp(seq, "NEEEE", 5) || !strncmp(seq, "NNNNN", 5) ||
		       !strncmp(seq, "NENEN", 5) || !strncmp(seq, "ENENE", 5);
	return 0;
}

/*
 * The shortest form the specification's rules allow, given the decoded
 * history: its name, its size in bytes and the history index of a match.
 */
static const char *densest(const uint64_t hist[3], uint64_t a, int aarch64, unsigned long *size,
			   int *match)
{
	uint64_t diff = a ^ hist[0];
	int i;

	*match = -1;
	for (i = 0; i < 3; i++)
		if (hist[i] == a) {
			*match = i;
			*size = 1;
			return "I_ADDR_MATCH";
		}
	*size = !(diff >> 9) ? 2 : !(diff >> 17) ? 3 : !(diff >> 32) && aarch64 ? 5 : 9;
	return *size <= 3 ? "I_ADDR_S_IS0" : *size == 5 ? "I_ADDR_L_32IS0" : "I_ADDR_L_64IS0";
}

/* Bytes of listed packet i: up to the next one, or the end of the buffer. */
static unsigned long packet_size(const struct listing *l, size_t i)
{
	return (i + 1 < l->n ? l->p[i + 1].idx : l->processed) - l->p[i].idx;
}

static void check_random(const struct listing *l, const struct truth *w)
{
	uint64_t hist[3] = { 0, 0, 0 };
	size_t natoms = 0, naddrs = 0, nstamps = 0, i;
	int aarch64 = 0;
	const char *prev_atoms = NULL;

	for (i = 0; i < l->n; i++) {
		const char *t = l->p[i].text;
		char name[40];

		sscanf(t, "%39s", name);
		if (!strncmp(name, "I_ATOM_F", 8)) {
			const char *seq = strstr(t, "; ") + 2;
			size_t n = strlen(seq);

			CHECK(natoms + n <= w->natoms && !memcmp(w->atoms + natoms, seq, n),
			      "atoms at %zu: listed %s", natoms, seq);
			/* Densest: the packet before could not have taken this one's first atom. */
			if (prev_atoms) {
				char both[sizeof(l->p[i].text) + 1];

				snprintf(both, sizeof(both), "%s%c", prev_atoms, seq[0]);
				CHECK(!holdable(both, strlen(both)), "atom packet %s could have held %c",
				      prev_atoms, seq[0]);
			}
			natoms += n;
			prev_atoms = seq;
			continue;
		}
		prev_atoms = NULL;
		if (!strncmp(name, "I_ADDR", 6)) {
			uint64_t a = listed_addr(t);
			unsigned long want_size;
			int match;
			const char *want = densest(hist, a, aarch64, &want_size, &match);

			CHECK(naddrs < w->naddrs && w->addrs[naddrs] == a,
			      "address %zu: listed 0x%" PRIx64 ", given 0x%" PRIx64, naddrs, a,
			      naddrs < w->naddrs ? w->addrs[naddrs] : 0);
			if (!strncmp(name, "I_ADDR_CTXT", 11)) {
				/* Long forms only; info byte and CONTEXTIDR follow the address. */
				int is32 = !((a ^ hist[0]) >> 32) && aarch64;

				CHECK(!strcmp(name, is32 ? "I_ADDR_CTXT_L_32IS0" : "I_ADDR_CTXT_L_64IS0"),
				      "address with context 0x%" PRIx64 " as %s", a, name);
				want_size = (is32 ? 5 : 9) + 1 + HWT_ETM4_CID_BYTES;
				aarch64 = 1;
			} else {
				CHECK(!strcmp(name, want), "address 0x%" PRIx64 " as %s, densest is %s", a,
				      name, want);
				if (match >= 0) {
					char idx[8];

					snprintf(idx, sizeof(idx), "[%d]", match);
					CHECK(strstr(t, idx), "exact match of 0x%" PRIx64 " not at %s", a, idx);
				}
			}
			CHECK(packet_size(l, i) == want_size, "address 0x%" PRIx64 " in %lu bytes, not %lu",
			      a, packet_size(l, i), want_size);
			hist[2] = hist[1];
			hist[1] = hist[0];
			hist[0] = a;
			naddrs++;
		} else if (!strcmp(name, "I_TIMESTAMP")) {
			uint64_t v = strtoull(strstr(t, "= 0x") + 4, NULL, 16);

			CHECK(nstamps < w->nstamps && w->stamps[nstamps] == v,
			      "timestamp %zu: listed 0x%" PRIx64, nstamps, v);
			nstamps++;
		} else if (!strcmp(name, "I_TRACE_INFO")) {
			hist[0] = hist[1] = hist[2] = 0;
			aarch64 = 0;
		} else {
			CHECK(!strcmp(name, "I_ASYNC") || !strcmp(name, "I_EXCEPT"),
			      "unexpected packet \"%s\"", t);
		}
	}
	CHECK(natoms == w->natoms, "%zu atoms listed, %zu written", natoms, w->natoms);
	CHECK(naddrs == w->naddrs, "%zu addresses listed, %zu written", naddrs, w->naddrs);
	CHECK(nstamps == w->nstamps, "%zu timestamps listed, %zu written", nstamps, w->nstamps);
	printf("random: %zu packets, %zu atoms, %zu addresses, %zu timestamps listed as written\n",
	       l->n, natoms, naddrs, nstamps);
}

int main(int argc, char **argv)
{
	uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 0x5eedull;
	unsigned long events = argc > 2 ? strtoul(argv[2], NULL, 0) : 50000;
	struct bytes scripted_out = { 0 }, random_out = { 0 };
	struct truth w;
	struct listing l;
	struct source src = { 0x10, NULL };

	if (!lister_available())
		return SKIP;
	scripted(&scripted_out);

	memset(&w, 0, sizeof(w));
	random_stream(seed, events, &random_out, &w);
	src.data = &random_out;
	lister_run(&src, 1, NULL, &l);
	CHECK(l.processed == random_out.len, "lister processed %lu of %zu bytes", l.processed,
	      random_out.len);
	check_random(&l, &w);

	listing_free(&l);
	free(scripted_out.p);
	free(random_out.p);
	free(w.atoms);
	free(w.addrs);
	free(w.stamps);
	return 0;
}
