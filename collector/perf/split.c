/*
 * One AUX queue (a CPU's or a thread's Intel PT data) into the streams of
 * the threads that ran there (docs/perf.md, "Per-CPU traces").
 *
 * The trace is a sequence of runs: stretches where user-mode code was
 * traced, from where tracing (re)starts in user mode (TIP.PGE, a TIP from
 * kernel code to user code, a PSB+ or an OVF with a user-mode FUP) to where
 * it stops (TIP.PGD, a TIP into kernel code, OVF, damage, the end of the
 * data). A thread can only be switched out of a CPU while the CPU is not
 * running its user code, so a run belongs to one thread: the one that the
 * queue's owner changes (context switch records, execs) name at the run's
 * time. The first pass walks the packets and finds the runs and the clock
 * (TSC, TMA, MTC); the owners are looked up; the second pass copies each
 * run to its thread's stream.
 *
 * A run that follows its thread's previous run directly (no other thread
 * and no kernel code between, as in a per-thread buffer) is copied with
 * the packets between, byte for byte. Otherwise the thread's stream gets a
 * sync point and the time first (a PSB+ of the gap, else one made here:
 * PSB, TSC, TMA, PSBEND for a new stream, TSC and TMA for one that goes
 * on), then the run with its first IP packet in full (the IP compression
 * it was written with refers to packets that are not in this stream).
 * Kernel-mode trace is cut out: the TIP into the kernel becomes TIP.PGD,
 * the TIP back into user code TIP.PGE, and what ran in between is counted.
 * PTW packets (the payloads of PTWRITE) are left out: nothing hwt reports
 * uses them, and libipt fails on one it cannot bind to an instruction.
 */
#include "import_int.h"
#include "pt_encoder.h"

#include <intel-pt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Canonical kernel addresses of x86-64 Linux have the top bit set. */
static int is_kernel(uint64_t ip)
{
	return (ip >> 63) != 0;
}

/* ----- The clock: TSC, and TMA + MTC when the PMU sends them ------------ */

struct pclock {
	int have_tsc, have_tma, have_mtc;
	uint64_t tsc;              /* the current estimate */
	uint64_t base;             /* TSC at the last CTC reference */
	uint32_t ctc;              /* CTC bits at that reference */
};

static void clock_tsc(struct pclock *c, uint64_t tsc)
{
	c->have_tsc = 1;
	c->have_tma = c->have_mtc = 0;
	c->tsc = c->base = tsc;
	c->ctc = 0;
}

static void clock_tma(struct pclock *c, const struct ipt_config *cfg, uint16_t ctc, uint16_t fc)
{
	if (!c->have_tsc || !cfg->mtc)
		return;
	c->have_tma = 1;
	c->have_mtc = 0;
	c->base = c->tsc - fc;
	c->ctc = ctc & ((1u << (cfg->mtc_freq + 8)) - 1u);
}

/* An MTC: the CTC bits [mtc_freq+7:mtc_freq]; one wrap of them is allowed. */
static void clock_mtc(struct pclock *c, const struct ipt_config *cfg, uint8_t payload)
{
	uint32_t width = cfg->mtc_freq + 8, ctc, delta;

	if (!c->have_tma || !cfg->ctc_d || width >= 32)
		return;
	ctc = (uint32_t)payload << cfg->mtc_freq;
	if (!c->have_mtc) {
		/* The TMA gave the low bits; MTC's own bits decide the period. */
		ctc |= c->ctc & ((1u << cfg->mtc_freq) - 1u);
	}
	delta = ctc >= c->ctc ? ctc - c->ctc : ctc + (1u << width) - c->ctc;
	c->base += (uint64_t)delta * cfg->ctc_n / cfg->ctc_d;
	c->tsc = c->base;
	c->ctc = ctc;
	c->have_mtc = 1;
}

/* ----- Pass 1: runs and timing points ----------------------------------- */

