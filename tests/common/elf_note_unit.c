/*
 * hwt_elf_note_build_id, hwt_elf_note_walk and hwt_elf_file_build_id
 * (common/elf_note.c): hand-made note buffers, broken ones included, 8-byte
 * aligned notes, reading in windows as hwt.ko does, this program's own file
 * cut short and altered, and real ELF files against readelf -n as the
 * oracle (the file reader, and each segment read whole and in windows).
 * usage: elf_note_unit [ELF...]
 */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf_note.h"
#include "unit_check.h"

/* Appends one note: namesz, descsz, type, name and desc padded to align. */
static size_t note_aligned(uint8_t *buf, size_t at, uint32_t align, uint32_t type,
			   const char *name, uint32_t namesz, const uint8_t *desc, uint32_t descsz)
{
	memcpy(buf + at, &namesz, 4);
	memcpy(buf + at + 4, &descsz, 4);
	memcpy(buf + at + 8, &type, 4);
	at += 12;
	memcpy(buf + at, name, namesz);
	at += (namesz + align - 1) & ~(align - 1);
	memcpy(buf + at, desc, descsz);
	return at + ((descsz + align - 1) & ~(align - 1));
}

static size_t note(uint8_t *buf, size_t at, uint32_t type, const char *name, uint32_t namesz,
		   const uint8_t *desc, uint32_t descsz)
{
	return note_aligned(buf, at, 4, type, name, namesz, desc, descsz);
}

/*
 * The build-id of notes[0..len) read in windows of window bytes, going on
 * where hwt_elf_note_walk says, as hwt.ko reads a segment: its size into
 * *size and its bytes into out, 0 when none, -1 when a note is longer
 * than the window.
 */
static int windowed(const uint8_t *notes, size_t len, uint32_t align, size_t window,
		    uint32_t max_size, uint8_t *out, uint32_t *size)
{
	size_t pos = 0;

	*size = 0;
	while (pos < len) {
		size_t w = len - pos < window ? len - pos : window, next;
		uint8_t copy[4096];
		const uint8_t *desc;
		uint32_t n;

		/* A copy, so that nothing past the window can be read. */
		memcpy(copy, notes + pos, w);
		n = hwt_elf_note_walk(copy, w, align, max_size, &desc, &next);
		if (n) {
			memcpy(out, desc, n);
			*size = n;
			return 0;
		}
		if (next == 0)
			return -1;
		pos += next;
	}
	return 0;
}

static void hand_made(void)
{
	uint8_t buf[256], id[20];
	const uint8_t *desc = NULL;
	size_t n;

	for (unsigned i = 0; i < sizeof(id); i++)
		id[i] = (uint8_t)(0xa0 + i);
	memset(buf, 0, sizeof(buf));
	/* An ABI tag note first, then the build-id. */
	n = note(buf, 0, 1, "GNU", 4, (const uint8_t *)"\0\0\0\0\3\0\0\0\2\0\0\0\0\0\0\0", 16);
	n = note(buf, n, 3, "GNU", 4, id, 20);
	CHECK(hwt_elf_note_build_id(buf, n, 20, &desc) == 20);
	CHECK(desc && memcmp(desc, id, 20) == 0);
	/* Larger than the caller takes: none. */
	CHECK(hwt_elf_note_build_id(buf, n, 16, &desc) == 0);
	/* Cut anywhere inside the build-id note: none, and no read past the end. */
	for (size_t cut = 0; cut < n; cut++)
		CHECK(hwt_elf_note_build_id(buf, cut, 20, &desc) == 0);
	/* Another owner's note of type 3. */
	n = note(buf, 0, 3, "XYZ", 4, id, 8);
	CHECK(hwt_elf_note_build_id(buf, n, 20, &desc) == 0);
	/* A name size that runs off the buffer; a huge descriptor size. */
	memset(buf, 0, sizeof(buf));
	n = note(buf, 0, 3, "GNU", 4, id, 8);
	buf[0] = 0xff, buf[1] = 0xff, buf[2] = 0xff, buf[3] = 0x7f;
	CHECK(hwt_elf_note_build_id(buf, n, 20, &desc) == 0);
	n = note(buf, 0, 3, "GNU", 4, id, 8);
	buf[4] = 0xf0, buf[5] = 0xff, buf[6] = 0xff, buf[7] = 0xff;
	CHECK(hwt_elf_note_build_id(buf, n, 20, &desc) == 0);
	/* An empty descriptor is no build-id. */
	n = note(buf, 0, 3, "GNU", 4, id, 0);
	CHECK(hwt_elf_note_build_id(buf, n, 20, &desc) == 0);
}

