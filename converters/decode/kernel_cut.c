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

int hwt_kernel_cut(const uint8_t *buf, size_t size, uint8_t **out, size_t *out_size,
		   uint64_t *kernel_bytes)
{
	struct pt_packet_decoder *dec;
	struct pt_config config;
	struct cut c = { 0 };
	enum ring ring = ring_unknown;
	int in_psb = 0, psb_fup = 0, after_ovf = 0;
	uint64_t off = 0;

	*out = NULL;
	*out_size = 0;
	*kernel_bytes = 0;
	pt_config_init(&config);
	config.begin = (uint8_t *)buf;
	config.end = (uint8_t *)buf + size;
	dec = pt_pkt_alloc_decoder(&config);
	c.cap = size + size / 8 + 64;
	c.out = malloc(c.cap);
	if (!dec || !c.out) {
		pt_pkt_free_decoder(dec);
		free(c.out);
		return -hbe_nomem;
	}
	/* Bytes before the first PSB: copied for the decoder to report. */
	if (pt_pkt_sync_forward(dec) < 0)
		off = size;
	else
		pt_pkt_get_sync_offset(dec, &off);
	put(&c, buf, (size_t)off);
	while (off < size && !c.nomem) {
		struct pt_packet p;
		const uint8_t *raw = buf + off;
		uint64_t before = c.in_last_ip, ip = 0, next;
		int status, suppressed = 1, kernel = 0;

		status = pt_pkt_next(dec, &p, sizeof(p));
		if (status == -pte_eos)
			break;
		if (status < 0) {
			/* Not packets: copied up to the next PSB, where the walk resumes. */
			next = size;
			if (pt_pkt_sync_forward(dec) >= 0)
				pt_pkt_get_sync_offset(dec, &next);
			put(&c, raw, (size_t)(next - off));
			off = next;
			ring = ring_unknown;
			in_psb = after_ovf = 0;
			c.in_last_ip = c.out_last_ip = 0;
			continue;
		}
		next = off + (uint64_t)status;
		switch (p.type) {
		case ppt_tip:
		case ppt_tip_pge:
		case ppt_tip_pgd:
		case ppt_fup:
			suppressed = hwt_pt_ip_decompress(&c.in_last_ip, p.payload.ip.ipc,
							  p.payload.ip.ip, &ip) < 0;
			kernel = !suppressed && is_kernel(ip);
			break;
		default:
			break;
		}
		switch (p.type) {
		case ppt_psb:
			in_psb = 1;
			psb_fup = 0;
			c.in_last_ip = c.out_last_ip = 0;
			put(&c, raw, (size_t)status);
			break;
		case ppt_psbend:
			if (in_psb && !psb_fup)
				ring = ring_off; /* no FUP: tracing is off */
			in_psb = 0;
			put(&c, raw, (size_t)status);
			break;
		case ppt_fup:
			if (in_psb || after_ovf) {
				/* Where tracing is: the PSB+'s or the overflow's FUP. */
				psb_fup = in_psb && !suppressed;
				after_ovf = 0;
				ring = kernel ? ring_kernel : suppressed ? ring_off : ring_user;
			}
			if (ring == ring_user && !kernel)
				copy_ip(&c, raw, (size_t)status, 0x1d, before, ip, suppressed);
			else
				c.kernel_bytes += (uint64_t)status;
			break;
		case ppt_tip:
			if (ring == ring_kernel && !suppressed && !kernel) {
				/* Back in user code: tracing (re)starts there. */
				if (c.have_mode)
					put(&c, c.mode, 2);
				c.kernel_bytes += (uint64_t)status;
				put_ip(&c, 0x11, ip, 0);
				ring = ring_user;
			} else if (ring != ring_kernel && kernel) {
				/* Into the kernel: tracing stops here, as far as the decoder knows. */
				c.kernel_bytes += (uint64_t)status;
				put_ip(&c, 0x01, 0, 1);
				c.have_mode = 0;
				ring = ring_kernel;
			} else if (ring == ring_kernel) {
				c.kernel_bytes += (uint64_t)status;
			} else {
				copy_ip(&c, raw, (size_t)status, 0x0d, before, ip, suppressed);
			}
			break;
		case ppt_tip_pge:
			after_ovf = 0;
			if (kernel) {
				c.kernel_bytes += (uint64_t)status;
				c.have_mode = 0;
				ring = ring_kernel;
			} else {
				if (ring == ring_kernel && c.have_mode)
					put(&c, c.mode, 2);
				copy_ip(&c, raw, (size_t)status, 0x11, before, ip, suppressed);
				ring = ring_user;
			}
			break;
		case ppt_tip_pgd:
			if (ring == ring_kernel)
				c.kernel_bytes += (uint64_t)status;
			else
				copy_ip(&c, raw, (size_t)status, 0x01, before, ip, suppressed);
			ring = ring_off;
			break;
		case ppt_ovf:
			/* Trace was dropped: the FUP after it says where tracing is. */
			after_ovf = 1;
			ring = ring_unknown;
			put(&c, raw, (size_t)status);
			break;
		case ppt_mode:
			if (ring == ring_kernel && !in_psb) {
				if (p.payload.mode.leaf == pt_mol_exec && status == 2) {
					memcpy(c.mode, raw, 2);
					c.have_mode = 1;
				}
				c.kernel_bytes += (uint64_t)status;
			} else {
				put(&c, raw, (size_t)status);
			}
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
			put(&c, raw, (size_t)status);
			break;
		default:
			/* TNT, PIP, VMCS, PTW, power events: the kernel's are left out. */
			if (ring == ring_kernel && !in_psb)
				c.kernel_bytes += (uint64_t)status;
			else
				put(&c, raw, (size_t)status);
			break;
		}
		off = next;
	}
	pt_pkt_free_decoder(dec);
	/* A packet cut at the end: copied, for the decoder to report. */
	if (off < size)
		put(&c, buf + off, (size_t)(size - off));
	if (c.nomem) {
		free(c.out);
		return -hbe_nomem;
	}
	*out = c.out;
	*out_size = c.len;
	*kernel_bytes = c.kernel_bytes;
	return 0;
}
