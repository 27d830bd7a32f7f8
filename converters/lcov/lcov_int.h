/* Internal helpers of the lcov writer. */
#ifndef HWT_LCOV_INT_H
#define HWT_LCOV_INT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct hwt_cov_file;
struct hwt_cov_files;

/*
 * Lexically normalised copy of a path (malloc'd, NULL on ENOMEM): "//"
 * and "/./" collapse, "dir/.." goes away (lcov and genhtml compare file
 * names as strings, as gcov writes them).
 */
char *hwt_lcov_normalize_path(const char *path);

/* path relative to root when it lies under it (root NULL: path as is). */
const char *hwt_cov_relative_path(const char *root, const char *path);

/*
 * The branches of f on line, looked for from *next on (call it for
 * ascending lines): their number, the taken ones in *taken; *next moves
 * past them.
 */
uint64_t hwt_cov_line_branches(const struct hwt_cov_file *f, uint32_t line, size_t *next,
			       uint64_t *taken);

/* The writers of each format (format.c dispatches); 0 or -hle_io. */
int hwt_cov_write_lcov(const struct hwt_cov_files *files, const char *test_name, FILE *file);
int hwt_cov_write_cobertura(const struct hwt_cov_files *files, const char *root,
			    long long timestamp, const char *producer, FILE *file);
int hwt_cov_write_json_summary(const struct hwt_cov_files *files, const char *root,
			       FILE *file);
int hwt_cov_write_sonarqube(const struct hwt_cov_files *files, const char *root, FILE *file);

#endif
