/*
 * ETMv4 instruction trace packet encoder (Arm Embedded Trace Macrocell
 * Architecture Specification ETMv4, IHI0064, "Descriptions of trace
 * packets").
 *
 * Libc-free: compiled into hwt.ko, the software trace units and user
 * space. The encoder writes into a caller-owned buffer and never
 * allocates. It keeps the state packet encoding depends on, the address
 * history and the pending atoms, so that its stream is one that an ETMv4
 * trace unit tracing AArch64 code could have written. The buffer it fills
 * is the unformatted trace a TRBE writes; cs_formatter.h wraps streams in
 * the frames of an ETR.
 *
 * The trace unit it stands for (the ID registers below) traces A64 code
 * only (instruction set IS0), with no speculation (TRCIDR8.MAXSPEC 0: every
 * atom is committed at once), no cycle counts, no return stack and no
 * branch broadcast: a direct branch is an atom, an indirect one an atom
 * and then the target's address packet, as the specification's defaults.
 *
 * Buffer discipline as in pt_encoder.h: no call needs more than
 * HWT_ETM4_MAX_WRITE free bytes; a call that does not fit writes nothing,
 * changes no state and returns HWT_ETM4_ERR_NOSPACE.
 *
 * What follows the specification:
 * - packets: A-Sync (11 x 00, 80), Trace Info (01, PLCTL, INFO), Trace On
 *   (04), Context (80 same, 81 + info + VMID + CONTEXTIDR), Address with
 *   Context (82 32-bit, 85 64-bit), Exact Match Address (90..92), Short
 *   Address (95), Long Address (9a 32-bit, 9d 64-bit), Exception (06 +
 *   info, then the preferred return address), Exception Return (07),
 *   Timestamp (02), atom formats 1 to 6, Overflow (00 05), Discard (00 03);
 * - the address history holds the last three addresses sent; Trace Info
 *   resets it to zero; an Exact Match packet pushes the address it names;
 * - a compressed address keeps the upper bits of the most recent address;
 *   a 32-bit long address does so in AArch64 state only, so the encoder
 *   uses it only after a context packet has told the decoder so;
 * - a Timestamp packet sends the low-order bits that changed since the
 *   last one, 7 per byte; after Trace Info the old value counts as 0;
 * - atoms: the oldest atom is bit 0 of a format's pattern.
 *
 * What is our choice (hardware may differ, decoders accept both):
 * - address compression takes the first form that fits of: exact match
 *   (lowest history index), short 1 byte (bits 63:9 unchanged), short
 *   2 bytes (63:17), long 32-bit (63:32, after an AArch64 context), long
 *   64-bit; an Address with Context packet is 32-bit under the same rule;
 * - atoms are packed greedily, as a trace unit does: a pending run grows
 *   while some format can still hold it and is written as soon as the
 *   next atom would not fit any; every other packet first writes pending
 *   atoms, so packet order is instruction order.
 */
#ifndef HWT_ETM4_ENCODER_H
#define HWT_ETM4_ENCODER_H

#include "hwt_types.h"

/*
 * The ID and configuration registers of the trace unit the encoder writes
 * for, as a decoder (OpenCSD), an OpenCSD snapshot or perf's AUXTRACE_INFO
 * wants them.
 * TRCIDR0: 64-bit timestamps (TSSIZE 01000), COMMOPT 1, cycle counting
 *   and return stack implemented (unused), no data or conditional trace.
 * TRCIDR1: ETMv4.0, designer Arm.
 * TRCIDR2: 64-bit instruction addresses, 32-bit CONTEXTIDR, 8-bit VMID.
 * TRCIDR8: MAXSPEC 0.
 * TRCCONFIGR: CONTEXTIDR tracing (CID, bit 6) and timestamps (TS, bit 11).
 */
#define HWT_ETM4_TRCIDR0 0x28000ea1u
#define HWT_ETM4_TRCIDR1 0x4100f400u
#define HWT_ETM4_TRCIDR2 0x00000488u
#define HWT_ETM4_TRCIDR8 0x00000000u
#define HWT_ETM4_TRCCONFIGR 0x00000840u
/* TRCAUTHSTATUS: non-secure invasive and non-invasive debug implemented and enabled. */
#define HWT_ETM4_TRCAUTHSTATUS 0x000000ccu
#define HWT_ETM4_CID_BYTES 4u   /* TRCIDR2.CIDSIZE */
#define HWT_ETM4_VMID_BYTES 1u  /* TRCIDR2.VMIDSIZE */

/* Worst case of one call: pending atoms 1 + A-Sync 12 + Trace Info 3, or 1 + Address with Context 15. */
#define HWT_ETM4_MAX_WRITE 32u

#define HWT_ETM4_ERR_NOSPACE (-1)
#define HWT_ETM4_ERR_INVALID (-2)

/* Longest run of atoms one packet holds (format 6: 24 E, or 23 E and an N). */
#define HWT_ETM4_ATOM_MAX 24u

/* Exception types of the Exception packet (ARMv8-A numbering). */
enum hwt_etm4_exception {
	HWT_ETM4_EXC_RESET = 0x0,
	HWT_ETM4_EXC_DEBUG_HALT = 0x1,
	HWT_ETM4_EXC_CALL = 0x2,        /* SVC, HVC, SMC */
	HWT_ETM4_EXC_TRAP = 0x3,
	HWT_ETM4_EXC_SERROR = 0x4,
	HWT_ETM4_EXC_INST_DEBUG = 0x6,  /* BRK, breakpoints */
	HWT_ETM4_EXC_DATA_DEBUG = 0x7,
	HWT_ETM4_EXC_ALIGNMENT = 0xa,
	HWT_ETM4_EXC_INST_FAULT = 0xb,
	HWT_ETM4_EXC_DATA_FAULT = 0xc,
	HWT_ETM4_EXC_IRQ = 0xe,
	HWT_ETM4_EXC_FIQ = 0xf,
};

