/*
 * The user-mode trace of an Intel PT stream that has kernel-mode trace too
 * (a PMU without exclude_kernel, not cut out by an import: the bundle's
 * header says pt_streams_kernel=1).
 *
 * Such a stream changes rings with tracing on: a TIP into kernel code (a
 * system call, or after the FUP of an interrupt or exception), kernel TNT
 * and TIPs, PSB+ whose FUP is in the kernel, and a TIP back to user code
 * (sysret, iret), with no TIP.PGD or TIP.PGE at the change. The kernel's
 * code is not in the bundle, so the decoders cannot follow it: the cut
 * writes the stream as a PMU tracing user mode only would have. The TIP
 * into the kernel becomes TIP.PGD (after an interrupt's FUP, libipt's
 * asynchronous disable), the TIP back TIP.PGE (after the last MODE.Exec
 * the kernel part had), a kernel FUP of a PSB+ is left out (the PSB+ then
 * says tracing is off), and every other packet of a kernel part but the
 * timing ones (TSC, TMA, MTC, CYC, CBR) and PSB+ is left out and counted
 * as kernel trace. User parts are copied byte for byte, an IP packet in
 * full where the IP it was compressed against was in the kernel; PTW
 * packets are left out everywhere, as the import of perf.data does.
 * Bytes that are not packets are copied as they are up to the next PSB,
 * so that the decoder reports them as it does in any stream.
 */
#include <stdlib.h>
#include <string.h>

#include <intel-pt.h>

#include "decode_int.h"
#include "pt_encoder.h"

/* Canonical kernel addresses of x86-64 Linux: the upper half. */
#define KERNEL_START 0xffff800000000000ull

static int is_kernel(uint64_t ip)
{
	return ip >= KERNEL_START;
}

struct cut {
	uint8_t *out;
	size_t len, cap;
	uint64_t in_last_ip, out_last_ip; /* the IP compression state of each */
	uint8_t mode[2];                  /* the kernel part's last MODE.Exec */
	int have_mode;
	uint64_t kernel_bytes;
	int nomem;
};

static void put(struct cut *c, const uint8_t *p, size_t n)
{
	if (c->nomem)
		return;
	if (c->len + n > c->cap) {
		size_t cap = c->cap * 2 + n;
		uint8_t *q = realloc(c->out, cap);

		if (!q) {
			c->nomem = 1;
			return;
		}
		c->out = q;
		c->cap = cap;
	}
	memcpy(c->out + c->len, p, n);
	c->len += n;
}

/* An IP packet of opcode (TIP 0x0d, TIP.PGE 0x11, TIP.PGD 0x01, FUP 0x1d)
   with ip sign-extended from 48 bits, or suppressed. */
static void put_ip(struct cut *c, uint8_t opcode, uint64_t ip, int suppressed)
{
	uint8_t p[7];

	if (suppressed) {
		p[0] = opcode;
		put(c, p, 1);
		return;
	}
	p[0] = (uint8_t)(3u << 5 | opcode);
	for (int i = 0; i < 6; i++)
		p[1 + i] = (uint8_t)(ip >> (8 * i));
	put(c, p, 7);
	c->out_last_ip = ip;
}

/* A user-mode IP packet: as it is, or in full where the IP compression
   it was written with no longer holds in the output. */
static void copy_ip(struct cut *c, const uint8_t *raw, size_t n, uint8_t opcode, uint64_t before,
		    uint64_t ip, int suppressed)
{
	if (suppressed || before == c->out_last_ip) {
		put(c, raw, n);
		if (!suppressed)
			c->out_last_ip = ip;
		return;
	}
	put_ip(c, opcode, ip, 0);
}

enum ring { ring_unknown, ring_user, ring_kernel, ring_off };

/* Where the walk of the input is: the ring it traces, inside a PSB+ (with
   a FUP or not), after an OVF (its FUP says where tracing resumes). */
struct cut_walk {
	struct cut c;
	enum ring ring;
	int in_psb, psb_fup, after_ovf;
};

/* One packet of the input: its bytes, and for an IP packet the IP, with
   the IP compression state before it. */
struct in_packet {
	const uint8_t *raw;
	size_t len;
	uint64_t before, ip;
	int suppressed, kernel;
};

