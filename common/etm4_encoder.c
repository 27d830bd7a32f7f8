/*
 * ETMv4 instruction trace packet encoder. See etm4_encoder.h for which
 * details follow the specification and which are our choices.
 *
 * Every public call first computes how many bytes it will write and
 * refuses (HWT_ETM4_ERR_NOSPACE, no state change) if they do not fit.
 */
#include "etm4_encoder.h"

/* Headers (first byte). */
#define ETM4_EXTENSION     0x00u  /* then 00 x10, 80: A-Sync; 03: Discard; 05: Overflow */
#define ETM4_TRACE_INFO    0x01u
#define ETM4_TIMESTAMP     0x02u  /* bit 0: a cycle count follows (never here) */
#define ETM4_TRACE_ON      0x04u
#define ETM4_EXCEPTION     0x06u
#define ETM4_EXCEPTION_RET 0x07u
#define ETM4_CONTEXT       0x80u  /* bit 0: a payload follows */
#define ETM4_ADDR_CTXT_32  0x82u  /* IS0 */
#define ETM4_ADDR_CTXT_64  0x85u  /* IS0 */
#define ETM4_ADDR_MATCH    0x90u  /* + history index */
#define ETM4_ADDR_SHORT    0x95u  /* IS0 */
#define ETM4_ADDR_LONG_32  0x9au  /* IS0 */
#define ETM4_ADDR_LONG_64  0x9du  /* IS0 */
#define ETM4_EXT_DISCARD   0x03u
#define ETM4_EXT_OVERFLOW  0x05u

/* Atom headers. */
#define ATOM_F1 0xf6u  /* + E */
#define ATOM_F2 0xd8u  /* + 2 atoms */
#define ATOM_F3 0xf8u  /* + 3 atoms */
#define ATOM_F4 0xdcu  /* + pattern index */
#define ATOM_F6 0xc0u  /* + count of E - 4 (bits 4:0), bit 5: the last atom is N */
#define ATOM_F6_LAST_N 0x20u

#define ASYNC_SIZE 12u
#define TRACE_INFO_SIZE 3u
#define ADDR_MAX_SIZE 9u
#define CONTEXT_MAX_SIZE (2u + HWT_ETM4_VMID_BYTES + HWT_ETM4_CID_BYTES)
#define TIMESTAMP_MAX_SIZE 10u

_Static_assert(1 + ASYNC_SIZE + TRACE_INFO_SIZE <= HWT_ETM4_MAX_WRITE,
	       "HWT_ETM4_MAX_WRITE below the sync worst case");
_Static_assert(1 + ADDR_MAX_SIZE + CONTEXT_MAX_SIZE - 1 <= HWT_ETM4_MAX_WRITE,
	       "HWT_ETM4_MAX_WRITE below the address with context worst case");
_Static_assert(1 + 2 + ADDR_MAX_SIZE <= HWT_ETM4_MAX_WRITE,
	       "HWT_ETM4_MAX_WRITE below the exception worst case");

/*
 * Format 4 and 5 patterns (oldest atom in bit 0) in the order of the
 * format 4 header's index; format 5's headers for the same patterns
 * follow the architecture's pattern numbering, not this order.
 */
static const uint8_t f4_pattern[4] = { 0x0e, 0x00, 0x0a, 0x05 };  /* NEEE NNNN NENE ENEN */
static const uint8_t f5_pattern[4] = { 0x1e, 0x00, 0x0a, 0x15 };  /* NEEEE NNNNN NENEN ENENE */
static const uint8_t f5_header[4] = { 0xf5, 0xd5, 0xd6, 0xd7 };

void hwt_etm4_encoder_init(struct hwt_etm4_encoder *enc, uint8_t *buf, size_t size)
{
	enc->buf = buf;
	enc->size = size;
	enc->pos = 0;
	enc->addr[0] = enc->addr[1] = enc->addr[2] = 0;
	enc->timestamp = 0;
	enc->atoms = 0;
	enc->atom_count = 0;
	enc->flags = 0;
}

static int fits(const struct hwt_etm4_encoder *enc, size_t need)
{
	return need <= enc->size - enc->pos;
}

static void put8(struct hwt_etm4_encoder *enc, unsigned int byte)
{
	enc->buf[enc->pos++] = (uint8_t)byte;
}

/* ---- Atoms ---- */

static int all_e(uint32_t bits, uint32_t n)
{
	return bits == (1u << n) - 1;
}

/* The pattern index of a 4- or 5-atom run in tab, or -1. */
static int pattern_index(const uint8_t *tab, uint32_t bits)
{
	int i;

	for (i = 0; i < 4; i++)
		if (tab[i] == bits)
			return i;
	return -1;
}

