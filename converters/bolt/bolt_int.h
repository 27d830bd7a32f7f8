/* Internals of the BOLT converter, shared by its files. */
#ifndef HWT_BOLT_INT_H
#define HWT_BOLT_INT_H

#include <stddef.h>
#include <stdint.h>

#include "elf/elf_file.h"

/* A function as llvm-bolt names it, with the addresses it spans. */
struct hwt_bolt_function {
	uint64_t addr;     /* entry (ELF virtual address) */
	uint64_t end;      /* first address past it */
	char *name;        /* BOLT's name: NAME, or NAME/N for a local symbol */
};

struct hwt_bolt_functions {
	struct hwt_bolt_function *items; /* sorted by addr, one per address */
	size_t count;
};

/*
 * Reads the function symbols of file's .symtab (else .dynsym). Returns 0,
 * -hboe_no_symbols or -hboe_nomem; free with hwt_bolt_functions_clear.
 */
int hwt_bolt_functions_read(const struct hwt_elf_file *file, struct hwt_bolt_functions *fns);
void hwt_bolt_functions_clear(struct hwt_bolt_functions *fns);

/* The function whose span holds vaddr, or NULL. */
const struct hwt_bolt_function *hwt_bolt_function_at(const struct hwt_bolt_functions *fns,
						     uint64_t vaddr);

#endif /* HWT_BOLT_INT_H */
