/*
 * Writes again, with libipt's encoder (pt_enc_next), every stream of a
 * bundle as hardware would have written it with more of its features on
 * than the software trace units use: return compression (a RET to where
 * the matching CALL came from is one taken TNT bit), MTC packets carrying
 * the time (TSC only in PSB+, with TMA), CYC before each MTC, CBR, PIP,
 * VMCS and MODE.TSX in every PSB+, PIP, PWRE, EXSTOP and PWRX where
 * tracing is off, PTW packets where it is on.
 *
 * usage: hw_packets IN_BUNDLE OUT_BUNDLE [kernel]
 * With kernel, the trace goes on into the kernel where the original's
 * stops (a TIP to a kernel address, kernel TNT bits and TIPs, a TIP back
 * instead of TIP.PGD ... TIP.PGE), and interrupts come about every
 * INTERRUPT_PERIOD user instructions (FUP, TIP into the kernel, kernel
 * packets, TIP back), with a PSB+ whose FUP is in the kernel where one is
 * due, as a PMU without exclude_kernel writes it; the header says
 * pt_kernel=1 and pt_streams_kernel=1 (the streams hold it: hwt decodes
 * their user-mode part).
 * OUT_BUNDLE is a copy of IN_BUNDLE (the caller copies it); its streams are
 * replaced and its header gets the keys that describe such a PMU (pt_config
 * with MTC, CYC, return compression; pt_mtc_freq 0; pt_tsc_ctc 1/1): one
 * CTC tick is one step of the bundle's sequence clock, so the time libipt
 * computes from the MTC packets is the original's exactly and every
 * sideband record applies where it did. Decoding OUT_BUNDLE must give IN's
 * counts (tests/perf/run_hw_packets.sh, through perf.data and back): every
 * instruction's and every edge's; libipt's blocks may be cut where the
 * PSB+ events (PIP, VMCS, MODE.TSX) come, which only splits them.
 *
 * The stream is rebuilt from libipt's instruction flow of the original
 * (sideband_image.h gives it the code), so the new packets are the ones
 * that flow needs: a TNT bit per conditional branch and compressed return,
 * a TIP per indirect branch and other return, TIP.PGE / TIP.PGD / FUP for
 * the events. Prints what it wrote.
 */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <intel-pt.h>

#include "hwt_perf_intel_pt.h"
#include "sideband_image.h"
#include "x86_insn.h"

/* What the PMU in the header claims (no errata in libipt for this model). */
#define CPU "GenuineIntel,6,183,1"
#define CONFIG (HWT_PT_CONFIG_PT | HWT_PT_CONFIG_BRANCH | HWT_PT_CONFIG_TSC | HWT_PT_CONFIG_MTC | \
		HWT_PT_CONFIG_CYC | HWT_PT_CONFIG_PWR_EVT | HWT_PT_CONFIG_PTW)
/* A PSB+ about every this many bytes. */
#define PSB_PERIOD 16384
/* Where the kernel code of the kernel variant is (never read: cut out). */
#define KERNEL_ENTRY 0xffffffff81a00000ull

/* The kernel variant: an interrupt before about every this many user instructions. */
#define INTERRUPT_PERIOD 1009

/* Cycles before each MTC: not a power of two, so that libipt's CYC
   calibration never makes a period's time reach the next tick. */
#define CYC_PER_MTC 7

struct counts {
	uint64_t psb, tnt_bits, compressed_rets, tip, pge, pgd, fup, ovf, mtc, cyc, tsc, tma,
		cbr, pip, vmcs, tsx, ptw, pwr, kernel, interrupts, kernel_psb;
};

struct out {
	struct pt_encoder *enc;
	uint8_t *buf;
	size_t size;
	uint64_t last_psb;
	uint64_t tnt, ntnt;         /* pending TNT bits, oldest highest */
	uint64_t time;              /* what libipt computes from what was written */
	uint16_t ctc;
	int have_time;
	uint64_t stack[64];         /* the return compression model (as libipt's) */
	unsigned depth, top;
	int enabled;
	int kernel;                 /* the kernel variant */
	int in_kernel;              /* tracing went on into the kernel */
	uint64_t since_ptw;
	uint64_t since_interrupt;   /* user instructions since the last interrupt */
	struct counts n;
};

static void put(struct out *o, const struct pt_packet *p)
{
	int err = pt_enc_next(o->enc, p);

	if (err < 0) {
		fprintf(stderr, "hw_packets: pt_enc_next: %s\n", pt_errstr(pt_errcode(err)));
		exit(1);
	}
}

