/* The kernel trace unit's collector, inside (hwt_kmod.h). */
#ifndef HWT_KMOD_INT_H
#define HWT_KMOD_INT_H

#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>

#include "hwt_kmod.h"
#include "hwt_record.h"
#include "hwt_sw.h"
#include "sw_image.h"

/* ----- The context (context.c): /dev/hwt's file descriptors ----- */

struct kmod_ctx {
	int fd;          /* the context */
	uint32_t flags;  /* HWT_CFG_* of the configuration */
};

/* HWT_FEATURE_* that the loaded hwt.ko cannot record on this kernel (0 if unknown). */
uint32_t kmod_features_off(void);
/* Which call of hwt.ko's ABI failed: the same errno means different things. */
enum kmod_call {
	kmod_call_open,          /* open() of /dev/hwt */
	kmod_call_alloc_thread,  /* HWT_IOC_ALLOC, THREAD mode */
	kmod_call_alloc_cpu,     /* HWT_IOC_ALLOC, CPU mode */
	kmod_call_ctx,           /* an ioctl of a context */
};

/* The library's error (negative hke_*) for errno @err of @call; errno = @err for hke_io. */
int kmod_errno_error(int err, enum kmod_call call);
int kmod_ctx_alloc(struct kmod_ctx *c, const struct hwt_kmod_options *o, size_t bufsize,
		   size_t aux_bufsize);
/* Sets the configuration with the sw backend's config and ranges. */
int kmod_ctx_configure(struct kmod_ctx *c, const struct hwt_kmod_options *o,
		       const struct hwt_sw_range *ranges, uint32_t nranges);
int kmod_ctx_ioctl(struct kmod_ctx *c, unsigned long cmd, void *arg);
void kmod_ctx_close(struct kmod_ctx *c);

/* ----- Process images (image.c): their sideband files and mappings ----- */

struct kmod_image {
	uint32_t pid, gen;
	int fd;                        /* sideband/<pid>.<gen>.sb, -1 once ended */
	struct hwt_sw_image_table table; /* its executable mappings now, as its records say */
	char name[32];                 /* "<pid>.<gen>" */
};

/* A new image of pid (the first free generation), its file created. */
int kmod_image_open(const char *bundle, uint32_t pid, struct kmod_image **image);
/* Appends rec (resealed) to the image's file, following MMAP/MUNMAP in its mappings. */
int kmod_image_append(struct kmod_image *image, struct hwt_record_header *rec);
/* Appends copies of from's mappings (an image that forked) at time. */
int kmod_image_inherit(struct kmod_image *image, const struct kmod_image *from, uint64_t time);
void kmod_image_close(struct kmod_image *image);
void kmod_image_free(struct kmod_image *image);
/* Appends rec to sideband/untraced.sb. */
int kmod_untraced_append(const char *bundle, struct hwt_record_header *rec);
/*
 * images/vdso: a copy of this process's vDSO (the same kernel's); its path
 * in the bundle and its build-id (HWT_BUILD_ID_MAX bytes).
 */
int kmod_vdso_copy(const char *bundle, const char **path, uint8_t *build_id,
		   uint32_t *build_id_size);
/* The GNU build-id (at most HWT_BUILD_ID_MAX bytes) of the ELF image at base, or 0. */
uint32_t kmod_elf_build_id(const uint8_t *base, size_t size, uint8_t *id);

/* ----- Threads (thread.c): their buffers, drained into stream files ----- */

struct kmod_ring {
	void *base;       /* mmap of the buffer, NULL until it exists */
	size_t size;
	uint64_t read;    /* bytes copied out so far */
	int aux;          /* the second buffer (block log) */
	int fd;           /* the file it goes to, -1 until opened */
};

struct kmod_thread {
	uint32_t tid, pid;
	struct kmod_image *image;   /* where its trace goes; NULL: dropped (before exec) */
	struct kmod_ring pt, blk;
	int exited;
};

