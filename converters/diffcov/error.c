/* Error strings of diff coverage. */
#include "hwt_diffcov.h"

const char *hwt_diffcov_errstr(int code)
{
	if (code < 0)
		code = -code;
	switch (code) {
	case hde_ok: return "success";
	case hde_internal: return "internal error";
	case hde_invalid: return "invalid argument";
	case hde_nomem: return "out of memory";
	case hde_io: return "input/output error";
	case hde_syntax: return "not a unified diff";
	case hde_combined: return "a combined diff (a merge with conflicts?)";
	}
	return "unknown error";
}
