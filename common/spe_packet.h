/*
 * Arm Statistical Profiling Extension (SPE) packets: encoder and decoder
 * (Arm ARM, "Statistical Profiling Extension", "Profiling data packet
 * encoding"). Libc-free: the software SPE unit, hwt.ko and user space
 * compile it. Nothing here allocates; buffers are the caller's.
 *
 * A sample is a record: a run of packets that ends with an End packet or,
 * when timestamps are on, with a Timestamp packet (which then stands for
 * End). Padding bytes may come between records. The packets:
 *
 *   header byte           packet              payload
 *   0000 0000             Padding             none
 *   0000 0001             End                 none
 *   0111 0001             Timestamp           8 bytes (the generic timer)
 *   01ss 0010             Events              1 << ss bytes, bit per event
 *   01ss 0011             Data Source         1 << ss bytes
 *   0110 01ii             Context             4 bytes (ii 0: CONTEXTIDR_EL1, 1: _EL2)
 *   0100 10cc             Operation Type      1 byte (cc: class, the byte: subclass)
 *   1011 0iii             Address             8 bytes (iii: index, below)
 *   1001 1iii             Counter             2 bytes (iii: index, below)
 *   0010 00hh, then one of the two above: the Extended header, index
 *                         hh:iii (5 bits) of an Address or Counter packet.
 *
 * Payloads are little-endian. Address payloads: PC and branch target carry
 * the address in bits 55:0, the exception level in 62:61 and NS in 63; a
 * data virtual address its bits 55:0 and the tag (top byte) in 63:56; a
 * data physical address bits 55:0 and NS in 63.
 *
 * perf's arm_spe decoder reads the same bytes: its names are in the
 * comments below, so that `perf script -D` listings map to these.
 */
#ifndef HWT_SPE_PACKET_H
#define HWT_SPE_PACKET_H

#include "hwt_types.h"

#define HWT_SPE_ERR_NOSPACE   (-1)  /* encoder: the buffer is too small */
#define HWT_SPE_ERR_INVALID   (-2)  /* encoder: a kind, index or size it cannot write */
#define HWT_SPE_ERR_HEADER    (-3)  /* decoder: a header byte no packet has */
#define HWT_SPE_ERR_TRUNCATED (-4)  /* decoder: the data ends inside a packet or record */
#define HWT_SPE_ERR_TOO_LONG  (-5)  /* decoder: no End or Timestamp within HWT_SPE_RECORD_MAX */

/* Longest packet: extended header, header, 8 bytes. */
#define HWT_SPE_PACKET_MAX 10u
/*
 * Longest record the decoder accepts. Hardware writes records of at most
 * PMSIDR_EL1.MaxSize (4 KiB at most, 64 bytes on today's cores); a longer
 * run without End is damage.
 */
#define HWT_SPE_RECORD_MAX 4096u
/* Longest record hwt_spe_record_encode writes (every field present). */
#define HWT_SPE_RECORD_ENCODED_MAX 96u

enum hwt_spe_packet_kind {
	HWT_SPE_PADDING = 0,   /* PAD */
	HWT_SPE_END,           /* END */
	HWT_SPE_TIMESTAMP,     /* TIMESTAMP */
	HWT_SPE_EVENTS,        /* EVENTS */
	HWT_SPE_DATA_SOURCE,   /* DATA-SOURCE */
	HWT_SPE_CONTEXT,       /* CONTEXT */
	HWT_SPE_OP_TYPE,       /* OP-TYPE */
	HWT_SPE_ADDRESS,       /* ADDRESS */
	HWT_SPE_COUNTER,       /* COUNTER */
};

/* Address packet indices. */
#define HWT_SPE_ADDR_PC        0u  /* INS: the sampled operation's PC */
#define HWT_SPE_ADDR_TARGET    1u  /* BRANCH: a branch's target */
#define HWT_SPE_ADDR_DATA_VA   2u  /* VA: a load's or store's virtual address */
#define HWT_SPE_ADDR_DATA_PA   3u  /* PA: its physical address */
#define HWT_SPE_ADDR_PREV_BR   4u  /* PBT (SPEv1p2): the previous branch's target */
#define HWT_SPE_ADDR_KNOWN     5u

