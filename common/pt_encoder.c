/*
 * Intel PT packet encoder. See pt_encoder.h for which details follow the
 * SDM and which are our choices.
 *
 * Every public call first computes exactly how many bytes it will write
 * and refuses (HWT_PT_ERR_NOSPACE, no state change) if they do not fit,
 * then writes without further checks.
 */
#include "pt_encoder.h"

/* Opcodes (first byte; 02 is the extended opcode escape). */
#define PT_OPC_PAD      0x00u
#define PT_OPC_EXT      0x02u
#define PT_OPC_TIP_PGD  0x01u
#define PT_OPC_TIP      0x0du
#define PT_OPC_TIP_PGE  0x11u
#define PT_OPC_TSC      0x19u
#define PT_OPC_FUP      0x1du
#define PT_OPC_MODE     0x99u
#define PT_OPC_CYC      0x03u
#define PT_EXT_PSB      0x82u
#define PT_EXT_PSBEND   0x23u
#define PT_EXT_OVF      0xf3u
#define PT_EXT_TNT_LONG 0xa3u

/* MODE packet payload: leaf in bits 7:5 (000 = Exec), CS.D bit 1, CS.L bit 0. */
#define PT_MODE_EXEC_CSL 0x01u
#define PT_MODE_EXEC_CSD 0x02u

/* CYC: header bits 1:0 = 11, bit 2 = more bytes follow, bits 7:3 = count[4:0]. */
#define PT_CYC_EXT       0x04u
#define PT_CYCX_EXT      0x01u

/* IPBytes (bits 7:5 of an IP packet header). */
enum pt_ipc {
	PT_IPC_SUPPRESSED = 0,
	PT_IPC_UPDATE_16 = 1,
	PT_IPC_UPDATE_32 = 2,
	PT_IPC_SEXT_48 = 3,
	PT_IPC_UPDATE_48 = 4,
	PT_IPC_FULL = 6,
};

/* Packet sizes, including the opcode. */
#define PT_SIZE_PSB      16u
#define PT_SIZE_PSBEND   2u
#define PT_SIZE_MODE     2u
#define PT_SIZE_OVF      2u
#define PT_SIZE_TSC      8u
#define PT_SIZE_TNT_LONG 8u
#define PT_SIZE_IP_MAX   9u

/* The worst case the header's HWT_PT_MAX_WRITE comment spells out. */
_Static_assert(PT_SIZE_TNT_LONG + PT_SIZE_PSB + PT_SIZE_TSC + PT_SIZE_MODE +
	       PT_SIZE_IP_MAX + PT_SIZE_PSBEND <= HWT_PT_MAX_WRITE,
	       "HWT_PT_MAX_WRITE below the PSB+ worst case");
_Static_assert(PT_SIZE_TNT_LONG + PT_SIZE_MODE + PT_SIZE_IP_MAX <=
	       HWT_PT_MAX_WRITE, "HWT_PT_MAX_WRITE below the TIP.PGE worst case");

void hwt_pt_encoder_init(struct hwt_pt_encoder *enc, uint8_t *buf, size_t size)
{
	enc->buf = buf;
	enc->size = size;
	enc->pos = 0;
	enc->last_ip = 0;
	enc->tnt_bits = 0;
	enc->tnt_count = 0;
	enc->exec_bits = 64;
	enc->flags = 0;
}

static int fits(const struct hwt_pt_encoder *enc, size_t need)
{
	return need <= enc->size - enc->pos;
}

static void put8(struct hwt_pt_encoder *enc, unsigned int byte)
{
	enc->buf[enc->pos++] = (uint8_t)byte;
}

/* Little-endian, as all PT payloads are. */
static void put_le(struct hwt_pt_encoder *enc, uint64_t val, unsigned int n)
{
	while (n--) {
		put8(enc, (unsigned int)(val & 0xffu));
		val >>= 8;
	}
}