enum run_start { rs_pge, rs_kernel_tip, rs_psb, rs_ovf_fup };
enum run_end { re_pgd, re_kernel_tip, re_ovf, re_damage, re_end };

struct run {
	uint64_t gap_start;        /* after the previous run (or the chunk's sync) */
	int gap_benign;            /* only disabled-state packets in the gap */
	int64_t gap_psb;           /* a PSB in a benign gap (its last), or -1 */
	struct pclock gap_clock;   /* the clock at gap_start */
	uint64_t start;            /* offset of the start packet (PSB for rs_psb) */
	enum run_start start_kind;
	uint64_t ip;               /* where the run starts */
	uint64_t ip_len;           /* bytes of the start packet (IP-carrying kinds) */
	uint8_t mode_csl, mode_csd;/* the execution mode at its start */
	struct pclock clock;       /* at its start */
	uint64_t lo;               /* the start's time is at least this */
	uint64_t inside;           /* the latest time inside it (0: none): it ran then */
	uint64_t end;              /* offset after its last byte */
	enum run_end end_kind;
	uint64_t end_packet;       /* re_kernel_tip: offset of that TIP */
	struct istream *out;       /* its thread, or NULL */
};

struct walk {
	struct import *im;
	const struct ipt_config *cfg;
	struct run *runs;
	size_t nruns, cap;
	/* timing points: offset, and the time from there on */
	struct { uint64_t off, time; } *tp;
	size_t ntp, cap_tp;
	/* the queue's owner changes taken so far (set_owners) */
	size_t owner_at;
	struct istream *owner;
	enum { ws_unknown, ws_user, ws_kernel, ws_disabled } state;
	int open;                  /* a run is open (runs[nruns - 1]) */
	uint64_t last_ip;
	uint8_t csl, csd;
	struct pclock clock;
	uint64_t gap_start;
	int gap_benign;
	int64_t gap_psb;
	struct pclock gap_clock;
	uint64_t kernel_bytes, kernel_from;
	uint64_t damaged;
	int lost_after;            /* data is missing after this chunk */
	/* packets left out of the copies (PTW), in offset order */
	struct { uint64_t off, len; } *skip;
	size_t nskip, cap_skip;
	uint64_t skipped;
};

static int timing_point(struct walk *w, uint64_t off)
{
	if (w->open)
		w->runs[w->nruns - 1].inside = w->clock.tsc;
	if (w->ntp && w->tp[w->ntp - 1].time == w->clock.tsc)
		return 0;
	if (hwt_import_grow(w->im, (void **)&w->tp, &w->cap_tp, w->ntp + 1, sizeof(*w->tp)))
		return -1;
	w->tp[w->ntp].off = off;
	w->tp[w->ntp].time = w->clock.tsc;
	w->ntp++;
	return 0;
}

/* A gap (no run) begins at off. */
static void gap_begin(struct walk *w, uint64_t off, int benign)
{
	w->gap_start = off;
	w->gap_benign = benign;
	w->gap_psb = -1;
	w->gap_clock = w->clock;
}

static int run_begin(struct walk *w, uint64_t off, enum run_start kind, uint64_t ip,
		     uint64_t ip_len)
{
	struct run *r;

	if (hwt_import_grow(w->im, (void **)&w->runs, &w->cap, w->nruns + 1, sizeof(*w->runs)))
		return -1;
	if (w->state == ws_kernel)
		w->kernel_bytes += off - w->kernel_from;
	r = &w->runs[w->nruns++];
	memset(r, 0, sizeof(*r));
	r->gap_start = w->gap_start;
	r->gap_benign = w->gap_benign;
	r->gap_psb = w->gap_psb;
	r->gap_clock = w->gap_clock;
	r->start = off;
	r->start_kind = kind;
	r->ip = ip;
	r->ip_len = ip_len;
	r->mode_csl = w->csl;
	r->mode_csd = w->csd;
	r->clock = w->clock;
	r->lo = w->clock.tsc;
	w->open = 1;
	w->state = ws_user;
	return 0;
}

