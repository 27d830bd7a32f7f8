/*
 * The record builders of common/hwt_record.c that both software units
 * write their sideband with: PROCESS_START (path and arguments, cut where
 * they do not fit), the fixed-size records, and the header and seal of
 * hwt_record_finish, checked with hwt_record_check; and the CRC-32 that
 * seals them against the standard check value and a bitwise CRC.
 */
#include <string.h>

#include "crc32.h"
#include "hwt_record.h"
#include "unit_check.h"

static uint64_t words[HWT_RECORD_MAX_SIZE / 8];

/* The record in words, finished and sealed: 1 when hwt_record_check accepts it. */
static int finished(uint16_t type, uint32_t size)
{
	struct hwt_record_header *hdr = (struct hwt_record_header *)words;

	hwt_record_finish(hdr, type, size, 42, 1000, 1001);
	return hdr->magic == HWT_RECORD_MAGIC && hdr->type == type &&
	       hdr->size == hwt_record_align(size) && hdr->time == 42 && hdr->pid == 1000 &&
	       hdr->tid == 1001 && hwt_record_check(words, sizeof(words)) == hdr->size;
}

static void process_start(void)
{
	const struct hwt_record_process *rec = (const struct hwt_record_process *)words;
	const char *strings = (const char *)(rec + 1);
	const char *argv[] = { "prog", "-v", "", "last" };
	static char big[HWT_RECORD_MAX_SIZE];
	const char *big_argv[] = { "a", big, "b" };
	uint32_t n;

	memset(words, 0xee, sizeof(words));
	n = hwt_record_process_build(words, sizeof(words), 7, 2, "/bin/prog", argv, 4);
	CHECK(n == sizeof(*rec) + sizeof("/bin/prog") + sizeof("prog") + sizeof("-v") + 1 +
			   sizeof("last"));
	CHECK(rec->ppid == 7 && rec->generation == 2 && rec->argc == 4 && rec->reserved == 0);
	CHECK(strcmp(strings, "/bin/prog") == 0 && strcmp(strings + 10, "prog") == 0);
	CHECK(strcmp(strings + 15, "-v") == 0 && strings[18] == '\0');
	CHECK(strcmp(strings + 19, "last") == 0);
	for (uint32_t i = n; i < hwt_record_align(n); i++)
		CHECK(((const uint8_t *)words)[i] == 0);
	CHECK(finished(HWT_RECORD_PROCESS_START, n));
	CHECK(rec->hdr.flags == 0);

	/* No arguments; an EXEC of an empty path, as the units write it. */
	n = hwt_record_process_build(words, sizeof(words), 7, 0, "", NULL, 0);
	CHECK(n == sizeof(*rec) + 1 && rec->argc == 0);
	CHECK(finished(HWT_RECORD_EXEC, n) && rec->hdr.size == sizeof(*rec) + 8);

	/* An argument that does not fit ends the list: argc counts those before it. */
	memset(big, 'x', sizeof(big) - 1);
	n = hwt_record_process_build(words, sizeof(words), 1, 0, "/p", big_argv, 3);
	CHECK(rec->argc == 1 && n == sizeof(*rec) + 3 + 2);
	CHECK(finished(HWT_RECORD_PROCESS_START, n));
	/* Exactly full: the last string's NUL on the last byte. */
	big[sizeof(words) - sizeof(*rec) - 3 - 2 - 1] = '\0';
	n = hwt_record_process_build(words, sizeof(words), 1, 0, "/p", big_argv, 3);
	CHECK(rec->argc == 2 && n == sizeof(words) && finished(HWT_RECORD_PROCESS_START, n));
	/* A path that does not fit: no record. */
	CHECK(hwt_record_process_build(words, 64, 1, 0, big, NULL, 0) == 0);
	CHECK(hwt_record_process_build(words, sizeof(*rec), 1, 0, "", NULL, 0) == 0);
}

/* The writer the fixed-size builders hand their record to: a copy in words. */
static unsigned written_type;
static uint32_t written_size;

static void write_copy(struct hwt_record_header *hdr, unsigned type, uint32_t size)
{
	written_type = type;
	written_size = size;
	memset(words, 0xee, sizeof(words));
	memcpy(words, hdr, size);
}

static void fixed_size(void)
{
	const struct hwt_record_munmap *un = (const struct hwt_record_munmap *)words;
	const struct hwt_record_lost *lost = (const struct hwt_record_lost *)words;
	const struct hwt_record_exit *ex = (const struct hwt_record_exit *)words;

	hwt_record_write_munmap(write_copy, 0x1000, 0x2000);
	CHECK(written_type == HWT_RECORD_MUNMAP && written_size == sizeof(*un));
	CHECK(un->addr == 0x1000 && un->len == 0x2000 && un->hdr.flags == 0);
	CHECK(finished(HWT_RECORD_MUNMAP, written_size));
	hwt_record_write_lost(write_copy, HWT_LOST_IMAGE, 3, 4096);
	CHECK(written_type == HWT_RECORD_LOST && written_size == sizeof(*lost));
	CHECK(lost->reason == HWT_LOST_IMAGE && lost->records == 3 && lost->bytes == 4096);
	CHECK(lost->hdr.flags == 0 && finished(HWT_RECORD_LOST, written_size));
	hwt_record_write_exit(write_copy, -9);
	CHECK(written_type == HWT_RECORD_PROCESS_EXIT && written_size == sizeof(*ex));
	CHECK(ex->status == -9 && ex->reserved == 0 && ex->hdr.flags == 0);
	CHECK(finished(HWT_RECORD_PROCESS_EXIT, written_size));
}

/* The CRC-32 by its definition, a bit at a time. */
static uint32_t crc32_bitwise(const uint8_t *p, size_t len)
{
	uint32_t crc = 0xffffffffu;

	while (len--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = crc >> 1 ^ (crc & 1u ? 0xedb88320u : 0);
	}
	return ~crc;
}

static void crc32(void)
{
	static uint8_t bytes[4099];
	uint32_t x = 12345;

	CHECK(hwt_crc32(0, "123456789", 9) == 0xcbf43926u); /* the standard check */
	CHECK(hwt_crc32(0, "", 0) == 0);
	CHECK(hwt_crc32(hwt_crc32(0, "1234", 4), "56789", 5) == 0xcbf43926u);
	for (size_t i = 0; i < sizeof(bytes); i++) {
		x = x * 1103515245u + 12345u;
		bytes[i] = (uint8_t)(x >> 16);
	}
	/* Every start within eight bytes: the loop reads eight at a time. */
	for (size_t at = 0; at < 8; at++)
		for (size_t len = 0; at + len <= sizeof(bytes); len += len < 64 ? 1 : 509)
			CHECK(hwt_crc32(0, bytes + at, len) == crc32_bitwise(bytes + at, len));
	/* Each table entry: the CRC register after byte n and k zero bytes. */
	for (unsigned k = 0; k < 8; k++)
		for (unsigned n = 0; n < 256; n++) {
			uint32_t c = n;

			for (unsigned bit = 0; bit < 8 * (k + 1); bit++)
				c = c >> 1 ^ (c & 1u ? 0xedb88320u : 0);
			CHECK(hwt_crc32_table[k][n] == c);
		}
}

int main(void)
{
	crc32();
	process_start();
	fixed_size();
	return check_summary("hwt_record");
}
