/* Internals of the DWARF reader, shared by its files. */
#ifndef HWT_DWARF_INT_H
#define HWT_DWARF_INT_H

#include <stddef.h>

#include <libdwarf/libdwarf.h>

/* libdwarf hands out an error object on DW_DLV_ERROR: release it. */
static inline void hwt_dwarf_drop_error(Dwarf_Debug dbg, Dwarf_Error *err)
{
	if (*err)
		dwarf_dealloc(dbg, *err, DW_DLA_ERROR);
	*err = NULL;
}

#endif /* HWT_DWARF_INT_H */
