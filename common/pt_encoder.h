/*
 * Intel PT packet encoder (Intel SDM vol. 3C, chapter "Intel Processor
 * Trace", packet definitions).
 *
 * Libc-free: compiled into hwt.ko, the Valgrind tool and user space. The
 * encoder writes into a caller-owned buffer and never allocates. It keeps
 * the state that packet encoding depends on: the last IP (for IP
 * compression) and the pending TNT bits, so that the stream it writes is
 * one that a hardware unit with return compression off could have written.
 *
 * Buffer discipline: no call ever needs more than HWT_PT_MAX_WRITE free
 * bytes. Callers check hwt_pt_encoder_space() and drain the buffer before
 * a call when less is left. A call that needs more than the free space
 * writes nothing, changes no encoder state and returns HWT_PT_ERR_NOSPACE;
 * calls that need no bytes (hwt_pt_tnt below a full packet) succeed even
 * on a full buffer.
 *
 * What follows the SDM (and hardware):
 * - packet formats: PSB (02 82 x8), PSBEND (02 23), MODE.Exec (99, then
 *   CS.D in bit 1, CS.L in bit 0), short TNT (1 byte, 1..6 bits), long
 *   TNT (02 A3 + 6 bytes, 1..47 bits), TIP (0D), TIP.PGE (11),
 *   TIP.PGD (01), FUP (1D) with IPBytes in bits 7:5, OVF (02 F3),
 *   PAD (00), TSC (19 + TSC[55:0]), CYC (variable length);
 * - TNT bits: the oldest branch sits just below the stop bit;
 * - pending TNT bits are written before any TIP, TIP.PGE, TIP.PGD, FUP,
 *   PSB or OVF, so packet order is branch order; also before MODE.Exec,
 *   which must immediately precede its TIP or TIP.PGE;
 * - PSB resets the last IP to 0 in encoder and decoder; an IP after it is
 *   compressed against 0 where that is shorter (SDM allows both);
 * - PSB+ is PSB, TSC (optional), and only when PacketEn=1 MODE.Exec and
 *   FUP(ip), then PSBEND (the SDM sends MODE.Exec in PSB+ only with
 *   PacketEn=1);
 * - TIP.PGE is preceded by MODE.Exec when no MODE.Exec was written since
 *   the last PSB, as the SDM's packet generation tables do (and since the
 *   last OVF, see below);
 * - a suppressed IP (IPBytes 000) leaves the last IP unchanged.
 *
 * What is our choice (hardware may differ, decoders accept both):
 * - hwt_pt_tnt packs up to 47 bits and writes a long TNT as soon as 47
 *   are pending; a flush writes a short TNT for 1..6 pending bits and a
 *   long TNT for 7..46;
 * - IP compression picks the shortest IPBytes form that reproduces the IP
 *   from the last IP: 001 (2 bytes), 010 (4), then 011 (6, sign-extended)
 *   when the IP is canonical, 100 (6, update low 48) otherwise, then 110
 *   (8). 000 (suppressed) is never used for an IP the caller gave;
 * - OVF resets the last IP to 0 (libipt does so on OVF) and the next IP
 *   packet uses a form that does not depend on the last IP (011 or 110),
 *   so it decodes the same whether or not a decoder resets on OVF; OVF
 *   also makes the next TIP.PGE resend MODE.Exec, as an OVF usually
 *   stands for lost data, which may have held one;
 * - TSC, CYC and PAD do not flush pending TNT bits (timing packets need
 *   not; hwt_pt_flush_tnt() first if the time must follow those branches);
 * - TSC carries TSC[55:0]; CYC takes counts below 2^61 (libipt rejects
 *   longer CYC packets).
 */
#ifndef HWT_PT_ENCODER_H
#define HWT_PT_ENCODER_H

#include "hwt_types.h"

/*
 * Worst case bytes one encoder call writes. The largest call is PSB+ with
 * a TSC and a FUP after flushing pending TNT bits:
 * long TNT 8 + PSB 16 + TSC 8 + MODE.Exec 2 + FUP 9 + PSBEND 2 = 45.
 */
#define HWT_PT_MAX_WRITE 64u

#define HWT_PT_ERR_NOSPACE (-1)
#define HWT_PT_ERR_INVALID (-2)

/* Longest TNT run packed into one long TNT packet. */
#define HWT_PT_TNT_LONG_BITS 47u
/* Longest TNT run that fits a short TNT packet. */
#define HWT_PT_TNT_SHORT_BITS 6u

/* Largest count hwt_pt_cyc() accepts (5 + 8 * 7 payload bits). */
#define HWT_PT_CYC_MAX ((1ull << 61) - 1)

/* enc->flags */
#define HWT_PT_F_MODE_SENT 0x1u  /* MODE.Exec written since the last PSB/OVF */
#define HWT_PT_F_IP_RESET  0x2u  /* next IP must not depend on the last IP */