/* hwt_etm4_context.flags: which identifiers the packet carries. */
#define HWT_ETM4_CTX_CID  0x1u   /* CONTEXTIDR_EL1 (Linux keeps the thread ID there) */
#define HWT_ETM4_CTX_VMID 0x2u

struct hwt_etm4_context {
	uint8_t el;        /* exception level, 0..3 */
	uint8_t sf;        /* 1: AArch64 */
	uint8_t ns;        /* 1: non-secure */
	uint8_t flags;     /* HWT_ETM4_CTX_* */
	uint32_t cid;
	uint32_t vmid;     /* HWT_ETM4_VMID_BYTES wide */
};

/* enc->flags */
#define HWT_ETM4_F_AARCH64 0x1u  /* the decoder knows the PE is in AArch64 state */

struct hwt_etm4_encoder {
	uint8_t *buf;          /* caller-owned output buffer */
	size_t size;           /* its size */
	size_t pos;            /* bytes written so far */
	uint64_t addr[3];      /* address history, [0] the most recent */
	uint64_t timestamp;    /* the decoder's timestamp: 0 after Trace Info */
	uint32_t atoms;        /* pending atoms, oldest in bit 0, E = 1 */
	uint32_t atom_count;   /* how many are pending (< HWT_ETM4_ATOM_MAX + 1) */
	uint32_t flags;        /* HWT_ETM4_F_* */
};

/* Starts a stream: nothing pending, history zero (a stream starts with A-Sync and Trace Info). */
void hwt_etm4_encoder_init(struct hwt_etm4_encoder *enc, uint8_t *buf, size_t size);

static inline size_t hwt_etm4_encoder_space(const struct hwt_etm4_encoder *enc)
{
	return enc->size - enc->pos;
}

/* Drain support, as hwt_pt_encoder_reset_buffer(): packet state is kept. */
static inline void hwt_etm4_encoder_reset_buffer(struct hwt_etm4_encoder *enc)
{
	enc->pos = 0;
}

/*
 * Adds one atom: E (taken != 0) for a branch taken, N for one not taken.
 * Writes the pending run (1 byte) when the new atom cannot join it.
 * Returns 0 or HWT_ETM4_ERR_NOSPACE (then the atom was not added).
 */
int hwt_etm4_atom_fill(struct hwt_etm4_encoder *enc, int taken);
static inline int hwt_etm4_atom(struct hwt_etm4_encoder *enc, int taken)
{
	/* Inline while the run is short: any three atoms fit format 3. */
	if (enc->atom_count < 3) {
		enc->atoms |= (taken ? 1u : 0u) << enc->atom_count;
		enc->atom_count++;
		return 0;
	}
	return hwt_etm4_atom_fill(enc, taken);
}

/* Writes the pending atoms (one packet); nothing when none are pending. */
int hwt_etm4_flush_atoms(struct hwt_etm4_encoder *enc);

/*
 * A synchronisation point: A-Sync then Trace Info (no cycle counting, no
 * speculation). Resets the address history and the timestamp to zero and
 * forgets the context: the next address should come with its context.
 */
int hwt_etm4_sync(struct hwt_etm4_encoder *enc);
/* Trace Info alone, as after an Overflow; resets as hwt_etm4_sync(). */
int hwt_etm4_trace_info(struct hwt_etm4_encoder *enc);
/* Trace On: tracing restarts after a gap (the code in between was not traced). */
int hwt_etm4_trace_on(struct hwt_etm4_encoder *enc);

/* Context packet; ctx NULL writes "context unchanged" (80). */
int hwt_etm4_context(struct hwt_etm4_encoder *enc, const struct hwt_etm4_context *ctx);
/*
 * The address of the next instruction traced (an indirect branch's target,
 * where tracing starts), compressed against the history. addr must be
 * 4-byte aligned (HWT_ETM4_ERR_INVALID).
 */
int hwt_etm4_address(struct hwt_etm4_encoder *enc, uint64_t addr);
int hwt_etm4_address_context(struct hwt_etm4_encoder *enc, uint64_t addr,
			     const struct hwt_etm4_context *ctx);

/*
 * Exception packet of type `type` (0..31) and its preferred return
 * address: for an SVC, the instruction after it; for an asynchronous
 * exception, the first instruction not executed.
 */
int hwt_etm4_exception(struct hwt_etm4_encoder *enc, unsigned int type, uint64_t ret_addr);
int hwt_etm4_exception_return(struct hwt_etm4_encoder *enc);

/* Timestamp; only the bits changed since the last one are written. */
int hwt_etm4_timestamp(struct hwt_etm4_encoder *enc, uint64_t ts);

/* Overflow: trace was lost here. Call hwt_etm4_trace_info() next. */
int hwt_etm4_overflow(struct hwt_etm4_encoder *enc);
/* Discard: the trace unit dropped elements it had not yet traced. */
int hwt_etm4_discard(struct hwt_etm4_encoder *enc);

#endif /* HWT_ETM4_ENCODER_H */