static void put_type(struct out *o, enum pt_packet_type type)
{
	struct pt_packet p = { 0 };

	p.type = type;
	put(o, &p);
}

static void flush_tnt(struct out *o)
{
	struct pt_packet p = { 0 };

	if (!o->ntnt)
		return;
	p.type = o->ntnt <= 6 ? ppt_tnt_8 : ppt_tnt_64;
	p.payload.tnt.bit_size = (uint8_t)o->ntnt;
	p.payload.tnt.payload = o->tnt;
	put(o, &p);
	o->tnt = o->ntnt = 0;
}

static void tnt_bit(struct out *o, int taken)
{
	o->tnt = o->tnt << 1 | (taken ? 1u : 0u);
	o->n.tnt_bits++;
	if (++o->ntnt == 47)
		flush_tnt(o);
}

static void put_ip(struct out *o, enum pt_packet_type type, uint64_t ip, int suppressed)
{
	struct pt_packet p = { 0 };

	flush_tnt(o);
	p.type = type;
	p.payload.ip.ipc = suppressed ? pt_ipc_suppressed : pt_ipc_sext_48;
	p.payload.ip.ip = ip;
	put(o, &p);
}

static void reset_stack(struct out *o)
{
	o->depth = o->top = 0;
}

/* PSB+: time (TSC, TMA), CBR, PIP, VMCS, modes, FUP when tracing is on. */
static void psb_plus(struct out *o, int enabled, uint64_t ip)
{
	struct pt_packet p;

	flush_tnt(o);
	put_type(o, ppt_psb);
	memset(&p, 0, sizeof(p));
	p.type = ppt_tsc;
	p.payload.tsc.tsc = o->time;
	put(o, &p);
	memset(&p, 0, sizeof(p));
	p.type = ppt_tma;
	p.payload.tma.ctc = o->ctc;
	p.payload.tma.fc = 0;
	put(o, &p);
	memset(&p, 0, sizeof(p));
	p.type = ppt_cbr;
	p.payload.cbr.ratio = 42;
	put(o, &p);
	memset(&p, 0, sizeof(p));
	p.type = ppt_pip;
	p.payload.pip.cr3 = 0x1234000;
	put(o, &p);
	memset(&p, 0, sizeof(p));
	p.type = ppt_vmcs;
	p.payload.vmcs.base = 0x5678000;
	put(o, &p);
	memset(&p, 0, sizeof(p));
	p.type = ppt_mode;
	p.payload.mode.leaf = pt_mol_exec;
	p.payload.mode.bits.exec.csl = 1;
	put(o, &p);
	memset(&p, 0, sizeof(p));
	p.type = ppt_mode;
	p.payload.mode.leaf = pt_mol_tsx;
	put(o, &p);
	if (enabled) {
		memset(&p, 0, sizeof(p));
		p.type = ppt_fup;
		p.payload.ip.ipc = pt_ipc_sext_48;
		p.payload.ip.ip = ip;
		put(o, &p);
		o->n.fup++;
	}
	put_type(o, ppt_psbend);
	pt_enc_get_offset(o->enc, &o->last_psb);
	reset_stack(o);
	o->n.psb++;
	o->n.tsc++;
	o->n.tma++;
	o->n.cbr++;
	o->n.pip++;
	o->n.vmcs++;
	o->n.tsx++;
}

/* The clock to time t: one CYC and one MTC per tick. */
static void set_time(struct out *o, uint64_t t)
{
	if (!o->have_time) {
		o->time = t;
		o->have_time = 1;
		return;
	}
	if (t <= o->time)
		return;
	flush_tnt(o);
	while (o->time < t) {
		struct pt_packet p = { 0 };

		p.type = ppt_cyc;
		p.payload.cyc.value = CYC_PER_MTC;
		put(o, &p);
		memset(&p, 0, sizeof(p));
		o->ctc++;
		p.type = ppt_mtc;
		p.payload.mtc.ctc = (uint8_t)o->ctc;
		put(o, &p);
		o->time++;
		o->n.cyc++;
		o->n.mtc++;
	}
}

