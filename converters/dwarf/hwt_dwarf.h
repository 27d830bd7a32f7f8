/*
 * The DWARF reader of the converters (lcov, sample profiles): a file's
 * DWARF opened with libdwarf (the 20210528 API that Debian 12 ships), its
 * compilation units one after the other, the walk of a DIE tree and the
 * attributes the converters read. Line tables are in lines.h, code address
 * ranges in ranges.h.
 *
 * In the style of libipt: functions that can fail return a negative enum
 * hwt_dwarf_error (hwt_dwarf_errstr names it); look-ups of an attribute
 * say only whether they found it.
 */
#ifndef HWT_DWARF_H
#define HWT_DWARF_H

#include "hwt_errors.h"
#include <stddef.h>
#include <stdint.h>

#include <libdwarf/libdwarf.h>

enum hwt_dwarf_error {
	hde_ok = hwt_ok,
	hde_internal = hwt_err_internal,
	hde_invalid = hwt_err_invalid,     /* bad argument */
	hde_nomem = hwt_err_nomem,
	hde_io = hwt_err_io,               /* the file cannot be opened; errno says why */
	hde_no_debug = HWT_ERR_DWARF_BASE, /* the file has no DWARF */
	hde_dwarf,                         /* libdwarf cannot read the DWARF */
};

/* A human readable string for an error code (negative or not). */
const char *hwt_dwarf_errstr(int code);
/*
 * An error of this library (negative, or 0) as the library that called it
 * returns it: the codes every library shares (hwt_errors.h) stay as they
 * are, hde_no_debug becomes -no_debug and hde_dwarf -dwarf (the caller's
 * own codes, positive), anything else -hwt_err_internal.
 */
int hwt_dwarf_error_as(int code, int no_debug, int dwarf);

/* ----- A file's DWARF ------------------------------------------------------ */

struct hwt_dwarf;

/* Opens the DWARF of the ELF file at path into *dwarf. 0 or a negative error. */
int hwt_dwarf_open(const char *path, struct hwt_dwarf **dwarf);
void hwt_dwarf_close(struct hwt_dwarf *dwarf);
Dwarf_Debug hwt_dwarf_debug(const struct hwt_dwarf *dwarf);
/*
 * The bytes of the file's .debug_line section (read with libelf at the
 * first call), or NULL: none, or compressed (then *size is 0).
 */
const uint8_t *hwt_dwarf_line_section(struct hwt_dwarf *dwarf, size_t *size);

struct hwt_dwarf_cu {
	Dwarf_Die die;    /* valid until the next hwt_dwarf_next_cu or the close */
	Dwarf_Addr base;  /* DW_AT_low_pc: the base of its range lists; 0 when none */
};

/*
 * The next compilation unit: 1 and *cu, or 0 when there are no more. A unit
 * header that cannot be read ends the walk there (the units before it are
 * kept), or gives -hde_dwarf when it is the first one. A unit whose DIE
 * cannot be read is passed over.
 */
int hwt_dwarf_next_cu(struct hwt_dwarf *dwarf, struct hwt_dwarf_cu *cu);

/* ----- DIEs ---------------------------------------------------------------- */

/*
 * Called for each DIE of a walk with its tag (0 when it cannot be read) and
 * its level below the DIE the walk began at (0 for that one). Returns 1 to
 * walk the DIE's children, 0 to pass them over, or a negative value (the
 * caller's own error code) to stop the walk.
 */
typedef int (*hwt_dwarf_visit_fn)(void *arg, Dwarf_Die die, Dwarf_Half tag, int level);

/*
 * Visits die and the DIEs below it, parents before children, down to
 * max_level levels below die. Returns 0, or the negative value visit
 * returned.
 */
int hwt_dwarf_walk(Dwarf_Debug dbg, Dwarf_Die die, int max_level, hwt_dwarf_visit_fn visit,
		   void *arg);

/* 1 and *value when die has attribute name in a constant form, else 0. */
int hwt_dwarf_attr_udata(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Half name, Dwarf_Unsigned *value);
/* A copy (malloc) of string attribute name, or NULL (none, out of memory). */
char *hwt_dwarf_attr_strdup(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Half name);
/* Whether die has attribute name. */
int hwt_dwarf_has_attr(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Half name);
/*
 * The DIE that reference attribute name (DW_AT_abstract_origin,
 * DW_AT_specification) of die refers to, or NULL; dwarf_dealloc_die it.
 */
Dwarf_Die hwt_dwarf_attr_die(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Half name);
/*
 * DW_AT_entry_pc: 1 and *entry (an address, or in a constant form an offset
 * from base), or 0 when die has none.
 */
int hwt_dwarf_entry_pc(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Addr base, Dwarf_Addr *entry);

/*
 * What a DW_TAG_subprogram or DW_TAG_inlined_subroutine DIE says about its
 * function, on the DIE or on those it refers to (DW_AT_abstract_origin,
 * DW_AT_specification: an inlined copy, an out-of-line instance, a
 * definition of a declaration).
 */
struct hwt_dwarf_function {
	char *name;          /* DW_AT_linkage_name, else DW_AT_name (malloc); NULL: none */
	uint32_t decl_line;  /* DW_AT_decl_line; 0: none */
	uint32_t decl_file;  /* DW_AT_decl_file of the DIE giving decl_line (a
				file number of the unit's line table) */
	int has_decl_file;   /* decl_file was read */
	int has_type;        /* DW_AT_type: the function returns a value */
	int artificial;      /* DW_AT_artificial: the compiler wrote it (an implicit
				constructor, a static initialiser) */
};

void hwt_dwarf_function_read(Dwarf_Debug dbg, Dwarf_Die die, struct hwt_dwarf_function *fn);

#endif /* HWT_DWARF_H */
