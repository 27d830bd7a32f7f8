/* Sideband record helpers: naming, sealing and checking (see hwt_record.h). */
#include "hwt_record.h"
#include "crc32.h"

const char *hwt_record_type_name(uint32_t type)
{
	switch (type) {
	case HWT_RECORD_PROCESS_START: return "process-start";
	case HWT_RECORD_EXEC:          return "exec";
	case HWT_RECORD_MMAP:          return "mmap";
	case HWT_RECORD_MUNMAP:        return "munmap";
	case HWT_RECORD_THREAD_CREATE: return "thread-create";
	case HWT_RECORD_THREAD_EXIT:   return "thread-exit";
	case HWT_RECORD_FORK:          return "fork";
	case HWT_RECORD_PROCESS_EXIT:  return "process-exit";
	case HWT_RECORD_LOST:          return "lost";
	case HWT_RECORD_SWITCH:        return "switch";
	case HWT_RECORD_BUFFER:        return "buffer";
	case HWT_RECORD_SIGNAL:        return "signal";
	case HWT_RECORD_UNTRACED:      return "untraced";
	}
	return "unknown";
}

static void zero(void *buf, size_t n)
{
	uint8_t *bytes = buf;

	for (size_t i = 0; i < n; i++)
		bytes[i] = 0;
}

/* Bytes of s up to its NUL, at most max - 1 (room for the NUL in max). */
static size_t cut_length(const char *s, size_t max)
{
	size_t n = 0;

	while (n + 1 < max && s[n])
		n++;
	return n;
}

uint32_t hwt_record_untraced_build(void *buf, size_t size, uint32_t ppid, uint16_t flags,
				   const char *path, size_t path_max, const char *reason,
				   size_t reason_max)
{
	struct hwt_record_untraced *rec = buf;
	uint8_t *bytes = buf;
	size_t plen = cut_length(path, path_max), rlen = cut_length(reason, reason_max), i;
	uint32_t total = hwt_record_align((uint32_t)(sizeof(*rec) + plen + 1 + rlen + 1));

	if (path_max == 0 || reason_max == 0 || total > size)
		return 0;
	zero(buf, total);
	for (i = 0; i < plen; i++)
		bytes[sizeof(*rec) + i] = (uint8_t)path[i];
	for (i = 0; i < rlen; i++)
		bytes[sizeof(*rec) + plen + 1 + i] = (uint8_t)reason[i];
	rec->hdr.magic = HWT_RECORD_MAGIC;
	rec->hdr.type = HWT_RECORD_UNTRACED;
	rec->hdr.flags = flags;
	rec->hdr.size = total;
	rec->ppid = ppid;
	return total;
}

uint32_t hwt_record_process_build(void *buf, size_t size, uint32_t ppid, uint32_t generation,
				  const char *path, const char *const *argv, uint32_t argc)
{
	struct hwt_record_process *rec = buf;
	char *strings = (char *)(rec + 1);
	size_t used = 0, room;
	uint32_t i;

	if (size < sizeof(*rec) + HWT_RECORD_ALIGN)
		return 0;
	/* Bytes for the strings, padding included. */
	room = (size & ~(size_t)(HWT_RECORD_ALIGN - 1)) - sizeof(*rec);
	zero(buf, sizeof(*rec) + room);
	rec->ppid = ppid;
	rec->generation = generation;
	for (i = 0; i <= argc && used < room; i++) {
		const char *s = i == 0 ? path : argv[i - 1];
		size_t len = cut_length(s, room - used);

		if (s[len])
			break; /* it does not fit whole */
		for (size_t k = 0; k < len; k++)
			strings[used + k] = s[k];
		used += len + 1;
	}
	if (i == 0)
		return 0;
	rec->argc = i - 1;
	return (uint32_t)(sizeof(*rec) + used);
}

void hwt_record_write_munmap(hwt_record_write_fn *write, uint64_t addr, uint64_t len)
{
	struct hwt_record_munmap rec;

	zero(&rec, sizeof(rec));
	rec.addr = addr;
	rec.len = len;
	write(&rec.hdr, HWT_RECORD_MUNMAP, sizeof(rec));
}

void hwt_record_write_lost(hwt_record_write_fn *write, uint32_t reason, uint32_t records,
			   uint64_t bytes)
{
	struct hwt_record_lost rec;

	zero(&rec, sizeof(rec));
	rec.reason = reason;
	rec.records = records;
	rec.bytes = bytes;
	write(&rec.hdr, HWT_RECORD_LOST, sizeof(rec));
}

void hwt_record_write_exit(hwt_record_write_fn *write, int32_t status)
{
	struct hwt_record_exit rec;

	zero(&rec, sizeof(rec));
	rec.status = status;
	write(&rec.hdr, HWT_RECORD_PROCESS_EXIT, sizeof(rec));
}

void hwt_record_finish(struct hwt_record_header *hdr, uint16_t type, uint32_t size,
		       uint64_t time, uint32_t pid, uint32_t tid)
{
	hdr->magic = HWT_RECORD_MAGIC;
	hdr->type = type;
	hdr->size = hwt_record_align(size);
	hdr->time = time;
	hdr->pid = pid;
	hdr->tid = tid;
	hwt_record_seal(hdr);
}

/* CRC over the record with the crc32 field taken as zero. */
static uint32_t record_crc(const struct hwt_record_header *hdr)
{
	static const uint8_t zero[4];
	const uint8_t *bytes = (const uint8_t *)hdr;
	size_t crc_at = offsetof(struct hwt_record_header, crc32);
	uint32_t crc;

	crc = hwt_crc32(0, bytes, crc_at);
	crc = hwt_crc32(crc, zero, sizeof(zero));
	return hwt_crc32(crc, bytes + crc_at + 4, hdr->size - crc_at - 4);
}

void hwt_record_seal(struct hwt_record_header *hdr)
{
	hdr->crc32 = record_crc(hdr);
}

int64_t hwt_record_check(const void *bytes, size_t len)
{
	const struct hwt_record_header *hdr = bytes;

	if (len < sizeof(*hdr))
		return 0;
	if (hdr->magic != HWT_RECORD_MAGIC || hdr->size < sizeof(*hdr) ||
	    hdr->size > HWT_RECORD_MAX_SIZE || hdr->size % HWT_RECORD_ALIGN)
		return -1;
	if (len < hdr->size)
		return 0;
	if (record_crc(hdr) != hdr->crc32)
		return -1;
	return hdr->size;
}
