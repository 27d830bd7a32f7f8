/*
 * The GNU build-id in the bytes of an ELF note segment (PT_NOTE) or note
 * section, and in an ELF file read through a callback. Libc-free: the
 * trace units, the preloaded library, the decoder's ELF reader and hwt.ko
 * each read files their own way, then ask here.
 */
#ifndef HWT_ELF_NOTE_H
#define HWT_ELF_NOTE_H

#include "hwt_types.h"

/*
 * Walks the notes in notes[0..len) (little-endian: namesz, descsz, type,
 * then name and desc each padded to align bytes, 4 or 8 as the segment's
 * p_align says; anything else is taken as 4). Returns the size of the
 * first NT_GNU_BUILD_ID descriptor named "GNU" of at most max_size bytes
 * and points *desc at it, or 0 when there is none.
 *
 * For a caller that reads a segment in windows (hwt.ko reads page cache
 * pages), *next (when next is not NULL) gets the offset at which to go on:
 * the start of the first note that does not lie wholly in notes[0..len)
 * (to be read again with the rest), or the end of the last note (which
 * its padding may put past len). 0 means the first note is longer than
 * the window, or the bytes are not notes.
 */
uint32_t hwt_elf_note_walk(const uint8_t *notes, size_t len, uint32_t align,
			   uint32_t max_size, const uint8_t **desc, size_t *next);

/* The same for a segment of 4-byte aligned notes read whole. */
static inline uint32_t hwt_elf_note_build_id(const uint8_t *notes, size_t len,
					     uint32_t max_size, const uint8_t **desc)
{
	return hwt_elf_note_walk(notes, len, 4, max_size, desc, NULL);
}

/* Reads len bytes at offset off of the file behind ctx: 1 when all were read. */
typedef int hwt_elf_read_fn(void *ctx, uint64_t off, void *buf, size_t len);

/*
 * The GNU build-id of a 64-bit little-endian ELF file, read through read:
 * the first one of at most max_size bytes in the first HWT_ELF_NOTE_BYTES
 * bytes of a PT_NOTE segment, among the program headers (at most
 * HWT_ELF_NOTE_PHDRS of them). Copies it to out (max_size bytes) and
 * returns its size; 0 when there is none or the file is not such an ELF.
 */
#define HWT_ELF_NOTE_PHDRS 256u
#define HWT_ELF_NOTE_BYTES 1024u
uint32_t hwt_elf_file_build_id(hwt_elf_read_fn *read, void *ctx, uint8_t *out, uint32_t max_size);

#endif /* HWT_ELF_NOTE_H */
