/* Error strings of the AutoFDO converter. */
#include "hwt_afdo.h"

const char *hwt_afdo_errstr(int code)
{
	if (code < 0)
		code = -code;
	switch ((enum hwt_afdo_error)code) {
	case hae_ok:       return "success";
	case hae_internal: return "internal error";
	case hae_invalid:  return "invalid argument";
	case hae_nomem:    return "out of memory";
	case hae_io:       return "input/output error";
	case hae_not_elf:  return "not an ELF file";
	case hae_no_debug: return "no DWARF debug information (build with -g)";
	case hae_dwarf:    return "the DWARF cannot be read";
	case hae_profile:  return "the hwt profile cannot be read";
	}
	return "unknown error";
}
