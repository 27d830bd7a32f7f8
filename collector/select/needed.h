/*
 * The shared libraries an executable will load, known before it runs: the
 * DT_NEEDED closure of its dynamic section, resolved the way ld.so does
 * it. The selection rule (select.c) uses it to trace a process because of
 * a library it loads (docs/select.md).
 *
 * Its own file because it is ELF and ld.so knowledge, not the rule. Like
 * the rest of the preloaded library it runs inside arbitrary programs,
 * also between vfork and exec: no allocation, bounded stack and work, only
 * open/pread/mmap/close; whatever does not parse ends the walk quietly.
 */
#ifndef HWT_NEEDED_H
#define HWT_NEEDED_H

#include <elf.h>
#include <stddef.h>

/* 1 when eh is the header of an x86-64 ELF64 file (little-endian, 64-bit
   program headers): what ld.so and the rule accept. */
int hwt_elf_header_is_x86_64(const Elf64_Ehdr *eh);

/* Limits of one walk. */
#define HWT_NEEDED_MAX_LIBS  64    /* libraries of the closure looked at */
#define HWT_NEEDED_MAX_DEPTH 16    /* DT_NEEDED levels below the executable */
#define HWT_NEEDED_PATH_MAX  1024  /* longest library path followed */
#define HWT_NEEDED_MAX_TRIES 1024  /* candidate files looked for, in all */

/*
 * Called for each library of the closure: its canonical path and a
 * read-only descriptor of it. Returns 1 to stop the walk at that library.
 */
typedef int (*hwt_needed_fn)(void *ctx, const char *path, int fd);

/*
 * Walks the DT_NEEDED closure of the x86-64 ELF executable open at exe_fd
 * (exe: its canonical path, for $ORIGIN), breadth first as ld.so loads it:
 * names with '/' as they are, else DT_RPATH of the object and of the
 * objects that loaded it (when the object has no DT_RUNPATH),
 * LD_LIBRARY_PATH from envp (the environment the exec passes), DT_RUNPATH,
 * /etc/ld.so.cache, the default directories; $ORIGIN, $LIB and $PLATFORM
 * expanded. Calls fn on each library found until it returns 1.
 *
 * Returns 1 when fn accepted a library (its canonical path into found, size bytes),
 * 0 when none was accepted, the executable is static, or something did
 * not parse.
 */
int hwt_needed_find(int exe_fd, const char *exe, char *const envp[], hwt_needed_fn fn, void *ctx,
		    char *found, size_t size);

#endif /* HWT_NEEDED_H */
