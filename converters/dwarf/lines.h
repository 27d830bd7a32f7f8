/*
 * The rows of one compilation unit's line table, as libdwarf 20210528 reads
 * them, with its two known errors mended in one place. Shared by the lcov
 * and the sample-profile converters.
 */
#ifndef HWT_DWARF_LINES_H
#define HWT_DWARF_LINES_H

#include <stddef.h>
#include <stdint.h>

#include <libdwarf/libdwarf.h>

struct hwt_dwarf_row {
	uint64_t addr;
	uint64_t line;
	uint64_t file;   /* file number, for hwt_dwarf_lines_file */
	uint32_t disc;   /* discriminator */
	int is_stmt;
	/*
	 * end_sequence. libdwarf 20210528 also reports it on rows that set
	 * epilogue_begin (every clang epilogue); a real end of sequence never
	 * carries that flag, so those rows are not ends here.
	 */
	int end;
};

struct hwt_dwarf_lines;

/*
 * Opens cu's line table into *lines: NULL when it has none or it cannot be
 * read (the converters skip such a unit). 0, or -hde_nomem.
 */
int hwt_dwarf_lines_open(Dwarf_Debug dbg, Dwarf_Die cu, struct hwt_dwarf_lines **lines);
/*
 * The same, mending the rows of other producers' DWARF 5 (clang) that
 * come before the first DW_LNS_set_file of their sequence: libdwarf says
 * file 0, the file register is 1 there (DWARF 5 table 6.4). clang writes
 * the functions of a header (inline, templates: each in a sequence of its
 * own) so, without a DW_LNS_set_file when the header is file 1. The line
 * program is run once more from the file's raw .debug_line to see where
 * DW_LNS_set_file comes.
 */
struct hwt_dwarf;
int hwt_dwarf_lines_open_in(struct hwt_dwarf *dwarf, Dwarf_Die cu,
			    struct hwt_dwarf_lines **lines);
size_t hwt_dwarf_lines_count(const struct hwt_dwarf_lines *t);
/* Row i; 0, or -hde_dwarf when its address, line or file cannot be read. */
int hwt_dwarf_lines_row(struct hwt_dwarf_lines *t, size_t i, struct hwt_dwarf_row *row);
/*
 * The name of row i's file, valid until the next call or the close; NULL
 * when unknown. libdwarf 20210528 starts a DWARF 5 sequence with the file
 * register at 0 instead of 1, so rows before the first DW_LNS_set_file say
 * file 0 (the unit's own file) where they belong to file 1. gcc (gas)
 * numbers its files from 1 and never refers to file 0, and file 1 is the
 * file of the first code it emits: the unit's file, or one it includes
 * (`#include "impl.c"`, a header's static function emitted first). So for
 * gcc's DWARF 5, file 0 is read as file 1; clang sets file 0 itself, and
 * relies on the register's 1 (hwt_dwarf_lines_open_in mends that).
 */
const char *hwt_dwarf_lines_file(struct hwt_dwarf_lines *t, size_t i);
void hwt_dwarf_lines_close(struct hwt_dwarf_lines *t);

#endif /* HWT_DWARF_LINES_H */