/* 8-byte padding (p_align 8) and reading in windows. */
static void aligned_and_windowed(void)
{
	uint8_t buf[512], id[20], got[64];
	const uint8_t *desc = NULL;
	uint32_t size;
	size_t n, next;

	for (unsigned i = 0; i < sizeof(id); i++)
		id[i] = (uint8_t)(0x10 + i);
	memset(buf, 0, sizeof(buf));
	/* A property note with a 12-byte descriptor, then the build-id, 8-aligned. */
	n = note_aligned(buf, 0, 8, 5, "GNU", 4, (const uint8_t *)"\2\0\0\xc0\4\0\0\0\3\0\0\0", 12);
	n = note_aligned(buf, n, 8, 3, "GNU", 4, id, 20);
	CHECK(hwt_elf_note_walk(buf, n, 8, 20, &desc, &next) == 20);
	CHECK(desc && memcmp(desc, id, 20) == 0);
	/* With 4-byte padding the descriptor sizes land elsewhere: not this id. */
	desc = NULL;
	CHECK(hwt_elf_note_walk(buf, n, 4, 20, &desc, NULL) == 0 ||
	      memcmp(desc, id, 20) != 0);
	/* Every window from the longest note up finds it; a shorter one cannot. */
	for (size_t w = 12; w <= n + 8; w++) {
		int r = windowed(buf, n, 8, w, 20, got, &size);

		if (w >= 40)
			CHECK(r == 0 && size == 20 && memcmp(got, id, 20) == 0);
		else
			CHECK(r == -1 || (r == 0 && size == 20));
	}
	/* Where to go on: the cut note's start, or past the last note's padding. */
	CHECK(hwt_elf_note_walk(buf, 39, 8, 20, &desc, &next) == 0 && next == 36);
	CHECK(hwt_elf_note_walk(buf, 30, 8, 20, &desc, &next) == 0 && next == 0);
	CHECK(hwt_elf_note_walk(buf, 8, 8, 20, &desc, &next) == 0 && next == 0);
	CHECK(hwt_elf_note_walk(buf, 32, 8, 20, &desc, &next) == 0 && next == 36);
	/* Many notes before it, 4-aligned, in windows of 64 bytes. */
	memset(buf, 0, sizeof(buf));
	n = 0;
	for (int k = 0; k < 12; k++)
		n = note(buf, n, 1, "GNU", 4, (const uint8_t *)"0123456789abcdef", 5 + k);
	n = note(buf, n, 3, "GNU", 4, id, 20);
	CHECK(windowed(buf, n, 4, 64, 20, got, &size) == 0 && size == 20 &&
	      memcmp(got, id, 20) == 0);
}

/*
 * The build-id of path from its PT_NOTE segments, as hex, or "": each
 * segment read whole (window 0) or in windows of that many bytes.
 */
static void segments(const char *path, size_t window, char *hex)
{
	int fd = open(path, O_RDONLY);
	Elf64_Ehdr eh;

	hex[0] = '\0';
	if (fd < 0 || pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh)) {
		if (fd >= 0)
			close(fd);
		return;
	}
	for (unsigned i = 0; i < eh.e_phnum && !hex[0]; i++) {
		Elf64_Phdr ph;
		uint8_t notes[4096], id[64];
		const uint8_t *desc = id;
		uint32_t n, got;
		size_t len;

		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) !=
			    (ssize_t)sizeof(ph) || ph.p_type != PT_NOTE)
			continue;
		len = ph.p_filesz < sizeof(notes) ? ph.p_filesz : sizeof(notes);
		if (pread(fd, notes, len, (off_t)ph.p_offset) != (ssize_t)len)
			continue;
		if (window)
			n = windowed(notes, len, (uint32_t)ph.p_align, window, 64, id, &got) == 0 ?
				    got : 0;
		else
			n = hwt_elf_note_walk(notes, len, (uint32_t)ph.p_align, 64, &desc, NULL);
		for (uint32_t k = 0; k < n; k++)
			sprintf(hex + 2 * k, "%02x", desc[k]);
	}
	close(fd);
}

