/* The GNU build-id note (elf_note.h). */
#include "elf_note.h"

#define NOTE_GNU_BUILD_ID 3u

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint32_t hwt_elf_note_build_id(const uint8_t *notes, size_t len, uint32_t max_size,
			       const uint8_t **desc)
{
	size_t pos = 0;

	while (len - pos >= 12) {
		uint32_t namesz = le32(notes + pos), descsz = le32(notes + pos + 4);
		uint32_t type = le32(notes + pos + 8);
		size_t name_at = pos + 12, desc_at = name_at + (((size_t)namesz + 3) & ~(size_t)3);

		if (namesz > len || desc_at > len || descsz > len - desc_at)
			return 0;
		if (type == NOTE_GNU_BUILD_ID && namesz == 4 && notes[name_at] == 'G' &&
		    notes[name_at + 1] == 'N' && notes[name_at + 2] == 'U' &&
		    notes[name_at + 3] == '\0' && descsz > 0 && descsz <= max_size) {
			*desc = notes + desc_at;
			return descsz;
		}
		pos = desc_at + (((size_t)descsz + 3) & ~(size_t)3);
		if (pos > len)
			return 0;
	}
	return 0;
}