/* Counter packet indices (cycles). */
#define HWT_SPE_COUNT_TOTAL    0u  /* TOT: dispatch to completion */
#define HWT_SPE_COUNT_ISSUE    1u  /* ISSUE: dispatch to issue */
#define HWT_SPE_COUNT_XLAT     2u  /* XLAT: address translation */
#define HWT_SPE_COUNT_KNOWN    3u

/* Operation Type classes (the header's low bits). */
#define HWT_SPE_OP_OTHER       0u
#define HWT_SPE_OP_LDST        1u  /* load, store or atomic */
#define HWT_SPE_OP_BRANCH      2u  /* branch or exception return */
/* Subclass bits of the payload. */
#define HWT_SPE_OP_COND        0x01u  /* OTHER and BRANCH: conditional */
#define HWT_SPE_OP_BR_INDIRECT 0x02u  /* BRANCH: indirect (subclass bits 7:1 = 0x02) */
#define HWT_SPE_OP_ST          0x01u  /* LDST: a store (else a load) */

/* Events payload bits. */
#define HWT_SPE_EV_EXCEPTION   (1ull << 0)   /* generated an exception */
#define HWT_SPE_EV_RETIRED     (1ull << 1)   /* architecturally executed */
#define HWT_SPE_EV_L1D_ACCESS  (1ull << 2)
#define HWT_SPE_EV_L1D_REFILL  (1ull << 3)
#define HWT_SPE_EV_TLB_ACCESS  (1ull << 4)
#define HWT_SPE_EV_TLB_WALK    (1ull << 5)
#define HWT_SPE_EV_NOT_TAKEN   (1ull << 6)   /* a conditional branch not taken (SPEv1p1) */
#define HWT_SPE_EV_MISPRED     (1ull << 7)   /* a branch mispredicted */
#define HWT_SPE_EV_LLC_ACCESS  (1ull << 8)
#define HWT_SPE_EV_LLC_MISS    (1ull << 9)
#define HWT_SPE_EV_REMOTE      (1ull << 10)
#define HWT_SPE_EV_ALIGNMENT   (1ull << 11)

/* Fields of address payloads. */
#define HWT_SPE_ADDR_MASK      ((1ull << 56) - 1)
static inline uint64_t hwt_spe_addr(uint64_t payload)
{
	uint64_t a = payload & HWT_SPE_ADDR_MASK;

	/* Bit 55 selects the upper or lower half of the address space. */
	return (a & (1ull << 55)) ? a | ~HWT_SPE_ADDR_MASK : a;
}
static inline unsigned hwt_spe_addr_el(uint64_t payload)
{
	return (unsigned)(payload >> 61) & 3u;
}
static inline unsigned hwt_spe_addr_ns(uint64_t payload)
{
	return (unsigned)(payload >> 63);
}
/* The payload of a PC or branch target address at exception level el. */
static inline uint64_t hwt_spe_addr_payload(uint64_t addr, unsigned el, unsigned ns)
{
	return (addr & HWT_SPE_ADDR_MASK) | (uint64_t)(el & 3u) << 61 | (uint64_t)(ns & 1u) << 63;
}

struct hwt_spe_packet {
	uint8_t kind;      /* enum hwt_spe_packet_kind */
	uint8_t index;     /* Address, Counter: 0..31; Context: 0..3; Operation Type: its class */
	uint8_t size;      /* payload bytes: 0, 1, 2, 4 or 8 */
	uint64_t payload;
};

/*
 * Writes packet p into buf[0..size): the bytes written, or HWT_SPE_ERR_*.
 * Address and Counter packets with an index of 8 or more get the Extended
 * header; Events and Data Source take p->size 1, 2, 4 or 8.
 */