static void run_end(struct walk *w, uint64_t end, enum run_end kind, uint64_t packet)
{
	struct run *r = &w->runs[w->nruns - 1];

	r->end = end;
	r->end_kind = kind;
	r->end_packet = packet;
	w->open = 0;
}

static uint64_t ip_of(struct walk *w, const struct pt_packet_ip *p, int *suppressed)
{
	uint64_t ip = 0;

	*suppressed = hwt_pt_ip_decompress(&w->last_ip, p->ipc, p->ip, &ip) < 0;
	return ip;
}

/* Enters kernel-mode tracing (a gap that is not copied). */
static void enter_kernel(struct walk *w, uint64_t off)
{
	if (w->state != ws_kernel)
		w->kernel_from = off;
	w->state = ws_kernel;
	gap_begin(w, off, 0);
}

/* What the walk of one chunk carries from packet to packet. */
struct chunk_walk {
	struct walk *w;
	int in_psb;                /* inside a PSB+ */
	int psb_fup;               /* the PSB+ has a FUP (at fup_ip) */
	uint64_t psb_off, fup_ip;
	int ovf;                   /* after an OVF: its FUP says where tracing resumes */
	uint64_t content_end;      /* after the last packet but PAD */
};

static void on_psb(struct chunk_walk *cw, uint64_t off)
{
	struct walk *w = cw->w;

	cw->in_psb = 1;
	cw->psb_fup = 0;
	cw->psb_off = off;
	w->last_ip = 0;
	if (!w->open && w->gap_benign)
		w->gap_psb = (int64_t)off;
}

/* The end of a PSB+: its FUP says whether tracing is on, in user or kernel code. */
static int on_psbend(struct chunk_walk *cw)
{
	struct walk *w = cw->w;
	uint64_t psb_off = cw->psb_off;

	cw->in_psb = 0;
	if (cw->psb_fup && !is_kernel(cw->fup_ip)) {
		/* Tracing is on in user code here. */
		cw->ovf = 0;
		return w->open ? 0 : run_begin(w, psb_off, rs_psb, cw->fup_ip, 0);
	}
	if (w->open)
		run_end(w, psb_off, re_damage, 0);
	if (cw->psb_fup) {
		if (w->state != ws_kernel)
			enter_kernel(w, psb_off);
	} else if (w->state != ws_disabled && w->state != ws_kernel) {
		w->state = ws_disabled;
		gap_begin(w, psb_off, 1);
		w->gap_psb = (int64_t)psb_off;
	} else if (w->state == ws_kernel) {
		/* Disabled in the kernel: the gap stays not benign. */
		w->kernel_bytes += psb_off - w->kernel_from;
		w->state = ws_disabled;
	}
	return 0;
}

static int on_fup(struct chunk_walk *cw, const struct pt_packet *p, uint64_t off, uint64_t next)
{
	struct walk *w = cw->w;
	int suppressed;
	uint64_t ip = ip_of(w, &p->payload.ip, &suppressed);

	if (cw->in_psb) {
		cw->psb_fup = !suppressed;
		cw->fup_ip = ip;
	} else if (cw->ovf && !suppressed) {
		/* Tracing resumes after an overflow. */
		cw->ovf = 0;
		if (!is_kernel(ip))
			return run_begin(w, off, rs_ovf_fup, ip, next - off);
		enter_kernel(w, off);
	}
	return 0;
}

/* A TIP: into kernel code ends the run, back from it begins one. */
static int on_tip(struct chunk_walk *cw, const struct pt_packet *p, uint64_t off, uint64_t next)
{
	struct walk *w = cw->w;
	int suppressed;
	uint64_t ip = ip_of(w, &p->payload.ip, &suppressed);

	if (suppressed)
		return 0;
	if (w->open && is_kernel(ip)) {
		run_end(w, next, re_kernel_tip, off);
		enter_kernel(w, next);
	} else if (!w->open && !is_kernel(ip) && w->state == ws_kernel) {
		return run_begin(w, off, rs_kernel_tip, ip, next - off);
	}
	return 0;
}

