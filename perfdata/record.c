/*
 * One record: its bytes decoded into struct hwt_perf_record within the
 * record's bounds, and encoded from it. Layouts: linux/perf_event.h for
 * the kernel's records, perf's own for types 64 and up.
 */
#include "perfdata_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The sample_type bits that place sample_id fields. */
#define SID_BITS (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | \
		  PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

/* ----- Byte buffers ----------------------------------------------------- */

int hwt_perf_buf_reserve(struct hwt_perf_buf *b, size_t more)
{
	size_t cap;
	uint8_t *p;

	if (more <= b->cap - b->len)
		return 0;
	if (more > SIZE_MAX / 2 - b->len)
		return -hpf_nomem;
	cap = b->cap ? b->cap : 256;
	while (cap - b->len < more)
		cap *= 2;
	p = realloc(b->data, cap);
	if (!p)
		return -hpf_nomem;
	b->data = p;
	b->cap = cap;
	return 0;
}

int hwt_perf_buf_add(struct hwt_perf_buf *b, const void *data, size_t len)
{
	if (!len)
		return 0;
	if (hwt_perf_buf_reserve(b, len))
		return -hpf_nomem;
	memcpy(b->data + b->len, data, len);
	b->len += len;
	return 0;
}

int hwt_perf_buf_zero(struct hwt_perf_buf *b, size_t len)
{
	if (!len)
		return 0;
	if (hwt_perf_buf_reserve(b, len))
		return -hpf_nomem;
	memset(b->data + b->len, 0, len);
	b->len += len;
	return 0;
}

int hwt_perf_buf_u32(struct hwt_perf_buf *b, uint32_t v)
{
	return hwt_perf_buf_add(b, &v, sizeof(v));
}

int hwt_perf_buf_u64(struct hwt_perf_buf *b, uint64_t v)
{
	return hwt_perf_buf_add(b, &v, sizeof(v));
}

int hwt_perf_buf_string(struct hwt_perf_buf *b, const char *s)
{
	size_t n = strlen(s) + 1;
	size_t padded = (n + HWT_PERF_NAME_ALIGN - 1) / HWT_PERF_NAME_ALIGN * HWT_PERF_NAME_ALIGN;

	if (padded > UINT32_MAX)
		return -hpf_invalid;
	if (hwt_perf_buf_u32(b, (uint32_t)padded) || hwt_perf_buf_add(b, s, n) ||
	    hwt_perf_buf_zero(b, padded - n))
		return -hpf_nomem;
	return 0;
}

