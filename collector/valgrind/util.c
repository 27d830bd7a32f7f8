/* File helpers for the tool: paths inside the bundle, complete writes. */
#include "tool.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_vki.h"

/*
 * The tool keeps no file descriptor open between writes: a client that
 * closes every descriptor (daemons, Python's subprocess with close_fds)
 * would close them under it, or worse, reuse their numbers for its own
 * files. Valgrind's reserved descriptor range is too small for a stream per
 * thread. So each write opens, appends and closes: a few system calls per
 * buffer of trace.
 */
static Int open_in_bundle(const HChar *dir, const HChar *name, Int flags, Bool quiet_exists)
{
	HChar path[VKI_PATH_MAX];
	SysRes res;

	if (VG_(strlen)(hwt_vg_opts.bundle) + VG_(strlen)(dir) + VG_(strlen)(name) + 3 > sizeof(path))
		return -1;
	VG_(sprintf)(path, "%s/%s/%s", hwt_vg_opts.bundle, dir, name);
	res = VG_(open)(path, flags, 0644);
	if (sr_isError(res)) {
		if (!(quiet_exists && sr_Err(res) == VKI_EEXIST))
			VG_(umsg)("hwt: cannot open %s (errno %lu)\n", path, sr_Err(res));
		return -1;
	}
	return (Int)sr_Res(res);
}

static Bool write_all(Int fd, const void *buf, SizeT len)
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

Bool hwt_vg_file_create(const HChar *dir, const HChar *name, Bool exclusive)
{
	Int fd = open_in_bundle(dir, name, VKI_O_WRONLY | VKI_O_CREAT |
				(exclusive ? VKI_O_EXCL : VKI_O_TRUNC), exclusive);

	if (fd < 0)
		return False;
	VG_(close)(fd);
	return True;
}

Bool hwt_vg_file_append(const HChar *dir, const HChar *name, const void *buf, SizeT len)
{
	Int fd = open_in_bundle(dir, name, VKI_O_WRONLY | VKI_O_APPEND, False);
	Bool ok;

	if (fd < 0)
		return False;
	ok = write_all(fd, buf, len);
	VG_(close)(fd);
	return ok;
}