/* A FUP: of a PSB+ or an OVF, it says where tracing is; a kernel one is left out. */
static void cut_fup(struct cut_walk *cw, const struct in_packet *in)
{
	if (cw->in_psb || cw->after_ovf) {
		cw->psb_fup = cw->in_psb && !in->suppressed;
		cw->after_ovf = 0;
		cw->ring = in->kernel ? ring_kernel : in->suppressed ? ring_off : ring_user;
	}
	if (cw->ring == ring_user && !in->kernel)
		copy_ip(&cw->c, in->raw, in->len, 0x1d, in->before, in->ip, in->suppressed);
	else
		cw->c.kernel_bytes += in->len;
}

/* A TIP: one that changes rings becomes TIP.PGE or TIP.PGD. */
static void cut_tip(struct cut_walk *cw, const struct in_packet *in)
{
	struct cut *c = &cw->c;

	if (cw->ring == ring_kernel && !in->suppressed && !in->kernel) {
		/* Back in user code: tracing (re)starts there. */
		if (c->have_mode)
			put(c, c->mode, 2);
		c->kernel_bytes += in->len;
		put_ip(c, 0x11, in->ip, 0);
		cw->ring = ring_user;
	} else if (cw->ring != ring_kernel && in->kernel) {
		/* Into the kernel: tracing stops here, as far as the decoder knows. */
		c->kernel_bytes += in->len;
		put_ip(c, 0x01, 0, 1);
		c->have_mode = 0;
		cw->ring = ring_kernel;
	} else if (cw->ring == ring_kernel) {
		c->kernel_bytes += in->len;
	} else {
		copy_ip(c, in->raw, in->len, 0x0d, in->before, in->ip, in->suppressed);
	}
}

static void cut_tip_pge(struct cut_walk *cw, const struct in_packet *in)
{
	struct cut *c = &cw->c;

	cw->after_ovf = 0;
	if (in->kernel) {
		c->kernel_bytes += in->len;
		c->have_mode = 0;
		cw->ring = ring_kernel;
		return;
	}
	if (cw->ring == ring_kernel && c->have_mode)
		put(c, c->mode, 2);
	copy_ip(c, in->raw, in->len, 0x11, in->before, in->ip, in->suppressed);
	cw->ring = ring_user;
}

static void cut_tip_pgd(struct cut_walk *cw, const struct in_packet *in)
{
	if (cw->ring == ring_kernel)
		cw->c.kernel_bytes += in->len;
	else
		copy_ip(&cw->c, in->raw, in->len, 0x01, in->before, in->ip, in->suppressed);
	cw->ring = ring_off;
}

/* A MODE: the kernel part's last MODE.Exec is kept for the TIP.PGE back. */
static void cut_mode(struct cut_walk *cw, const struct pt_packet *p, const struct in_packet *in)
{
	if (cw->ring != ring_kernel || cw->in_psb) {
		put(&cw->c, in->raw, in->len);
		return;
	}
	if (p->payload.mode.leaf == pt_mol_exec && in->len == 2) {
		memcpy(cw->c.mode, in->raw, 2);
		cw->c.have_mode = 1;
	}
	cw->c.kernel_bytes += in->len;
}

