/*
 * Whose code an ELF image is (docs/select.md): its debug information names
 * the source files of its compile units, and the project's are under the
 * project's root (root.h finds it).
 *
 * The image test runs in the preloaded library (no allocation, bounded
 * stack: about 11 KiB, gcc -fstack-usage) and keeps its verdicts by build-id in a directory of
 * the bundle, so that each image is read once per recording.
 */
#ifndef HWT_SELECT_PROJECT_H
#define HWT_SELECT_PROJECT_H

#include <stddef.h>

/* What hwt_select_project_file found. */
enum hwt_project_verdict {
	HWT_PROJECT_IN = 0,          /* a compile unit's source is under the root */
	HWT_PROJECT_OUTSIDE = 1,     /* none is (or no compile unit could be read) */
	HWT_PROJECT_UNREADABLE = 2,  /* the DWARF sections are compressed: not read */
	HWT_PROJECT_NO_DEBUG = 3,    /* no debug information at all (kept in the cache only) */
};

/*
 * Reads the compile units of the DWARF in the ELF file at fd (their
 * DW_AT_name, relative to DW_AT_comp_dir) and tells whether one names a
 * file under root (canonical, no trailing '/'). A path is compared as
 * written (made absolute, "." and ".." folded), then by its directory's
 * canonical path (symbolic links). Bounded: at most 16384 compile units,
 * paths of 1024 bytes.
 */
enum hwt_project_verdict hwt_select_project_file(int fd, const char *root);

/*
 * The verdict kept for the image at fd (its GNU build-id) in cache_dir:
 * HWT_PROJECT_* or -1 when none is kept (or the image has no build-id).
 * hwt_select_project_keep writes one (errors ignored: the cache only
 * spares work).
 */
int hwt_select_project_cached(const char *cache_dir, int fd);
void hwt_select_project_keep(const char *cache_dir, int fd, enum hwt_project_verdict v);

#endif /* HWT_SELECT_PROJECT_H */
