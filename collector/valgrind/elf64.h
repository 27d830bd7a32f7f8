/*
 * The ELF64 little-endian layout the tool reads from files itself (symbols
 * for --hwt-filter; common/elf_note reads build-ids): no libc, so no <elf.h>.
 */
#ifndef HWT_VG_ELF64_H
#define HWT_VG_ELF64_H

#include "pub_tool_basics.h"

struct elf64_ehdr {
	UChar ident[16];
	UShort type, machine;
	UInt version;
	ULong entry, phoff, shoff;
	UInt flags;
	UShort ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};
struct elf64_phdr {
	UInt type, flags;
	ULong offset, vaddr, paddr, filesz, memsz, align;
};
struct elf64_shdr {
	UInt name, type;
	ULong flags, addr, offset, size;
	UInt link, info;
	ULong addralign, entsize;
};
struct elf64_sym {
	UInt name;
	UChar info, other;
	UShort shndx;
	ULong value, size;
};

#define PT_LOAD 1
#define SHT_SYMTAB 2
#define SHT_DYNSYM 11
#define STT_FUNC 2

/* Reads len bytes at file offset off; False when they are not all there. */
Bool hwt_vg_elf_read_at(Int fd, ULong off, void *buf, SizeT len);

#endif /* HWT_VG_ELF64_H */
