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
