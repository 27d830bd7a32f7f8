/* File helpers for the tool: paths inside the bundle, complete writes. */
#include "tool.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_vki.h"

/*
 * Valgrind's own (core) call that moves an fd into the range it reserves
 * for itself, out of the client's reach, close-on-exec. Not in the tool
 * headers; Valgrind's log files use it. Without it a client that closes
 * every fd (Python's subprocess with close_fds, daemons) would close the
 * trace streams under the tool.
 */
extern Int VG_(safe_fd)(Int oldfd);

Int hwt_vg_open_in_bundle(const HChar *dir, const HChar *name, Int flags)
{
	HChar path[VKI_PATH_MAX];
	SysRes res;

	if (VG_(strlen)(hwt_vg_opts.bundle) + VG_(strlen)(dir) + VG_(strlen)(name) + 3 > sizeof(path))
		return -1;
	VG_(sprintf)(path, "%s/%s/%s", hwt_vg_opts.bundle, dir, name);
	res = VG_(open)(path, flags, 0644);
	if (sr_isError(res)) {
		/* EEXIST is how the sideband's exclusive create asks for the next generation. */
		if (sr_Err(res) != VKI_EEXIST)
			VG_(umsg)("hwt: cannot create %s (errno %lu)\n", path, sr_Err(res));
		return -1;
	}
	return VG_(safe_fd)((Int)sr_Res(res));
}

Bool hwt_vg_write_all(Int fd, const void *buf, SizeT len)
{
	const UChar *p = buf;

	while (len > 0) {
		Int n = VG_(write)(fd, p, len > 0x40000000 ? 0x40000000 : (Int)len);

		if (n <= 0)
			return False;
		p += n;
		len -= (SizeT)n;
	}
	return True;
}
