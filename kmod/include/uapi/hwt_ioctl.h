/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * hwt.ko user ABI: /dev/hwt allocates trace contexts; each context is a file
 * descriptor that is read() for records (common/hwt_record.h), poll()ed for
 * them, mmap()ed for trace buffers and driven with the ioctls below.
 *
 * Every argument struct starts with its size as the caller knows it, so the
 * structs can grow at the end: the kernel accepts a smaller (older) struct
 * down to the first published size, and a larger (newer) one when the bytes
 * it does not know are zero (otherwise E2BIG). ioctl numbers are matched on
 * their type and number only, not on the size encoded in them.
 * See kmod/README.md for the errors of each call.
 */
#ifndef HWT_IOCTL_H
#define HWT_IOCTL_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define HWT_DEVICE		"/dev/hwt"
#define HWT_BACKEND_NAME_MAX	32

enum hwt_mode {
	HWT_MODE_THREAD = 1,	/* a process and its threads (and children on request) */
	HWT_MODE_CPU = 2,	/* everything that runs on a set of CPUs */
};

/* hwt_alloc.flags */
#define HWT_ALLOC_CHILDREN	0x1u	/* THREAD mode: also trace children forked later */

/* Bounds enforced by HWT_IOC_ALLOC. */
#define HWT_CPUSETSIZE_MAX	8192u		/* bytes of CPU set (65536 CPUs) */
#define HWT_BUFSIZE_MIN		4096u
#define HWT_BUFSIZE_MAX		(64u << 20)
#define HWT_RECQ_SIZE_DEFAULT	(256u << 10)
#define HWT_RECQ_SIZE_MAX	(16u << 20)

struct hwt_alloc {
	__u32 size;		/* sizeof(struct hwt_alloc) */
	__u32 mode;		/* enum hwt_mode */
	char backend_name[HWT_BACKEND_NAME_MAX];	/* NUL-terminated */
	__u64 cpu_map;		/* CPU mode: user pointer to a CPU bitmap, as cpu_set_t */
	__u64 cpusetsize;	/* CPU mode: bytes at cpu_map */
	__s32 pid;		/* THREAD mode: process to trace */
	__u32 flags;		/* HWT_ALLOC_* */
	__u64 bufsize;		/* bytes per trace buffer, a multiple of the page size */
	__u64 recq_size;	/* bytes of record queue (power of two), 0 = default */
	__u32 ident;		/* out: the context's ident (ignored on input) */
	__u32 reserved;		/* must be zero */
	/* HWT_ALLOC_SIZE_VER1 */
	__u64 aux_bufsize;	/* THREAD mode: bytes of a second buffer per thread for the
				   backend's debug log (0: none), a page multiple */
};
#define HWT_ALLOC_SIZE_VER0	88u
#define HWT_ALLOC_SIZE_VER1	96u

/* hwt_config.flags */
#define HWT_CFG_PAUSE_EXEC	0x1u	/* pause a thread after its EXEC record */
#define HWT_CFG_PAUSE_MMAP	0x2u	/* pause a thread after its MMAP records */
#define HWT_CFG_SWITCH		0x4u	/* SWITCH records for traced threads */
#define HWT_CFG_SELECT		0x8u	/* THREAD mode: the selection rule at each exec */
#define HWT_CFG_FLAGS		0xfu

#define HWT_PAUSE_TIMEOUT_MAX_MS	600000u
#define HWT_SELECT_GLOBS_MAX		4096u	/* bytes of one glob list */

/*
 * Each HWT_IOC_SET_CONFIG replaces the whole configuration. With
 * HWT_CFG_SELECT, every exec of a traced thread is judged by the rule of
 * docs/select.md (common/hwt_select_rule.h) before the new image runs: a
 * selected image is traced (EXEC and MMAP records), any other gets one
 * UNTRACED record (path, reason) and runs untraced, its forks and threads
 * still followed, until an exec of a selected image. The glob lists are
 * newline-separated, not NUL-terminated, without NUL bytes; a glob without
 * '/' also matches the base name. Without the flag the sizes must be 0.
 */
struct hwt_config {
	__u32 size;		/* sizeof(struct hwt_config) */
	__u32 flags;		/* HWT_CFG_* */
	__u32 pause_timeout_ms;	/* bound of one pause, 1..HWT_PAUSE_TIMEOUT_MAX_MS */
	__u32 backend_config_size;	/* bytes at backend_config, 0..4096 */
	__u64 backend_config;	/* user pointer, passed to the backend's configure */
	/* HWT_CONFIG_SIZE_VER1: selection, with HWT_CFG_SELECT */
	__u64 select_trace;	/* user pointer: --trace globs */
	__u64 select_no_trace;	/* user pointer: --no-trace globs */
	__u32 select_trace_size;	/* bytes at select_trace, 0..HWT_SELECT_GLOBS_MAX */
	__u32 select_no_trace_size;	/* bytes at select_no_trace, 0..HWT_SELECT_GLOBS_MAX */
};
#define HWT_CONFIG_SIZE_VER0	24u
#define HWT_CONFIG_SIZE_VER1	48u

