/*
 * hwt_elf_note_build_id (common/elf_note.c): hand-made note buffers, broken
 * ones included, and real ELF files against readelf -n as the oracle.
 * usage: elf_note_unit [ELF...]
 */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf_note.h"

static int failures;

#define CHECK(cond)                                                              \
	do {                                                                     \
		if (!(cond)) {                                                   \
			fprintf(stderr, "%s:%d: FAIL %s\n", __FILE__, __LINE__, #cond); \
			failures++;                                              \
		}                                                                \
	} while (0)

/* Appends one note: namesz, descsz, type, name and desc padded to 4. */
static size_t note(uint8_t *buf, size_t at, uint32_t type, const char *name, uint32_t namesz,
		   const uint8_t *desc, uint32_t descsz)
{
	memcpy(buf + at, &namesz, 4);
	memcpy(buf + at + 4, &descsz, 4);
	memcpy(buf + at + 8, &type, 4);
	at += 12;
	memcpy(buf + at, name, namesz);
	at += (namesz + 3) & ~3u;
	memcpy(buf + at, desc, descsz);
	return at + ((descsz + 3) & ~3u);
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

/* The build-id of path from its PT_NOTE segments, as hex, or "". */
static void ours(const char *path, char *hex)
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
		uint8_t notes[4096];
		const uint8_t *desc;
		uint32_t n;
		size_t len;

		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) !=
			    (ssize_t)sizeof(ph) || ph.p_type != PT_NOTE)
			continue;
		len = ph.p_filesz < sizeof(notes) ? ph.p_filesz : sizeof(notes);
		if (pread(fd, notes, len, (off_t)ph.p_offset) != (ssize_t)len)
			continue;
		n = hwt_elf_note_build_id(notes, len, 64, &desc);
		for (uint32_t k = 0; k < n; k++)
			sprintf(hex + 2 * k, "%02x", desc[k]);
	}
	close(fd);
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
	for (int i = 1; i < argc; i++) {
		char a[256], b[256];

		ours(argv[i], a);
		oracle(argv[i], b);
		if (strcmp(a, b) != 0) {
			fprintf(stderr, "FAIL %s: ours '%s', readelf '%s'\n", argv[i], a, b);
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
