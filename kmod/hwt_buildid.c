// SPDX-License-Identifier: GPL-2.0
/* Build-ids of mapped ELF files: see hwt_buildid.h. */
#include <linux/elf.h>
#include <linux/fs.h>
#include <linux/highmem.h>
#include <linux/magic.h>
#include <linux/kernel.h>
#include <linux/pagemap.h>
#include <linux/string.h>

#include "elf_note.h"
#include "hwt_buildid.h"
#include "hwt_record.h"

/* Bounds on the work for one file (the hooks run with preemption off). */
#define HWT_BID_MAX_PHNUM	64u	/* program headers looked at */
#define HWT_BID_MAX_NOTES	4096u	/* bytes of notes looked at per PT_NOTE segment */
#define HWT_BID_WINDOW		256u	/* notes read at a time (on the stack) */

/* Page cache only: never sleeps. */
static int hwt_bid_read_cached(struct file *f, loff_t pos, void *buf, size_t len)
{
	while (len) {
		size_t off = offset_in_page(pos);
		size_t n = min_t(size_t, len, PAGE_SIZE - off);
		struct page *page = find_get_page(f->f_mapping, pos >> PAGE_SHIFT);
		void *kaddr;

		if (!page)
			return -EAGAIN;
		if (!PageUptodate(page)) {
			put_page(page);
			return -EAGAIN;
		}
		kaddr = kmap_local_page(page);
		memcpy(buf, kaddr + off, n);
		kunmap_local(kaddr);
		put_page(page);
		buf += n;
		pos += n;
		len -= n;
	}
	return 0;
}

/* @len bytes at @pos, all inside the file, or an error. */
static int hwt_bid_read(struct file *f, enum hwt_bid_how how, u64 pos, void *buf, size_t len)
{
	loff_t size = i_size_read(file_inode(f));
	loff_t p = pos;
	ssize_t r;

	if (size < 0 || pos > (u64)size || len > (u64)size - pos)
		return -ENODATA;
	if (how == HWT_BID_CACHED)
		return hwt_bid_read_cached(f, pos, buf, len);
	r = kernel_read(f, buf, len, &p);
	if (r == len)
		return 0;
	return r < 0 ? r : -EIO;
}

/*
 * The build-id note among the notes at [off, off + size), 0 if none: read
 * in windows, each walked by common/elf_note, which says where the next
 * one starts.
 */
static int hwt_bid_notes(struct file *f, enum hwt_bid_how how, u64 off, u64 size,
			 u32 align, u8 *id)
{
	u64 end = off + min_t(u64, size, HWT_BID_MAX_NOTES);
	u8 win[HWT_BID_WINDOW];
	int ret;

	if (end < off)
		return 0;
	while (off < end) {
		size_t len = min_t(u64, end - off, sizeof(win)), next;
		const u8 *desc;
		u32 n;

		ret = hwt_bid_read(f, how, off, win, len);
		if (ret)
			return ret;
		n = hwt_elf_note_walk(win, len, align, HWT_BUILD_ID_MAX, &desc, &next);
		if (n) {
			memcpy(id, desc, n);
			return n;
		}
		if (next == 0)
			return 0;	/* a note longer than the window, or no notes */
		off += next;
	}
	return 0;
}

int hwt_buildid_get(struct file *f, enum hwt_bid_how how, u8 *id)
{
	union {
		unsigned char	ident[EI_NIDENT];
		Elf32_Ehdr	e32;
		Elf64_Ehdr	e64;
	} eh;
	u32 phentsize, phnum, need, i;
	u64 phoff;
	bool is64;
	int ret;

	/* hugetlbfs (and SHM_HUGETLB) index their page cache in huge pages. */
	if (file_inode(f)->i_sb->s_magic == HUGETLBFS_MAGIC)
		return 0;
	ret = hwt_bid_read(f, how, 0, &eh, sizeof(eh.e32));
	if (ret)
		return ret == -ENODATA ? 0 : ret;
	if (memcmp(eh.ident, ELFMAG, SELFMAG) || eh.ident[EI_DATA] != ELFDATA2LSB)
		return 0;
	if (eh.ident[EI_CLASS] == ELFCLASS64) {
		ret = hwt_bid_read(f, how, 0, &eh, sizeof(eh.e64));
		if (ret)
			return ret == -ENODATA ? 0 : ret;
		is64 = true;
		phoff = eh.e64.e_phoff;
		phentsize = eh.e64.e_phentsize;
		phnum = eh.e64.e_phnum;
		need = sizeof(Elf64_Phdr);
	} else if (eh.ident[EI_CLASS] == ELFCLASS32) {
		is64 = false;
		phoff = eh.e32.e_phoff;
		phentsize = eh.e32.e_phentsize;
		phnum = eh.e32.e_phnum;
		need = sizeof(Elf32_Phdr);
	} else {
		return 0;
	}
	if (phentsize < need)
		return 0;
	phnum = min(phnum, HWT_BID_MAX_PHNUM);
	for (i = 0; i < phnum; i++) {
		union {
			Elf32_Phdr	p32;
			Elf64_Phdr	p64;
		} ph;
		u64 off, size;
		u32 align;

		ret = hwt_bid_read(f, how, phoff + (u64)i * phentsize, &ph, need);
		if (ret)
			return ret == -ENODATA ? 0 : ret;
		if ((is64 ? ph.p64.p_type : ph.p32.p_type) != PT_NOTE)
			continue;
		off = is64 ? ph.p64.p_offset : ph.p32.p_offset;
		size = is64 ? ph.p64.p_filesz : ph.p32.p_filesz;
		align = is64 ? ph.p64.p_align : ph.p32.p_align;
		ret = hwt_bid_notes(f, how, off, size, align, id);
		if (ret == -ENODATA)
			ret = 0;
		if (ret)
			return ret;
	}
	return 0;
}
