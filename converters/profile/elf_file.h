/*
 * An executable file as the profile and the decoder read it: its bytes
 * (mapped read-only), its build-id and the file offset to virtual address
 * mapping of its PT_LOAD segments.
 */
#ifndef HWT_ELF_FILE_H
#define HWT_ELF_FILE_H

#include <stddef.h>
#include <stdint.h>

#define HWT_ELF_MAX_LOADS 32

struct hwt_elf_load {
	uint64_t offset;  /* p_offset */
	uint64_t filesz;  /* p_filesz */
	uint64_t vaddr;   /* p_vaddr */
};

struct hwt_elf_file {
	const uint8_t *data;  /* the whole file, mapped; NULL when empty */
	size_t size;
	uint64_t mtime_ns;    /* modification time */
	int is_elf;           /* 1: an ELF file whose program headers were read */
	unsigned machine;     /* its e_machine (EM_X86_64, EM_AARCH64...), 0 when not ELF */
	uint8_t build_id[20];
	uint32_t build_id_size; /* 0: none (or longer than 20 bytes) */
	struct hwt_elf_load loads[HWT_ELF_MAX_LOADS];
	size_t load_count;
};

/*
 * Maps the file at path and reads what it can of its ELF headers. Returns 0
 * (is_elf tells whether the headers were read), -hpe_io (errno says why).
 */
int hwt_elf_file_open(struct hwt_elf_file *file, const char *path);
void hwt_elf_file_close(struct hwt_elf_file *file);

/* The virtual address of a file offset (through PT_LOAD); the offset itself
   when no segment maps it. */
uint64_t hwt_elf_file_vaddr(const struct hwt_elf_file *file, uint64_t offset);

#endif /* HWT_ELF_FILE_H */