static int read_fd(void *fd, uint64_t off, void *buf, size_t len)
{
	return pread(*(int *)fd, buf, len, (off_t)off) == (ssize_t)len;
}

/* The build-id of path (hwt_elf_file_build_id), as hex, or "". */
static void ours(const char *path, char *hex)
{
	int fd = open(path, O_RDONLY);
	uint8_t id[64];
	uint32_t n;

	hex[0] = '\0';
	if (fd < 0)
		return;
	n = hwt_elf_file_build_id(read_fd, &fd, id, sizeof(id));
	for (uint32_t k = 0; k < n; k++)
		sprintf(hex + 2 * k, "%02x", id[k]);
	close(fd);
}

/* A file in memory: reads past its end fail (and ASan sees any that do not). */
struct memfile {
	const uint8_t *bytes;
	size_t len;
};

static int read_mem(void *ctx, uint64_t off, void *buf, size_t len)
{
	const struct memfile *f = ctx;

	if (off > f->len || len > f->len - off)
		return 0;
	memcpy(buf, f->bytes + off, len);
	return 1;
}

/*
 * This program's own file, cut at every length up to the end of its notes
 * and with its class or program header size changed: the build-id whole,
 * or none.
 */
static void file_cases(void)
{
	static uint8_t bytes[1 << 16];
	uint8_t id[20], whole[20];
	int fd = open("/proc/self/exe", O_RDONLY);
	ssize_t got = fd >= 0 ? pread(fd, bytes, sizeof(bytes), 0) : -1;
	struct memfile f = { bytes, got > 0 ? (size_t)got : 0 };
	uint32_t n = hwt_elf_file_build_id(read_mem, &f, whole, sizeof(whole));
	size_t cut, complete = 0;

	if (fd >= 0)
		close(fd);
	CHECK(n == 20);
	for (cut = 0; cut <= f.len && cut < 4096; cut++) {
		struct memfile part = { bytes, cut };
		uint32_t m = hwt_elf_file_build_id(read_mem, &part, id, sizeof(id));

		CHECK(m == 0 || (m == n && memcmp(id, whole, n) == 0));
		complete += m != 0;
	}
	CHECK(complete > 0); /* the notes are in the first 4 KiB */
	/* A build-id larger than the caller takes: none. */
	CHECK(hwt_elf_file_build_id(read_mem, &f, id, 16) == 0);
	bytes[EI_CLASS] = ELFCLASS32;
	CHECK(hwt_elf_file_build_id(read_mem, &f, id, sizeof(id)) == 0);
	bytes[EI_CLASS] = ELFCLASS64;
	bytes[offsetof(Elf64_Ehdr, e_phentsize)]++;
	CHECK(hwt_elf_file_build_id(read_mem, &f, id, sizeof(id)) == 0);
	bytes[offsetof(Elf64_Ehdr, e_phentsize)]--;
	CHECK(hwt_elf_file_build_id(read_mem, &f, id, sizeof(id)) == n);
}

/* readelf -n's "Build ID: hex". */
static void oracle(const char *path, char *hex)
{
	char cmd[4200], line[512];
	FILE *p;

	hex[0] = '\0';
	snprintf(cmd, sizeof(cmd), "readelf -n '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	if (!p)
		return;
	while (fgets(line, sizeof(line), p))
		if (!hex[0] && sscanf(line, " Build ID: %200s", hex) == 1)
			break;
	pclose(p);
}

int main(int argc, char **argv)
{
	int files = 0;

	hand_made();
	aligned_and_windowed();
	file_cases();
	for (int i = 1; i < argc; i++) {
		char a[256], w[256], b[256];

		ours(argv[i], a);
		segments(argv[i], 64, w);
		oracle(argv[i], b);
		if (strcmp(a, b) != 0 || strcmp(w, b) != 0) {
			fprintf(stderr, "FAIL %s: ours '%s', in windows '%s', readelf '%s'\n",
				argv[i], a, w, b);
			failures++;
		}
		files += a[0] != '\0';
	}
	if (argc > 1 && files == 0) {
		fprintf(stderr, "FAIL: no file had a build-id: the comparison checked nothing\n");
		failures++;
	}
	printf("elf_note: %d files with a build-id, %d failure(s)\n", files, failures);
	return failures != 0;
}