/* What hardware writes while tracing is off: paging and power events. */
static void off_packets(struct out *o)
{
	struct pt_packet p = { 0 };

	/* (No MWAIT: it binds to the FUP of an MWAIT instruction, which needs
	   tracing on; libipt fails on one while it is off.) */
	p.type = ppt_pip;
	p.payload.pip.cr3 = 0x1234000;
	put(o, &p);
	memset(&p, 0, sizeof(p));
	p.type = ppt_pwre;
	p.payload.pwre.state = 2;
	put(o, &p);
	put_type(o, ppt_exstop);
	memset(&p, 0, sizeof(p));
	p.type = ppt_pwrx;
	p.payload.pwrx.last = 2;
	p.payload.pwrx.deepest = 2;
	p.payload.pwrx.interrupt = 1;
	put(o, &p);
	o->n.pip++;
	o->n.pwr += 3;
}

/* Kernel code with tracing on: TNT bits, TIPs (one compressed against
   the kernel IP before it), now and then a PSB+ whose FUP is in the kernel. */
static void kernel_body(struct out *o)
{
	struct pt_packet p = { 0 };
	uint64_t len = 0;

	for (int i = 0; i < 9; i++)
		tnt_bit(o, i & 1);
	put_ip(o, ppt_tip, KERNEL_ENTRY + 0x1234, 0);
	flush_tnt(o);
	p.type = ppt_tip;
	p.payload.ip.ipc = pt_ipc_update_16;
	p.payload.ip.ip = 0x5678;
	put(o, &p);
	tnt_bit(o, 1);
	pt_enc_get_offset(o->enc, &len);
	if (len - o->last_psb > PSB_PERIOD / 2) {
		/* Sooner than in user code, so that kernel parts have some.
		   (The PSB+ empties the return stack: so does the model.) */
		psb_plus(o, 1, KERNEL_ENTRY + 0x5678);
		o->n.kernel_psb++;
	}
	tnt_bit(o, 0);
	flush_tnt(o);
}

/* Tracing leaves user mode: TIP.PGD, or on into the kernel (the variant). */
static void leave_user(struct out *o, uint64_t ip, int suppressed)
{
	if (!o->kernel) {
		put_ip(o, ppt_tip_pgd, ip, suppressed);
		o->n.pgd++;
		return;
	}
	put_ip(o, ppt_tip, KERNEL_ENTRY, 0);
	kernel_body(o);
	o->in_kernel = 1;
	o->n.kernel++;
}

/*
 * An interrupt in user code before the instruction at ip (the kernel
 * variant): FUP ip, TIP into the kernel, the handler, TIP back to ip
 * (iret), all with tracing on, as hardware writes it.
 */
static void interrupt(struct out *o, uint64_t ip)
{
	put_ip(o, ppt_fup, ip, 0);
	put_ip(o, ppt_tip, KERNEL_ENTRY + 0x800, 0);
	kernel_body(o);
	put_ip(o, ppt_tip, ip, 0);
	o->n.fup++;
	o->n.interrupts++;
	/* (The decoder of the cut stream starts its return stack afresh.) */
	reset_stack(o);
}

/* The outcome of the instruction before the one at next (or of an event at next). */
static void finish(struct out *o, const struct pt_insn *prev, uint64_t next)
{
	struct hwt_x86_insn x;
	uint64_t fall = prev->ip + prev->size;

	switch (prev->iclass) {
	case ptic_cond_jump:
		tnt_bit(o, next != fall);
		break;
	case ptic_call:
		if (hwt_x86_insn_decode(prev->raw, prev->size, &x) > 0 &&
		    x.branch == HWT_X86_CALL_INDIRECT) {
			put_ip(o, ppt_tip, next, 0);
			o->n.tip++;
		}
		o->top = (o->top + 1) % 64;
		o->stack[o->top] = fall;
		if (o->depth < 64)
			o->depth++;
		break;
	case ptic_return:
		if (o->depth && o->stack[o->top] == next) {
			tnt_bit(o, 1);
			o->top = (o->top + 63) % 64;
			o->depth--;
			o->n.compressed_rets++;
		} else {
			put_ip(o, ppt_tip, next, 0);
			o->n.tip++;
		}
		break;
	case ptic_jump:
		if (hwt_x86_insn_decode(prev->raw, prev->size, &x) > 0 &&
		    x.branch == HWT_X86_JUMP_INDIRECT) {
			put_ip(o, ppt_tip, next, 0);
			o->n.tip++;
		}
		break;
	default:
		break;
	}
}

