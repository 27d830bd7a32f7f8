/*
 * hwt export's one-CPU form (HWT_PERF_EXPORT_ONE_CPU, export_int.h): every
 * thread's trace as if all of them had run on one CPU, for tests of
 * per-CPU decoding. Each stream is cut after every TIP.PGD (the thread left
 * user mode, where a CPU can switch threads); the pieces run in the order
 * of the time they began (the bundle's clock), each on a clock of the CPU:
 * piece i begins at (i + 1) * q with a TSC packet of that value, its own
 * TSC packets follow 4 ticks apart. Where the thread changes, the
 * SWITCH_CPU_WIDE OUT and IN records fall 2 and 1 ticks before the piece,
 * and the piece's first IP packet is written in full (its compression
 * referred to the thread's previous packets). A sideband record goes 3
 * ticks before the first TSC whose bundle time is at least its own, so it
 * applies where it did.
 */
#include "export_int.h"
#include "grow.h"
#include "pt_encoder.h"

#include <errno.h>
#include <intel-pt.h>
#include <stdlib.h>
#include <string.h>

/* Kernel addresses of x86-64 Linux (kernel-mode trace: pt_kernel=1). */
#define KERNEL_START 0xffff800000000000ull

/* AUX data in records of at least this, cut where a piece ends (perf 6.1's
   decoder reports packets that span two records as bad). */
#define AUX_RECORD (4u << 10)

struct cpu_stream {
	const struct hwt_bundle_stream *s;
	const struct xport_image *im;
	struct xport_image *image;   /* the same, to fill first[] */
	uint8_t *buf;
	size_t size;
};

struct cpu_piece {
	size_t stream;
	uint64_t from, to;
	uint64_t orig;               /* when it began, on the bundle's global clock */
	int has_orig;
	uint64_t time;               /* when it begins on the CPU's clock */
	uint64_t last_ip;            /* the stream's IP compression reference there */
};

struct cpu_switch {
	uint64_t time;
	int out;
	uint32_t pid, tid, other_pid, other_tid;
};

struct xport_cpu {
	struct cpu_stream *streams;
	size_t nstreams;
	struct cpu_piece *pieces;    /* stream by stream */
	size_t npieces;
	size_t *order;               /* pieces in the CPU's order */
	struct { uint64_t orig, time; } *points; /* TSCs in CPU order, orig a running max */
	size_t npoints;
	struct cpu_switch *switches;
	size_t nswitches;
	uint64_t q;
};

void hwt_xport_one_cpu_free(struct xport_cpu *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nstreams; i++)
		free(c->streams[i].buf);
	free(c->streams);
	free(c->pieces);
	free(c->order);
	free(c->points);
	free(c->switches);
	free(c);
}

size_t hwt_xport_one_cpu_switches(const struct xport_cpu *c)
{
	return c ? c->nswitches : 0;
}

void hwt_xport_one_cpu_switch(const struct xport_cpu *c, size_t i, uint64_t *time, int *out,
			      uint32_t *pid, uint32_t *tid, uint32_t *other_pid,
			      uint32_t *other_tid)
{
	const struct cpu_switch *s = &c->switches[i];

	*time = s->time;
	*out = s->out;
	*pid = s->pid;
	*tid = s->tid;
	*other_pid = s->other_pid;
	*other_tid = s->other_tid;
}

/* hwt_grow_array on *p: 0, or -1 when out of memory. */
static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	void *q = hwt_grow_array(*p, cap, need, elem);

	if (!q)
		return -1;
	*p = q;
	return 0;
}

/* A packet decoder of bytes [from, to) of stream cs (a piece of it, or all). */
static struct pt_packet_decoder *bytes_decoder(const struct cpu_stream *cs, uint64_t from,
					       uint64_t to)
{
	struct pt_config config;

	pt_config_init(&config);
	config.begin = cs->buf + from;
	config.end = cs->buf + to;
	return pt_pkt_alloc_decoder(&config);
}