/* ---- TNT ---- */

static size_t tnt_size(uint32_t count)
{
	if (!count)
		return 0;
	return count <= HWT_PT_TNT_SHORT_BITS ? 1 : PT_SIZE_TNT_LONG;
}

/* Caller checked the space: tnt_size(enc->tnt_count) bytes. */
static void write_tnt(struct hwt_pt_encoder *enc)
{
	/* The stop bit sits right above the oldest bit. */
	uint64_t payload = (1ull << enc->tnt_count) | enc->tnt_bits;

	if (!enc->tnt_count)
		return;
	if (enc->tnt_count <= HWT_PT_TNT_SHORT_BITS) {
		/* Bit 0 of a short TNT is the 0 that tells it from other opcodes. */
		put8(enc, (unsigned int)(payload << 1));
	} else {
		put8(enc, PT_OPC_EXT);
		put8(enc, PT_EXT_TNT_LONG);
		put_le(enc, payload, 6);
	}
	enc->tnt_bits = 0;
	enc->tnt_count = 0;
}

/* The out-of-line part of hwt_pt_tnt(): the bit that may complete a packet. */
int hwt_pt_tnt_fill(struct hwt_pt_encoder *enc, int taken)
{
	if (enc->tnt_count >= HWT_PT_TNT_LONG_BITS)
		return HWT_PT_ERR_INVALID;
	/* The bit that fills a long TNT writes it: need its room first. */
	if (enc->tnt_count + 1 == HWT_PT_TNT_LONG_BITS &&
	    !fits(enc, PT_SIZE_TNT_LONG))
		return HWT_PT_ERR_NOSPACE;

	enc->tnt_bits = (enc->tnt_bits << 1) | (taken ? 1u : 0u);
	enc->tnt_count++;
	if (enc->tnt_count == HWT_PT_TNT_LONG_BITS)
		write_tnt(enc);
	return 0;
}

int hwt_pt_flush_tnt(struct hwt_pt_encoder *enc)
{
	if (!fits(enc, tnt_size(enc->tnt_count)))
		return HWT_PT_ERR_NOSPACE;
	write_tnt(enc);
	return 0;
}

/* ---- IP packets ---- */

/* Canonical 48-bit: bits 63:47 all equal, so IPBytes 011 reproduces it. */
static int ip_is_sext48(uint64_t ip)
{
	uint64_t top = ip >> 47;

	return top == 0 || top == 0x1ffffu;
}

/* Shortest IPBytes form that lets the decoder rebuild ip; payload bytes in *len. */
static enum pt_ipc ip_compress(uint64_t last_ip, uint32_t flags, uint64_t ip,
			       unsigned int *len)
{
	uint64_t diff = ip ^ last_ip;
	int may_update = !(flags & HWT_PT_F_IP_RESET);

	if (may_update && !(diff >> 16)) {
		*len = 2;
		return PT_IPC_UPDATE_16;
	}
	if (may_update && !(diff >> 32)) {
		*len = 4;
		return PT_IPC_UPDATE_32;
	}
	/* Sign extension does not depend on the last IP: prefer it. */
	if (ip_is_sext48(ip)) {
		*len = 6;
		return PT_IPC_SEXT_48;
	}
	if (may_update && !(diff >> 48)) {
		*len = 6;
		return PT_IPC_UPDATE_48;
	}
	*len = 8;
	return PT_IPC_FULL;
}

static size_t ip_packet_size(const struct hwt_pt_encoder *enc, uint64_t ip)
{
	unsigned int len;

	ip_compress(enc->last_ip, enc->flags, ip, &len);
	return 1 + len;
}

