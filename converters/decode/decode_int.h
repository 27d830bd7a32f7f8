/* Internals of the decoder, shared by its files. */
#ifndef HWT_DECODE_INT_H
#define HWT_DECODE_INT_H

#include <intel-pt.h>

#include "elf_file.h"
#include "hwt_decode.h"

/* What became of a file that MMAP records name. */
enum hwt_file_state {
	hwt_file_ok,
	hwt_file_missing,   /* cannot be opened */
	hwt_file_replaced,  /* build-id or size differ from the recording */
	hwt_file_anon,      /* anonymous code: no file at all */
};

/* One file named by MMAP records (same path and build-id), checked once. */
struct hwt_file {
	char *path;              /* as recorded */
	char *open_path;         /* what is opened (vDSO: inside the bundle) */
	uint8_t build_id[HWT_BUILD_ID_MAX];
	uint32_t build_id_size;  /* as recorded */
	uint32_t mmap_flags;     /* HWT_MMAP_* of its records, ORed */
	enum hwt_file_state state;
	char why[160];           /* missing/replaced: what is wrong */
	struct hwt_elf_file elf; /* mapped when ok */
	int image;               /* profile image, -1 for anonymous code */
	int trace_unit;          /* counts are not reported */
	/* Trace that could not be decoded because of this file. */
	uint64_t failures;       /* decode stops at an address in it */
	uint64_t failed_bytes;   /* trace bytes skipped after them */
	uint64_t failed_streams;
	const void *last_stream; /* to count streams once */
};

/* One mapping of a file into an address space. */
struct hwt_mapping {
	uint64_t start, end;     /* [start, end) */
	uint64_t pgoff;          /* file offset of start */
	struct hwt_file *file;
	int isid;                /* in the section cache, 0 when not added (yet) */
};

/* The address space of a process image from one sideband time on. */
struct hwt_epoch {
	uint64_t time;           /* applies once the stream passed this TSC */
	struct hwt_mapping *maps;/* sorted by start, not overlapping */
	size_t count;
	struct pt_image *image;  /* built on first use */
};

/* The changing address space of one process image. */
struct hwt_space {
	struct hwt_epoch *epochs;/* sorted by time; epochs[0].time == 0 */
	size_t count;
};

/* The whole decode. */
struct hwt_decoder {
	struct hwt_bundle *bundle;
	struct hwt_profile *profile;
	const struct hwt_decode_options *options;
	struct hwt_decode_stats stats;
	struct pt_image_section_cache *iscache;
	struct hwt_file **files;
	size_t file_count, file_capacity;
	int64_t bundle_start;    /* header key start (UNIX time), or -1 */
	/* progress */
	uint64_t total_bytes, done_bytes;
	uint64_t last_progress;
	int progress_tty;        /* print progress to stderr */
	int progress_printed;
	int nomem;               /* out of memory somewhere: fail the decode */
};

/* space.c */
int hwt_space_load(struct hwt_decoder *d, const struct hwt_bundle_image *image,
		   struct hwt_space *space);
void hwt_space_fini(struct hwt_space *space);
/* The pt_image of an epoch (built on first use), or NULL when out of memory. */
struct pt_image *hwt_epoch_image(struct hwt_decoder *d, struct hwt_epoch *epoch);
/* The mapping holding ip, or NULL. */
const struct hwt_mapping *hwt_epoch_find(const struct hwt_epoch *epoch, uint64_t ip);
void hwt_files_free(struct hwt_decoder *d);

/* stream.c */
int hwt_stream_decode(struct hwt_decoder *d, const struct hwt_bundle_stream *stream,
		      struct hwt_space *space);

/* decode.c */
void hwt_decode_progress(struct hwt_decoder *d, uint64_t done);

#endif /* HWT_DECODE_INT_H */
