/* Error strings of the lcov writer. */
#include "hwt_lcov.h"

const char *hwt_lcov_errstr(int code)
{
	if (code < 0)
		code = -code;
	switch ((enum hwt_lcov_error)code) {
	case hle_ok:       return "success";
	case hle_internal: return "internal error";
	case hle_invalid:  return "invalid argument";
	case hle_nomem:    return "out of memory";
	case hle_io:       return "cannot read the file";
	case hle_not_elf:  return "not an ELF file";
	case hle_no_debug: return "no debug info";
	case hle_dwarf:    return "unreadable DWARF";
	case hle_mismatch: return "build-id differs from the recorded one";
	case hle_syntax: return "not an lcov record";
	}
	return "unknown error";
}
