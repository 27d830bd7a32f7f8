/*
 * Where an executable file's separate debug information is, found as gdb
 * finds it (docs/debuginfo.md), for every converter that reads DWARF or
 * symbols (lcov, sample profiles, flame graphs):
 *
 *  1. by build-id: DIR/.build-id/XX/REST.debug for each debug directory DIR
 *     (XX the build-id's first byte in hex, REST the others), taken when
 *     its build-id is the image's (Debian's -dbgsym and -dbg packages);
 *  2. by the image's .gnu_debuglink (objcopy --add-gnu-debuglink): the
 *     name it gives in the image's directory, in its .debug/ subdirectory,
 *     then DIR/ + the image's directory + the name for each debug
 *     directory DIR; taken when the CRC32 of its contents is the one the
 *     link records (a file whose CRC differs is passed over and named in
 *     crc_mismatch, as gdb warns of it).
 *
 * The debug directories are gdb's debug-file-directory: /usr/lib/debug
 * unless a list is given, which replaces it (give /usr/lib/debug in the
 * list to keep it).
 *
 * Returns negative enum hwt_elf_error codes (elf_file.h); prints nothing.
 */
#ifndef HWT_DEBUG_FILE_H
#define HWT_DEBUG_FILE_H

#include <stdint.h>

#include "elf_file.h"

/* gdb's default debug-file-directory, Debian's. */
#define HWT_DEBUG_DIR_DEFAULT "/usr/lib/debug"

struct hwt_debug_file {
	char *path;          /* the separate debug file found, or NULL (malloc'd) */
	int by_build_id;     /* found through .build-id (else through the debug link) */
	char *crc_mismatch;  /* the first file the debug link named whose CRC32 is not
	                        the link's, or NULL (malloc'd) */
};

/*
 * Looks for the separate debug file of image (open; its path image_path,
 * whose directory the debug link is relative to) in dirs (a NULL-terminated
 * list of debug directories; NULL: HWT_DEBUG_DIR_DEFAULT alone). Returns 1
 * (found->path set), 0 (none found; found->crc_mismatch may be set), or
 * -hee_nomem, -hee_invalid. hwt_debug_file_fini frees what it set, even
 * when it failed.
 */
int hwt_debug_file_find(const struct hwt_elf_file *image, const char *image_path,
			const char *const *dirs, struct hwt_debug_file *found);
void hwt_debug_file_fini(struct hwt_debug_file *found);

/*
 * The file that holds image's DWARF: image_path itself when it has
 * .debug_info, else its separate debug file (hwt_debug_file_find). Returns
 * 1 with *dwarf_path (malloc'd; found->path set when it is a separate file),
 * 0 when there is none, or a negative hwt_elf_error.
 */
int hwt_debug_file_dwarf(const struct hwt_elf_file *image, const char *image_path,
			 const char *const *dirs, struct hwt_debug_file *found, char **dwarf_path);

/* The CRC32 that .gnu_debuglink records (ISO-HDLC, as zlib's crc32) of size bytes. */
uint32_t hwt_debug_file_crc32(const uint8_t *data, size_t size);

#endif /* HWT_DEBUG_FILE_H */