/* Caller checked the space: ip_packet_size() bytes. */
static void write_ip_packet(struct hwt_pt_encoder *enc, unsigned int opc,
			    uint64_t ip)
{
	unsigned int len;
	enum pt_ipc ipc = ip_compress(enc->last_ip, enc->flags, ip, &len);

	put8(enc, opc | ((unsigned int)ipc << 5));
	put_le(enc, ip, len);
	/* Every form we use rebuilds ip exactly, so that is the decoder's last IP. */
	enc->last_ip = ip;
	enc->flags &= ~HWT_PT_F_IP_RESET;
}

static int ip_packet(struct hwt_pt_encoder *enc, unsigned int opc, uint64_t ip)
{
	if (!fits(enc, tnt_size(enc->tnt_count) + ip_packet_size(enc, ip)))
		return HWT_PT_ERR_NOSPACE;
	write_tnt(enc);
	write_ip_packet(enc, opc, ip);
	return 0;
}

static unsigned int mode_exec_payload(unsigned int bits)
{
	if (bits == 64)
		return PT_MODE_EXEC_CSL;
	if (bits == 32)
		return PT_MODE_EXEC_CSD;
	return 0;
}

static void write_mode_exec(struct hwt_pt_encoder *enc)
{
	put8(enc, PT_OPC_MODE);
	put8(enc, mode_exec_payload(enc->exec_bits));
	enc->flags |= HWT_PT_F_MODE_SENT;
}

int hwt_pt_tip(struct hwt_pt_encoder *enc, uint64_t ip)
{
	return ip_packet(enc, PT_OPC_TIP, ip);
}

int hwt_pt_tip_pge(struct hwt_pt_encoder *enc, uint64_t ip)
{
	size_t mode = (enc->flags & HWT_PT_F_MODE_SENT) ? 0 : PT_SIZE_MODE;

	if (!fits(enc, tnt_size(enc->tnt_count) + mode + ip_packet_size(enc, ip)))
		return HWT_PT_ERR_NOSPACE;
	write_tnt(enc);
	/* The decoder needs the mode where tracing resumes (SDM: MODE.Exec?, TIP.PGE). */
	if (mode)
		write_mode_exec(enc);
	write_ip_packet(enc, PT_OPC_TIP_PGE, ip);
	return 0;
}

int hwt_pt_tip_pgd(struct hwt_pt_encoder *enc, uint64_t ip, int suppress)
{
	if (!suppress)
		return ip_packet(enc, PT_OPC_TIP_PGD, ip);

	if (!fits(enc, tnt_size(enc->tnt_count) + 1))
		return HWT_PT_ERR_NOSPACE;
	write_tnt(enc);
	/* IPBytes 000: no payload, last IP unchanged. */
	put8(enc, PT_OPC_TIP_PGD);
	return 0;
}

int hwt_pt_fup(struct hwt_pt_encoder *enc, uint64_t ip)
{
	return ip_packet(enc, PT_OPC_FUP, ip);
}

/* ---- PSB+, MODE, OVF ---- */

int hwt_pt_psb_plus(struct hwt_pt_encoder *enc, int enabled, uint64_t ip,
		    int with_tsc, uint64_t tsc)
{
	size_t need = tnt_size(enc->tnt_count) + PT_SIZE_PSB + PT_SIZE_PSBEND;
	unsigned int i;

	if (with_tsc)
		need += PT_SIZE_TSC;
	if (enabled) {
		/* The FUP is compressed against 0, the last IP after PSB. */
		unsigned int len;

		ip_compress(0, 0, ip, &len);
		need += PT_SIZE_MODE + 1 + len;
	}
	if (!fits(enc, need))
		return HWT_PT_ERR_NOSPACE;

	write_tnt(enc);
	for (i = 0; i < PT_SIZE_PSB / 2; i++) {
		put8(enc, PT_OPC_EXT);
		put8(enc, PT_EXT_PSB);
	}
	enc->last_ip = 0;
	enc->flags &= ~(HWT_PT_F_IP_RESET | HWT_PT_F_MODE_SENT);
	if (with_tsc) {
		put8(enc, PT_OPC_TSC);
		put_le(enc, tsc, 7);
	}
	/* MODE.Exec and FUP depend on PacketEn (SDM PSB+ list). */
	if (enabled) {
		write_mode_exec(enc);
		write_ip_packet(enc, PT_OPC_FUP, ip);
	}
	put8(enc, PT_OPC_EXT);
	put8(enc, PT_EXT_PSBEND);
	return 0;
}