/* Can some atom format hold a run that starts with these n atoms? */
static int run_can_grow_to(uint32_t bits, uint32_t n)
{
	if (n <= 3)
		return 1;
	if (n > HWT_ETM4_ATOM_MAX)
		return 0;
	/* Format 6: E...E or E...EN with at least three E. */
	if (all_e(bits, n) || all_e(bits, n - 1))
		return 1;
	if (n == 4)
		return pattern_index(f4_pattern, bits) >= 0;
	if (n == 5)
		return pattern_index(f5_pattern, bits) >= 0;
	return 0;
}

static size_t atoms_size(const struct hwt_etm4_encoder *enc)
{
	return enc->atom_count ? 1 : 0;
}

/*
 * Writes the pending run. Every run kept pending is a prefix that some
 * format holds and, as all prefixes of a holdable run are holdable
 * themselves, a complete packet.
 */
static void write_atoms(struct hwt_etm4_encoder *enc)
{
	uint32_t bits = enc->atoms, n = enc->atom_count;

	if (!n)
		return;
	if (n == 1)
		put8(enc, ATOM_F1 | bits);
	else if (n == 2)
		put8(enc, ATOM_F2 | bits);
	else if (n == 3)
		put8(enc, ATOM_F3 | bits);
	else if (all_e(bits, n))
		put8(enc, ATOM_F6 | (n - 4));
	else if (all_e(bits, n - 1))
		put8(enc, ATOM_F6 | ATOM_F6_LAST_N | (n - 4));
	else if (n == 4)
		put8(enc, ATOM_F4 | (unsigned int)pattern_index(f4_pattern, bits));
	else
		put8(enc, f5_header[pattern_index(f5_pattern, bits)]);
	enc->atoms = 0;
	enc->atom_count = 0;
}

int hwt_etm4_atom_fill(struct hwt_etm4_encoder *enc, int taken)
{
	uint32_t bit = taken ? 1u : 0u;

	if (run_can_grow_to(enc->atoms | bit << enc->atom_count, enc->atom_count + 1)) {
		enc->atoms |= bit << enc->atom_count;
		enc->atom_count++;
		return 0;
	}
	if (!fits(enc, 1))
		return HWT_ETM4_ERR_NOSPACE;
	write_atoms(enc);
	enc->atoms = bit;
	enc->atom_count = 1;
	return 0;
}

int hwt_etm4_flush_atoms(struct hwt_etm4_encoder *enc)
{
	if (!fits(enc, atoms_size(enc)))
		return HWT_ETM4_ERR_NOSPACE;
	write_atoms(enc);
	return 0;
}

/* ---- Synchronisation ---- */

static void reset_state(struct hwt_etm4_encoder *enc)
{
	enc->addr[0] = enc->addr[1] = enc->addr[2] = 0;
	enc->timestamp = 0;
	enc->flags &= ~HWT_ETM4_F_AARCH64;
}

static void write_trace_info(struct hwt_etm4_encoder *enc)
{
	/* PLCTL: only the INFO section; INFO 0: no cycle counts, no conditional or P0 data trace. */
	put8(enc, ETM4_TRACE_INFO);
	put8(enc, 0x01);
	put8(enc, 0x00);
	reset_state(enc);
}

int hwt_etm4_sync(struct hwt_etm4_encoder *enc)
{
	unsigned int i;

	if (!fits(enc, atoms_size(enc) + ASYNC_SIZE + TRACE_INFO_SIZE))
		return HWT_ETM4_ERR_NOSPACE;
	write_atoms(enc);
	for (i = 0; i < ASYNC_SIZE - 1; i++)
		put8(enc, ETM4_EXTENSION);
	put8(enc, 0x80);
	write_trace_info(enc);
	return 0;
}

int hwt_etm4_trace_info(struct hwt_etm4_encoder *enc)
{
	if (!fits(enc, atoms_size(enc) + TRACE_INFO_SIZE))
		return HWT_ETM4_ERR_NOSPACE;
	write_atoms(enc);
	write_trace_info(enc);
	return 0;
}

/* One-byte packets and the two-byte extensions, after pending atoms. */
static int simple_packet(struct hwt_etm4_encoder *enc, unsigned int hdr, int ext)
{
	if (!fits(enc, atoms_size(enc) + 1 + (ext >= 0)))
		return HWT_ETM4_ERR_NOSPACE;
	write_atoms(enc);
	put8(enc, hdr);
	if (ext >= 0)
		put8(enc, (unsigned int)ext);
	return 0;
}

int hwt_etm4_trace_on(struct hwt_etm4_encoder *enc)
{
	return simple_packet(enc, ETM4_TRACE_ON, -1);
}

