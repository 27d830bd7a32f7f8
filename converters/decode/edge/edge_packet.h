/*
 * The edge decoder's packet reader (edge/): the Intel PT packets the walk
 * models, read in place from a stream's bytes. Inline: the walk reads a
 * packet every few blocks (edge_walk.c).
 */
#ifndef HWT_EDGE_PACKET_H
#define HWT_EDGE_PACKET_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Where the reader is in a stream, and what its packets have said. */
struct edge_reader {
	const uint8_t *buf, *end, *pos;
	const uint8_t *released;   /* trace before it was handed back to the kernel */
	uint64_t last_ip;
	uint64_t tnt_bits;         /* pending TNT bits, oldest at bit tnt_count - 1 */
	uint32_t tnt_count;
	uint64_t time;
};

/* A reader of the size bytes at buf, at the packet at from. It owns
   nothing: the bytes are the decoder's (hwt_stream_bytes), so it has no
   fini. Trace before from's page counts as released. */
static inline void edge_reader_init(struct edge_reader *r, const uint8_t *buf, size_t size,
				    const uint8_t *from)
{
	memset(r, 0, sizeof(*r));
	r->buf = buf;
	r->end = buf + size;
	r->pos = from;
	r->released = buf + ((size_t)(from - buf) & ~(size_t)4095);
}

enum pkt {
	pkt_eos = 0,
	pkt_tnt,
	pkt_tip,
	pkt_pge,
	pkt_pgd,
	pkt_fup,
	pkt_psb,
	pkt_psbend,
	pkt_ovf,
	pkt_mode_exec,
	pkt_tsc,
	pkt_skip,       /* PAD, CYC: nothing for the decode */
	pkt_unknown,    /* anything else, or cut: libipt decides */
};

static const uint8_t edge_psb_pattern[16] = { 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
					 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82 };

static inline uint64_t load_le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	for (unsigned k = 0; k < n; k++)
		v |= (uint64_t)p[k] << (8 * k);
	return v;
}

/* n bytes at p, little-endian, where 8 can be read: one load. */
static inline uint64_t load_le_fast(const uint8_t *p, unsigned n)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return n >= 8 ? v : v & ((1ull << (8 * n)) - 1);
}

/* An IP packet's IP from its payload (libipt's last-IP rules); -1: bad form. */
static inline __attribute__((always_inline)) int ip_packet(struct edge_reader *r, uint8_t header,
							   int *suppressed, uint64_t *ip)
{
	static const uint8_t size[8] = { 0, 2, 4, 6, 6, 0, 8, 0 };
	unsigned bytes = header >> 5;
	uint64_t v;

	if (bytes == 5 || bytes == 7)
		return -1;
	if (r->end - r->pos < 1 + size[bytes])
		return -1;
	v = r->end - r->pos > 8 ? load_le_fast(r->pos + 1, size[bytes])
				: load_le(r->pos + 1, size[bytes]);
	r->pos += 1 + size[bytes];
	*suppressed = bytes == 0;
	switch (bytes) {
	case 0:
		break;
	case 1:
		r->last_ip = (r->last_ip & ~0xffffull) | v;
		break;
	case 2:
		r->last_ip = (r->last_ip & ~0xffffffffull) | v;
		break;
	case 3:
		r->last_ip = v & (1ull << 47) ? v | 0xffff000000000000ull : v;
		break;
	case 4:
		r->last_ip = (r->last_ip & 0xffff000000000000ull) | v;
		break;
	default:
		r->last_ip = v;
		break;
	}
	*ip = r->last_ip;
	return 0;
}

/* Reads the packet at pos. *ip for IP packets, *suppressed when it has none.
   Inlined: the walk reads a packet every few blocks, most often a short TNT
   or a TIP, which are tested first. */
static inline __attribute__((always_inline)) enum pkt next_packet(struct edge_reader *r,
								  uint64_t *ip, int *suppressed)
{
	const uint8_t *p = r->pos;
	size_t left = (size_t)(r->end - p);
	uint8_t b;

	if (!left)
		return pkt_eos;
	b = p[0];
	if (!(b & 1) && b > 0x02) { /* short TNT: stop bit, then bits down to bit 1 */
		unsigned stop = 31u - (unsigned)__builtin_clz(b);

		r->tnt_bits = (uint64_t)(b >> 1) & ((1ull << (stop - 1)) - 1);
		r->tnt_count = stop - 1;
		r->pos++;
		return pkt_tnt;
	}
	if (b == 0x00) {
		r->pos++;
		return pkt_skip;
	}
	if ((b & 3) == 3) { /* CYC */
		size_t k = 1;

		if (b & 4) {
			while (k < left && (p[k] & 1))
				k++;
			if (k >= left || k > 8)
				return pkt_unknown;
			k++;
		}
		r->pos += k;
		return pkt_skip;
	}
	switch (b & 0x1f) {
	case 0x0d:
	case 0x11:
	case 0x01:
	case 0x1d: {
		enum pkt kind = (b & 0x1f) == 0x0d ? pkt_tip :
				(b & 0x1f) == 0x11 ? pkt_pge :
				(b & 0x1f) == 0x01 ? pkt_pgd : pkt_fup;

		return ip_packet(r, b, suppressed, ip) < 0 ? pkt_unknown : kind;
	}
	default:
		break;
	}
	if (b == 0x99) { /* MODE: only MODE.Exec with 64-bit code */
		if (left < 2 || (p[1] >> 5) != 0 || (p[1] & 3) != 1)
			return pkt_unknown;
		r->pos += 2;
		return pkt_mode_exec;
	}
	if (b == 0x19) {
		if (left < 8)
			return pkt_unknown;
		r->time = load_le(p + 1, 7);
		r->pos += 8;
		return pkt_tsc;
	}
	if (b != 0x02 || left < 2)
		return pkt_unknown;
	switch (p[1]) {
	case 0x82:
		if (left < 16 || memcmp(p, edge_psb_pattern, 16))
			return pkt_unknown;
		r->pos += 16;
		r->last_ip = 0;
		return pkt_psb;
	case 0x23:
		r->pos += 2;
		return pkt_psbend;
	case 0xf3:
		r->pos += 2;
		r->last_ip = 0;
		return pkt_ovf;
	case 0xa3: {
		uint64_t v;
		unsigned stop;

		if (left < 8)
			return pkt_unknown;
		v = load_le(p + 2, 6);
		if (!v)
			return pkt_unknown;
		stop = 63u - (unsigned)__builtin_clzll(v);
		r->tnt_bits = v & ((1ull << stop) - 1);
		r->tnt_count = stop;
		r->pos += 8;
		return pkt_tnt;
	}
	default:
		return pkt_unknown;
	}
}

#endif
