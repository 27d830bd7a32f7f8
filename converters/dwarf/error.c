/* Error strings of the DWARF reader. */
#include "hwt_dwarf.h"

const char *hwt_dwarf_errstr(int code)
{
	if (code < 0)
		code = -code;
	switch ((enum hwt_dwarf_error)code) {
	case hde_ok:       return "success";
	case hde_invalid:  return "invalid argument";
	case hde_nomem:    return "out of memory";
	case hde_io:       return "cannot read the file";
	case hde_no_debug: return "no DWARF debug information";
	case hde_dwarf:    return "the DWARF cannot be read";
	}
	return "unknown error";
}
