/*
 * The ELF reader of the converters (the decoder, the profile, lcov, sample
 * profiles): an executable file's bytes (mapped read-only), its GNU
 * build-id, its PT_LOAD segments (the file offset to virtual address
 * mapping, and the code bytes at an address), its function symbols and PLT
 * entries, read with libelf.
 *
 * Functions that can fail return a negative enum hwt_elf_error
 * (hwt_elf_errstr names it).
 */
#ifndef HWT_ELF_FILE_H
#define HWT_ELF_FILE_H

#include "hwt_errors.h"
#include <stddef.h>
#include <stdint.h>

enum hwt_elf_error {
	hee_ok = hwt_ok,
	hee_internal = hwt_err_internal,
	hee_invalid = hwt_err_invalid, /* bad argument */
	hee_nomem = hwt_err_nomem,
	hee_io = hwt_err_io,           /* the file cannot be opened or mapped, or is not a regular
	                                  file; errno says why */
};

/* A human readable string for an error code (negative or not). */
const char *hwt_elf_errstr(int code);
/*
 * An error of this library as the caller's: -hwt_err_nomem stays (every
 * library's nomem is that code), any other becomes -other (the caller's
 * own io or invalid, as its callers expect); 0 and above pass through.
 */
int hwt_elf_error_as(int code, int other);

#define HWT_ELF_BUILD_ID_MAX 20u

struct hwt_elf_load {
	uint64_t offset;  /* p_offset */
	uint64_t filesz;  /* p_filesz */
	uint64_t vaddr;   /* p_vaddr */
	uint32_t flags;   /* p_flags: PF_X, PF_W, PF_R */
};

struct hwt_elf_symbol {
	uint64_t addr;
	uint64_t size;    /* st_size; 0: unknown (crtstuff's, hand-written code) */
	const char *name; /* in the file's string table */
	uint32_t flags;   /* HWT_ELF_SYMBOL_* */
};

#define HWT_ELF_SYMBOL_GLOBAL 0x1u /* STB_GLOBAL */
#define HWT_ELF_SYMBOL_IFUNC  0x2u /* STT_GNU_IFUNC: the resolver of an indirect function */
#define HWT_ELF_SYMBOL_PLT_HEADER 0x4u /* hwt_elf_file_plt: the lazy-binding header (PLT0) */

struct hwt_elf_file {
	const uint8_t *data;  /* the whole file, mapped; NULL when empty */
	size_t size;
	uint64_t mtime_ns;    /* modification time */
	int is_elf;           /* 1: an ELF file whose program headers were read */
	unsigned machine;     /* its e_machine (EM_X86_64, EM_AARCH64...), 0 when not ELF */
	/* The first GNU build-id note of a PT_NOTE segment, else of a note
	   section; 0: none (or longer than HWT_ELF_BUILD_ID_MAX bytes). */
	uint8_t build_id[HWT_ELF_BUILD_ID_MAX];
	uint32_t build_id_size;
	struct hwt_elf_load *loads; /* the PT_LOAD segments, in program header order */
	size_t load_count;
	int has_symtab;       /* a .symtab section (the file is not stripped) */
	int has_debug_info;   /* a .debug_info section with contents (DWARF) */
	/* .gnu_debuglink: the name of the separate debug file (in data) and
	   the CRC32 of its contents; NULL: none. */
	const char *debuglink;
	uint32_t debuglink_crc;
	unsigned type;        /* e_type (ET_EXEC, ET_DYN...) */
	uint64_t entry;       /* e_entry */

	/* The reader's own. */
	struct Elf *elf;      /* libelf's view of data, while is_elf */
	struct hwt_elf_symbol *symbols; /* sorted by addr; read when first needed */
	size_t symbol_count;
	int symbols_read;
};

/*
 * Maps the file at path and reads what it can of its ELF headers. Returns 0
 * (is_elf tells whether the headers were read), -hee_io (errno says why) or
 * -hee_nomem.
 */
int hwt_elf_file_open(struct hwt_elf_file *file, const char *path);
void hwt_elf_file_close(struct hwt_elf_file *file);

/* The virtual address of a file offset (through PT_LOAD); the offset itself
   when no segment maps it. */
uint64_t hwt_elf_file_vaddr(const struct hwt_elf_file *file, uint64_t offset);

/*
 * The bytes at virtual address vaddr of an executable PT_LOAD segment, and
 * in *avail how many there are up to the segment's (or the file's) end; NULL
 * when no executable segment holds vaddr in the file.
 */
const uint8_t *hwt_elf_file_code(const struct hwt_elf_file *file, uint64_t vaddr, size_t *avail);

/* The file offset of a virtual address (through PT_LOAD); vaddr itself
   when no segment maps it. */
uint64_t hwt_elf_file_offset(const struct hwt_elf_file *file, uint64_t vaddr);

/*
 * The function symbols (STT_FUNC and STT_GNU_IFUNC, defined, non-zero) of
 * .symtab, else of .dynsym, sorted by address (aliases in table order),
 * read at the first call: 0 and *symbols, *count (the file's; valid until
 * it is closed), or -hee_nomem.
 */
int hwt_elf_file_symbols(struct hwt_elf_file *file, const struct hwt_elf_symbol **symbols,
			 size_t *count);

/*
 * The PLT entries: per .rela.plt relocation, the 16-byte entry that jumps
 * through it (in .plt.sec when there is one (IBT), else in .plt after the
 * resolver's entry), named by the relocation's symbol (without "@plt");
 * on x86-64 the .plt.got entries, named by the .rela.dyn symbol of the GOT
 * slot they jump through; and the lazy-binding header (PLT0; with .plt.sec
 * the whole .plt) named ".plt" with HWT_ELF_SYMBOL_PLT_HEADER, as Linux
 * perf names them. 0 and *entries (malloc'd, the caller frees it), *count
 * (0: no PLT), or -hee_nomem.
 */
int hwt_elf_file_plt(const struct hwt_elf_file *file, struct hwt_elf_symbol **entries,
		     size_t *count);

/*
 * The address of the function symbol called name inside [begin, end), or 0
 * (none, or out of memory reading them). The symbols are those of .symtab,
 * else of .dynsym (not the resolvers of indirect functions), read at the
 * first call.
 */
uint64_t hwt_elf_file_function_in(struct hwt_elf_file *file, const char *name, uint64_t begin,
				  uint64_t end);

#endif /* HWT_ELF_FILE_H */