struct hwt_kmod;
/* Copies what the thread's buffers hold now into its files (or drops it). */
/* Appends n bytes to the thread's stream file (CPU mode: cpu.c cuts them out of a CPU's). */
int kmod_thread_write(struct hwt_kmod *k, struct kmod_thread *t, const void *data, size_t n);
/*
 * After bytes were written over: the first PSB in [from, to) of a ring of
 * size bytes at base (or to), where the copy goes on after an OVF packet.
 */
uint64_t kmod_find_psb(const uint8_t *base, size_t size, uint64_t from, uint64_t to);
extern const uint8_t kmod_ovf[2];
int kmod_thread_drain(struct hwt_kmod *k, struct kmod_thread *t);
/* The thread's trace goes to image from now on (exec; NULL: dropped). */
void kmod_thread_move(struct kmod_thread *t, struct kmod_image *image);
void kmod_thread_close(struct kmod_thread *t);

/* ----- Filters (filter.c): --filter IMAGE[:FUNCTION] to address ranges ----- */

/*
 * The ranges of filter in the mapping rec of a process (0..max of them
 * into out): the whole mapping, or the function's code in it.
 */
size_t kmod_filter_ranges(const char *filter, const struct hwt_record_mmap *rec,
			  const char *path, struct hwt_sw_range *out, size_t max);

/* ----- CPU mode (cpu.c): the CPUs' buffers cut into the threads' streams ----- */

struct kmod_cpu {
	uint32_t cpu;
	void *base;                  /* mmap of its buffer */
	size_t size;
	uint64_t written;            /* its offset, read before the records */
	struct kmod_thread *owner;   /* whose stream it holds from `from` on, or NULL */
	uint64_t from;               /* bytes up to here are copied or nobody's */
	uint64_t read;               /* the last HWT_IOC_BUFREAD */
};

/* Maps the buffer of each CPU of the set. */
int kmod_cpus_open(struct hwt_kmod *k);
void kmod_cpus_close(struct hwt_kmod *k);
/* Reads the buffers' offsets: call before the records. */
int kmod_cpus_snapshot(struct hwt_kmod *k);
/* A SWITCH record: t's stream begins (in) or ends at rec->offset of the CPU's buffer. */
int kmod_cpu_switch(struct hwt_kmod *k, const struct hwt_record_switch *rec,
		    struct kmod_thread *t);
/* Copies the open streams up to the offsets of the snapshot; hands the room back. */
int kmod_cpus_drain(struct hwt_kmod *k);
/* t goes: its open stream (whose end was not recorded) is copied as far as it may reach. */
void kmod_cpus_forget(struct hwt_kmod *k, struct kmod_thread *t);

/* proc.c: PROCESS_START and MMAP of img's process (first seen at time) from /proc. */
int kmod_proc_image(struct hwt_kmod *k, struct kmod_image *img, uint64_t time);

/* ----- The recording (recording.c) ----- */

struct hwt_kmod {
	char *bundle;
	struct hwt_kmod_options opts;
	struct kmod_ctx ctx;
	struct kmod_image **images;   /* current image of each live process */
	size_t nimages, cap_images;
	struct kmod_thread **threads; /* every thread not yet drained for good */
	size_t nthreads, cap_threads;
	struct hwt_sw_range *ranges;  /* filters: the ranges of each process */
	uint32_t nranges, cap_ranges;
	int ranges_changed;
	pid_t dropped;                /* until_exec: the child, until it execs */
	const char *vdso_path;
	uint8_t vdso_build_id[HWT_BUILD_ID_MAX];
	uint32_t vdso_build_id_size;
	uint8_t *buf;                 /* records read at a time */
	size_t buf_size;
	struct kmod_cpu *cpus;        /* CPU mode: the traced CPUs */
	size_t ncpus;
	uint32_t self;                /* CPU mode: this process, whose records are its own */
};

/* Appends an MMAP record to img (a vDSO's path becomes the bundle's copy; filters). */
int kmod_record_mmap(struct hwt_kmod *k, struct kmod_image *img, const struct hwt_record_header *rec);

void kmod_warn(struct hwt_kmod *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* HWT_KMOD_INT_H */
