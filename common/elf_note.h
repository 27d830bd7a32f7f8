/*
 * The GNU build-id in the bytes of an ELF note segment (PT_NOTE) or note
 * section. Libc-free: the trace units, the preloaded library and the
 * decoder's ELF reader each read the notes their own way, then ask here.
 */
#ifndef HWT_ELF_NOTE_H
#define HWT_ELF_NOTE_H

#include "hwt_types.h"

/*
 * Walks the notes in notes[0..len) (64-bit ELF, little-endian: namesz,
 * descsz, type, then name and desc each padded to 4 bytes). Returns the
 * size of the first NT_GNU_BUILD_ID descriptor named "GNU" of at most
 * max_size bytes and points *desc at it, or 0 when there is none.
 */
uint32_t hwt_elf_note_build_id(const uint8_t *notes, size_t len, uint32_t max_size,
			       const uint8_t **desc);

#endif /* HWT_ELF_NOTE_H */