static int on_tip_pge(struct chunk_walk *cw, const struct pt_packet *p, uint64_t off,
		      uint64_t next)
{
	struct walk *w = cw->w;
	int suppressed;
	uint64_t ip = ip_of(w, &p->payload.ip, &suppressed);

	cw->ovf = 0;
	if (w->open)
		run_end(w, off, re_damage, 0);
	if (!suppressed && !is_kernel(ip))
		return run_begin(w, off, rs_pge, ip, next - off);
	enter_kernel(w, next);
	return 0;
}

static void on_tip_pgd(struct chunk_walk *cw, const struct pt_packet *p, uint64_t next)
{
	struct walk *w = cw->w;
	int suppressed;

	ip_of(w, &p->payload.ip, &suppressed);
	if (w->open)
		run_end(w, next, re_pgd, 0);
	if (w->state == ws_kernel)
		w->kernel_bytes += next - w->kernel_from;
	if (w->state != ws_disabled) {
		w->state = ws_disabled;
		gap_begin(w, next, 1);
	}
}

static void on_ovf(struct chunk_walk *cw, uint64_t next)
{
	struct walk *w = cw->w;

	if (w->open)
		run_end(w, next, re_ovf, 0);
	if (w->state == ws_kernel)
		w->kernel_bytes += next - w->kernel_from;
	w->state = ws_unknown;
	w->last_ip = 0;
	cw->ovf = 1;
	gap_begin(w, next, 0);
}

/* A PTW packet: left out of the copies. */
static int on_ptw(struct walk *w, uint64_t off, uint64_t next)
{
	if (hwt_import_grow(w->im, (void **)&w->skip, &w->cap_skip, w->nskip + 1,
			    sizeof(*w->skip)))
		return -1;
	w->skip[w->nskip].off = off;
	w->skip[w->nskip].len = next - off;
	w->nskip++;
	w->skipped++;
	return 0;
}

/* The packet p at [off, next). 0, or -1 when out of memory. */
static int walk_packet(struct chunk_walk *cw, const struct pt_packet *p, uint64_t off,
		       uint64_t next)
{
	struct walk *w = cw->w;

	/* PAD fills the end of perf's AUX buffers: no part of a run. */
	if (p->type != ppt_pad)
		cw->content_end = next;
	switch (p->type) {
	case ppt_psb:
		on_psb(cw, off);
		return 0;
	case ppt_psbend:
		return on_psbend(cw);
	case ppt_fup:
		return on_fup(cw, p, off, next);
	case ppt_tip:
		return on_tip(cw, p, off, next);
	case ppt_tip_pge:
		return on_tip_pge(cw, p, off, next);
	case ppt_tip_pgd:
		on_tip_pgd(cw, p, next);
		return 0;
	case ppt_ovf:
		on_ovf(cw, next);
		return 0;
	case ppt_mode:
		if (p->payload.mode.leaf == pt_mol_exec) {
			w->csl = (uint8_t)p->payload.mode.bits.exec.csl;
			w->csd = (uint8_t)p->payload.mode.bits.exec.csd;
		}
		return 0;
	case ppt_tsc:
		clock_tsc(&w->clock, p->payload.tsc.tsc);
		return timing_point(w, off);
	case ppt_tma:
		clock_tma(&w->clock, w->cfg, p->payload.tma.ctc, p->payload.tma.fc);
		return 0;
	case ppt_mtc:
		clock_mtc(&w->clock, w->cfg, p->payload.mtc.ctc);
		return timing_point(w, off);
	case ppt_ptw:
		return on_ptw(w, off, next);
	default:
		return 0;
	}
}

