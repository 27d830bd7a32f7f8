/* The GNU build-id note (elf_note.h). */
#include "elf_note.h"

#define NOTE_GNU_BUILD_ID 3u
#define NOTE_HEADER 12u

/* ELF64 fields the file reader needs (<elf.h> is not libc-free). */
#define EHDR_SIZE 64u
#define EHDR_PHOFF 32u
#define EHDR_PHENTSIZE 54u
#define EHDR_PHNUM 56u
#define PHDR_SIZE 56u
#define PHDR_OFFSET 8u
#define PHDR_FILESZ 32u
#define PHDR_ALIGN 48u
#define PT_NOTE_TYPE 4u

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
	return le32(p) | (uint64_t)le32(p + 4) << 32;
}

uint32_t hwt_elf_note_walk(const uint8_t *notes, size_t len, uint32_t align,
			   uint32_t max_size, const uint8_t **desc, size_t *next)
{
	size_t pad = align == 8 ? 7 : 3;
	size_t pos = 0;

	if (next)
		*next = len;
	while (len - pos >= NOTE_HEADER) {
		uint32_t namesz = le32(notes + pos), descsz = le32(notes + pos + 4);
		uint32_t type = le32(notes + pos + 8);
		size_t name_at = pos + NOTE_HEADER;
		/* Sizes as size_t from 32-bit fields: the sums below cannot wrap. */
		size_t desc_at = name_at + (((size_t)namesz + pad) & ~pad);
		size_t end = desc_at + (((size_t)descsz + pad) & ~pad);

		if (desc_at > len || (size_t)descsz > len - desc_at) {
			/* Not wholly here: the next window starts with it. */
			if (next)
				*next = pos;
			return 0;
		}
		if (type == NOTE_GNU_BUILD_ID && namesz == 4 && notes[name_at] == 'G' &&
		    notes[name_at + 1] == 'N' && notes[name_at + 2] == 'U' &&
		    notes[name_at + 3] == '\0' && descsz > 0 && descsz <= max_size) {
			*desc = notes + desc_at;
			return descsz;
		}
		if (end >= len) {
			/* The last note here (its padding may lie beyond). */
			if (next)
				*next = end;
			return 0;
		}
		pos = end;
	}
	if (next)
		*next = pos;
	return 0;
}

uint32_t hwt_elf_file_build_id(hwt_elf_read_fn *read, void *ctx, uint8_t *out, uint32_t max_size)
{
	static const uint8_t ident[6] = { 0x7f, 'E', 'L', 'F', 2 /* 64-bit */, 1 /* LE */ };
	uint8_t eh[EHDR_SIZE];
	uint64_t phoff;
	uint16_t phnum;

	if (!read(ctx, 0, eh, sizeof(eh)))
		return 0;
	for (unsigned i = 0; i < sizeof(ident); i++)
		if (eh[i] != ident[i])
			return 0;
	phoff = le64(eh + EHDR_PHOFF);
	phnum = le16(eh + EHDR_PHNUM);
	if (le16(eh + EHDR_PHENTSIZE) != PHDR_SIZE || phnum > HWT_ELF_NOTE_PHDRS)
		return 0;
	for (uint16_t i = 0; i < phnum; i++) {
		uint8_t ph[PHDR_SIZE], notes[HWT_ELF_NOTE_BYTES];
		const uint8_t *desc;
		uint64_t filesz;
		size_t len;
		uint32_t found;

		if (!read(ctx, phoff + (uint64_t)i * PHDR_SIZE, ph, sizeof(ph)) ||
		    le32(ph) != PT_NOTE_TYPE)
			continue;
		filesz = le64(ph + PHDR_FILESZ);
		len = filesz < sizeof(notes) ? (size_t)filesz : sizeof(notes);
		if (!read(ctx, le64(ph + PHDR_OFFSET), notes, len))
			continue;
		/* p_align says how the notes are padded (4, or 8 in some linkers' output). */
		found = hwt_elf_note_walk(notes, len, (uint32_t)le64(ph + PHDR_ALIGN), max_size,
					  &desc, NULL);
		if (found) {
			for (uint32_t k = 0; k < found; k++)
				out[k] = desc[k];
			return found;
		}
	}
	return 0;
}
