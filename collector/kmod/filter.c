/*
 * --filter IMAGE[:FUNCTION] (kmod_int.h): IMAGE is a glob matched against
 * a mapped file's path and its base name; FUNCTION an ELF symbol of its
 * .symtab (else .dynsym). A match gives the address range of the function
 * (or of the whole executable mapping) in the process that mapped it.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kmod_int.h"

/* File offset and size of the code of symbol name in elf, 0 when it has none. */
static int symbol_code(Elf *elf, const char *name, uint64_t *off, uint64_t *size)
{
	for (int pass = 0; pass < 2; pass++) {
		Elf_Scn *scn = NULL;

		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			Elf_Data *data;

			if (!gelf_getshdr(scn, &sh) ||
			    sh.sh_type != (pass ? SHT_DYNSYM : SHT_SYMTAB) || !sh.sh_entsize)
				continue;
			data = elf_getdata(scn, NULL);
			for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize; i++) {
				GElf_Sym sym;
				const char *s;
				size_t nph;

				if (!gelf_getsym(data, (int)i, &sym) ||
				    GELF_ST_TYPE(sym.st_info) != STT_FUNC || !sym.st_value ||
				    !(s = elf_strptr(elf, sh.sh_link, sym.st_name)) || strcmp(s, name))
					continue;
				/* The file offset of its address: the PT_LOAD that holds it. */
				if (elf_getphdrnum(elf, &nph) != 0)
					return 0;
				for (size_t p = 0; p < nph; p++) {
					GElf_Phdr ph;

					if (!gelf_getphdr(elf, (int)p, &ph) || ph.p_type != PT_LOAD ||
					    sym.st_value < ph.p_vaddr ||
					    sym.st_value >= ph.p_vaddr + ph.p_filesz)
						continue;
					*off = sym.st_value - ph.p_vaddr + ph.p_offset;
					*size = sym.st_size ? sym.st_size : 1;
					return 1;
				}
			}
		}
	}
	return 0;
}

size_t kmod_filter_ranges(const char *filter, const struct hwt_record_mmap *rec,
			  const char *path, struct hwt_sw_range *out, size_t max)
{
	const char *colon = strchr(filter, ':'), *base = strrchr(path, '/');
	char image[4096];
	uint64_t off, size;
	size_t n = 0;
	Elf *elf;
	int fd;

	snprintf(image, sizeof(image), "%.*s", colon ? (int)(colon - filter) : (int)strlen(filter),
		 filter);
	base = base ? base + 1 : path;
	if (!max || !(rec->prot & HWT_PROT_EXEC) ||
	    (fnmatch(image, path, 0) != 0 && fnmatch(image, base, 0) != 0))
		return 0;
	memset(out, 0, sizeof(*out));
	out->pid = (int32_t)rec->hdr.pid;
	if (!colon) {
		out->start = rec->addr;
		out->end = rec->addr + rec->len;
		return 1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && symbol_code(elf, colon + 1, &off, &size) && off >= rec->pgoff &&
	    off + size <= rec->pgoff + rec->len) {
		out->start = rec->addr + (off - rec->pgoff);
		out->end = out->start + size;
		n = 1;
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return n;
}
