/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Build-ids of mapped ELF files for MMAP records: the GNU build-id note
 * (NT_GNU_BUILD_ID, name "GNU"), found through the PT_NOTE program headers
 * of a little-endian ELF32 or ELF64 file; the notes are walked by
 * common/elf_note.c, as in user space.
 *
 * Two ways to read the file:
 *  - HWT_BID_CACHED: only pages already in the page cache and up to date
 *    (find_get_page, kmap_local_page); never sleeps, takes no lock, so the
 *    hooks use it in atomic context, under mmap_lock. A page that is not
 *    cached makes the lookup give up (-EAGAIN): the record goes out with
 *    no build-id. The dynamic loader and the kernel's ELF loader read the
 *    ELF header and program headers just before they map a file, and the
 *    note sits in the first page of binaries as linkers lay them out, so
 *    this rarely happens.
 *  - HWT_BID_READ: kernel_read(); may sleep and do I/O, so only in process
 *    context with no lock held (the START snapshot, after mmap_lock is
 *    dropped).
 */
#ifndef HWT_BUILDID_H
#define HWT_BUILDID_H

#include <linux/types.h>

struct file;

enum hwt_bid_how {
	HWT_BID_CACHED,
	HWT_BID_READ,
};

/*
 * Copies the build-id of @f to @id (room for HWT_BUILD_ID_MAX bytes) and
 * returns its size; 0 when the file has none (or is not ELF, or the note is
 * longer than HWT_BUILD_ID_MAX); -EAGAIN (HWT_BID_CACHED) when a page
 * needed is not cached; another -errno when the file cannot be read.
 */
int hwt_buildid_get(struct file *f, enum hwt_bid_how how, u8 *id);

#endif /* HWT_BUILDID_H */