/* Cuts one stream into pieces; returns the largest TSC count of a piece. */
static int cut(struct xport *x, struct xport_cpu *c, size_t si, size_t *cap, size_t *max_tsc)
{
	struct cpu_stream *cs = &c->streams[si];
	struct pt_packet_decoder *dec;
	uint64_t off = 0, from = 0, cur = 0, last_ip = 0, piece_ip = 0;
	size_t ntsc = 0;
	int have = 0, piece_has = 0, in_kernel = 0, into_kernel;
	uint64_t piece_orig = 0;

	dec = bytes_decoder(cs, 0, cs->size);
	if (!dec)
		return -hxe_nomem;
	if (pt_pkt_sync_forward(dec) >= 0) {
		for (;;) {
			struct pt_packet p;
			int status;

			pt_pkt_get_offset(dec, &off);
			status = pt_pkt_next(dec, &p, sizeof(p));
			if (status == -pte_eos)
				break;
			if (status < 0) {
				if (pt_pkt_sync_forward(dec) < 0)
					break;
				continue;
			}
			into_kernel = 0;
			if (p.type == ppt_psb || p.type == ppt_ovf) {
				last_ip = 0;
			} else if (p.type == ppt_tip || p.type == ppt_tip_pge ||
				   p.type == ppt_tip_pgd || p.type == ppt_fup) {
				uint64_t ip;

				int known = hwt_pt_ip_decompress(&last_ip, p.payload.ip.ipc,
								 p.payload.ip.ip, &ip) == 0;

				if (p.type == ppt_tip_pgd) {
					in_kernel = 0;
				} else if (known && p.type != ppt_fup) {
					into_kernel = p.type == ppt_tip && ip >= KERNEL_START && !in_kernel;
					in_kernel = ip >= KERNEL_START;
				}
			}
			if (p.type == ppt_tsc) {
				cur = hwt_xport_tsc(x, cs->im, p.payload.tsc.tsc);
				have = 1;
				ntsc++;
				if (!piece_has) {
					piece_orig = cur;
					piece_has = 1;
				}
			}
			if (p.type != ppt_tip_pgd && !into_kernel)
				continue;
			/* Tracing stopped, or went on into the kernel (a PMU tracing
			   kernel mode too): a piece ends after this packet. */
			if (grow((void **)&c->pieces, cap, c->npieces + 1, sizeof(*c->pieces))) {
				pt_pkt_free_decoder(dec);
				return -hxe_nomem;
			}
			c->pieces[c->npieces++] = (struct cpu_piece){ si, from, off + (uint64_t)status,
								      piece_orig, piece_has, 0,
								      piece_ip };
			if (ntsc > *max_tsc)
				*max_tsc = ntsc;
			from = off + (uint64_t)status;
			ntsc = 0;
			piece_has = have;
			piece_orig = cur;
			piece_ip = last_ip;
		}
	}
	pt_pkt_free_decoder(dec);
	if (from < cs->size) {
		if (grow((void **)&c->pieces, cap, c->npieces + 1, sizeof(*c->pieces)))
			return -hxe_nomem;
		c->pieces[c->npieces++] = (struct cpu_piece){ si, from, cs->size, piece_orig,
							      piece_has, 0, piece_ip };
		if (ntsc > *max_tsc)
			*max_tsc = ntsc;
	}
	return 0;
}

/* The CPU's time of a record at global time t: 3 ticks before the first TSC
   at least as late. */
static uint64_t map_time(const struct xport_cpu *c, uint64_t t)
{
	size_t lo = 0, hi = c->npoints;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (c->points[mid].orig >= t)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (lo == c->npoints)
		return c->npoints ? c->points[c->npoints - 1].time + 4 : 1;
	return c->points[lo].time - 3;
}

/* Every stream with sideband read and cut into pieces (cut); the CPU's
   clock step c->q from the largest TSC count of a piece. */
