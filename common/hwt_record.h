/*
 * Sideband record ABI: what the traced processes did, as hwt.ko's record
 * queue hands it to the collector and as the trace bundle stores it.
 *
 * Libc-free and shared by hwt.ko, the Valgrind tool and user space, so the
 * layout is fixed: little-endian, naturally aligned, every record a multiple
 * of 8 bytes. Records only ever grow at the end: a reader uses
 * header.size and ignores bytes it does not know, so old readers read new
 * bundles. See docs/bundle.md.
 */
#ifndef HWT_RECORD_H
#define HWT_RECORD_H

#include "hwt_types.h"

#define HWT_RECORD_MAGIC 0x52545748u /* "HWTR" little-endian */
#define HWT_RECORD_ALIGN 8u
/* Upper bound of one record, so a reader can refuse a corrupt size field. */
#define HWT_RECORD_MAX_SIZE 65536u

enum hwt_record_type {
	HWT_RECORD_PROCESS_START = 1, /* a process image begins (first exec or fork child) */
	HWT_RECORD_EXEC          = 2, /* the process replaced its image */
	HWT_RECORD_MMAP          = 3, /* file-backed executable mapping */
	HWT_RECORD_MUNMAP        = 4, /* range unmapped (or made non-executable) */
	HWT_RECORD_THREAD_CREATE = 5,
	HWT_RECORD_THREAD_EXIT   = 6,
	HWT_RECORD_FORK          = 7, /* written by the parent */
	HWT_RECORD_PROCESS_EXIT  = 8,
	HWT_RECORD_LOST          = 9, /* trace or records were dropped */
	HWT_RECORD_SWITCH        = 10, /* context switch (hwt.ko) */
	HWT_RECORD_BUFFER        = 11, /* a trace buffer filled up (hwt.ko) */
	HWT_RECORD_SIGNAL        = 12, /* signal delivered to a traced thread */
	HWT_RECORD_UNTRACED      = 13, /* a process seen but not traced, and why */
};

/* Common header; time is the sideband clock of the bundle (see docs/bundle.md). */
struct hwt_record_header {
	uint32_t magic;     /* HWT_RECORD_MAGIC */
	uint16_t type;      /* enum hwt_record_type */
	uint16_t flags;     /* type-specific */
	uint32_t size;      /* whole record, header included, multiple of 8 */
	uint32_t crc32;     /* CRC-32 of the whole record with this field zero */
	uint64_t time;
	uint32_t pid;       /* process (thread group) id */
	uint32_t tid;       /* thread that caused the record */
};

/* PROCESS_START and EXEC: payload is then strings: path NUL, argv[0] NUL, ... */
struct hwt_record_process {
	struct hwt_record_header hdr;
	uint32_t ppid;
	uint32_t argc;
	uint32_t generation;  /* image number of this pid in the bundle */
	uint32_t reserved;
	/* char strings[]: path, then argc arguments, each NUL-terminated */
};

#define HWT_BUILD_ID_MAX 20u

/* MMAP: payload ends with the path, NUL-terminated and padded. */
struct hwt_record_mmap {
	struct hwt_record_header hdr;
	uint64_t addr;
	uint64_t len;
	uint64_t pgoff;        /* file offset in bytes */
	uint32_t prot;         /* HWT_PROT_* */
	uint32_t build_id_size; /* 0 when the file has none */
	uint8_t build_id[HWT_BUILD_ID_MAX];
	uint32_t reserved;
	/* char path[] */
};
#define HWT_PROT_READ  1u
#define HWT_PROT_WRITE 2u
#define HWT_PROT_EXEC  4u
/* MMAP flags (hdr.flags). */
#define HWT_MMAP_VDSO       0x1u /* the vDSO; the path names a copy in the bundle's images/ */
#define HWT_MMAP_ANON       0x2u /* anonymous executable memory (JIT): no image, path empty */
#define HWT_MMAP_TRACE_UNIT 0x4u /* code of the trace unit itself (Valgrind's sigreturn
                                    trampoline): decode through it, report nothing for it */
#define HWT_MMAP_FILTERED   0x8u /* outside the record-time filter to the selected images
                                    (docs/select.md): the unit wrote no packets for it */

/* EXEC flags (hdr.flags). EXEC is written by the image that calls execve;
   the new image starts its own file with PROCESS_START. */
#define HWT_EXEC_FAILED     0x1u /* execve returned: the image goes on */

struct hwt_record_munmap {
	struct hwt_record_header hdr;
	uint64_t addr;
	uint64_t len;
};

/* THREAD_CREATE: hdr.tid created child_tid. THREAD_EXIT: hdr.tid exited. */
struct hwt_record_thread {
	struct hwt_record_header hdr;
	uint32_t child_tid;
	uint32_t reserved;
};

struct hwt_record_fork {
	struct hwt_record_header hdr;
	uint32_t child_pid;
	uint32_t reserved;
};

/* PROCESS_EXIT: status as waitpid() would see it. */
struct hwt_record_exit {
	struct hwt_record_header hdr;
	int32_t status;
	uint32_t reserved;
};

