/*
 * An output file written whole or not at all: beside its final name, then
 * renamed. Not so for a device or a pipe (-o /dev/null, -o /dev/stdout):
 * renaming over one would replace it with a regular file.
 */
#include <errno.h>
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