static int cut_streams(struct xport *x, struct xport_cpu *c)
{
	size_t cap_pieces = 0, max_tsc = 0;

	c->streams = calloc(hwt_bundle_stream_count(x->bundle) + 1, sizeof(*c->streams));
	if (!c->streams)
		return -hxe_nomem;
	for (size_t i = 0; i < hwt_bundle_stream_count(x->bundle); i++) {
		const struct hwt_bundle_stream *s = hwt_bundle_stream_at(x->bundle, i);
		struct cpu_stream *cs;
		int err;

		if (s->image < 0 || x->image_of[s->image] < 0)
			continue;
		cs = &c->streams[c->nstreams];
		cs->s = s;
		cs->image = &x->images[x->image_of[s->image]];
		cs->im = cs->image;
		cs->buf = hwt_xport_read_file(s->path, &cs->size, 0);
		if (!cs->buf) {
			hwt_xport_warn(x, "%s: cannot read it: %s", s->path, strerror(errno));
			continue;
		}
		c->nstreams++;
		err = cut(x, c, c->nstreams - 1, &cap_pieces, &max_tsc);
		if (err)
			return err;
	}
	c->q = 4 * ((uint64_t)max_tsc + 2);
	return 0;
}

/* Pieces in the order they began; pieces that began at the same time (no
   record between them) take turns, so that threads switch often. */
static int order_pieces(struct xport_cpu *c)
{
	size_t *next = calloc(c->nstreams + 1, sizeof(*next));
	size_t cur = SIZE_MAX;

	c->order = calloc(c->npieces + 1, sizeof(*c->order));
	if (!c->order || !next) {
		free(next);
		return -hxe_nomem;
	}
	for (size_t si = 0, p = 0; si < c->nstreams; si++) {
		next[si] = p;
		while (p < c->npieces && c->pieces[p].stream == si)
			p++;
	}
	for (size_t done = 0; done < c->npieces; done++) {
		size_t best = SIZE_MAX;

		for (size_t k = 1; k <= c->nstreams; k++) {
			/* Streams from the one after cur on: ties go to the next one. */
			size_t si = cur == SIZE_MAX ? k - 1 : (cur + k) % c->nstreams;
			size_t p = next[si];

			if (p >= c->npieces || c->pieces[p].stream != si)
				continue;
			if (best == SIZE_MAX || c->pieces[p].orig < c->pieces[next[best]].orig)
				best = si;
		}
		c->order[done] = next[best]++;
		c->pieces[c->order[done]].time = (done + 1) * c->q;
		cur = best;
	}
	free(next);
	return 0;
}

/* A TSC point: original time orig (no earlier than the last point's) is
   time t on the CPU's clock. */
static int add_point(struct xport_cpu *c, size_t *cap, uint64_t orig, uint64_t t)
{
	uint64_t run = c->npoints ? c->points[c->npoints - 1].orig : 0;

	if (grow((void **)&c->points, cap, c->npoints + 1, sizeof(*c->points)))
		return -hxe_nomem;
	c->points[c->npoints].orig = orig > run ? orig : run;
	c->points[c->npoints].time = t;
	c->npoints++;
	return 0;
}

/* The TSC points, in the CPU's order: each piece's start and its TSC packets. */
static int time_points(struct xport *x, struct xport_cpu *c)
{
	size_t cap = 0;

	for (size_t k = 0; k < c->npieces; k++) {
		const struct cpu_piece *pc = &c->pieces[c->order[k]];
		const struct cpu_stream *cs = &c->streams[pc->stream];
		struct pt_packet_decoder *dec;
		uint64_t t = pc->time;
		int err = add_point(c, &cap, pc->orig, t);

		if (err)
			return err;
		dec = bytes_decoder(cs, pc->from, pc->to);
		if (!dec)
			return -hxe_nomem;
		/* A piece starts at a packet: decode from its first byte. */
		if (pt_pkt_sync_set(dec, 0) >= 0) {
			struct pt_packet p;

			while (!err && pt_pkt_next(dec, &p, sizeof(p)) >= 0)
				if (p.type == ppt_tsc) {
					t += 4;
					err = add_point(c, &cap, hwt_xport_tsc(x, cs->im, p.payload.tsc.tsc),
							t);
				}
		}
		pt_pkt_free_decoder(dec);
		if (err)
			return err;
	}
	return 0;
}