int hwt_pt_mode_exec(struct hwt_pt_encoder *enc, unsigned int bits)
{
	if (bits != 64 && bits != 32 && bits != 16)
		return HWT_PT_ERR_INVALID;
	if (!fits(enc, tnt_size(enc->tnt_count) + PT_SIZE_MODE))
		return HWT_PT_ERR_NOSPACE;
	write_tnt(enc);
	enc->exec_bits = bits;
	write_mode_exec(enc);
	return 0;
}

int hwt_pt_ovf(struct hwt_pt_encoder *enc)
{
	if (!fits(enc, tnt_size(enc->tnt_count) + PT_SIZE_OVF))
		return HWT_PT_ERR_NOSPACE;
	write_tnt(enc);
	put8(enc, PT_OPC_EXT);
	put8(enc, PT_EXT_OVF);
	/*
	 * Packets (a MODE.Exec among them) may have been lost: resend the
	 * mode on TIP.PGE and send the next IP uncompressed.
	 */
	enc->last_ip = 0;
	enc->flags |= HWT_PT_F_IP_RESET;
	enc->flags &= ~HWT_PT_F_MODE_SENT;
	return 0;
}

/* ---- Timing and padding: no TNT flush ---- */

int hwt_pt_pad(struct hwt_pt_encoder *enc)
{
	if (!fits(enc, 1))
		return HWT_PT_ERR_NOSPACE;
	put8(enc, PT_OPC_PAD);
	return 0;
}

int hwt_pt_tsc(struct hwt_pt_encoder *enc, uint64_t tsc)
{
	if (!fits(enc, PT_SIZE_TSC))
		return HWT_PT_ERR_NOSPACE;
	put8(enc, PT_OPC_TSC);
	put_le(enc, tsc, 7);
	return 0;
}

int hwt_pt_cyc(struct hwt_pt_encoder *enc, uint64_t cycles)
{
	size_t need = 1;
	uint64_t rest = cycles >> 5;

	if (cycles > HWT_PT_CYC_MAX)
		return HWT_PT_ERR_INVALID;
	while (rest) {
		need++;
		rest >>= 7;
	}
	if (!fits(enc, need))
		return HWT_PT_ERR_NOSPACE;

	rest = cycles >> 5;
	put8(enc, PT_OPC_CYC | (rest ? PT_CYC_EXT : 0) |
		  (unsigned int)((cycles & 0x1fu) << 3));
	while (rest) {
		unsigned int byte = (unsigned int)((rest & 0x7fu) << 1);

		rest >>= 7;
		put8(enc, byte | (rest ? PT_CYCX_EXT : 0));
	}
	return 0;
}

int hwt_pt_ip_decompress(uint64_t *last_ip, unsigned int ipbytes, uint64_t payload,
			 uint64_t *ip)
{
	uint64_t v = *last_ip;

	switch (ipbytes) {
	case 1:
		v = (v & ~0xffffull) | (payload & 0xffffull);
		break;
	case 2:
		v = (v & ~0xffffffffull) | (payload & 0xffffffffull);
		break;
	case 3:
		v = payload & 0xffffffffffffull;
		if (v & (1ull << 47))
			v |= 0xffff000000000000ull;
		break;
	case 4:
		v = (v & ~0xffffffffffffull) | (payload & 0xffffffffffffull);
		break;
	case 6:
		v = payload;
		break;
	default:
		return -1; /* 0: suppressed; 5 and 7: reserved */
	}
	*last_ip = v;
	*ip = v;
	return 0;
}
