/* Internals of the SPE converter, shared by its files. */
#ifndef HWT_SPE_INT_H
#define HWT_SPE_INT_H

#include "elf_file.h"
#include "hwt_spe_profile.h"

/* One file that MMAP records name (same path and build-id), opened once. */
struct spe_file {
	char *path;             /* as recorded */
	uint8_t build_id[HWT_BUILD_ID_MAX];
	uint32_t build_id_size;
	int readable;           /* elf is open and its build-id is the recorded one */
	struct hwt_elf_file elf;
	int image;              /* profile image, -1: anonymous code */
};

/* A change of a process image's address space: an MMAP (file set) or a
   MUNMAP (file NULL) of [start, end) at a sideband time. */
struct spe_map_event {
	uint64_t time;
	uint64_t start, end;
	uint64_t pgoff;
	struct spe_file *file;
};

/* The address space of one process image, as its sideband changed it. */
struct spe_space {
	struct spe_map_event *events; /* in sideband order */
	size_t count;
};

/* The files every space names, with the profile that gets their images. */
struct spe_files {
	struct hwt_bundle *bundle;
	struct hwt_profile *profile;
	struct spe_file **files;
	size_t count, capacity;
};

/* Reads the MMAP and MUNMAP records of image into space: 0 or -hspe_nomem. */
int spe_space_load(struct spe_files *files, const struct hwt_bundle_image *image,
		   struct spe_space *space);
void spe_space_fini(struct spe_space *space);
void spe_files_fini(struct spe_files *files);

/*
 * The mapping that held addr at sideband time `time` (the latest change
 * at or before it that covers addr; a record stamped before every change
 * takes the first that covers addr), or NULL when none maps a file there.
 */
const struct spe_map_event *spe_space_find(const struct spe_space *space, uint64_t addr,
					   uint64_t time);

#endif /* HWT_SPE_INT_H */
