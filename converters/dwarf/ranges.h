/*
 * The code address ranges of a DWARF DIE, as libdwarf 20210528 reads them:
 * DW_AT_low_pc/DW_AT_high_pc, or DW_AT_ranges in .debug_ranges (DWARF 2-4)
 * or .debug_rnglists (DWARF 5, DW_FORM_rnglistx included). Shared by the
 * lcov and the sample-profile converters.
 */
#ifndef HWT_DWARF_RANGES_H
#define HWT_DWARF_RANGES_H

#include <stddef.h>
#include <stdint.h>

#include <libdwarf/libdwarf.h>

struct hwt_addr_range {
	uint64_t begin, end; /* [begin, end) */
};

struct hwt_addr_ranges {
	struct hwt_addr_range *r;  /* owned: free(r) */
	size_t n, cap;
};

/*
 * Appends [begin, end). Empty ranges and ranges at address 0 (code the
 * linker discarded) are left out. Returns 0, or -hde_nomem.
 */
int hwt_addr_ranges_add(struct hwt_addr_ranges *list, uint64_t begin, uint64_t end);

/*
 * Replaces list's contents with the code ranges of die, in the order the
 * DWARF lists them; cu_base is its unit's base address (DW_AT_low_pc of the
 * CU), against which .debug_ranges offsets count. *from_low_pc (may be NULL)
 * says whether they came from DW_AT_low_pc (then there is one range). A DIE
 * without code, or whose ranges cannot be read, gets none. Returns 0, or
 * -hde_nomem.
 */
int hwt_dwarf_die_ranges(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Addr cu_base,
			 struct hwt_addr_ranges *list, int *from_low_pc);

#endif /* HWT_DWARF_RANGES_H */
