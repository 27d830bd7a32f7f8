/*
 * The project's root (docs/select.md): what selection by project compares
 * the source files of an image's debug information with. Found once by
 * `hwt record` before the command runs (not in the preloaded library).
 */
#ifndef HWT_SELECT_ROOT_H
#define HWT_SELECT_ROOT_H

/* Where a recording's root came from. */
enum hwt_root_source {
	HWT_ROOT_GIVEN,         /* --root */
	HWT_ROOT_GIT,           /* the git work tree around the current directory */
	HWT_ROOT_CMAKE,         /* CMakeCache.txt's CMAKE_HOME_DIRECTORY */
	HWT_ROOT_AUTOTOOLS,     /* config.status's srcdir */
	HWT_ROOT_CWD,           /* none of those: the current directory */
};

/*
 * The project's root (canonical, into root, PATH_MAX bytes): given when
 * not NULL; else walking up from the current directory, the first
 * directory that is a git work tree (has .git) or a build directory
 * (CMakeCache.txt, config.status), the latter giving its source
 * directory, and then the git work tree around that, if any; else the
 * current directory. *from says which. Returns 0, or -errno (given does
 * not exist, the current directory cannot be read).
 */
int hwt_select_root_find(const char *given, char *root, enum hwt_root_source *from);

/* A phrase for a source ("the git work tree", ...). */
const char *hwt_select_root_source_name(enum hwt_root_source from);

#endif /* HWT_SELECT_ROOT_H */