static int reencode(const char *in_dir, const char *out_dir, const char *name, struct image *img,
		    int kernel, struct counts *total)
{
	char path[4096];
	size_t size;
	uint8_t *pt;
	struct pt_config config;
	struct pt_insn_decoder *dec;
	struct pt_insn prev;
	struct out o;
	int have_prev = 0, status, started = 0;
	FILE *f;
	uint64_t len = 0;

	snprintf(path, sizeof(path), "%s/streams/%s", in_dir, name);
	pt = read_file(path, &size);
	if (!pt)
		return -1;
	memset(&o, 0, sizeof(o));
	o.kernel = kernel;
	o.size = size * 16 + 65536;
	o.buf = calloc(1, o.size);
	pt_config_init(&config);
	config.begin = o.buf;
	config.end = o.buf + o.size;
	o.enc = pt_alloc_encoder(&config);
	pt_config_init(&config);
	config.begin = pt;
	config.end = pt + size;
	dec = pt_insn_alloc_decoder(&config);
	if (!o.buf || !o.enc || !dec)
		return -1;
	pt_image_set_callback(pt_insn_get_image(dec), read_memory, img);
	img->now = 0;
	status = pt_insn_sync_forward(dec);
	while (status >= 0) {
		struct pt_insn insn;
		uint32_t lost_mtc, lost_cyc;
		uint64_t t = 0;

		while (status & pts_event_pending) {
			struct pt_event ev;

			status = pt_insn_event(dec, &ev, sizeof(ev));
			if (status < 0)
				break;
			pt_insn_time(dec, &t, &lost_mtc, &lost_cyc);
			img->now = t;
			if (!started) {
				o.time = t;
				o.have_time = 1;
				psb_plus(&o, 0, 0);
				started = 1;
			}
			switch (ev.type) {
			case ptev_enabled:
				off_packets(&o);
				set_time(&o, t);
				{
					struct pt_packet p = { 0 };

					p.type = ppt_mode;
					p.payload.mode.leaf = pt_mol_exec;
					p.payload.mode.bits.exec.csl = 1;
					put(&o, &p);
				}
				/* Back from the kernel (the variant) or tracing on again. */
				put_ip(&o, o.in_kernel ? ppt_tip : ppt_tip_pge, ev.variant.enabled.ip, 0);
				o.in_kernel = 0;
				o.n.pge++;
				o.enabled = 1;
				have_prev = 0;
				break;
			case ptev_disabled:
				set_time(&o, t);
				leave_user(&o, ev.variant.disabled.ip, ev.ip_suppressed);
				o.enabled = 0;
				have_prev = 0;
				reset_stack(&o);
				break;
			case ptev_async_disabled:
				if (have_prev)
					finish(&o, &prev, ev.variant.async_disabled.at);
				set_time(&o, t);
				put_ip(&o, ppt_fup, ev.variant.async_disabled.at, 0);
				leave_user(&o, ev.variant.async_disabled.ip, ev.ip_suppressed);
				o.n.fup++;
				o.enabled = 0;
				have_prev = 0;
				reset_stack(&o);
				break;
			case ptev_async_branch:
				if (have_prev)
					finish(&o, &prev, ev.variant.async_branch.from);
				put_ip(&o, ppt_fup, ev.variant.async_branch.from, 0);
				put_ip(&o, ppt_tip, ev.variant.async_branch.to, 0);
				o.n.fup++;
				o.n.tip++;
				have_prev = 0;
				break;
			case ptev_overflow:
				flush_tnt(&o);
				put_type(&o, ppt_ovf);
				o.n.ovf++;
				if (!ev.ip_suppressed) {
					put_ip(&o, ppt_fup, ev.variant.overflow.ip, 0);
					o.n.fup++;
				}
				o.enabled = !ev.ip_suppressed;
				have_prev = 0;
				reset_stack(&o);
				break;
			default:
				break;
			}
		}
		if (status < 0)
			break;
		status = pt_insn_next(dec, &insn, sizeof(insn));
		if (status < 0)
			break;
		pt_insn_time(dec, &t, &lost_mtc, &lost_cyc);
		img->now = t;
		if (!started) {
			/* Synchronised with tracing on: a PSB+ with its FUP. */
			o.time = t;
			o.have_time = 1;
			psb_plus(&o, 1, insn.ip);
			started = 1;
			o.enabled = 1;
		}
		/* The time moved while the decoder read the outcome of prev. */
		set_time(&o, t);
		if (have_prev)
			finish(&o, &prev, insn.ip);
		if (o.kernel && ++o.since_interrupt >= INTERRUPT_PERIOD) {
			interrupt(&o, insn.ip);
			o.since_interrupt = 0;
		}
		pt_enc_get_offset(o.enc, &len);
		if (len - o.last_psb > PSB_PERIOD)
			psb_plus(&o, 1, insn.ip);
		else if (++o.since_ptw >= 997) {
			/* A PTW bound to no PTWRITE: the import must drop it. */
			struct pt_packet p = { 0 };

			flush_tnt(&o);
			p.type = ppt_ptw;
			p.payload.ptw.plc = 1;
			p.payload.ptw.payload = 0x1122334455667788ull;
			put(&o, &p);
			o.n.ptw++;
			o.since_ptw = 0;
		}
		prev = insn;
		have_prev = 1;
	}
	flush_tnt(&o);
	pt_enc_get_offset(o.enc, &len);
	snprintf(path, sizeof(path), "%s/streams/%s", out_dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(o.buf, 1, (size_t)len, f) != len || fclose(f))
		return -1;
	total->psb += o.n.psb;
	total->tnt_bits += o.n.tnt_bits;
	total->compressed_rets += o.n.compressed_rets;
	total->tip += o.n.tip;
	total->pge += o.n.pge;
	total->pgd += o.n.pgd;
	total->fup += o.n.fup;
	total->ovf += o.n.ovf;
	total->mtc += o.n.mtc;
	total->cyc += o.n.cyc;
	total->tsc += o.n.tsc;
	total->tma += o.n.tma;
	total->cbr += o.n.cbr;
	total->pip += o.n.pip;
	total->vmcs += o.n.vmcs;
	total->tsx += o.n.tsx;
	total->ptw += o.n.ptw;
	total->pwr += o.n.pwr;
	total->kernel += o.n.kernel;
	total->interrupts += o.n.interrupts;
	total->kernel_psb += o.n.kernel_psb;
	pt_insn_free_decoder(dec);
	pt_free_encoder(o.enc);
	free(o.buf);
	free(pt);
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

int main(int argc, char **argv)
{
	char path[4096];
	struct dirent **names;
	struct counts n = { 0 };
	int count, failed = 0, kernel = argc == 4 && !strcmp(argv[3], "kernel");
	FILE *h;

	if (argc != 3 && !kernel) {
		fprintf(stderr, "usage: hw_packets IN_BUNDLE OUT_BUNDLE [kernel]\n");
		return 2;
	}
	bundle_dir = argv[1];
	snprintf(path, sizeof(path), "%s/streams", argv[1]);
	count = scandir(path, &names, NULL, by_name);
	if (count < 0)
		return 2;
	for (int i = 0; i < count; i++) {
		const char *name = names[i]->d_name;
		const char *dash = strrchr(name, '-');
		struct image img = { 0 };

		if (name[0] != '.' && dash) {
			snprintf(path, sizeof(path), "%s/sideband/%.*s.sb", argv[1],
				 (int)(dash - name), name);
			if (image_load(&img, path) < 0 || reencode(argv[1], argv[2], name, &img, kernel, &n) < 0) {
				fprintf(stderr, "hw_packets: %s: cannot write it again\n", name);
				failed = 1;
			}
			image_free(&img);
		}
		free(names[i]);
	}
	free(names);
	snprintf(path, sizeof(path), "%s/hwt-bundle", argv[2]);
	h = fopen(path, "a");
	if (!h || fprintf(h, "pt_cpu=%s\npt_config=%#llx\npt_mtc_freq=0\npt_tsc_ctc=1/1\n%s", CPU,
			  (unsigned long long)CONFIG, kernel ? "pt_kernel=1\npt_streams_kernel=1\n" : "") < 0 ||
	    fclose(h))
		failed = 1;
	printf("hw_packets: %" PRIu64 " PSB+ (each with TSC, TMA, CBR, PIP, VMCS, MODE.TSX), %"
	       PRIu64 " TNT bits of which %" PRIu64 " compressed returns, %" PRIu64 " TIP, %" PRIu64
	       " TIP.PGE, %" PRIu64 " TIP.PGD, %" PRIu64 " FUP, %" PRIu64 " MTC, %" PRIu64 " CYC, %"
	       PRIu64 " PIP, %" PRIu64 " PTW, %" PRIu64 " power events, %" PRIu64 " OVF, %" PRIu64
	       " stays in the kernel, %" PRIu64 " interrupts, %" PRIu64 " PSB+ in the kernel\n",
	       n.psb, n.tnt_bits, n.compressed_rets, n.tip, n.pge, n.pgd, n.fup, n.mtc, n.cyc, n.pip,
	       n.ptw, n.pwr, n.ovf, n.kernel, n.interrupts, n.kernel_psb);
	return failed;
}