int hwt_spe_packet_encode(const struct hwt_spe_packet *p, uint8_t *buf, size_t size);

/*
 * Reads the packet at buf[0..len): its length in bytes (header included),
 * or HWT_SPE_ERR_HEADER (buf[0] starts no packet) or HWT_SPE_ERR_TRUNCATED.
 */
int hwt_spe_packet_decode(const uint8_t *buf, size_t len, struct hwt_spe_packet *p);

/* The name perf's `perf script -D` gives a packet kind ("PAD", "END", ...). */
const char *hwt_spe_packet_name(unsigned kind);

/* hwt_spe_record.has: which fields a record holds. */
#define HWT_SPE_HAS_ADDR(i)    (1u << (i))          /* addr[i], i < HWT_SPE_ADDR_KNOWN */
#define HWT_SPE_HAS_COUNT(i)   (1u << (8 + (i)))    /* count[i], i < HWT_SPE_COUNT_KNOWN */
#define HWT_SPE_HAS_OP         (1u << 16)
#define HWT_SPE_HAS_EVENTS     (1u << 17)
#define HWT_SPE_HAS_CONTEXT    (1u << 18)
#define HWT_SPE_HAS_SOURCE     (1u << 19)
#define HWT_SPE_HAS_TIMESTAMP  (1u << 20)
#define HWT_SPE_HAS_UNKNOWN    (1u << 21)  /* an address or counter index not listed above */

/* One sampled operation. */
struct hwt_spe_record {
	uint32_t has;           /* HWT_SPE_HAS_* */
	uint8_t op_class;       /* HWT_SPE_OP_OTHER, _LDST, _BRANCH */
	uint8_t op;             /* its subclass byte */
	uint8_t context_index;  /* 0: CONTEXTIDR_EL1 */
	uint32_t context;       /* the thread's ID, as Linux sets CONTEXTIDR_EL1 */
	uint64_t addr[HWT_SPE_ADDR_KNOWN];   /* raw payloads: hwt_spe_addr() etc. */
	uint16_t count[HWT_SPE_COUNT_KNOWN];
	uint64_t events;
	uint64_t source;
	uint64_t timestamp;
};

/* Empties r (no field present). */
void hwt_spe_record_clear(struct hwt_spe_record *r);

/*
 * Writes r as hardware orders a record's packets: Context, PC, Operation
 * Type, Events, the counters (issue, total, translation), data VA, data
 * PA, branch target, previous branch target, then Timestamp when r has one,
 * else End. Returns the bytes written or HWT_SPE_ERR_NOSPACE (nothing
 * then counts as written).
 */
int hwt_spe_record_encode(const struct hwt_spe_record *r, uint8_t *buf, size_t size);

/*
 * Reads records from a buffer. hwt_spe_decoder_next returns 1 with the
 * next record in *r, 0 at the end, or a negative HWT_SPE_ERR_* at damage:
 * then the bytes [lost_from, pos) are dropped (the damaged record from its
 * start, and what follows up to the next record that decodes whole), and
 * the next call goes on from there. Records before the damage were
 * returned already; lost_bytes sums every drop.
 */
struct hwt_spe_decoder {
	const uint8_t *buf;
	size_t len;
	size_t pos;          /* next byte to read */
	size_t record_at;    /* offset of the last record returned */
	size_t error_at;     /* after an error: the packet that failed */
	size_t lost_from;    /* after an error: the first byte dropped */
	uint64_t lost_bytes; /* bytes dropped so far */
	unsigned errors;     /* errors so far */
};

void hwt_spe_decoder_init(struct hwt_spe_decoder *d, const uint8_t *buf, size_t len);
int hwt_spe_decoder_next(struct hwt_spe_decoder *d, struct hwt_spe_record *r);
/* A message for an HWT_SPE_ERR_* code. */
const char *hwt_spe_errstr(int err);

#endif /* HWT_SPE_PACKET_H */