/*
 * Bytes at bad that are not packets: the open run ends there, and the walk
 * goes on at the next PSB. Returns 0, or -1 when there is none (the rest of
 * the chunk is damage).
 */
static int walk_damage(struct chunk_walk *cw, struct pt_packet_decoder *dec, uint64_t bad,
		       uint64_t size)
{
	struct walk *w = cw->w;
	uint64_t next;

	if (w->open)
		run_end(w, bad, re_damage, 0);
	if (w->state == ws_kernel)
		w->kernel_bytes += bad - w->kernel_from;
	w->state = ws_unknown;
	if (pt_pkt_sync_forward(dec) < 0) {
		w->damaged += size - bad;
		return -1;
	}
	pt_pkt_get_sync_offset(dec, &next);
	w->damaged += next - bad;
	gap_begin(w, next, 0);
	cw->in_psb = cw->ovf = 0;
	return 0;
}

/* The chunk's packets from its first PSB on. 0, or -1 when out of memory. */
static int walk_packets(struct chunk_walk *cw, struct pt_packet_decoder *dec, uint64_t size)
{
	for (;;) {
		struct pt_packet p;
		uint64_t off;
		int status;

		pt_pkt_get_offset(dec, &off);
		status = pt_pkt_next(dec, &p, sizeof(p));
		if (status == -pte_eos)
			return 0;
		if (status < 0) {
			if (walk_damage(cw, dec, off, size))
				return 0;
			continue;
		}
		if (walk_packet(cw, &p, off, off + (uint64_t)status))
			return -1;
	}
}

/* Walks one chunk [0, size). Returns 0, or -1 when out of memory. */
static int walk_chunk(struct walk *w, const uint8_t *buf, uint64_t size)
{
	struct chunk_walk cw = { .w = w };
	struct pt_packet_decoder *dec;
	struct pt_config config;
	uint64_t off = 0;
	int err;

	pt_config_init(&config);
	config.begin = (uint8_t *)buf;
	config.end = (uint8_t *)buf + size;
	dec = pt_pkt_alloc_decoder(&config);
	if (!dec) {
		w->im->nomem = 1;
		return -1;
	}
	w->state = ws_unknown;
	w->open = 0;
	memset(&w->clock, 0, sizeof(w->clock));
	if (pt_pkt_sync_forward(dec) < 0) {
		w->damaged += size;
		pt_pkt_free_decoder(dec);
		return 0;
	}
	pt_pkt_get_sync_offset(dec, &off);
	w->damaged += off;
	gap_begin(w, off, 0);
	err = walk_packets(&cw, dec, size);
	/* A run open at the end goes on in data that is missing, or stops here. */
	if (w->open)
		run_end(w, cw.content_end > w->runs[w->nruns - 1].start ? cw.content_end : size,
			w->lost_after ? re_damage : re_end, 0);
	if (w->state == ws_kernel)
		w->kernel_bytes += size - w->kernel_from;
	pt_pkt_free_decoder(dec);
	return err;
}

/* ----- Owners ----------------------------------------------------------- */

/* A run with no time before it: the first time inside it is its earliest. */
static void set_bounds(struct walk *w, size_t first_run, size_t first_tp)
{
	size_t t = first_tp;

	for (size_t i = first_run; i < w->nruns; i++) {
		struct run *r = &w->runs[i];

		while (t < w->ntp && w->tp[t].off <= r->start)
			t++;
		if (!r->clock.have_tsc)
			r->lo = t < w->ntp ? w->tp[t].time : 0;
	}
}

/*
 * Who each run belongs to. Owner changes no later than the run's earliest
 * start time (lo) came before it, and so did those no later than a time
 * at which it was running user code (a switch needs the kernel). One
 * between lo and the run's first time inside is taken to come after it:
 * where the trace's clock cannot tell, the run keeps the thread that ran
 * before it (a switch is usually followed by a timing packet).
 */
