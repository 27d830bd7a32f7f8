/*
 * The kernel unit collector's errors for what hwt.ko refuses: each errno of
 * the access and accounting checks (kmod/README.md, "Access") becomes an
 * error whose message names the limit and how to raise it.
 */
#include <errno.h>
#include <string.h>

#include "kmod_int.h"
#include "../unit_check.h"

/* The message of @call failing with @err mentions @word. */
static int says(int err, enum kmod_call call, const char *word)
{
	return strstr(hwt_kmod_errstr(kmod_errno_error(err, call)), word) != NULL;
}

int main(void)
{
	CHECK_ERRSTR(hwt_kmod_errstr, hke_internal, hke_no_ptrace);

	/* open(): a missing module, a node not open to this user. */
	CHECK(kmod_errno_error(ENOENT, kmod_call_open) == -hke_no_module);
	CHECK(kmod_errno_error(EACCES, kmod_call_open) == -hke_no_access);
	CHECK(says(EACCES, kmod_call_open, "/sys/module/hwt/parameters/group"));
	CHECK(says(EACCES, kmod_call_open, "/sys/module/hwt/parameters/paranoid"));

	/* HWT_IOC_ALLOC: ptrace and CAP_PERFMON, the paranoid level, the two limits. */
	CHECK(kmod_errno_error(EPERM, kmod_call_alloc_thread) == -hke_perm);
	CHECK(says(EPERM, kmod_call_alloc_thread, "ptrace_scope"));
	CHECK(says(EPERM, kmod_call_alloc_cpu, "CAP_PERFMON"));
	CHECK(kmod_errno_error(EACCES, kmod_call_alloc_cpu) == -hke_paranoid);
	CHECK(says(EACCES, kmod_call_alloc_cpu, "/sys/module/hwt/parameters/paranoid"));
	CHECK(kmod_errno_error(ENOBUFS, kmod_call_alloc_thread) == -hke_memlock);
	CHECK(says(ENOBUFS, kmod_call_alloc_cpu, "/sys/module/hwt/parameters/mlock_kb"));
	CHECK(says(ENOBUFS, kmod_call_alloc_cpu, "ulimit -l"));
	CHECK(kmod_errno_error(EMFILE, kmod_call_alloc_thread) == -hke_contexts);
	CHECK(says(EMFILE, kmod_call_alloc_cpu, "/sys/module/hwt/parameters/max_contexts"));
	CHECK(kmod_errno_error(EOPNOTSUPP, kmod_call_alloc_thread) == -hke_no_ptrace);
	CHECK(says(EOPNOTSUPP, kmod_call_alloc_thread, "kernel log"));
	CHECK(kmod_errno_error(EOPNOTSUPP, kmod_call_alloc_cpu) == -hke_mode);
	CHECK(kmod_errno_error(ENOENT, kmod_call_alloc_cpu) == -hke_no_backend);

	/* Anything else is a failed call, with errno kept for the message. */
	errno = 0;
	CHECK(kmod_errno_error(EIO, kmod_call_ctx) == -hke_io && errno == EIO);
	return unit_exit("kmod_errors_unit");
}