/* The switches, and where each thread's trace begins. */
static int plan_switches(struct xport_cpu *c)
{
	size_t cap = 0;

	for (size_t k = 0; k < c->npieces; k++) {
		const struct cpu_piece *pc = &c->pieces[c->order[k]];
		const struct cpu_stream *cs = &c->streams[pc->stream];
		const struct cpu_stream *prev =
			k ? &c->streams[c->pieces[c->order[k - 1]].stream] : NULL;

		for (size_t f = 0; f < cs->image->nfirst; f++)
			if (cs->image->first[f].tid == cs->s->tid && cs->image->first[f].time > pc->time)
				cs->image->first[f].time = pc->time;
		if (prev && prev->s->tid == cs->s->tid && prev->s->pid == cs->s->pid)
			continue;
		if (grow((void **)&c->switches, &cap, c->nswitches + 2, sizeof(*c->switches)))
			return -hxe_nomem;
		if (prev)
			c->switches[c->nswitches++] = (struct cpu_switch){
				pc->time - 2, 1, prev->s->pid, prev->s->tid, cs->s->pid, cs->s->tid };
		c->switches[c->nswitches++] = (struct cpu_switch){
			pc->time - 1, 0, cs->s->pid, cs->s->tid,
			prev ? prev->s->pid : 0, prev ? prev->s->tid : 0 };
	}
	return 0;
}

int hwt_xport_one_cpu_plan(struct xport *x, struct xport_cpu **out)
{
	struct xport_cpu *c = calloc(1, sizeof(*c));
	int err;

	*out = c;
	if (!c)
		return -hxe_nomem;
	err = cut_streams(x, c);
	if (!err)
		err = order_pieces(c);
	if (!err)
		err = time_points(x, c);
	if (err)
		return err;
	/* Every record on the CPU's clock. */
	for (size_t i = 0; i < x->nimages; i++)
		for (size_t r = 0; r < x->images[i].nrecs; r++)
			x->images[i].times[r] = map_time(c, x->images[i].times[r]);
	return plan_switches(c);
}

/* Appends bytes to the CPU's buffer. */
static int add(uint8_t **buf, size_t *len, size_t *cap, const void *p, size_t n)
{
	if (grow((void **)buf, cap, *len + n, 1))
		return -1;
	memcpy(*buf + *len, p, n);
	*len += n;
	return 0;
}

static void tsc_bytes(uint8_t out[8], uint64_t t)
{
	out[0] = 0x19;
	for (int i = 0; i < 7; i++)
		out[1 + i] = (uint8_t)(t >> (8 * i));
}