static void set_owners(struct iqueue *q, struct walk *w, size_t first_run)
{
	size_t k = w->owner_at;
	struct istream *cur = w->owner;

	for (size_t i = first_run; i < w->nruns; i++) {
		struct run *r = &w->runs[i];
		uint64_t before = r->inside > r->lo ? r->inside : r->lo;

		while (k < q->nowners && q->owners[k].time <= before)
			cur = q->owners[k++].out;
		r->out = cur;
	}
	w->owner_at = k;
	w->owner = cur;
}

/* ----- Pass 2: the threads' streams ------------------------------------- */

struct emitter {
	struct import *im;
	struct pt_encoder *enc;
	uint8_t scratch[64];
	const struct walk *w;      /* its skip list */
	size_t skip_at;            /* the first skip not before the last copy */
};

/* Copies buf[from, to) onto s, but the packets left out. */
static int copy(struct emitter *e, struct istream *s, const uint8_t *buf, uint64_t from,
		uint64_t to)
{
	const struct walk *w = e->w;
	size_t k = e->skip_at;
	int err = 0;

	while (k > 0 && w->skip[k - 1].off >= from)
		k--;
	while (k < w->nskip && w->skip[k].off < from)
		k++;
	for (; !err && k < w->nskip && w->skip[k].off < to; k++) {
		err = hwt_import_stream_write(e->im, s, buf + from, w->skip[k].off - from);
		from = w->skip[k].off + w->skip[k].len;
	}
	e->skip_at = k;
	if (!err && from < to)
		err = hwt_import_stream_write(e->im, s, buf + from, to - from);
	return err;
}

/* Encodes one packet onto s. */
static int put_packet(struct emitter *e, struct istream *s, const struct pt_packet *p)
{
	uint64_t len = 0;
	int n;

	pt_enc_sync_set(e->enc, 0);
	n = pt_enc_next(e->enc, p);
	if (n < 0)
		return -hie_internal;
	pt_enc_get_offset(e->enc, &len);
	return hwt_import_stream_write(e->im, s, e->scratch, (size_t)len);
}

static int put_simple(struct emitter *e, struct istream *s, enum pt_packet_type type)
{
	struct pt_packet p = { 0 };

	p.type = type;
	return put_packet(e, s, &p);
}

/* TSC (and TMA when MTC is on) for the clock state c. */
static int put_time(struct emitter *e, struct istream *s, const struct ipt_config *cfg,
		    const struct pclock *c)
{
	struct pt_packet p = { 0 };
	int err;

	if (!c->have_tsc)
		return 0;
	p.type = ppt_tsc;
	p.payload.tsc.tsc = c->tsc & ((1ull << 56) - 1);
	err = put_packet(e, s, &p);
	if (err || !cfg->mtc || !c->have_tma)
		return err;
	memset(&p, 0, sizeof(p));
	p.type = ppt_tma;
	p.payload.tma.ctc = (uint16_t)c->ctc;
	p.payload.tma.fc = 0;
	return put_packet(e, s, &p);
}

static int put_mode(struct emitter *e, struct istream *s, const struct run *r)
{
	struct pt_packet p = { 0 };

	p.type = ppt_mode;
	p.payload.mode.leaf = pt_mol_exec;
	p.payload.mode.bits.exec.csl = r->mode_csl;
	p.payload.mode.bits.exec.csd = r->mode_csd;
	return put_packet(e, s, &p);
}

static int put_ip(struct emitter *e, struct istream *s, enum pt_packet_type type, uint64_t ip)
{
	struct pt_packet p = { 0 };

	p.type = type;
	p.payload.ip.ipc = pt_ipc_full;
	p.payload.ip.ip = ip;
	return put_packet(e, s, &p);
}

