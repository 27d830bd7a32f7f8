/* Error strings of the BOLT converter. */
#include "hwt_bolt.h"

const char *hwt_bolt_errstr(int code)
{
	if (code < 0)
		code = -code;
	switch ((enum hwt_bolt_error)code) {
	case hboe_ok:         return "success";
	case hboe_internal:   return "internal error";
	case hboe_invalid:    return "invalid argument";
	case hboe_nomem:      return "out of memory";
	case hboe_io:         return "input/output error";
	case hboe_not_elf:    return "not an ELF file of an architecture hwt decodes";
	case hboe_no_symbols: return "no function symbols (the file is stripped)";
	case hboe_profile:    return "the hwt profile cannot be read";
	}
	return "unknown error";
}