enum hwt_lost_reason {
	HWT_LOST_TRACE_WRITE = 1,   /* trace bytes could not be written */
	HWT_LOST_RECORD_QUEUE = 2,  /* record queue was full */
	HWT_LOST_BUFFER_WRAP = 3,   /* trace buffer wrapped before it was read */
	HWT_LOST_IMAGE = 4,         /* an executable mapping could not be described */
};

struct hwt_record_lost {
	struct hwt_record_header hdr;
	uint32_t reason;     /* enum hwt_lost_reason */
	uint32_t records;    /* records dropped */
	uint64_t bytes;      /* trace bytes dropped */
};

/*
 * SWITCH: hwt.ko's. THREAD mode (HWT_CFG_SWITCH): the thread's unit on or
 * off at a context switch. CPU mode (the sw backend): the trace of
 * hdr.tid in CPU cpu's buffer begins (in 1) or ends (in 0) at offset,
 * so that a collector cuts the CPU's buffer into the threads' streams.
 */
struct hwt_record_switch {
	struct hwt_record_header hdr;
	uint32_t cpu;
	uint32_t in;         /* 1: hdr.tid switched in, 0: switched out */
	uint64_t offset;     /* bytes the buffer (CPU mode: the CPU's) held then */
};

struct hwt_record_buffer {
	struct hwt_record_header hdr;
	uint32_t buffer;     /* cpu (CPU mode) or tid (THREAD mode) */
	uint32_t reserved;
	uint64_t offset;     /* how far the backend has written */
};

struct hwt_record_signal {
	struct hwt_record_header hdr;
	int32_t signo;
	uint32_t reserved;
	uint64_t ip;         /* where the thread was interrupted */
};

/*
 * UNTRACED: payload is two strings: executable path, reason. The preloaded
 * selection library writes it as the only record of a process that runs
 * natively; hwt.ko writes it when a traced thread execs something its owner
 * may no longer trace (set-ID, new capabilities, secure exec): the last
 * record of that thread and its children; and, with selection
 * (HWT_CFG_SELECT), at the exec of an image the rule did not select: the
 * thread runs untraced, still followed, until an EXEC of a selected image
 * (in it or in a descendant) resumes its records.
 */
/* UNTRACED flags (hdr.flags), in a bundle's sideband/untraced.sb. */
#define HWT_UNTRACED_CANCEL 0x1u /* the exec the pid's last record announced failed */

struct hwt_record_untraced {
	struct hwt_record_header hdr;
	uint32_t ppid;
	uint32_t reserved;
};

/*
 * Lays out an UNTRACED record in buf (size bytes, 8-aligned, zeroed here):
 * ppid, then path and reason, each NUL-terminated and cut to path_max and
 * reason_max bytes with their NUL. Fills magic, type, flags and size; the
 * writer adds time, pid and tid, then seals it. Returns the record's size,
 * 0 when it does not fit. Shared by the preloaded library and both units.
 */
uint32_t hwt_record_untraced_build(void *buf, size_t size, uint32_t ppid, uint16_t flags,
				   const char *path, size_t path_max, const char *reason,
				   size_t reason_max);

/*
 * Lays out a PROCESS_START (or EXEC) record in buf (size bytes, 8-aligned,
 * zeroed here): ppid, generation, then path and the argc strings of argv,
 * each NUL-terminated; the strings that do not fit are left out, and argc
 * says how many arguments are there. Returns the record's size, 0 when not
 * even the path fits. The writer fills the header (hwt_record_finish).
 * Shared by both software units.
 */
uint32_t hwt_record_process_build(void *buf, size_t size, uint32_t ppid, uint32_t generation,
				  const char *path, const char *const *argv, uint32_t argc);

/*
 * A writer of records: fills the header of the record at hdr (type, size
 * bytes, payload laid out and padding zero) and appends it to the sideband.
 */
typedef void hwt_record_write_fn(struct hwt_record_header *hdr, unsigned type, uint32_t size);

/* The fixed-size records, built on the stack and handed to write. */
void hwt_record_write_munmap(hwt_record_write_fn *write, uint64_t addr, uint64_t len);
void hwt_record_write_lost(hwt_record_write_fn *write, uint32_t reason, uint32_t records,
			   uint64_t bytes);
void hwt_record_write_exit(hwt_record_write_fn *write, int32_t status);

/*
 * Fills the header of a laid-out record (all but flags): magic, type, size
 * rounded up to HWT_RECORD_ALIGN (the padding must be zero), time, pid
 * and tid; then seals it.
 */
void hwt_record_finish(struct hwt_record_header *hdr, uint16_t type, uint32_t size,
		       uint64_t time, uint32_t pid, uint32_t tid);

/* Rounds a record size up to HWT_RECORD_ALIGN. */
static inline uint32_t hwt_record_align(uint32_t size)
{
	return (size + HWT_RECORD_ALIGN - 1u) & ~(HWT_RECORD_ALIGN - 1u);
}

const char *hwt_record_type_name(uint32_t type);

/* Fills hdr->crc32 over the whole record (hdr->size bytes). */
void hwt_record_seal(struct hwt_record_header *hdr);

/*
 * Checks a record at the head of len bytes: magic, size bounds, alignment and
 * CRC. Returns the record size, 0 when len holds only part of a record (a
 * torn tail), or -1 when the bytes are not a valid record.
 */
int64_t hwt_record_check(const void *bytes, size_t len);

#endif /* HWT_RECORD_H */
