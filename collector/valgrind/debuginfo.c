/*
 * Valgrind reads the symbols, CFI and line tables of every executable
 * mapping (and of its separate debug file under /usr/lib/debug) when it is
 * mapped, for error messages, stack traces and function redirection. The
 * trace unit needs none of it: the decoders read the images themselves.
 * On a short test process that reading is half of Valgrind's start-up
 * (0.07 of 0.14 s for a dynamically linked hello with libc6-dbg
 * installed), so the tool is linked with --wrap=vgPlain_di_notify_mmap and
 * skips it unless --hwt-debuginfo=yes asks for it (for Valgrind's own
 * diagnostics while debugging the tool).
 */
#include "tool.h"

ULong __real_vgPlain_di_notify_mmap(Addr a, Bool allow_SkFileV, Int use_fd);
ULong __wrap_vgPlain_di_notify_mmap(Addr a, Bool allow_SkFileV, Int use_fd);

ULong __wrap_vgPlain_di_notify_mmap(Addr a, Bool allow_SkFileV, Int use_fd)
{
	if (!hwt_vg_opts.debuginfo)
		return 0;
	return __real_vgPlain_di_notify_mmap(a, allow_SkFileV, use_fd);
}
