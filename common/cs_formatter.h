/*
 * CoreSight trace formatter (Arm CoreSight Architecture Specification,
 * "Trace Formatter"): the 16-byte frames in which an ETR (or ETF, ETB)
 * sink stores the streams of several trace sources, each named by its
 * trace ID, as they appear in memory (no frame or half-frame syncs).
 *
 * Libc-free. A frame holds 15 bytes of data and ID changes and a last byte
 * of flags:
 * - bytes 0, 2, ..., 14: an ID (bit 0 set, the ID in bits 7:1) or data
 *   (bits 7:1 of the data byte; its bit 0 is the byte's flag bit);
 * - bytes 1, 3, ..., 13: data;
 * - byte 15: flag bit k for byte 2k. For an ID, 1 means the data byte after
 *   it still belongs to the previous ID: that is how an ID change lands on
 *   an odd position. An ID in byte 14 takes effect with the next frame.
 * A flush pads the last frame with the null trace ID 0 and zeros, which
 * decoders drop.
 */
#ifndef HWT_CS_FORMATTER_H
#define HWT_CS_FORMATTER_H

#include "hwt_types.h"

#define HWT_CS_FRAME_SIZE 16u
/* Trace IDs of trace sources: 0 is the null ID, 0x70..0x7f are reserved. */
#define HWT_CS_ID_MIN 0x01u
#define HWT_CS_ID_MAX 0x6fu

#define HWT_CS_ERR_INVALID (-2)

struct hwt_cs_formatter {
	uint8_t *buf;          /* caller-owned output: whole frames */
	size_t size;
	size_t pos;
	uint8_t frame[HWT_CS_FRAME_SIZE];  /* the frame being filled */
	uint8_t fill;          /* bytes of frame[0..14] used */
	uint8_t id;            /* the ID a deformatter holds at frame[fill]; 0xff: none yet */
	uint8_t done;          /* frame complete, waiting for room in buf */
};

void hwt_cs_formatter_init(struct hwt_cs_formatter *fmt, uint8_t *buf, size_t size);

/* Drain support: the caller copied buf[0..pos) out. */
static inline void hwt_cs_formatter_reset_buffer(struct hwt_cs_formatter *fmt)
{
	fmt->pos = 0;
}

/*
 * Adds len bytes of trace source id. Returns how many were consumed: fewer
 * than len when buf has no room for the next complete frame (drain and
 * call again with the rest), or HWT_CS_ERR_INVALID for a bad ID.
 */
long hwt_cs_formatter_write(struct hwt_cs_formatter *fmt, unsigned int id, const uint8_t *data,
			    size_t len);

/*
 * Completes the frame being filled (padding) and writes it. Returns 0, or
 * 1 when buf has no room for it (drain and call again).
 */
int hwt_cs_formatter_flush(struct hwt_cs_formatter *fmt);

#endif /* HWT_CS_FORMATTER_H */