static int emit_run(struct emitter *e, const struct ipt_config *cfg, const uint8_t *buf,
		    const struct run *r, const struct run *prev)
{
	struct istream *s = r->out;
	uint64_t from = r->start;
	int err = 0;

	if (prev && prev->out == s && !s->lost_sync && r->gap_benign &&
	    r->gap_start == prev->end) {
		/* Straight on: everything between the two runs, as it was. */
		err = copy(e, s, buf, r->gap_start, r->start);
		goto body;
	}
	if (r->start_kind == rs_psb) {
		/* The run starts at a sync point of its own. */
		s->started = 1;
		goto body;
	}
	if (r->gap_benign && r->gap_psb >= 0) {
		/* From a sync point of the gap: the run's packets decode as they are. */
		err = copy(e, s, buf, (uint64_t)r->gap_psb, r->start);
		s->started = 1;
		if (r->start_kind == rs_pge)
			goto body;
	} else {
		if (!s->started) {
			err = put_simple(e, s, ppt_psb);
			err = err ? err : put_time(e, s, cfg, r->gap_benign ? &r->gap_clock : &r->clock);
			err = err ? err : put_simple(e, s, ppt_psbend);
			s->started = 1;
		} else {
			err = put_time(e, s, cfg, r->gap_benign ? &r->gap_clock : &r->clock);
		}
		/* A benign gap keeps its timing packets (the clock follows them). */
		if (!err && r->gap_benign)
			err = copy(e, s, buf, r->gap_start, r->start);
	}
	if (err)
		return err;
	/* The start packet, its IP in full. */
	switch (r->start_kind) {
	case rs_kernel_tip:
		err = put_mode(e, s, r);
		err = err ? err : put_ip(e, s, ppt_tip_pge, r->ip);
		from = r->start + r->ip_len;
		break;
	case rs_pge:
		if (!r->gap_benign)
			err = put_mode(e, s, r);
		err = err ? err : put_ip(e, s, ppt_tip_pge, r->ip);
		from = r->start + r->ip_len;
		break;
	case rs_ovf_fup:
		/* Tracing resumed after an overflow: the stream must say it was one. */
		if (!s->lost_sync)
			err = put_simple(e, s, ppt_ovf);
		err = err ? err : put_ip(e, s, ppt_fup, r->ip);
		from = r->start + r->ip_len;
		break;
	case rs_psb:
		break;
	}
	if (err)
		return err;
body:
	s->lost_sync = 0;
	if (r->end_kind == re_kernel_tip) {
		/* Into the kernel: here the user-mode trace stops. */
		struct pt_packet p = { 0 };

		err = copy(e, s, buf, from, r->end_packet);
		p.type = ppt_tip_pgd;
		p.payload.ip.ipc = pt_ipc_suppressed;
		err = err ? err : put_packet(e, s, &p);
		return err;
	}
	err = copy(e, s, buf, from, r->end);
	if (!err && r->end_kind == re_damage) {
		/* Trace is missing after it: say so (libipt reports an overflow). */
		err = put_simple(e, s, ppt_ovf);
		s->lost_sync = 1;
	}
	if (r->end_kind == re_ovf)
		s->lost_sync = 1;
	return err;
}

/* ----- A queue ---------------------------------------------------------- */

