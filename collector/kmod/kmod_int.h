/* The kernel trace unit's collector, inside (hwt_kmod.h). */
#ifndef HWT_KMOD_INT_H
#define HWT_KMOD_INT_H

#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>

#include "hwt_kmod.h"
#include "hwt_record.h"
#include "hwt_sw.h"

/* ----- The context (context.c): /dev/hwt's file descriptors ----- */

struct kmod_ctx {
	int fd;          /* the context */
	uint32_t flags;  /* HWT_CFG_* of the configuration */
};

int kmod_ctx_alloc(struct kmod_ctx *c, const struct hwt_kmod_options *o, size_t bufsize,
		   size_t aux_bufsize);
/* Sets the configuration with the sw backend's config and ranges. */
int kmod_ctx_configure(struct kmod_ctx *c, const struct hwt_kmod_options *o,
		       const struct hwt_sw_range *ranges, uint32_t nranges);
int kmod_ctx_ioctl(struct kmod_ctx *c, unsigned long cmd, void *arg);
void kmod_ctx_close(struct kmod_ctx *c);

/* ----- Process images (image.c): their sideband files and mappings ----- */

struct kmod_map {
	uint64_t start, end;
	struct hwt_record_mmap *rec;   /* the record as the bundle has it (malloc'd) */
};

struct kmod_image {
	uint32_t pid, gen;
	int fd;                        /* sideband/<pid>.<gen>.sb, -1 once ended */
	struct kmod_map *maps;         /* its executable mappings now */
	size_t nmaps, cap;
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
	struct hwt_kmod_stats stats;
};

void kmod_warn(struct hwt_kmod *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* HWT_KMOD_INT_H */
