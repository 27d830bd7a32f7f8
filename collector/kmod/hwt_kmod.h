/*
 * The kernel trace unit's collector: drives a context of hwt.ko (kmod/)
 * with its "sw" backend and writes what it traces into a trace bundle
 * (docs/bundle.md) that the decoders read as they read the software units'.
 *
 * A library in the style of libipt: one opaque recording object, negative
 * enum hwt_kmod_error codes (hwt_kmod_errstr names them, errno says more
 * after hke_io), nothing printed; what went wrong in the kernel's data
 * (lost trace, records the bundle cannot place) is written to the bundle
 * as LOST records, and warnings go to the caller's sink (options.warn).
 *
 * Use: hwt_kmod_alloc (a THREAD-mode context for a process, before it
 * runs the command, or a running one; or CPU mode), hwt_kmod_start, then
 * hwt_kmod_poll until the command is done, hwt_kmod_finish, hwt_kmod_free.
 * The caller creates the bundle (hwt_bundle_create) and writes its summary.
 */
#ifndef HWT_KMOD_H
#define HWT_KMOD_H

#include "hwt_errors.h"
#include "hwt_warn.h"
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

enum hwt_kmod_error {
	hke_ok = hwt_ok,
	hke_internal = hwt_err_internal,   /* a bug in this library */
	hke_invalid = hwt_err_invalid,     /* a bad option */
	hke_nomem = hwt_err_nomem,
	hke_io = hwt_err_io,               /* a system call failed; errno says why */
	hke_no_module = HWT_ERR_KMOD_BASE, /* no /dev/hwt: hwt.ko is not loaded */
	hke_no_backend,                    /* hwt.ko has no such backend (hwt_sw.ko not loaded) */
	hke_perm,                          /* not allowed to trace that process or those CPUs */
	hke_busy,                          /* another collector traces it with this backend */
	hke_no_process,                    /* no such process */
	hke_bundle,                        /* a bundle file could not be written; errno says why */
	hke_mode,                          /* the backend does not trace in that mode */
	hke_no_access,                     /* /dev/hwt is not open to this user (hwt.paranoid, hwt.group) */
	hke_paranoid,                      /* CPU mode at hwt.paranoid 2 without CAP_SYS_ADMIN */
	hke_memlock,                       /* the buffers go over the user's locked memory (hwt.mlock_kb + ulimit -l) */
	hke_contexts,                      /* the user has hwt.max_contexts contexts open */
	hke_no_ptrace,                     /* THREAD mode: this kernel lets hwt.ko no safe way to ask ptrace's policy */
};

const char *hwt_kmod_errstr(int code);

enum hwt_kmod_mode {
	HWT_KMOD_THREAD,  /* a process, its threads and (children) its children */
	HWT_KMOD_CPU,     /* everything that runs on a set of CPUs */
};

struct hwt_kmod_options {
	enum hwt_kmod_mode mode;
	pid_t pid;                /* THREAD: the process; CPU with until_exec: the command */
	int children;             /* THREAD: follow the processes it starts */
	/*
	 * THREAD (and CPU): pid is the caller's child that will exec the
	 * command: what it runs before its first exec is not recorded.
	 */
	int until_exec;
	/*
	 * CPU: a CPU bitmap (cpu_set_t bytes). Every user thread that runs on
	 * them is traced (but this process's), into per-CPU buffers that are
	 * cut into per-thread streams; a full buffer is written over (wrap),
	 * no filters, no block log, no selection.
	 */
	const uint8_t *cpus;
	size_t cpusetsize;
	const char *backend;      /* NULL: "sw" */
	size_t bufsize;           /* bytes per thread's buffer; 0: 4 MiB */
	uint32_t psb_period;      /* 0: the backend's (4096) */
	int wrap;                 /* a full buffer is written over (LOST), not paused */
	int debug_blocks;         /* the executed-block log (blocks/) */
	int select;               /* the selection rule at each exec (docs/select.md) */
	const char *trace;        /* --trace globs, newline-separated, or NULL */
	const char *no_trace;     /* --no-trace globs, or NULL */
	const char *const *filters; /* IMAGE[:FUNCTION], NULL-terminated, or NULL */
	/* Warnings (a filter that names nothing, a record that fits no image). */
	struct hwt_warn_sink warn;
};

struct hwt_kmod;

/* Opens /dev/hwt and allocates the context for bundle (an existing bundle directory). */
int hwt_kmod_alloc(struct hwt_kmod **kmod, const char *bundle, const struct hwt_kmod_options *opts);
/* Tracing starts; THREAD mode with until_exec: the caller lets its child exec now. */
int hwt_kmod_start(struct hwt_kmod *kmod);
/* Waits up to timeout_ms for records and trace, writes them into the bundle. 0 or an error. */
int hwt_kmod_poll(struct hwt_kmod *kmod, int timeout_ms);
/* Stops tracing, writes out everything left and closes the bundle's files. */
int hwt_kmod_finish(struct hwt_kmod *kmod);
/* Closes the context (the traced processes run on untraced). */
void hwt_kmod_free(struct hwt_kmod *kmod);

#ifdef __cplusplus
}
#endif

#endif /* HWT_KMOD_H */