/* Packet p, of in->len bytes at in->raw, into the output. */
static void cut_packet(struct cut_walk *cw, const struct pt_packet *p, struct in_packet *in)
{
	struct cut *c = &cw->c;

	in->before = c->in_last_ip;
	in->suppressed = 1;
	in->kernel = 0;
	if (p->type == ppt_tip || p->type == ppt_tip_pge || p->type == ppt_tip_pgd ||
	    p->type == ppt_fup) {
		in->suppressed = hwt_pt_ip_decompress(&c->in_last_ip, p->payload.ip.ipc,
						      p->payload.ip.ip, &in->ip) < 0;
		in->kernel = !in->suppressed && is_kernel(in->ip);
	}
	switch (p->type) {
	case ppt_psb:
		cw->in_psb = 1;
		cw->psb_fup = 0;
		c->in_last_ip = c->out_last_ip = 0;
		put(c, in->raw, in->len);
		break;
	case ppt_psbend:
		if (cw->in_psb && !cw->psb_fup)
			cw->ring = ring_off; /* no FUP: tracing is off */
		cw->in_psb = 0;
		put(c, in->raw, in->len);
		break;
	case ppt_fup:
		cut_fup(cw, in);
		break;
	case ppt_tip:
		cut_tip(cw, in);
		break;
	case ppt_tip_pge:
		cut_tip_pge(cw, in);
		break;
	case ppt_tip_pgd:
		cut_tip_pgd(cw, in);
		break;
	case ppt_ovf:
		/* Trace was dropped: the FUP after it says where tracing is. */
		cw->after_ovf = 1;
		cw->ring = ring_unknown;
		put(c, in->raw, in->len);
		break;
	case ppt_mode:
		cut_mode(cw, p, in);
		break;
	case ppt_ptw:
		/* Left out, as the import does (collector/perf/split.c): nothing
		   hwt reports uses PTWRITE's payloads. */
		break;
	case ppt_tsc:
	case ppt_tma:
	case ppt_mtc:
	case ppt_cyc:
	case ppt_cbr:
	case ppt_pad:
		put(c, in->raw, in->len);
		break;
	default:
		/* TNT, PIP, VMCS, PTW, power events: the kernel's are left out. */
		if (cw->ring == ring_kernel && !cw->in_psb)
			c->kernel_bytes += in->len;
		else
			put(c, in->raw, in->len);
		break;
	}
}

/* Bytes at off that are not packets: copied up to the next PSB, where the
   walk resumes. Returns that offset (size: none). */
static uint64_t cut_damage(struct cut_walk *cw, struct pt_packet_decoder *dec,
			   const uint8_t *buf, uint64_t off, size_t size)
{
	uint64_t next = size;

	if (pt_pkt_sync_forward(dec) >= 0)
		pt_pkt_get_sync_offset(dec, &next);
	put(&cw->c, buf + off, (size_t)(next - off));
	cw->ring = ring_unknown;
	cw->in_psb = cw->after_ovf = 0;
	cw->c.in_last_ip = cw->c.out_last_ip = 0;
	return next;
}

/* The packets of buf from its first PSB on into the output. */
static void cut_packets(struct cut_walk *cw, struct pt_packet_decoder *dec, const uint8_t *buf,
			size_t size)
{
	uint64_t off = 0;

	/* Bytes before the first PSB: copied for the decoder to report. */
	if (pt_pkt_sync_forward(dec) < 0)
		off = size;
	else
		pt_pkt_get_sync_offset(dec, &off);
	put(&cw->c, buf, (size_t)off);
	while (off < size && !cw->c.nomem) {
		struct pt_packet p;
		struct in_packet in = { .raw = buf + off };
		int status = pt_pkt_next(dec, &p, sizeof(p));

		if (status == -pte_eos)
			break;
		if (status < 0) {
			off = cut_damage(cw, dec, buf, off, size);
			continue;
		}
		in.len = (size_t)status;
		cut_packet(cw, &p, &in);
		off += (uint64_t)status;
	}
	/* A packet cut at the end: copied, for the decoder to report. */
	if (off < size)
		put(&cw->c, buf + off, (size_t)(size - off));
}

int hwt_kernel_cut(const uint8_t *buf, size_t size, uint8_t **out, size_t *out_size,
		   uint64_t *kernel_bytes)
{
	struct pt_packet_decoder *dec;
	struct pt_config config;
	struct cut_walk cw = { .ring = ring_unknown };

	*out = NULL;
	*out_size = 0;
	*kernel_bytes = 0;
	pt_config_init(&config);
	config.begin = (uint8_t *)buf;
	config.end = (uint8_t *)buf + size;
	dec = pt_pkt_alloc_decoder(&config);
	cw.c.cap = size + size / 8 + 64;
	cw.c.out = malloc(cw.c.cap);
	if (!dec || !cw.c.out) {
		pt_pkt_free_decoder(dec);
		free(cw.c.out);
		return -hbe_nomem;
	}
	cut_packets(&cw, dec, buf, size);
	pt_pkt_free_decoder(dec);
	if (cw.c.nomem) {
		free(cw.c.out);
		return -hbe_nomem;
	}
	*out = cw.c.out;
	*out_size = cw.c.len;
	*kernel_bytes = cw.c.kernel_bytes;
	return 0;
}
