/* Arm SPE packets: see spe_packet.h for the encoding. */
#include "spe_packet.h"

#define HDR_PADDING     0x00u
#define HDR_END         0x01u
#define HDR_TIMESTAMP   0x71u
#define HDR_EVENTS      0x42u  /* mask 0xcf: bits 5:4 the size */
#define HDR_SOURCE      0x43u  /* mask 0xcf */
#define HDR_CONTEXT     0x64u  /* mask 0xfc: bits 1:0 the index */
#define HDR_OP_TYPE     0x48u  /* mask 0xfc: bits 1:0 the class */
#define HDR_ADDRESS     0xb0u  /* mask 0xf8: bits 2:0 the index */
#define HDR_COUNTER     0x98u  /* mask 0xf8 */
#define HDR_EXTENDED    0x20u  /* mask 0xfc: bits 1:0 the index's bits 4:3 */

static const char *const names[] = {
	"PAD", "END", "TIMESTAMP", "EVENTS", "DATA-SOURCE", "CONTEXT", "OP-TYPE", "ADDRESS",
	"COUNTER",
};

const char *hwt_spe_packet_name(unsigned kind)
{
	return kind < sizeof(names) / sizeof(names[0]) ? names[kind] : "BAD";
}

const char *hwt_spe_errstr(int err)
{
	switch (err) {
	case HWT_SPE_ERR_NOSPACE:
		return "no room in the buffer";
	case HWT_SPE_ERR_INVALID:
		return "a packet SPE cannot encode";
	case HWT_SPE_ERR_HEADER:
		return "a header byte that starts no SPE packet";
	case HWT_SPE_ERR_TRUNCATED:
		return "the data ends inside an SPE packet or record";
	case HWT_SPE_ERR_TOO_LONG:
		return "an SPE record longer than the longest hardware writes (no End)";
	default:
		return "unknown SPE error";
	}
}

/* log2 of a payload size of 1, 2, 4 or 8 bytes; -1 for any other. */
static int size_code(unsigned size)
{
	switch (size) {
	case 1:
		return 0;
	case 2:
		return 1;
	case 4:
		return 2;
	case 8:
		return 3;
	default:
		return -1;
	}
}

int hwt_spe_packet_encode(const struct hwt_spe_packet *p, uint8_t *buf, size_t size)
{
	unsigned hdr, psize, index = p->index;
	size_t n = 0;
	int sc;

	switch (p->kind) {
	case HWT_SPE_PADDING:
	case HWT_SPE_END:
		if (size < 1)
			return HWT_SPE_ERR_NOSPACE;
		buf[0] = p->kind == HWT_SPE_END ? HDR_END : HDR_PADDING;
		return 1;
	case HWT_SPE_TIMESTAMP:
		hdr = HDR_TIMESTAMP;
		psize = 8;
		break;
	case HWT_SPE_EVENTS:
	case HWT_SPE_DATA_SOURCE:
		if ((sc = size_code(p->size)) < 0)
			return HWT_SPE_ERR_INVALID;
		hdr = (p->kind == HWT_SPE_EVENTS ? HDR_EVENTS : HDR_SOURCE) | (unsigned)sc << 4;
		psize = p->size;
		break;
	case HWT_SPE_CONTEXT:
		if (index > 3)
			return HWT_SPE_ERR_INVALID;
		hdr = HDR_CONTEXT | index;
		psize = 4;
		break;
	case HWT_SPE_OP_TYPE:
		if (index > 3)
			return HWT_SPE_ERR_INVALID;
		hdr = HDR_OP_TYPE | index;
		psize = 1;
		break;
	case HWT_SPE_ADDRESS:
	case HWT_SPE_COUNTER:
		if (index > 31)
			return HWT_SPE_ERR_INVALID;
		hdr = (p->kind == HWT_SPE_ADDRESS ? HDR_ADDRESS : HDR_COUNTER) | (index & 7u);
		psize = p->kind == HWT_SPE_ADDRESS ? 8 : 2;
		if (index > 7) {
			if (size < 1)
				return HWT_SPE_ERR_NOSPACE;
			buf[n++] = (uint8_t)(HDR_EXTENDED | index >> 3);
		}
		break;
	default:
		return HWT_SPE_ERR_INVALID;
	}
	if (size < n + 1 + psize)
		return HWT_SPE_ERR_NOSPACE;
	buf[n++] = (uint8_t)hdr;
	for (unsigned i = 0; i < psize; i++)
		buf[n++] = (uint8_t)(p->payload >> (8 * i));
	return (int)n;
}

