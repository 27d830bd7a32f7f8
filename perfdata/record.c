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

int hwt_perf_record_decode(const struct hwt_perf_layout *layout, const void *bytes, size_t size,
			   struct hwt_perf_record *rec, char *why, size_t why_size)
{
	const uint8_t *p = bytes, *body = p + 8, *end = p + size;
	const char *name = NULL;
	uint64_t st = layout->sample_type;
	size_t tsize;

	memset(rec, 0, sizeof(*rec));
	if (size < 8)
		return bad(why, why_size, "record of %zu bytes, less than its header", size);
	rec->type = get32(p);
	rec->misc = (uint16_t)(p[4] | p[5] << 8);
	rec->size = (uint16_t)(p[6] | p[7] << 8);
	rec->raw = bytes;
	name = hwt_perf_record_name(rec->type);

	/* The sample_id trailer of kernel records; SAMPLE starts with the id. */
	if (layout->identifier_only && size >= 16)
		st = sample_type_of(layout, get64(rec->type == PERF_RECORD_SAMPLE ? body : end - 8),
				    st);
	tsize = hwt_perf_type_has_trailer(rec->type) && layout->sample_id_all ? sid_size(st) : 0;
	if (tsize) {
		if (size - 8 < tsize)
			return bad(why, why_size, "%s record of %zu bytes: no room for its "
				   "%zu-byte sample id", name, size, tsize);
		trailer_decode(st, end - tsize, &rec->sample);
		end -= tsize;
	}
#define NEED(n) do {                                                                  \
		if ((size_t)(end - body) < (n))                                        \
			return bad(why, why_size, "%s record of %zu bytes is too short "   \
				   "for its fields", name, size);                          \
	} while (0)

	rec->known = 1;
	switch (rec->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		size_t fixed = rec->type == PERF_RECORD_MMAP ? MMAP_BODY : MMAP2_BODY;

		NEED(fixed);
		rec->u.mmap.pid = get32(body);
		rec->u.mmap.tid = get32(body + 4);
		rec->u.mmap.addr = get64(body + 8);
		rec->u.mmap.len = get64(body + 16);
		rec->u.mmap.pgoff = get64(body + 24);
		if (rec->type == PERF_RECORD_MMAP2) {
			if (rec->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
				uint8_t n = body[32];

				if (n > sizeof(rec->u.mmap.build_id))
					return bad(why, why_size, "MMAP2 record with a build-id of "
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
		rec->u.mmap.filename = string_in(body + fixed, end);
		if (!rec->u.mmap.filename)
			return bad(why, why_size, "%s record whose file name is not "
				   "NUL-terminated inside it", name);
		break;
	}
	case PERF_RECORD_COMM:
		NEED(COMM_BODY);
		rec->u.comm.pid = get32(body);
		rec->u.comm.tid = get32(body + 4);
		rec->u.comm.comm = string_in(body + COMM_BODY, end);
		if (!rec->u.comm.comm)
			return bad(why, why_size, "COMM record whose name is not "
				   "NUL-terminated inside it");
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		NEED(TASK_BODY);
		rec->u.task.pid = get32(body);
		rec->u.task.ppid = get32(body + 4);
		rec->u.task.tid = get32(body + 8);
		rec->u.task.ptid = get32(body + 12);
		rec->u.task.time = get64(body + 16);
		break;
	case PERF_RECORD_LOST:
		NEED(16);
		rec->u.lost.id = get64(body);
		rec->u.lost.lost = get64(body + 8);
		break;
	case PERF_RECORD_LOST_SAMPLES:
		NEED(8);
		rec->u.lost_samples.lost = get64(body);
		break;
	case PERF_RECORD_AUX:
		NEED(24);
		rec->u.aux.offset = get64(body);
		rec->u.aux.size = get64(body + 8);
		rec->u.aux.flags = get64(body + 16);
		break;
	case PERF_RECORD_ITRACE_START:
		NEED(8);
		rec->u.itrace_start.pid = get32(body);
		rec->u.itrace_start.tid = get32(body + 4);
		break;
	case PERF_RECORD_SWITCH:
		break;
	case PERF_RECORD_SWITCH_CPU_WIDE:
		NEED(8);
		rec->u.sw.next_prev_pid = get32(body);
		rec->u.sw.next_prev_tid = get32(body + 4);
		break;
	case PERF_RECORD_SAMPLE: {
		const uint8_t *q = body;

		/* The fields before the variable ones; which there are is st's. */
		if (st & PERF_SAMPLE_IDENTIFIER) {
			NEED(8);
			rec->sample.id = get64(q);
			rec->sample.fields |= HWT_PERF_SID_ID;
			q += 8;
		}
#define TAKE(var) do {                                                              \
		if ((size_t)(end - q) < 8)                                           \
			return bad(why, why_size, "SAMPLE record of %zu bytes is too "   \
				   "short for its fields", size);                        \
		var = get64(q);                                                      \
		q += 8;                                                              \
	} while (0)
		if (st & PERF_SAMPLE_IP)
			TAKE(rec->u.sample.ip);
		if (st & PERF_SAMPLE_TID) {
			uint64_t v;

			TAKE(v);
			rec->sample.pid = (uint32_t)v;
			rec->sample.tid = (uint32_t)(v >> 32);
			rec->sample.fields |= HWT_PERF_SID_TID;
		}
		if (st & PERF_SAMPLE_TIME) {
			TAKE(rec->sample.time);
			rec->sample.fields |= HWT_PERF_SID_TIME;
		}
		if (st & PERF_SAMPLE_ADDR)
			TAKE(rec->u.sample.addr);
		if (st & PERF_SAMPLE_ID) {
			TAKE(rec->sample.id);
			rec->sample.fields |= HWT_PERF_SID_ID;
		}
		if (st & PERF_SAMPLE_STREAM_ID) {
			TAKE(rec->sample.stream_id);
			rec->sample.fields |= HWT_PERF_SID_STREAM_ID;
		}
		if (st & PERF_SAMPLE_CPU) {
			uint64_t v;

			TAKE(v);
			rec->sample.cpu = (uint32_t)v;
			rec->sample.fields |= HWT_PERF_SID_CPU;
		}
		if (st & PERF_SAMPLE_PERIOD)
			TAKE(rec->u.sample.period);
#undef TAKE
		break;
	}
	case HWT_PERF_RECORD_AUXTRACE_INFO:
		NEED(8);
		rec->u.auxtrace_info.type = get32(body);
		rec->u.auxtrace_info.priv = (const uint64_t *)(body + 8);
		rec->u.auxtrace_info.npriv = (size_t)(end - body - 8) / 8;
		break;
	case HWT_PERF_RECORD_AUXTRACE:
		NEED(HWT_PERF_AUXTRACE_SIZE - 8);
		rec->u.auxtrace.size = get64(body);
		rec->u.auxtrace.offset = get64(body + 8);
		rec->u.auxtrace.reference = get64(body + 16);
		rec->u.auxtrace.idx = get32(body + 24);
		rec->u.auxtrace.tid = get32(body + 28);
		rec->u.auxtrace.cpu = get32(body + 32);
		break;
	case HWT_PERF_RECORD_AUXTRACE_ERROR: {
		size_t msg_at = 32;

		/* fmt 0 (older perf): no time before msg. */
		NEED(AUXTRACE_ERROR_BODY);
		rec->u.auxtrace_error.type = get32(body);
		rec->u.auxtrace_error.code = get32(body + 4);
		rec->u.auxtrace_error.cpu = get32(body + 8);
		rec->u.auxtrace_error.pid = get32(body + 12);
		rec->u.auxtrace_error.tid = get32(body + 16);
		rec->u.auxtrace_error.fmt = get32(body + 20);
		rec->u.auxtrace_error.ip = get64(body + 24);
		if (rec->u.auxtrace_error.fmt) {
			NEED(AUXTRACE_ERROR_BODY + 8);
			rec->u.auxtrace_error.time = get64(body + 32);
			msg_at = 40;
		}
		memcpy(rec->u.auxtrace_error.msg, body + msg_at, 64);
		rec->u.auxtrace_error.msg[64] = '\0';
		break;
	}
	case HWT_PERF_RECORD_ID_INDEX:
		NEED(8);
		rec->u.id_index.nr = get64(body);
		if (rec->u.id_index.nr > (uint64_t)(end - body - 8) / 32)
			return bad(why, why_size, "ID_INDEX record of %zu bytes claims %llu "
				   "entries", size, (unsigned long long)rec->u.id_index.nr);
		rec->u.id_index.entries = (const struct hwt_perf_id_index_entry *)(body + 8);
		break;
	case HWT_PERF_RECORD_TIME_CONV:
		NEED(24);
		rec->u.time_conv.time_shift = get64(body);
		rec->u.time_conv.time_mult = get64(body + 8);
		rec->u.time_conv.time_zero = get64(body + 16);
		if ((size_t)(end - body) >= 48) {
			rec->u.time_conv.time_cycles = get64(body + 24);
			rec->u.time_conv.time_mask = get64(body + 32);
			rec->u.time_conv.cap_user_time_zero = body[40];
			rec->u.time_conv.cap_user_time_short = body[41];
			rec->u.time_conv.extended = 1;
		}
		break;
	case HWT_PERF_RECORD_FINISHED_ROUND:
	case HWT_PERF_RECORD_FINISHED_INIT:
	case HWT_PERF_RECORD_HEADER_ATTR:
	case HWT_PERF_RECORD_HEADER_FEATURE:
	case HWT_PERF_RECORD_HEADER_BUILD_ID:
	case HWT_PERF_RECORD_COMPRESSED:
		/* No fields in u: the reader reads them where it needs them. */
		break;
	default:
		rec->known = 0;
		break;
	}
#undef NEED
	return 0;
}