static int aux_cmp(const void *pa, const void *pb)
{
	const struct iaux *a = *(const struct iaux *const *)pa, *b = *(const struct iaux *const *)pb;

	if (a->offset != b->offset)
		return a->offset < b->offset ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* The queue's data as chunks of contiguous bytes, split where data is missing. */
static int next_chunk(struct import *im, struct iqueue *q, size_t *at, uint8_t **chunk,
		      uint64_t *size, int *lost_after)
{
	uint64_t end = 0, len = 0, cap = 0;
	uint8_t *buf = NULL;

	*chunk = NULL;
	*size = 0;
	*lost_after = 0;
	while (*at < q->nbufs) {
		const struct iaux *a = q->bufs[*at];
		uint64_t skip = 0;

		if (len) {
			if (a->offset > end) {
				*lost_after = 1; /* a gap: the next chunk starts there */
				im->stats.damaged_bytes += a->offset - end;
				q->gaps++;
				q->gap_bytes += a->offset - end;
				break;
			}
			skip = end - a->offset; /* overlaps (snapshot mode) */
		}
		(*at)++;
		if (skip >= a->have) {
			if (a->have < a->size) {
				*lost_after = 1;
				break;
			}
			continue;
		}
		if (len + a->have - skip > cap) {
			uint64_t ncap = (len + a->have - skip) * 2;
			uint8_t *p = realloc(buf, ncap);

			if (!p) {
				free(buf);
				im->nomem = 1;
				return -1;
			}
			buf = p;
			cap = ncap;
		}
		memcpy(buf + len, a->data + skip, a->have - skip);
		len += a->have - skip;
		end = a->offset + a->have;
		if (a->have < a->size) {
			*lost_after = 1; /* cut: what follows does not join */
			break;
		}
	}
	*chunk = buf;
	*size = len;
	return 0;
}

int hwt_import_split(struct import *im, struct iqueue *q)
{
	struct walk w = { 0 };
	struct emitter e = { 0 };
	struct pt_config config;
	size_t at = 0;
	int err = 0;

	w.im = im;
	w.cfg = &im->pt;
	w.owner = q->nowners ? q->owners[0].out : NULL;
	qsort(q->bufs, q->nbufs, sizeof(*q->bufs), aux_cmp);
	pt_config_init(&config);
	config.begin = e.scratch;
	config.end = e.scratch + sizeof(e.scratch);
	e.im = im;
	e.w = &w;
	e.enc = pt_alloc_encoder(&config);
	if (!e.enc)
		return -hie_nomem;
	while (at < q->nbufs && !err) {
		uint8_t *chunk;
		uint64_t size;
		size_t first = w.nruns, first_tp = w.ntp;

		if (next_chunk(im, q, &at, &chunk, &size, &w.lost_after)) {
			err = -hie_nomem;
			break;
		}
		if (!chunk)
			continue;
		w.nskip = 0;
		e.skip_at = 0;
		if (walk_chunk(&w, chunk, size)) {
			free(chunk);
			err = -hie_nomem;
			break;
		}
		set_bounds(&w, first, first_tp);
		set_owners(q, &w, first);
		for (size_t i = first; i < w.nruns && !err; i++) {
			const struct run *r = &w.runs[i];

			if (!r->out) {
				im->stats.orphan_bytes += r->end - r->start;
				continue;
			}
			err = emit_run(&e, &im->pt, chunk, r, i > first ? &w.runs[i - 1] : NULL);
		}
		free(chunk);
	}
	im->stats.kernel_bytes += w.kernel_bytes;
	im->stats.damaged_bytes += w.damaged;
	/* Outside snapshot mode the AUX records name what a gap lost (check_coverage). */
	if (q->gaps && im->pt.snapshot) {
		char who[48];

		if (q->per_cpu)
			snprintf(who, sizeof(who), "CPU %" PRIu32, q->cpu);
		else
			snprintf(who, sizeof(who), "thread %" PRId32, (int32_t)q->tid);
		hwt_import_warn(im, "%s: %s: %" PRIu64 " gap%s between snapshots (%" PRIu64 " bytes "
				"of trace overwritten before perf read them): that trace is lost",
				im->perf_path, who, q->gaps, q->gaps == 1 ? "" : "s", q->gap_bytes);
	}
	if (w.skipped)
		hwt_import_warn(im, "%s: %" PRIu64 " PTW packets (PTWRITE payloads) left out",
				im->perf_path, w.skipped);
	free(w.runs);
	free(w.tp);
	free(w.skip);
	pt_free_encoder(e.enc);
	return err;
}