int hwt_spe_packet_decode(const uint8_t *buf, size_t len, struct hwt_spe_packet *p)
{
	unsigned hdr, ext = 0, psize;
	size_t n = 1;

	if (len < 1)
		return HWT_SPE_ERR_TRUNCATED;
	hdr = buf[0];
	p->index = 0;
	p->payload = 0;
	if ((hdr & 0xfcu) == HDR_EXTENDED) {
		/* Only Address and Counter packets have indices past 7. */
		if (len < 2)
			return HWT_SPE_ERR_TRUNCATED;
		ext = (hdr & 3u) << 3;
		hdr = buf[1];
		n = 2;
		if ((hdr & 0xf8u) != HDR_ADDRESS && (hdr & 0xf8u) != HDR_COUNTER)
			return HWT_SPE_ERR_HEADER;
	}
	if (hdr == HDR_PADDING || hdr == HDR_END) {
		p->kind = hdr == HDR_END ? HWT_SPE_END : HWT_SPE_PADDING;
		p->size = 0;
		return 1;
	}
	if (hdr == HDR_TIMESTAMP) {
		p->kind = HWT_SPE_TIMESTAMP;
	} else if ((hdr & 0xcfu) == HDR_EVENTS) {
		p->kind = HWT_SPE_EVENTS;
	} else if ((hdr & 0xcfu) == HDR_SOURCE) {
		p->kind = HWT_SPE_DATA_SOURCE;
	} else if ((hdr & 0xfcu) == HDR_CONTEXT) {
		p->kind = HWT_SPE_CONTEXT;
		p->index = (uint8_t)(hdr & 3u);
	} else if ((hdr & 0xfcu) == HDR_OP_TYPE) {
		p->kind = HWT_SPE_OP_TYPE;
		p->index = (uint8_t)(hdr & 3u);
	} else if ((hdr & 0xf8u) == HDR_ADDRESS) {
		p->kind = HWT_SPE_ADDRESS;
		p->index = (uint8_t)(ext | (hdr & 7u));
	} else if ((hdr & 0xf8u) == HDR_COUNTER) {
		p->kind = HWT_SPE_COUNTER;
		p->index = (uint8_t)(ext | (hdr & 7u));
	} else {
		return HWT_SPE_ERR_HEADER;
	}
	/* Every packet with a payload has its size in header bits 5:4. */
	psize = 1u << ((hdr >> 4) & 3u);
	if (len < n + psize)
		return HWT_SPE_ERR_TRUNCATED;
	for (unsigned i = 0; i < psize; i++)
		p->payload |= (uint64_t)buf[n + i] << (8 * i);
	p->size = (uint8_t)psize;
	return (int)(n + psize);
}

void hwt_spe_record_clear(struct hwt_spe_record *r)
{
	r->has = 0;
	r->op_class = r->op = r->context_index = 0;
	r->context = 0;
	for (unsigned i = 0; i < HWT_SPE_ADDR_KNOWN; i++)
		r->addr[i] = 0;
	for (unsigned i = 0; i < HWT_SPE_COUNT_KNOWN; i++)
		r->count[i] = 0;
	r->events = r->source = r->timestamp = 0;
}

/* The smallest Events payload size that holds every bit set. */
static uint8_t events_size(uint64_t ev)
{
	return ev >> 32 ? 8 : ev >> 16 ? 4 : ev >> 8 ? 2 : 1;
}

int hwt_spe_record_encode(const struct hwt_spe_record *r, uint8_t *buf, size_t size)
{
	static const uint8_t addr_order[] = { HWT_SPE_ADDR_DATA_VA, HWT_SPE_ADDR_DATA_PA,
					      HWT_SPE_ADDR_TARGET, HWT_SPE_ADDR_PREV_BR };
	static const uint8_t count_order[] = { HWT_SPE_COUNT_ISSUE, HWT_SPE_COUNT_TOTAL,
					       HWT_SPE_COUNT_XLAT };
	struct hwt_spe_packet p;
	size_t n = 0;
	int w;

#define PUT(KIND, INDEX, SIZE, PAYLOAD)                                               \
	do {                                                                          \
		p.kind = (KIND);                                                      \
		p.index = (uint8_t)(INDEX);                                           \
		p.size = (SIZE);                                                      \
		p.payload = (PAYLOAD);                                                \
		if ((w = hwt_spe_packet_encode(&p, buf + n, size - n)) < 0)           \
			return w;                                                     \
		n += (size_t)w;                                                       \
	} while (0)

	if (r->has & HWT_SPE_HAS_CONTEXT)
		PUT(HWT_SPE_CONTEXT, r->context_index, 4, r->context);
	if (r->has & HWT_SPE_HAS_ADDR(HWT_SPE_ADDR_PC))
		PUT(HWT_SPE_ADDRESS, HWT_SPE_ADDR_PC, 8, r->addr[HWT_SPE_ADDR_PC]);
	if (r->has & HWT_SPE_HAS_OP)
		PUT(HWT_SPE_OP_TYPE, r->op_class, 1, r->op);
	if (r->has & HWT_SPE_HAS_EVENTS)
		PUT(HWT_SPE_EVENTS, 0, events_size(r->events), r->events);
	for (unsigned i = 0; i < sizeof(count_order); i++)
		if (r->has & HWT_SPE_HAS_COUNT(count_order[i]))
			PUT(HWT_SPE_COUNTER, count_order[i], 2, r->count[count_order[i]]);
	if (r->has & HWT_SPE_HAS_SOURCE)
		PUT(HWT_SPE_DATA_SOURCE, 0, 2, r->source & 0xffffu);
	for (unsigned i = 0; i < sizeof(addr_order); i++)
		if (r->has & HWT_SPE_HAS_ADDR(addr_order[i]))
			PUT(HWT_SPE_ADDRESS, addr_order[i], 8, r->addr[addr_order[i]]);
	if (r->has & HWT_SPE_HAS_TIMESTAMP)
		PUT(HWT_SPE_TIMESTAMP, 0, 8, r->timestamp);
	else
		PUT(HWT_SPE_END, 0, 0, 0);
#undef PUT
	return (int)n;
}

