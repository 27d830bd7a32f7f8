/* Error strings of the DWARF reader. */
#include "hwt_dwarf.h"

const char *hwt_dwarf_errstr(int code)
{
	if (code < 0)
		code = -code;
	switch ((enum hwt_dwarf_error)code) {
	case hde_ok:       return "success";
	case hde_internal: return "internal error";
	case hde_invalid:  return "invalid argument";
	case hde_nomem:    return "out of memory";
	case hde_io:       return "cannot read the file";
	case hde_no_debug: return "no DWARF debug information";
	case hde_dwarf:    return "the DWARF cannot be read";
	}
	return "unknown error";
}

int hwt_dwarf_error_as(int code, int no_debug, int dwarf)
{
	switch ((enum hwt_dwarf_error)-code) {
	case hde_ok:       return 0;
	case hde_internal:
	case hde_invalid:
	case hde_nomem:
	case hde_io:       return code;
	case hde_no_debug: return -no_debug;
	case hde_dwarf:    return -dwarf;
	}
	return -hwt_err_internal;
}
