/* Error strings (hwt_kmod.h). No default: -Wswitch names a missing one. */
#include "hwt_kmod.h"

const char *hwt_kmod_errstr(int code)
{
	switch ((enum hwt_kmod_error)(code < 0 ? -code : code)) {
	case hke_ok: return "success";
	case hke_internal: return "internal error";
	case hke_invalid: return "invalid argument";
	case hke_nomem: return "out of memory";
	case hke_io: return "system call failed";
	case hke_no_module: return "no /dev/hwt: hwt.ko is not loaded";
	case hke_no_backend: return "hwt.ko has no such backend (is hwt_sw.ko loaded?)";
	case hke_perm: return "not allowed to trace it";
	case hke_busy: return "already traced by another collector";
	case hke_no_process: return "no such process";
	case hke_bundle: return "cannot write the bundle";
	case hke_mode: return "the backend does not trace in that mode (sw: no CPU mode)";
	}
	return "unknown error";
}