void hwt_spe_decoder_init(struct hwt_spe_decoder *d, const uint8_t *buf, size_t len)
{
	d->buf = buf;
	d->len = len;
	d->pos = d->record_at = d->error_at = d->lost_from = 0;
	d->lost_bytes = 0;
	d->errors = 0;
}

/* Adds packet p to record r. */
static void add_packet(struct hwt_spe_record *r, const struct hwt_spe_packet *p)
{
	switch (p->kind) {
	case HWT_SPE_TIMESTAMP:
		r->timestamp = p->payload;
		r->has |= HWT_SPE_HAS_TIMESTAMP;
		break;
	case HWT_SPE_EVENTS:
		r->events = p->payload;
		r->has |= HWT_SPE_HAS_EVENTS;
		break;
	case HWT_SPE_DATA_SOURCE:
		r->source = p->payload;
		r->has |= HWT_SPE_HAS_SOURCE;
		break;
	case HWT_SPE_CONTEXT:
		r->context = (uint32_t)p->payload;
		r->context_index = p->index;
		r->has |= HWT_SPE_HAS_CONTEXT;
		break;
	case HWT_SPE_OP_TYPE:
		r->op_class = p->index;
		r->op = (uint8_t)p->payload;
		r->has |= HWT_SPE_HAS_OP;
		break;
	case HWT_SPE_ADDRESS:
		if (p->index < HWT_SPE_ADDR_KNOWN) {
			r->addr[p->index] = p->payload;
			r->has |= HWT_SPE_HAS_ADDR(p->index);
		} else {
			r->has |= HWT_SPE_HAS_UNKNOWN;
		}
		break;
	case HWT_SPE_COUNTER:
		if (p->index < HWT_SPE_COUNT_KNOWN) {
			r->count[p->index] = (uint16_t)p->payload;
			r->has |= HWT_SPE_HAS_COUNT(p->index);
		} else {
			r->has |= HWT_SPE_HAS_UNKNOWN;
		}
		break;
	default:
		break;
	}
}

/*
 * Reads the record at buf[pos..): its end offset (> pos), 0 when only
 * padding is left, or an error with *bad at the packet that failed.
 */
static long read_record(const uint8_t *buf, size_t len, size_t pos, struct hwt_spe_record *r,
			size_t *bad)
{
	struct hwt_spe_packet p;
	size_t start;
	int n;

	while (pos < len && buf[pos] == HDR_PADDING)
		pos++;
	if (pos == len)
		return 0;
	start = pos;
	hwt_spe_record_clear(r);
	for (;;) {
		if (pos - start >= HWT_SPE_RECORD_MAX) {
			*bad = pos;
			return HWT_SPE_ERR_TOO_LONG;
		}
		n = hwt_spe_packet_decode(buf + pos, len - pos, &p);
		if (n < 0) {
			*bad = pos;
			return n;
		}
		pos += (size_t)n;
		add_packet(r, &p);
		if (p.kind == HWT_SPE_END || p.kind == HWT_SPE_TIMESTAMP)
			return (long)pos;
	}
}

int hwt_spe_decoder_next(struct hwt_spe_decoder *d, struct hwt_spe_record *r)
{
	size_t start = d->pos, bad = 0, skip;
	long end;
	int err;

	while (start < d->len && d->buf[start] == HDR_PADDING)
		start++;
	end = read_record(d->buf, d->len, start, r, &bad);
	if (end == 0) {
		d->pos = d->len;
		return 0;
	}
	if (end > 0) {
		d->record_at = start;
		d->pos = (size_t)end;
		return 1;
	}
	/*
	 * Damage. SPE has no sync packet: the next record is the first place
	 * past the damaged packet from which a whole record with a PC decodes
	 * (a lone End byte inside a payload would otherwise pass for one).
	 */
	err = (int)end;
	d->error_at = bad;
	d->lost_from = start;
	d->errors++;
	for (skip = bad + 1; skip < d->len; skip++) {
		size_t ignored;
		long e = read_record(d->buf, d->len, skip, r, &ignored);

		if (e > 0 && (r->has & HWT_SPE_HAS_ADDR(HWT_SPE_ADDR_PC)))
			break;
	}
	/* Padding before that record counts as lost with the damage. */
	while (skip < d->len && d->buf[skip] == HDR_PADDING)
		skip++;
	if (skip > d->len)
		skip = d->len;
	d->lost_bytes += skip - start;
	d->pos = skip;
	hwt_spe_record_clear(r);
	return err;
}
