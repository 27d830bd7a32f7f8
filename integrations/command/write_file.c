/*
 * An output file written whole or not at all: beside its final name, then
 * renamed. Not so for a device or a pipe (-o /dev/null, -o /dev/stdout):
 * renaming over one would replace it with a regular file.
 */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hwt_command.h"

int hwt_command_write_file(const char *path, int (*write)(FILE *file, void *context),
			   void *context, const char *prefix)
{
	struct stat st;
	char *tmp = NULL;
	FILE *out;
	int rc, direct, err;

	if (!strcmp(path, "-")) {
		rc = write(stdout, context);
		if (rc >= 0 && fflush(stdout) != 0)
			rc = -1;
		if (rc < 0)
			fprintf(stderr, "%s: cannot write the standard output: %s\n", prefix,
				strerror(errno));
		return rc;
	}
	direct = stat(path, &st) == 0 && !S_ISREG(st.st_mode);
	if (!direct && asprintf(&tmp, "%s.tmp%ld", path, (long)getpid()) < 0) {
		fprintf(stderr, "%s: out of memory\n", prefix);
		return -1;
	}
	out = fopen(direct ? path : tmp, "w");
	if (!out) {
		fprintf(stderr, "%s: cannot write %s: %s\n", prefix, path, strerror(errno));
		free(tmp);
		return -1;
	}
	errno = 0;
	rc = write(out, context);
	err = errno;
	if (fclose(out) != 0 && rc >= 0) {
		rc = -1;
		err = errno;
	}
	if (rc >= 0 && !direct && rename(tmp, path) != 0) {
		rc = -1;
		err = errno;
	}
	if (rc < 0) {
		fprintf(stderr, "%s: cannot write %s: %s\n", prefix, path,
			strerror(err ? err : EIO));
		if (!direct)
			unlink(tmp);
	}
	free(tmp);
	return rc;
}

/* The directory of path (a copy to free), NULL when out of memory. */
static char *parent_of(const char *path)
{
	char *copy = strdup(path), *dir;

	if (!copy)
		return NULL;
	dir = strdup(dirname(copy));
	free(copy);
	return dir;
}

int hwt_command_check_output(const char *path, const char *prefix)
{
	struct stat st;
	char *dir;
	int rc = 0;

	if (!strcmp(path, "-"))
		return 0;
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			fprintf(stderr, "%s: cannot write %s: it is a directory\n", prefix, path);
			return -1;
		}
		if (access(path, W_OK) != 0) {
			fprintf(stderr, "%s: cannot write %s: %s\n", prefix, path, strerror(errno));
			return -1;
		}
		if (!S_ISREG(st.st_mode))
			return 0; /* a device or a pipe: written in place */
	}
	/* A regular file is written beside its name, then renamed: its directory too. */
	dir = parent_of(path);
	if (!dir)
		return 0; /* out of memory: the write will tell */
	if (stat(dir, &st) != 0) {
		fprintf(stderr, "%s: cannot write %s: no directory %s\n", prefix, path, dir);
		rc = -1;
	} else if (!S_ISDIR(st.st_mode)) {
		fprintf(stderr, "%s: cannot write %s: %s is not a directory\n", prefix, path, dir);
		rc = -1;
	} else if (access(dir, W_OK | X_OK) != 0) {
		fprintf(stderr, "%s: cannot write %s: %s: %s\n", prefix, path, dir, strerror(errno));
		rc = -1;
	}
	free(dir);
	return rc;
}

int hwt_command_check_output_dir(const char *path, const char *prefix)
{
	struct stat st;
	char *dir = strdup(path), *up;
	int rc = 0;

	/* Up to the nearest that exists (the tool makes the others). */
	while (dir && stat(dir, &st) != 0 && strcmp(dir, "/") && strcmp(dir, ".")) {
		up = parent_of(dir);
		free(dir);
		dir = up;
	}
	if (!dir)
		return 0; /* out of memory: the write will tell */
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "%s: cannot write into %s: %s is not a directory\n", prefix, path, dir);
		rc = -1;
	} else if (access(dir, W_OK | X_OK) != 0) {
		fprintf(stderr, "%s: cannot write into %s: %s: %s\n", prefix, path, dir,
			strerror(errno));
		rc = -1;
	}
	free(dir);
	return rc;
}