/* A piece onto the CPU's buffer: its TSCs on the CPU's clock, its first IP in full. */
static int put_piece(const struct xport_cpu *c, const struct cpu_piece *pc, int full_ip,
		     uint8_t **out, size_t *len, size_t *cap)
{
	const struct cpu_stream *cs = &c->streams[pc->stream];
	struct pt_packet_decoder *dec;
	uint64_t t = pc->time, off = 0, copied = 0, last_ip = pc->last_ip;
	uint8_t tsc[8];
	int status;

	/* Its time first; a piece that begins with a PSB gets it from its PSB+
	   (bytes before the first PSB of a buffer would be lost to decoders). */
	if (cs->buf[pc->from] != 0x02 || pc->to - pc->from < 2 || cs->buf[pc->from + 1] != 0x82) {
		tsc_bytes(tsc, t);
		if (add(out, len, cap, tsc, sizeof(tsc)))
			return -hxe_nomem;
	}
	dec = bytes_decoder(cs, pc->from, pc->to);
	if (!dec)
		return -hxe_nomem;
	if (pt_pkt_sync_set(dec, 0) < 0) {
		pt_pkt_free_decoder(dec);
		return add(out, len, cap, cs->buf + pc->from, pc->to - pc->from) ? -hxe_nomem : 0;
	}
	for (;;) {
		struct pt_packet p;
		uint64_t ip;

		pt_pkt_get_offset(dec, &off);
		status = pt_pkt_next(dec, &p, sizeof(p));
		if (status < 0)
			break;
		if (p.type == ppt_psb || p.type == ppt_ovf) {
			full_ip = 0; /* the stream's own sync point resets IP compression */
			last_ip = 0;
		}
		if (p.type == ppt_tsc) {
			if (add(out, len, cap, cs->buf + pc->from + copied, off - copied))
				goto nomem;
			t += 4;
			tsc_bytes(tsc, t);
			if (add(out, len, cap, tsc, sizeof(tsc)))
				goto nomem;
			copied = off + (uint64_t)status;
			continue;
		}
		if (p.type != ppt_tip && p.type != ppt_tip_pge && p.type != ppt_tip_pgd &&
		    p.type != ppt_fup)
			continue;
		if (hwt_pt_ip_decompress(&last_ip, p.payload.ip.ipc, p.payload.ip.ip, &ip) < 0 ||
		    !full_ip)
			continue;
		/* The first IP after another thread's packets, in full (IPBytes 6). */
		{
			uint8_t pkt[9];

			if (add(out, len, cap, cs->buf + pc->from + copied, off - copied))
				goto nomem;
			pkt[0] = (uint8_t)((cs->buf[pc->from + off] & 0x1f) | (6u << 5));
			for (int i = 0; i < 8; i++)
				pkt[1 + i] = (uint8_t)(ip >> (8 * i));
			if (add(out, len, cap, pkt, sizeof(pkt)))
				goto nomem;
			copied = off + (uint64_t)status;
			full_ip = 0;
		}
	}
	pt_pkt_free_decoder(dec);
	return add(out, len, cap, cs->buf + pc->from + copied, pc->to - pc->from - copied)
		       ? -hxe_nomem : 0;
nomem:
	pt_pkt_free_decoder(dec);
	return -hxe_nomem;
}

static int put_aux(struct hwt_perf_writer *w, const struct xport_cpu *c, const uint8_t *buf,
		   uint64_t at, uint64_t n)
{
	struct hwt_perf_record p;

	memset(&p, 0, sizeof(p));
	p.type = HWT_PERF_RECORD_AUXTRACE;
	p.u.auxtrace.size = n;
	p.u.auxtrace.offset = at;
	p.u.auxtrace.reference = c->q;
	p.u.auxtrace.idx = 0;
	p.u.auxtrace.tid = UINT32_MAX;
	p.u.auxtrace.cpu = 0;
	p.u.auxtrace.data = buf + at;
	p.u.auxtrace.data_size = n;
	return hwt_perf_writer_write(w, &p) ? -hxe_io : 0;
}

int hwt_xport_one_cpu_write(struct xport *x, struct xport_cpu *c, struct hwt_perf_writer *w)
{
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, sent = 0;
	int err = 0;

	for (size_t k = 0; k < c->npieces && !err; k++) {
		const struct cpu_piece *pc = &c->pieces[c->order[k]];
		int other = k && c->pieces[c->order[k - 1]].stream != pc->stream;

		err = put_piece(c, pc, other, &buf, &len, &cap);
		if (!err && len - sent >= AUX_RECORD && k + 1 < c->npieces) {
			err = put_aux(w, c, buf, sent, len - sent);
			sent = len;
		}
	}
	if (!err) {
		size_t padded = (len + 7) & ~(size_t)7;

		if (grow((void **)&buf, &cap, padded + 1, 1))
			err = -hxe_nomem;
		else
			memset(buf + len, 0, padded - len);
		if (!err && padded > sent)
			err = put_aux(w, c, buf, sent, padded - sent);
		x->stats.streams = c->nstreams;
		x->stats.trace_bytes = len;
	}
	free(buf);
	return err;
}
