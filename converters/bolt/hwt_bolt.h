/*
 * The BOLT converter: the profile llvm-bolt reads (-data=FILE, its "fdata"
 * text form) for one binary, from the exact counts of an hwt profile.
 * docs/pgo.md ("BOLT") describes the form and why it was chosen.
 *
 * Each line is one edge of a function's control flow graph, or a call:
 *
 *   1 FROM_FUNCTION FROM_OFFSET 1 TO_FUNCTION TO_OFFSET MISPREDICTS COUNT
 *
 * offsets in hex from the function's symbol, functions named as llvm-bolt
 * names them (a local symbol NAME is NAME/N, N counting the local symbols
 * of that name). Taken branches, fall-throughs (from the block's last
 * instruction to the next block, explicit, so no count is inferred) and
 * calls (to offset 0 of the callee) are written with their exact counts;
 * mispredictions are unknown to a trace and written as 0.
 *
 * In the style of libipt: functions return a negative enum hwt_bolt_error
 * (hwt_bolt_errstr names it); nothing is printed.
 */
#ifndef HWT_BOLT_H
#define HWT_BOLT_H

#include "hwt_errors.h"
#include <stdint.h>
#include <stdio.h>

#include "profile.h"

#ifdef __cplusplus
extern "C" {
#endif

enum hwt_bolt_error {
	hboe_ok = hwt_ok,
	hboe_internal = hwt_err_internal,
	hboe_invalid = hwt_err_invalid,
	hboe_nomem = hwt_err_nomem,
	hboe_io = hwt_err_io,             /* a file cannot be read or written; errno says why */
	hboe_not_elf = HWT_ERR_BOLT_BASE, /* not an ELF file of an architecture hwt decodes */
	hboe_no_symbols,                  /* the file has no function symbols (stripped) */
	hboe_profile,                     /* the hwt profile library failed (*profile_error says why:
	                                     -hpe_mismatch when the file is not the traced image) */
};

const char *hwt_bolt_errstr(int code);

/* What writing one image's profile did. */
struct hwt_bolt_stats {
	uint64_t functions;      /* functions with at least one line */
	uint64_t branches;       /* lines: taken branches within a function */
	uint64_t fall_throughs;  /* lines: fall-throughs into the next block */
	uint64_t calls;          /* lines: calls and tail calls between functions */
	uint64_t count;          /* sum of the counts of every line */
	/* Transfers left out: from or to code in no function symbol (the PLT,
	   code without a symbol), or to another image (shared libraries). */
	uint64_t outside;        /* their count (executions) */
};

/*
 * Writes the fdata profile of one image of profile to out. The image's
 * code and symbols are read from file (NULL: the image's path; a copy with
 * the same build-id may be given; its build-id is checked). stats may be
 * NULL. Returns 0, or -hboe_io, -hboe_not_elf, -hboe_no_symbols, -hboe_nomem,
 * -hboe_invalid, or -hboe_profile with *profile_error (when not NULL) the
 * hwt_profile_error.
 */
int hwt_bolt_write_fdata(const struct hwt_profile *profile, size_t image, const char *file,
			 FILE *out, struct hwt_bolt_stats *stats, int *profile_error);

/*
 * 1 when the ELF file at path is a program (ET_EXEC, or a position
 * independent executable: ET_DYN with a PT_INTERP and no DT_SONAME), 0 when
 * it is not (a shared library, libc.so.6 included, the dynamic loader, not
 * ELF, unreadable).
 */
int hwt_bolt_is_program(const char *path);

#ifdef __cplusplus
}
#endif

#endif /* HWT_BOLT_H */