int hwt_etm4_exception_return(struct hwt_etm4_encoder *enc)
{
	return simple_packet(enc, ETM4_EXCEPTION_RET, -1);
}

int hwt_etm4_overflow(struct hwt_etm4_encoder *enc)
{
	return simple_packet(enc, ETM4_EXTENSION, ETM4_EXT_OVERFLOW);
}

int hwt_etm4_discard(struct hwt_etm4_encoder *enc)
{
	return simple_packet(enc, ETM4_EXTENSION, ETM4_EXT_DISCARD);
}

/* ---- Context ---- */

static size_t context_payload_size(const struct hwt_etm4_context *ctx)
{
	return 1 + ((ctx->flags & HWT_ETM4_CTX_VMID) ? HWT_ETM4_VMID_BYTES : 0) +
	       ((ctx->flags & HWT_ETM4_CTX_CID) ? HWT_ETM4_CID_BYTES : 0);
}

static int context_valid(const struct hwt_etm4_context *ctx)
{
	return ctx->el <= 3 && ctx->sf <= 1 && ctx->ns <= 1 &&
	       !(ctx->flags & ~(HWT_ETM4_CTX_CID | HWT_ETM4_CTX_VMID));
}

/* Info byte (EL 1:0, SF 4, NS 5, V 6, C 7), then VMID, then CONTEXTIDR, little-endian. */
static void write_context_payload(struct hwt_etm4_encoder *enc, const struct hwt_etm4_context *ctx)
{
	unsigned int i;

	put8(enc, ctx->el | (unsigned int)ctx->sf << 4 | (unsigned int)ctx->ns << 5 |
		  ((ctx->flags & HWT_ETM4_CTX_VMID) ? 0x40u : 0) |
		  ((ctx->flags & HWT_ETM4_CTX_CID) ? 0x80u : 0));
	if (ctx->flags & HWT_ETM4_CTX_VMID)
		for (i = 0; i < HWT_ETM4_VMID_BYTES; i++)
			put8(enc, (ctx->vmid >> (8 * i)) & 0xffu);
	if (ctx->flags & HWT_ETM4_CTX_CID)
		for (i = 0; i < HWT_ETM4_CID_BYTES; i++)
			put8(enc, (ctx->cid >> (8 * i)) & 0xffu);
	if (ctx->sf)
		enc->flags |= HWT_ETM4_F_AARCH64;
	else
		enc->flags &= ~HWT_ETM4_F_AARCH64;
}

int hwt_etm4_context(struct hwt_etm4_encoder *enc, const struct hwt_etm4_context *ctx)
{
	if (!ctx)
		return simple_packet(enc, ETM4_CONTEXT, -1);
	if (!context_valid(ctx))
		return HWT_ETM4_ERR_INVALID;
	if (!fits(enc, atoms_size(enc) + 1 + context_payload_size(ctx)))
		return HWT_ETM4_ERR_NOSPACE;
	write_atoms(enc);
	put8(enc, ETM4_CONTEXT | 1u);
	write_context_payload(enc, ctx);
	return 0;
}

/* ---- Addresses ---- */

enum addr_form { ADDR_MATCH, ADDR_SHORT_1, ADDR_SHORT_2, ADDR_LONG_32, ADDR_LONG_64 };

static const uint8_t addr_form_size[] = { 1, 2, 3, 5, 9 };

/* The first form of the header's list that rebuilds addr; *match the history index. */
static enum addr_form addr_compress(const struct hwt_etm4_encoder *enc, uint64_t addr,
				    unsigned int *match)
{
	uint64_t diff = addr ^ enc->addr[0];
	unsigned int i;

	for (i = 0; i < 3; i++)
		if (enc->addr[i] == addr) {
			*match = i;
			return ADDR_MATCH;
		}
	if (!(diff >> 9))
		return ADDR_SHORT_1;
	if (!(diff >> 17))
		return ADDR_SHORT_2;
	if (!(diff >> 32) && (enc->flags & HWT_ETM4_F_AARCH64))
		return ADDR_LONG_32;
	return ADDR_LONG_64;
}

static void push_addr(struct hwt_etm4_encoder *enc, uint64_t addr)
{
	enc->addr[2] = enc->addr[1];
	enc->addr[1] = enc->addr[0];
	enc->addr[0] = addr;
}

/* The address bytes of a long form in IS0: A[8:2], A[15:9], then whole bytes from A[23:16]. */
static void put_long_addr(struct hwt_etm4_encoder *enc, uint64_t addr, unsigned int bytes)
{
	unsigned int i;

	put8(enc, (addr >> 2) & 0x7fu);
	put8(enc, (addr >> 9) & 0x7fu);
	for (i = 2; i < bytes; i++)
		put8(enc, (addr >> (8 * i)) & 0xffu);
}

