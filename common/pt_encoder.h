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
 * Buffer discipline: every call needs at most HWT_PT_MAX_WRITE free bytes.
 * Callers check hwt_pt_encoder_space() and drain the buffer before a call
 * when less is left; a call with too little space writes nothing and
 * returns HWT_PT_ERR_NOSPACE.
 */
#ifndef HWT_PT_ENCODER_H
#define HWT_PT_ENCODER_H

#include "hwt_types.h"

/* Worst case bytes one encoder call writes (PSB+ with pending TNT, FUP...). */
#define HWT_PT_MAX_WRITE 64u

#define HWT_PT_ERR_NOSPACE (-1)
#define HWT_PT_ERR_INVALID (-2)

/* Longest TNT run packed into one long TNT packet. */
#define HWT_PT_TNT_LONG_BITS 47u

struct hwt_pt_encoder {
	uint8_t *buf;          /* caller-owned output buffer */
	size_t size;           /* its size */
	size_t pos;            /* bytes written so far */
	uint64_t last_ip;      /* IP compression reference; reset by PSB */
	uint64_t tnt_bits;     /* pending TNT bits, oldest in the highest used bit */
	uint32_t tnt_count;    /* number of pending TNT bits */
	uint32_t exec_bits;    /* 64 or 32 (MODE.Exec) */
};

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
 * packets of HWT_PT_TNT_LONG_BITS bits; a full packet is written as soon
 * as it is full. Returns 0 or a negative HWT_PT_ERR_*.
 */
int hwt_pt_tnt(struct hwt_pt_encoder *enc, int taken);

/* Writes pending TNT bits as a short (<= 6 bits) or long TNT packet. */
int hwt_pt_flush_tnt(struct hwt_pt_encoder *enc);

/*
 * PSB+: PSB, MODE.Exec, (FUP ip when tracing is enabled, i.e. enabled != 0),
 * PSBEND. Flushes pending TNT first and resets IP compression.
 * A TSC packet with tsc is included when with_tsc is non-zero.
 */
int hwt_pt_psb_plus(struct hwt_pt_encoder *enc, int enabled, uint64_t ip,
		    int with_tsc, uint64_t tsc);

/* Branch target packets. Each flushes pending TNT first. */
int hwt_pt_tip(struct hwt_pt_encoder *enc, uint64_t ip);
int hwt_pt_tip_pge(struct hwt_pt_encoder *enc, uint64_t ip);
/* TIP.PGD; ip is ignored and the IP suppressed when suppress is non-zero. */
int hwt_pt_tip_pgd(struct hwt_pt_encoder *enc, uint64_t ip, int suppress);
int hwt_pt_fup(struct hwt_pt_encoder *enc, uint64_t ip);

/* MODE.Exec for 64-bit (bits == 64) or 32-bit (bits == 32) code. */
int hwt_pt_mode_exec(struct hwt_pt_encoder *enc, unsigned int bits);
int hwt_pt_ovf(struct hwt_pt_encoder *enc);
int hwt_pt_pad(struct hwt_pt_encoder *enc);
int hwt_pt_tsc(struct hwt_pt_encoder *enc, uint64_t tsc);
/* CYC with a cycle count (optional timing packet). */
int hwt_pt_cyc(struct hwt_pt_encoder *enc, uint64_t cycles);

#endif /* HWT_PT_ENCODER_H */
