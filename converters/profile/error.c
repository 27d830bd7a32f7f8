/* Error strings of the profile library. */
#include "profile.h"

const char *hwt_profile_errstr(int code)
{
	if (code < 0)
		code = -code;
	switch ((enum hwt_profile_error)code) {
	case hpe_ok:       return "success";
	case hpe_internal: return "internal error";
	case hpe_invalid:  return "invalid argument";
	case hpe_nomem:    return "out of memory";
	case hpe_io:       return "input/output error";
	case hpe_format:   return "not a profile (bad format)";
	case hpe_version:  return "profile version not supported";
	case hpe_mismatch: return "file is not the profiled image (build-id or size differ)";
	case hpe_bad_code: return "code does not decode as the profile says";
	case hpe_not_elf:  return "not an ELF file";
	}
	return "unknown error";
}
