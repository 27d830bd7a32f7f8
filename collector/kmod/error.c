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
	case hke_perm:
		return "not allowed to trace it (a process: ptrace access to it, as ptrace_scope "
		       "and the other security modules decide; CPUs: CAP_PERFMON)";
	case hke_busy: return "already traced by another collector";
	case hke_no_process: return "no such process";
	case hke_bundle: return "cannot write the bundle";
	case hke_mode: return "the backend does not trace in that mode";
	case hke_no_access:
		return "/dev/hwt is not open to this user: root may open it to a group of yours "
		       "(echo GID > /sys/module/hwt/parameters/group) or to all "
		       "(echo 0 > /sys/module/hwt/parameters/paranoid)";
	case hke_paranoid:
		return "CPU mode needs CAP_SYS_ADMIN at hwt.paranoid 2, or CAP_PERFMON after "
		       "echo 1 > /sys/module/hwt/parameters/paranoid";
	case hke_memlock:
		return "the trace buffers go over the locked memory hwt.ko lets this user have "
		       "(/sys/module/hwt/parameters/mlock_kb plus ulimit -l): raise either, or "
		       "trace with smaller buffers";
	case hke_contexts:
		return "this user has as many hwt contexts open as hwt.ko allows "
		       "(/sys/module/hwt/parameters/max_contexts)";
	case hke_no_ptrace:
		return "hwt.ko cannot ask this kernel whether ptrace would allow it, so it traces "
		       "no process (the kernel log says why)";
	}
	return "unknown error";
}