struct hwt_wakeup {
	__u32 size;		/* sizeof(struct hwt_wakeup) */
	__s32 tid;		/* thread to wake, or -1 for every paused thread */
};
#define HWT_WAKEUP_SIZE_VER0	8u

/* hwt_bufptr.flags, hwt_bufread.flags */
#define HWT_BUF_AUX		0x1u	/* the thread's second (debug log) buffer */

struct hwt_bufptr {
	__u32 size;		/* sizeof(struct hwt_bufptr) */
	__u32 id;		/* CPU number (CPU mode) or tid (THREAD mode) */
	__u64 offset;		/* out: bytes the backend has written in total */
	__u64 bufsize;		/* out: size of the buffer */
	__u64 wraps;		/* out: times the write pointer went round */
	/* HWT_BUFPTR_SIZE_VER1 */
	__u32 flags;		/* HWT_BUF_* */
	__u32 reserved;		/* must be zero */
};
#define HWT_BUFPTR_SIZE_VER0	32u
#define HWT_BUFPTR_SIZE_VER1	40u

/*
 * The collector has copied buffer @id up to @offset (bytes written in
 * total, as BUFPTR gives them): a backend that pauses on a full buffer
 * (the sw backend's default) may write over what lies before it.
 */
struct hwt_bufread {
	__u32 size;		/* sizeof(struct hwt_bufread) */
	__u32 id;		/* CPU number or tid */
	__u32 flags;		/* HWT_BUF_* */
	__u32 reserved;		/* must be zero */
	__u64 offset;		/* never below an earlier one, never past what was written */
};
#define HWT_BUFREAD_SIZE_VER0	24u

/* Live objects of the module, for leak checks. */
struct hwt_stats {
	__u32 size;		/* sizeof(struct hwt_stats) */
	__u32 reserved;
	__u64 contexts;
	__u64 threads;
	__u64 buffers;
	__u64 works;		/* task works queued and not yet run */
	__u64 paused;		/* threads paused now */
	__u64 pause_timeouts;	/* pauses that ended by timeout (since load) */
	__u64 records_lost;	/* records that found their queue full (since load) */
	/* HWT_STATS_SIZE_VER1 */
	__u64 hook_registrations; /* times the hooks were registered (once a load) */
	__u64 untraced_lookups;	/* hook look-ups of tasks no context traces (since load):
				   filter collisions, normally 0 */
	__u32 features_off;	/* HWT_FEATURE_* this kernel lacks (a kprobe symbol missing) */
	__u32 reserved1;
	/* HWT_STATS_SIZE_VER2 */
	__u64 locked_pages;	/* buffer pages charged to users' locked memory, all users */
};
#define HWT_STATS_SIZE_VER0	64u
#define HWT_STATS_SIZE_VER1	88u
#define HWT_STATS_SIZE_VER2	96u

/* hwt_stats.features_off: what a kernel without the hook's symbol cannot record */
#define HWT_FEATURE_MMAP	0x1u	/* MMAP records of mmap() after exec (perf_event_mmap) */
#define HWT_FEATURE_MUNMAP	0x2u	/* MUNMAP records (do_vmi_munmap / do_mas_munmap) */

#define HWT_IOC_TYPE		'h'
/* On /dev/hwt. */
#define HWT_IOC_ALLOC		_IOWR(HWT_IOC_TYPE, 0x01, struct hwt_alloc)	/* returns a context fd */
#define HWT_IOC_STATS		_IOWR(HWT_IOC_TYPE, 0x02, struct hwt_stats)
/* On a context fd. */
#define HWT_IOC_START		_IO(HWT_IOC_TYPE, 0x10)
#define HWT_IOC_STOP		_IO(HWT_IOC_TYPE, 0x11)
#define HWT_IOC_SET_CONFIG	_IOW(HWT_IOC_TYPE, 0x12, struct hwt_config)
#define HWT_IOC_WAKEUP		_IOW(HWT_IOC_TYPE, 0x13, struct hwt_wakeup)
#define HWT_IOC_BUFPTR		_IOWR(HWT_IOC_TYPE, 0x14, struct hwt_bufptr)
#define HWT_IOC_BUFREAD		_IOW(HWT_IOC_TYPE, 0x15, struct hwt_bufread)

/* mmap() offset of a trace buffer: CPU number or tid, shifted; | HWT_MMAP_AUX for the second. */
#define HWT_MMAP_SHIFT		32
#define HWT_MMAP_OFFSET(id)	((__u64)(id) << HWT_MMAP_SHIFT)
#define HWT_MMAP_AUX		(1ull << 31)

/*
 * hdr.flags bit of EXEC, MMAP and PROCESS_START records queued by hwt.ko:
 * the thread pauses after this record until HWT_IOC_WAKEUP, the pause
 * timeout, a fatal signal, or the context stopping.
 */
#define HWT_RECORD_PAUSED	0x8000u

#endif /* HWT_IOCTL_H */