void hwt_perf_buf_free(struct hwt_perf_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

/* ----- sample_id -------------------------------------------------------- */

void hwt_perf_layout_of(struct hwt_perf_layout *layout, const struct hwt_perf_attr *attrs,
			size_t count, char *why, size_t why_size)
{
	memset(layout, 0, sizeof(*layout));
	if (why_size)
		why[0] = '\0';
	layout->attrs = attrs;
	layout->nattrs = count;
	if (!count)
		return;
	layout->sample_type = attrs[0].attr.sample_type;
	layout->sample_id_all = attrs[0].attr.sample_id_all;
	for (size_t i = 1; i < count; i++) {
		const struct perf_event_attr *a = &attrs[i].attr;

		if ((a->sample_type & SID_BITS) == (layout->sample_type & SID_BITS) &&
		    a->sample_id_all == (uint64_t)layout->sample_id_all)
			continue;
		if (a->sample_type & layout->sample_type & PERF_SAMPLE_IDENTIFIER) {
			layout->identifier_only = 1;
			continue;
		}
		snprintf(why, why_size,
			 "event attributes 0 and %zu place sample ids differently (sample_type "
			 "0x%llx and 0x%llx): trailers read as attribute 0 says",
			 i, (unsigned long long)layout->sample_type,
			 (unsigned long long)a->sample_type);
	}
}

int hwt_perf_type_has_trailer(uint32_t type)
{
	return type != PERF_RECORD_SAMPLE && type < HWT_PERF_RECORD_HEADER_ATTR;
}

static size_t sid_size(uint64_t st)
{
	size_t n = 0;

	if (st & PERF_SAMPLE_TID)
		n += 8;
	if (st & PERF_SAMPLE_TIME)
		n += 8;
	if (st & PERF_SAMPLE_ID)
		n += 8;
	if (st & PERF_SAMPLE_STREAM_ID)
		n += 8;
	if (st & PERF_SAMPLE_CPU)
		n += 8;
	if (st & PERF_SAMPLE_IDENTIFIER)
		n += 8;
	return n;
}

/* The sample_type of the attribute of event id, or fallback. */
static uint64_t sample_type_of(const struct hwt_perf_layout *layout, uint64_t id,
			       uint64_t fallback)
{
	for (size_t i = 0; i < layout->nattrs; i++)
		for (size_t k = 0; k < layout->attrs[i].nids; k++)
			if (layout->attrs[i].ids[k] == id)
				return layout->attrs[i].attr.sample_type;
	return fallback;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* The trailer of n bytes at p (fields in sample_type order). */
static void trailer_decode(uint64_t st, const uint8_t *p, struct hwt_perf_sample_id *sid)
{
	if (st & PERF_SAMPLE_TID) {
		sid->pid = get32(p);
		sid->tid = get32(p + 4);
		sid->fields |= HWT_PERF_SID_TID;
		p += 8;
	}
	if (st & PERF_SAMPLE_TIME) {
		sid->time = get64(p);
		sid->fields |= HWT_PERF_SID_TIME;
		p += 8;
	}
	if (st & PERF_SAMPLE_ID) {
		sid->id = get64(p);
		sid->fields |= HWT_PERF_SID_ID;
		p += 8;
	}
	if (st & PERF_SAMPLE_STREAM_ID) {
		sid->stream_id = get64(p);
		sid->fields |= HWT_PERF_SID_STREAM_ID;
		p += 8;
	}
	if (st & PERF_SAMPLE_CPU) {
		sid->cpu = get32(p);
		sid->fields |= HWT_PERF_SID_CPU;
		p += 8;
	}
	if (st & PERF_SAMPLE_IDENTIFIER) {
		sid->id = get64(p);
		sid->fields |= HWT_PERF_SID_ID;
	}
}

static int trailer_encode(uint64_t st, const struct hwt_perf_sample_id *sid,
			  struct hwt_perf_buf *b)
{
	int err = 0;

	if (st & PERF_SAMPLE_TID)
		err |= hwt_perf_buf_u32(b, sid->pid) | hwt_perf_buf_u32(b, sid->tid);
	if (st & PERF_SAMPLE_TIME)
		err |= hwt_perf_buf_u64(b, sid->time);
	if (st & PERF_SAMPLE_ID)
		err |= hwt_perf_buf_u64(b, sid->id);
	if (st & PERF_SAMPLE_STREAM_ID)
		err |= hwt_perf_buf_u64(b, sid->stream_id);
	if (st & PERF_SAMPLE_CPU)
		err |= hwt_perf_buf_u32(b, sid->cpu) | hwt_perf_buf_u32(b, 0);
	if (st & PERF_SAMPLE_IDENTIFIER)
		err |= hwt_perf_buf_u64(b, sid->id);
	return err ? -hpf_nomem : 0;
}

/* ----- Decoding --------------------------------------------------------- */

/* Fixed body sizes (after the 8-byte header). */
#define MMAP_BODY 32u     /* pid tid addr len pgoff */
#define MMAP2_BODY 64u    /* ... maj min ino ino_generation prot flags */
#define COMM_BODY 8u
#define TASK_BODY 24u
#define AUXTRACE_ERROR_BODY 96u /* type code cpu pid tid fmt ip msg[64] (fmt 0) */

/* A NUL-terminated string in [p, end), or NULL. */
static const char *string_in(const uint8_t *p, const uint8_t *end)
{
	if (p >= end || !memchr(p, '\0', (size_t)(end - p)))
		return NULL;
	return (const char *)p;
}

__attribute__((format(printf, 3, 4)))
static int bad(char *why, size_t why_size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, why_size, fmt, ap);
	va_end(ap);
	return -hpf_bad_record;
}

/* A record's fields being decoded: [at, end) between its header and its
   sample_id trailer; name, size and why for the messages. */
struct body {
	const uint8_t *at, *end;
	const char *name;
	size_t size;
	char *why;
	size_t why_size;
};

/* 0 when the fields have n bytes, else why not. */
static int need(const struct body *b, size_t n)
{
	if ((size_t)(b->end - b->at) < n)
		return bad(b->why, b->why_size, "%s record of %zu bytes is too short for its fields",
			   b->name, b->size);
	return 0;
}

/* The header: type, misc and size. */
static void decode_header(const uint8_t *p, struct hwt_perf_record *rec)
{
	rec->type = get32(p);
	rec->misc = (uint16_t)(p[4] | p[5] << 8);
	rec->size = (uint16_t)(p[6] | p[7] << 8);
	rec->raw = p;
}

/* The sample_id trailer of kernel records (its fields are st's): into
   rec->sample, and off the end of b. */
static int decode_trailer(const struct hwt_perf_layout *layout, uint64_t st,
			  struct hwt_perf_record *rec, struct body *b)
{
	size_t tsize = hwt_perf_type_has_trailer(rec->type) && layout->sample_id_all ?
		       sid_size(st) : 0;

	if (!tsize)
		return 0;
	if (b->size - 8 < tsize)
		return bad(b->why, b->why_size, "%s record of %zu bytes: no room for its "
			   "%zu-byte sample id", b->name, b->size, tsize);
	trailer_decode(st, b->end - tsize, &rec->sample);
	b->end -= tsize;
	return 0;
}

static int decode_mmap(const struct body *b, struct hwt_perf_record *rec)
{
	const uint8_t *body = b->at;
	size_t fixed = rec->type == PERF_RECORD_MMAP ? MMAP_BODY : MMAP2_BODY;
	int err = need(b, fixed);

	if (err)
		return err;
	rec->u.mmap.pid = get32(body);
	rec->u.mmap.tid = get32(body + 4);
	rec->u.mmap.addr = get64(body + 8);
	rec->u.mmap.len = get64(body + 16);
	rec->u.mmap.pgoff = get64(body + 24);
	if (rec->type == PERF_RECORD_MMAP2) {
		if (rec->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			uint8_t n = body[32];

			if (n > sizeof(rec->u.mmap.build_id))
				return bad(b->why, b->why_size, "MMAP2 record with a build-id of "
					   "%u bytes (at most 20)", n);
			rec->u.mmap.build_id_size = n;
			memcpy(rec->u.mmap.build_id, body + 36, n);
		} else {
			rec->u.mmap.maj = get32(body + 32);
			rec->u.mmap.min = get32(body + 36);
			rec->u.mmap.ino = get64(body + 40);
			rec->u.mmap.ino_generation = get64(body + 48);
		}
		rec->u.mmap.prot = get32(body + 56);
		rec->u.mmap.flags = get32(body + 60);
	}
	rec->u.mmap.filename = string_in(body + fixed, b->end);
	if (!rec->u.mmap.filename)
		return bad(b->why, b->why_size, "%s record whose file name is not "
			   "NUL-terminated inside it", b->name);
	return 0;
}

static int decode_comm(const struct body *b, struct hwt_perf_record *rec)
{
	int err = need(b, COMM_BODY);

	if (err)
		return err;
	rec->u.comm.pid = get32(b->at);
	rec->u.comm.tid = get32(b->at + 4);
	rec->u.comm.comm = string_in(b->at + COMM_BODY, b->end);
	if (!rec->u.comm.comm)
		return bad(b->why, b->why_size, "COMM record whose name is not "
			   "NUL-terminated inside it");
	return 0;
}

/* FORK and EXIT. */
static int decode_task(const struct body *b, struct hwt_perf_record *rec)
{
	int err = need(b, TASK_BODY);

	if (err)
		return err;
	rec->u.task.pid = get32(b->at);
	rec->u.task.ppid = get32(b->at + 4);
	rec->u.task.tid = get32(b->at + 8);
	rec->u.task.ptid = get32(b->at + 12);
	rec->u.task.time = get64(b->at + 16);
	return 0;
}

/* The kernel's records of a few fixed fields: LOST, LOST_SAMPLES, AUX,
   ITRACE_START, SWITCH_CPU_WIDE. */
static int decode_fixed(const struct body *b, struct hwt_perf_record *rec)
{
	const uint8_t *body = b->at;
	size_t n = rec->type == PERF_RECORD_LOST ? 16 : rec->type == PERF_RECORD_AUX ? 24 : 8;
	int err = need(b, n);

	if (err)
		return err;
	switch (rec->type) {
	case PERF_RECORD_LOST:
		rec->u.lost.id = get64(body);
		rec->u.lost.lost = get64(body + 8);
		break;
	case PERF_RECORD_LOST_SAMPLES:
		rec->u.lost_samples.lost = get64(body);
		break;
	case PERF_RECORD_AUX:
		rec->u.aux.offset = get64(body);
		rec->u.aux.size = get64(body + 8);
		rec->u.aux.flags = get64(body + 16);
		break;
	case PERF_RECORD_ITRACE_START:
		rec->u.itrace_start.pid = get32(body);
		rec->u.itrace_start.tid = get32(body + 4);
		break;
	case PERF_RECORD_SWITCH_CPU_WIDE:
		rec->u.sw.next_prev_pid = get32(body);
		rec->u.sw.next_prev_tid = get32(body + 4);
		break;
	}
	return 0;
}

/* A SAMPLE's next 8-byte field, at *q, into *v. */
static int take(const struct body *b, const uint8_t **q, uint64_t *v)
{
	if ((size_t)(b->end - *q) < 8)
		return bad(b->why, b->why_size, "SAMPLE record of %zu bytes is too short for its "
			   "fields", b->size);
	*v = get64(*q);
	*q += 8;
	return 0;
}

/* The fields of a SAMPLE before the variable ones; which there are is st's. */
static int decode_sample(const struct body *b, uint64_t st, struct hwt_perf_record *rec)
{
	struct hwt_perf_sample_id *sid = &rec->sample;
	const uint8_t *q = b->at;
	uint64_t v = 0; /* gcc cannot see that take() sets it whenever it returns 0 */

	if (st & PERF_SAMPLE_IDENTIFIER) {
		if (need(b, 8))
			return -hpf_bad_record;
		sid->id = get64(q);
		sid->fields |= HWT_PERF_SID_ID;
		q += 8;
	}
	if ((st & PERF_SAMPLE_IP) && take(b, &q, &rec->u.sample.ip))
		return -hpf_bad_record;
	if (st & PERF_SAMPLE_TID) {
		if (take(b, &q, &v))
			return -hpf_bad_record;
		sid->pid = (uint32_t)v;
		sid->tid = (uint32_t)(v >> 32);
		sid->fields |= HWT_PERF_SID_TID;
	}
	if (st & PERF_SAMPLE_TIME) {
		if (take(b, &q, &sid->time))
			return -hpf_bad_record;
		sid->fields |= HWT_PERF_SID_TIME;
	}
	if ((st & PERF_SAMPLE_ADDR) && take(b, &q, &rec->u.sample.addr))
		return -hpf_bad_record;
	if (st & PERF_SAMPLE_ID) {
		if (take(b, &q, &sid->id))
			return -hpf_bad_record;
		sid->fields |= HWT_PERF_SID_ID;
	}
	if (st & PERF_SAMPLE_STREAM_ID) {
		if (take(b, &q, &sid->stream_id))
			return -hpf_bad_record;
		sid->fields |= HWT_PERF_SID_STREAM_ID;
	}
	if (st & PERF_SAMPLE_CPU) {
		if (take(b, &q, &v))
			return -hpf_bad_record;
		sid->cpu = (uint32_t)v;
		sid->fields |= HWT_PERF_SID_CPU;
	}
	if ((st & PERF_SAMPLE_PERIOD) && take(b, &q, &rec->u.sample.period))
		return -hpf_bad_record;
	return 0;
}

static int decode_auxtrace_info(const struct body *b, struct hwt_perf_record *rec)
{
	int err = need(b, 8);

	if (err)
		return err;
	rec->u.auxtrace_info.type = get32(b->at);
	rec->u.auxtrace_info.priv = (const uint64_t *)(b->at + 8);
	rec->u.auxtrace_info.npriv = (size_t)(b->end - b->at - 8) / 8;
	return 0;
}

static int decode_auxtrace(const struct body *b, struct hwt_perf_record *rec)
{
	const uint8_t *body = b->at;
	int err = need(b, HWT_PERF_AUXTRACE_SIZE - 8);

	if (err)
		return err;
	rec->u.auxtrace.size = get64(body);
	rec->u.auxtrace.offset = get64(body + 8);
	rec->u.auxtrace.reference = get64(body + 16);
	rec->u.auxtrace.idx = get32(body + 24);
	rec->u.auxtrace.tid = get32(body + 28);
	rec->u.auxtrace.cpu = get32(body + 32);
	return 0;
}

static int decode_auxtrace_error(const struct body *b, struct hwt_perf_record *rec)
{
	const uint8_t *body = b->at;
	size_t msg_at = 32;
	int err = need(b, AUXTRACE_ERROR_BODY);

	/* fmt 0 (older perf): no time before msg. */
	if (err)
		return err;
	rec->u.auxtrace_error.type = get32(body);
	rec->u.auxtrace_error.code = get32(body + 4);
	rec->u.auxtrace_error.cpu = get32(body + 8);
	rec->u.auxtrace_error.pid = get32(body + 12);
	rec->u.auxtrace_error.tid = get32(body + 16);
	rec->u.auxtrace_error.fmt = get32(body + 20);
	rec->u.auxtrace_error.ip = get64(body + 24);
	if (rec->u.auxtrace_error.fmt) {
		err = need(b, AUXTRACE_ERROR_BODY + 8);
		if (err)
			return err;
		rec->u.auxtrace_error.time = get64(body + 32);
		msg_at = 40;
	}
	memcpy(rec->u.auxtrace_error.msg, body + msg_at, 64);
	rec->u.auxtrace_error.msg[64] = '\0';
	return 0;
}

static int decode_id_index(const struct body *b, struct hwt_perf_record *rec)
{
	int err = need(b, 8);

	if (err)
		return err;
	rec->u.id_index.nr = get64(b->at);
	if (rec->u.id_index.nr > (uint64_t)(b->end - b->at - 8) / 32)
		return bad(b->why, b->why_size, "ID_INDEX record of %zu bytes claims %llu "
			   "entries", b->size, (unsigned long long)rec->u.id_index.nr);
	rec->u.id_index.entries = (const struct hwt_perf_id_index_entry *)(b->at + 8);
	return 0;
}

static int decode_time_conv(const struct body *b, struct hwt_perf_record *rec)
{
	const uint8_t *body = b->at;
	int err = need(b, 24);

	if (err)
		return err;
	rec->u.time_conv.time_shift = get64(body);
	rec->u.time_conv.time_mult = get64(body + 8);
	rec->u.time_conv.time_zero = get64(body + 16);
	if ((size_t)(b->end - body) >= 48) {
		rec->u.time_conv.time_cycles = get64(body + 24);
		rec->u.time_conv.time_mask = get64(body + 32);
		rec->u.time_conv.cap_user_time_zero = body[40];
		rec->u.time_conv.cap_user_time_short = body[41];
		rec->u.time_conv.extended = 1;
	}
	return 0;
}

/* The fields of rec's type into rec->u; a type it does not know is not known. */
static int decode_fields(const struct body *b, uint64_t st, struct hwt_perf_record *rec)
{
	rec->known = 1;
	switch (rec->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		return decode_mmap(b, rec);
	case PERF_RECORD_COMM:
		return decode_comm(b, rec);
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		return decode_task(b, rec);
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
	case PERF_RECORD_AUX:
	case PERF_RECORD_ITRACE_START:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		return decode_fixed(b, rec);
	case PERF_RECORD_SAMPLE:
		return decode_sample(b, st, rec);
	case HWT_PERF_RECORD_AUXTRACE_INFO:
		return decode_auxtrace_info(b, rec);
	case HWT_PERF_RECORD_AUXTRACE:
		return decode_auxtrace(b, rec);
	case HWT_PERF_RECORD_AUXTRACE_ERROR:
		return decode_auxtrace_error(b, rec);
	case HWT_PERF_RECORD_ID_INDEX:
		return decode_id_index(b, rec);
	case HWT_PERF_RECORD_TIME_CONV:
		return decode_time_conv(b, rec);
	case PERF_RECORD_SWITCH:
	case HWT_PERF_RECORD_FINISHED_ROUND:
	case HWT_PERF_RECORD_FINISHED_INIT:
	case HWT_PERF_RECORD_HEADER_ATTR:
	case HWT_PERF_RECORD_HEADER_FEATURE:
	case HWT_PERF_RECORD_HEADER_BUILD_ID:
	case HWT_PERF_RECORD_COMPRESSED:
		/* No fields in u: the reader reads them where it needs them. */
		return 0;
	default:
		rec->known = 0;
		return 0;
	}
}

int hwt_perf_record_decode(const struct hwt_perf_layout *layout, const void *bytes, size_t size,
			   struct hwt_perf_record *rec, char *why, size_t why_size)
{
	const uint8_t *p = bytes;
	uint64_t st = layout->sample_type;
	struct body b;
	int err;

	memset(rec, 0, sizeof(*rec));
	if (size < 8)
		return bad(why, why_size, "record of %zu bytes, less than its header", size);
	decode_header(p, rec);
	b = (struct body){ p + 8, p + size, hwt_perf_record_name(rec->type), size, why, why_size };
	/* Events of several sample types: the id says which (SAMPLE starts with it). */
	if (layout->identifier_only && size >= 16)
		st = sample_type_of(layout, get64(rec->type == PERF_RECORD_SAMPLE ? b.at : b.end - 8),
				    st);
	err = decode_trailer(layout, st, rec, &b);
	return err ? err : decode_fields(&b, st, rec);
}

/* ----- Encoding --------------------------------------------------------- */

static int add_string_padded(struct hwt_perf_buf *b, const char *s)
{
	size_t n = strlen(s) + 1;

	if (hwt_perf_buf_add(b, s, n))
		return -hpf_nomem;
	return hwt_perf_buf_zero(b, (8 - n % 8) % 8);
}

static int encode_mmap(const struct hwt_perf_record *rec, struct hwt_perf_buf *b)
{
	int err = 0;

	err |= hwt_perf_buf_u32(b, rec->u.mmap.pid) | hwt_perf_buf_u32(b, rec->u.mmap.tid);
	err |= hwt_perf_buf_u64(b, rec->u.mmap.addr) | hwt_perf_buf_u64(b, rec->u.mmap.len);
	err |= hwt_perf_buf_u64(b, rec->u.mmap.pgoff);
	if (rec->type == PERF_RECORD_MMAP2) {
		if (rec->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			uint8_t id[24] = { 0 };

			if (rec->u.mmap.build_id_size > 20)
				return -hpf_invalid;
			id[0] = rec->u.mmap.build_id_size;
			memcpy(id + 4, rec->u.mmap.build_id, rec->u.mmap.build_id_size);
			err |= hwt_perf_buf_add(b, id, sizeof(id));
		} else {
			err |= hwt_perf_buf_u32(b, rec->u.mmap.maj);
			err |= hwt_perf_buf_u32(b, rec->u.mmap.min);
			err |= hwt_perf_buf_u64(b, rec->u.mmap.ino);
			err |= hwt_perf_buf_u64(b, rec->u.mmap.ino_generation);
		}
		err |= hwt_perf_buf_u32(b, rec->u.mmap.prot);
		err |= hwt_perf_buf_u32(b, rec->u.mmap.flags);
	}
	err |= add_string_padded(b, rec->u.mmap.filename ? rec->u.mmap.filename : "");
	return err;
}

static int encode_auxtrace(const struct hwt_perf_record *rec, struct hwt_perf_buf *b)
{
	int err = 0;

	err |= hwt_perf_buf_u64(b, rec->u.auxtrace.size);
	err |= hwt_perf_buf_u64(b, rec->u.auxtrace.offset);
	err |= hwt_perf_buf_u64(b, rec->u.auxtrace.reference);
	err |= hwt_perf_buf_u32(b, rec->u.auxtrace.idx) | hwt_perf_buf_u32(b, rec->u.auxtrace.tid);
	err |= hwt_perf_buf_u32(b, rec->u.auxtrace.cpu) | hwt_perf_buf_u32(b, 0);
	return err;
}

/* fmt 1: with time, as perf 5.x and later write it. */
static int encode_auxtrace_error(const struct hwt_perf_record *rec, struct hwt_perf_buf *b)
{
	char msg[64] = { 0 };
	int err = 0;

	err |= hwt_perf_buf_u32(b, rec->u.auxtrace_error.type);
	err |= hwt_perf_buf_u32(b, rec->u.auxtrace_error.code);
	err |= hwt_perf_buf_u32(b, rec->u.auxtrace_error.cpu);
	err |= hwt_perf_buf_u32(b, rec->u.auxtrace_error.pid);
	err |= hwt_perf_buf_u32(b, rec->u.auxtrace_error.tid);
	err |= hwt_perf_buf_u32(b, 1);
	err |= hwt_perf_buf_u64(b, rec->u.auxtrace_error.ip);
	err |= hwt_perf_buf_u64(b, rec->u.auxtrace_error.time);
	memcpy(msg, rec->u.auxtrace_error.msg, strnlen(rec->u.auxtrace_error.msg, 63));
	err |= hwt_perf_buf_add(b, msg, sizeof(msg));
	return err;
}

static int encode_time_conv(const struct hwt_perf_record *rec, struct hwt_perf_buf *b)
{
	int err = 0;

	err |= hwt_perf_buf_u64(b, rec->u.time_conv.time_shift);
	err |= hwt_perf_buf_u64(b, rec->u.time_conv.time_mult);
	err |= hwt_perf_buf_u64(b, rec->u.time_conv.time_zero);
	if (rec->u.time_conv.extended) {
		uint8_t caps[8] = { rec->u.time_conv.cap_user_time_zero,
				    rec->u.time_conv.cap_user_time_short };

		err |= hwt_perf_buf_u64(b, rec->u.time_conv.time_cycles);
		err |= hwt_perf_buf_u64(b, rec->u.time_conv.time_mask);
		err |= hwt_perf_buf_add(b, caps, sizeof(caps));
	}
	return err;
}

/* The fields of rec->u after the header. Returns 0; -hpf_invalid for a
   type or a field it cannot write; else nonzero when out of memory. */
static int encode_fields(const struct hwt_perf_record *rec, struct hwt_perf_buf *b)
{
	int err = 0;

	switch (rec->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		return encode_mmap(rec, b);
	case PERF_RECORD_COMM:
		err |= hwt_perf_buf_u32(b, rec->u.comm.pid) | hwt_perf_buf_u32(b, rec->u.comm.tid);
		return err | add_string_padded(b, rec->u.comm.comm ? rec->u.comm.comm : "");
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		err |= hwt_perf_buf_u32(b, rec->u.task.pid) | hwt_perf_buf_u32(b, rec->u.task.ppid);
		err |= hwt_perf_buf_u32(b, rec->u.task.tid) | hwt_perf_buf_u32(b, rec->u.task.ptid);
		return err | hwt_perf_buf_u64(b, rec->u.task.time);
	case PERF_RECORD_LOST:
		return hwt_perf_buf_u64(b, rec->u.lost.id) | hwt_perf_buf_u64(b, rec->u.lost.lost);
	case PERF_RECORD_LOST_SAMPLES:
		return hwt_perf_buf_u64(b, rec->u.lost_samples.lost);
	case PERF_RECORD_AUX:
		err |= hwt_perf_buf_u64(b, rec->u.aux.offset) | hwt_perf_buf_u64(b, rec->u.aux.size);
		return err | hwt_perf_buf_u64(b, rec->u.aux.flags);
	case PERF_RECORD_ITRACE_START:
		err |= hwt_perf_buf_u32(b, rec->u.itrace_start.pid);
		return err | hwt_perf_buf_u32(b, rec->u.itrace_start.tid);
	case PERF_RECORD_SWITCH_CPU_WIDE:
		err |= hwt_perf_buf_u32(b, rec->u.sw.next_prev_pid);
		return err | hwt_perf_buf_u32(b, rec->u.sw.next_prev_tid);
	case HWT_PERF_RECORD_AUXTRACE_INFO:
		err |= hwt_perf_buf_u32(b, rec->u.auxtrace_info.type) | hwt_perf_buf_u32(b, 0);
		if (rec->u.auxtrace_info.npriv)
			err |= hwt_perf_buf_add(b, rec->u.auxtrace_info.priv,
						rec->u.auxtrace_info.npriv * 8);
		return err;
	case HWT_PERF_RECORD_AUXTRACE:
		return encode_auxtrace(rec, b);
	case HWT_PERF_RECORD_AUXTRACE_ERROR:
		return encode_auxtrace_error(rec, b);
	case HWT_PERF_RECORD_ID_INDEX:
		err |= hwt_perf_buf_u64(b, rec->u.id_index.nr);
		if (rec->u.id_index.nr)
			err |= hwt_perf_buf_add(b, rec->u.id_index.entries,
						(size_t)rec->u.id_index.nr * 32);
		return err;
	case HWT_PERF_RECORD_TIME_CONV:
		return encode_time_conv(rec, b);
	case PERF_RECORD_SWITCH:
	case HWT_PERF_RECORD_FINISHED_ROUND:
	case HWT_PERF_RECORD_FINISHED_INIT:
		return 0;
	default:
		return -hpf_invalid;
	}
}

int hwt_perf_record_encode(const struct hwt_perf_layout *layout,
			   const struct hwt_perf_record *rec, struct hwt_perf_buf *b)
{
	size_t start = b->len;
	uint16_t size;
	int err;

	if (hwt_perf_buf_u32(b, rec->type) || hwt_perf_buf_u32(b, 0))
		return -hpf_nomem;
	err = encode_fields(rec, b);
	if (err == -hpf_invalid) {
		b->len = start;
		return err;
	}
	if (!err && hwt_perf_type_has_trailer(rec->type) && layout->sample_id_all)
		err |= trailer_encode(layout->sample_type, &rec->sample, b);
	if (err) {
		b->len = start;
		return -hpf_nomem;
	}
	if (b->len - start > UINT16_MAX) {
		b->len = start;
		return -hpf_invalid;
	}
	size = (uint16_t)(b->len - start);
	memcpy(b->data + start + 4, &rec->misc, 2);
	memcpy(b->data + start + 6, &size, 2);
	return 0;
}