/* ----- Encoding --------------------------------------------------------- */

static int add_string_padded(struct hwt_perf_buf *b, const char *s)
{
	size_t n = strlen(s) + 1;

	if (hwt_perf_buf_add(b, s, n))
		return -hpf_nomem;
	return hwt_perf_buf_zero(b, (8 - n % 8) % 8);
}

int hwt_perf_record_encode(const struct hwt_perf_layout *layout,
			   const struct hwt_perf_record *rec, struct hwt_perf_buf *b)
{
	size_t start = b->len;
	int err = 0;

	if (hwt_perf_buf_u32(b, rec->type) || hwt_perf_buf_u32(b, 0))
		return -hpf_nomem;
	switch (rec->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
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
		break;
	case PERF_RECORD_COMM:
		err |= hwt_perf_buf_u32(b, rec->u.comm.pid) | hwt_perf_buf_u32(b, rec->u.comm.tid);
		err |= add_string_padded(b, rec->u.comm.comm ? rec->u.comm.comm : "");
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		err |= hwt_perf_buf_u32(b, rec->u.task.pid) | hwt_perf_buf_u32(b, rec->u.task.ppid);
		err |= hwt_perf_buf_u32(b, rec->u.task.tid) | hwt_perf_buf_u32(b, rec->u.task.ptid);
		err |= hwt_perf_buf_u64(b, rec->u.task.time);
		break;
	case PERF_RECORD_LOST:
		err |= hwt_perf_buf_u64(b, rec->u.lost.id) | hwt_perf_buf_u64(b, rec->u.lost.lost);
		break;
	case PERF_RECORD_LOST_SAMPLES:
		err |= hwt_perf_buf_u64(b, rec->u.lost_samples.lost);
		break;
	case PERF_RECORD_AUX:
		err |= hwt_perf_buf_u64(b, rec->u.aux.offset) | hwt_perf_buf_u64(b, rec->u.aux.size);
		err |= hwt_perf_buf_u64(b, rec->u.aux.flags);
		break;
	case PERF_RECORD_ITRACE_START:
		err |= hwt_perf_buf_u32(b, rec->u.itrace_start.pid);
		err |= hwt_perf_buf_u32(b, rec->u.itrace_start.tid);
		break;
	case PERF_RECORD_SWITCH:
		break;
	case PERF_RECORD_SWITCH_CPU_WIDE:
		err |= hwt_perf_buf_u32(b, rec->u.sw.next_prev_pid);
		err |= hwt_perf_buf_u32(b, rec->u.sw.next_prev_tid);
		break;
	case HWT_PERF_RECORD_AUXTRACE_INFO:
		err |= hwt_perf_buf_u32(b, rec->u.auxtrace_info.type) | hwt_perf_buf_u32(b, 0);
		if (rec->u.auxtrace_info.npriv)
			err |= hwt_perf_buf_add(b, rec->u.auxtrace_info.priv,
						rec->u.auxtrace_info.npriv * 8);
		break;
	case HWT_PERF_RECORD_AUXTRACE:
		err |= hwt_perf_buf_u64(b, rec->u.auxtrace.size);
		err |= hwt_perf_buf_u64(b, rec->u.auxtrace.offset);
		err |= hwt_perf_buf_u64(b, rec->u.auxtrace.reference);
		err |= hwt_perf_buf_u32(b, rec->u.auxtrace.idx) | hwt_perf_buf_u32(b, rec->u.auxtrace.tid);
		err |= hwt_perf_buf_u32(b, rec->u.auxtrace.cpu) | hwt_perf_buf_u32(b, 0);
		break;
	case HWT_PERF_RECORD_AUXTRACE_ERROR: {
		char msg[64] = { 0 };

		/* fmt 1: with time, as perf 5.x and later write it. */
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
		break;
	}
	case HWT_PERF_RECORD_ID_INDEX:
		err |= hwt_perf_buf_u64(b, rec->u.id_index.nr);
		if (rec->u.id_index.nr)
			err |= hwt_perf_buf_add(b, rec->u.id_index.entries,
						(size_t)rec->u.id_index.nr * 32);
		break;
	case HWT_PERF_RECORD_TIME_CONV:
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
		break;
	case HWT_PERF_RECORD_FINISHED_ROUND:
	case HWT_PERF_RECORD_FINISHED_INIT:
		break;
	default:
		b->len = start;
		return -hpf_invalid;
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
	{
		uint16_t size = (uint16_t)(b->len - start);

		memcpy(b->data + start + 4, &rec->misc, 2);
		memcpy(b->data + start + 6, &size, 2);
	}
	return 0;
}