struct hwt_pt_encoder {
	uint8_t *buf;          /* caller-owned output buffer */
	size_t size;           /* its size */
	size_t pos;            /* bytes written so far */
	uint64_t last_ip;      /* IP compression reference; reset by PSB, OVF */
	uint64_t tnt_bits;     /* pending TNT bits, oldest in the highest used bit */
	uint32_t tnt_count;    /* number of pending TNT bits (< 47 between calls) */
	uint32_t exec_bits;    /* 64, 32 or 16 (MODE.Exec) */
	uint32_t flags;        /* HWT_PT_F_* */
};

/* Starts a stream: 64-bit mode, last IP 0, nothing pending. */
void hwt_pt_encoder_init(struct hwt_pt_encoder *enc, uint8_t *buf, size_t size);

/* Free bytes left in the buffer. */
static inline size_t hwt_pt_encoder_space(const struct hwt_pt_encoder *enc)
{
	return enc->size - enc->pos;
}

/*
 * Drain support: the caller copied enc->buf[0..pos) out and wants to
 * continue writing at the start of the buffer. Packet state is kept.
 */
static inline void hwt_pt_encoder_reset_buffer(struct hwt_pt_encoder *enc)
{
	enc->pos = 0;
}

/*
 * Adds one conditional branch outcome. Bits are packed into long TNT
 * packets of HWT_PT_TNT_LONG_BITS bits; a full packet (8 bytes, never
 * more) is written as soon as it is full. Returns 0 or a negative
 * HWT_PT_ERR_*; on NOSPACE the bit was not added.
 */
int hwt_pt_tnt_fill(struct hwt_pt_encoder *enc, int taken);
static inline int hwt_pt_tnt(struct hwt_pt_encoder *enc, int taken)
{
	/* Inline while the bit does not complete a packet: tracers call this per branch. */
	if (enc->tnt_count + 1 < HWT_PT_TNT_LONG_BITS) {
		enc->tnt_bits = (enc->tnt_bits << 1) | (taken ? 1u : 0u);
		enc->tnt_count++;
		return 0;
	}
	return hwt_pt_tnt_fill(enc, taken);
}

/*
 * Writes pending TNT bits as a short (<= 6 bits) or long TNT packet;
 * writes nothing when none are pending.
 */
int hwt_pt_flush_tnt(struct hwt_pt_encoder *enc);

/*
 * PSB+: PSB, (TSC tsc when with_tsc != 0), (MODE.Exec and FUP ip when
 * tracing is enabled, i.e. enabled != 0), PSBEND. Flushes pending TNT
 * first and resets IP compression (last IP = 0) before the FUP.
 */
int hwt_pt_psb_plus(struct hwt_pt_encoder *enc, int enabled, uint64_t ip,
		    int with_tsc, uint64_t tsc);

/*
 * Branch target packets. Each flushes pending TNT first. TIP.PGE also
 * writes MODE.Exec first when none was written since the last PSB or OVF.
 */
int hwt_pt_tip(struct hwt_pt_encoder *enc, uint64_t ip);
int hwt_pt_tip_pge(struct hwt_pt_encoder *enc, uint64_t ip);
/* TIP.PGD; ip is ignored and the IP suppressed when suppress is non-zero. */
int hwt_pt_tip_pgd(struct hwt_pt_encoder *enc, uint64_t ip, int suppress);
int hwt_pt_fup(struct hwt_pt_encoder *enc, uint64_t ip);

/*
 * MODE.Exec for 64-bit (bits == 64), 32-bit (32) or 16-bit (16) code;
 * other values return HWT_PT_ERR_INVALID. Flushes pending TNT first. It
 * binds to the next TIP or TIP.PGE: call it right before that packet.
 */
int hwt_pt_mode_exec(struct hwt_pt_encoder *enc, unsigned int bits);
/*
 * OVF: flushes pending TNT, resets IP compression. The SDM wants a FUP
 * (tracing enabled when the overflow resolved) or TIP.PGE (disabled) next.
 */
int hwt_pt_ovf(struct hwt_pt_encoder *enc);
int hwt_pt_pad(struct hwt_pt_encoder *enc);
/* TSC with tsc[55:0]. */
int hwt_pt_tsc(struct hwt_pt_encoder *enc, uint64_t tsc);
/* CYC with a cycle count <= HWT_PT_CYC_MAX (optional timing packet). */
int hwt_pt_cyc(struct hwt_pt_encoder *enc, uint64_t cycles);

/*
 * The other way round, for readers that take packets apart: the IP an IP
 * packet (TIP, TIP.PGE, TIP.PGD, FUP) names, from its IPBytes field (0
 * suppressed, 1 update 16 bits, 2 update 32, 3 sign-extend 48, 4 update
 * 48, 6 full) and payload applied to *last_ip, which it updates. Returns
 * 0, or -1 when the IP is suppressed or IPBytes reserved (*last_ip kept).
 */
int hwt_pt_ip_decompress(uint64_t *last_ip, unsigned int ipbytes, uint64_t payload,
			 uint64_t *ip);

#endif /* HWT_PT_ENCODER_H */
