/* Error strings of diff coverage. */
#include "hwt_diffcov.h"

const char *hwt_diffcov_errstr(int code)
{
	if (code < 0)
		code = -code;
	switch (code) {
	case hdc_ok: return "success";
	case hdc_internal: return "internal error";
	case hdc_invalid: return "invalid argument";
	case hdc_nomem: return "out of memory";
	case hdc_io: return "input/output error";
	case hdc_syntax: return "not a unified diff";
	case hdc_combined: return "a combined diff (a merge with conflicts?)";
	}
	return "unknown error";
}
