/* Internal helpers of the lcov writer. */
#ifndef HWT_LCOV_INT_H
#define HWT_LCOV_INT_H

/*
 * Lexically normalised copy of a path (malloc'd, NULL on ENOMEM): "//"
 * and "/./" collapse, "dir/.." goes away (lcov and genhtml compare file
 * names as strings, as gcov writes them).
 */
char *hwt_lcov_normalize_path(const char *path);

#endif
