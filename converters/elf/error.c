/* Error strings of the ELF reader. */
#include "elf_file.h"

const char *hwt_elf_errstr(int code)
{
	if (code < 0)
		code = -code;
	switch ((enum hwt_elf_error)code) {
	case hee_ok:      return "success";
	case hee_internal: return "internal error";
	case hee_invalid: return "invalid argument";
	case hee_nomem:   return "out of memory";
	case hee_io:      return "input/output error";
	}
	return "unknown error";
}

int hwt_elf_error_as(int code, int other)
{
	if (code >= 0 || code == -hee_nomem)
		return code;
	return -other;
}