static void write_addr(struct hwt_etm4_encoder *enc, uint64_t addr)
{
	unsigned int match = 0;

	switch (addr_compress(enc, addr, &match)) {
	case ADDR_MATCH:
		put8(enc, ETM4_ADDR_MATCH + match);
		break;
	case ADDR_SHORT_1:
		put8(enc, ETM4_ADDR_SHORT);
		put8(enc, (addr >> 2) & 0x7fu);
		break;
	case ADDR_SHORT_2:
		put8(enc, ETM4_ADDR_SHORT);
		put8(enc, 0x80u | ((addr >> 2) & 0x7fu));
		put8(enc, (addr >> 9) & 0xffu);
		break;
	case ADDR_LONG_32:
		put8(enc, ETM4_ADDR_LONG_32);
		put_long_addr(enc, addr, 4);
		break;
	case ADDR_LONG_64:
		put8(enc, ETM4_ADDR_LONG_64);
		put_long_addr(enc, addr, 8);
		break;
	}
	push_addr(enc, addr);
}

static size_t addr_size(const struct hwt_etm4_encoder *enc, uint64_t addr)
{
	unsigned int match;

	return addr_form_size[addr_compress(enc, addr, &match)];
}

int hwt_etm4_address(struct hwt_etm4_encoder *enc, uint64_t addr)
{
	if (addr & 3u)
		return HWT_ETM4_ERR_INVALID;
	if (!fits(enc, atoms_size(enc) + addr_size(enc, addr)))
		return HWT_ETM4_ERR_NOSPACE;
	write_atoms(enc);
	write_addr(enc, addr);
	return 0;
}

int hwt_etm4_address_context(struct hwt_etm4_encoder *enc, uint64_t addr,
			     const struct hwt_etm4_context *ctx)
{
	int is32;

	if ((addr & 3u) || !context_valid(ctx))
		return HWT_ETM4_ERR_INVALID;
	/* Only the long forms carry a context; 32 bits under the rule of plain addresses. */
	is32 = !((addr ^ enc->addr[0]) >> 32) && (enc->flags & HWT_ETM4_F_AARCH64);
	if (!fits(enc, atoms_size(enc) + (is32 ? 5 : 9) + context_payload_size(ctx)))
		return HWT_ETM4_ERR_NOSPACE;
	write_atoms(enc);
	put8(enc, is32 ? ETM4_ADDR_CTXT_32 : ETM4_ADDR_CTXT_64);
	put_long_addr(enc, addr, is32 ? 4 : 8);
	write_context_payload(enc, ctx);
	push_addr(enc, addr);
	return 0;
}

/* ---- Exceptions ---- */

int hwt_etm4_exception(struct hwt_etm4_encoder *enc, unsigned int type, uint64_t ret_addr)
{
	if (type > 0x1fu || (ret_addr & 3u))
		return HWT_ETM4_ERR_INVALID;
	if (!fits(enc, atoms_size(enc) + 2 + addr_size(enc, ret_addr)))
		return HWT_ETM4_ERR_NOSPACE;
	write_atoms(enc);
	put8(enc, ETM4_EXCEPTION);
	/* C (bit 7) 0: one info byte; E1:E0 (bits 6, 0) 01: the return address follows. */
	put8(enc, type << 1 | 0x01u);
	write_addr(enc, ret_addr);
	return 0;
}

/* ---- Timestamps ---- */

/* Bytes needed: the low 7*n bits differ, the rest are unchanged (9 bytes: all 64 bits). */
static unsigned int timestamp_bytes(uint64_t old, uint64_t ts)
{
	unsigned int n;

	for (n = 1; n < 9; n++)
		if ((old >> (7 * n)) == (ts >> (7 * n)))
			return n;
	return 9;
}

int hwt_etm4_timestamp(struct hwt_etm4_encoder *enc, uint64_t ts)
{
	unsigned int i, n = timestamp_bytes(enc->timestamp, ts);

	if (!fits(enc, atoms_size(enc) + 1 + n))
		return HWT_ETM4_ERR_NOSPACE;
	write_atoms(enc);
	put8(enc, ETM4_TIMESTAMP);
	/* 7 bits a byte with a continuation bit; the ninth byte holds bits 63:56 whole. */
	for (i = 0; i < n && i < 8; i++)
		put8(enc, ((ts >> (7 * i)) & 0x7fu) | (i + 1 < n ? 0x80u : 0));
	if (n == 9)
		put8(enc, (ts >> 56) & 0xffu);
	enc->timestamp = ts;
	return 0;
}
