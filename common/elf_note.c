/* The GNU build-id note (elf_note.h). */
#include "elf_note.h"

#define NOTE_GNU_BUILD_ID 3u
#define NOTE_HEADER 12u

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
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
