/* The project's root: see root.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "root.h"


static int is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * The value of the first line of a text file that starts with prefix: the
 * rest of the line, quotes ('...') removed, into out (PATH_MAX bytes). -1
 * when there is none.
 */
static int file_value(const char *file, const char *prefix, char *out)
{
	size_t plen = strlen(prefix), cap = 0;
	char *line = NULL;
	ssize_t len;
	int rc = -1;
	FILE *f = fopen(file, "re");

	if (!f)
		return -1;
	while ((len = getline(&line, &cap, f)) >= 0) {
		char *p = line;
		size_t n;

		if (strncmp(p, prefix, plen) != 0)
			continue;
		p += plen;
		n = strcspn(p, "\r\n");
		if (n >= 2 && p[0] == '\'' && p[n - 1] == '\'') {
			p++;
			n -= 2;
		}
		if (n > 0 && n < PATH_MAX && !memchr(p, '\'', n)) {
			memcpy(out, p, n);
			out[n] = '\0';
			rc = 0;
		}
		break;
	}
	free(line);
	fclose(f);
	return rc;
}

/* The git work tree around dir (canonical), into out; -1 when none. */
static int git_top(const char *dir, char *out)
{
	char probe[PATH_MAX + 8];

	if (strlen(dir) >= PATH_MAX)
		return -1;
	strcpy(out, dir);
	for (;;) {
		snprintf(probe, sizeof(probe), "%s/.git", strcmp(out, "/") ? out : "");
		if (access(probe, F_OK) == 0)
			return 0;
		char *slash = strrchr(out, '/');

		if (!slash || out[1] == '\0')
			return -1;
		if (slash == out)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
}

/* The source directory of the build directory dir (canonical) into out, and which kind; -1: not one. */
static int build_source(const char *dir, char *out, enum hwt_root_source *from)
{
	char file[PATH_MAX + 32], value[PATH_MAX], joined[2 * PATH_MAX + 2];

	snprintf(file, sizeof(file), "%s/CMakeCache.txt", dir);
	if (file_value(file, "CMAKE_HOME_DIRECTORY:INTERNAL=", value) == 0 &&
	    realpath(value, out) && is_dir(out)) {
		*from = HWT_ROOT_CMAKE;
		return 0;
	}
	snprintf(file, sizeof(file), "%s/config.status", dir);
	if (file_value(file, "srcdir=", value) == 0) {
		/* Relative to the build directory (config.status's ac_pwd). */
		if (value[0] == '/')
			snprintf(joined, sizeof(joined), "%s", value);
		else
			snprintf(joined, sizeof(joined), "%s/%s", dir, value);
		if (realpath(joined, out) && is_dir(out)) {
			*from = HWT_ROOT_AUTOTOOLS;
			return 0;
		}
	}
	return -1;
}

int hwt_select_root_find(const char *given, char *root, enum hwt_root_source *from)
{
	char cwd[PATH_MAX], dir[PATH_MAX], probe[PATH_MAX + 8], source[PATH_MAX];

	if (given) {
		*from = HWT_ROOT_GIVEN;
		if (!realpath(given, root))
			return -errno;
		return is_dir(root) ? 0 : -ENOTDIR;
	}
	if (!getcwd(cwd, sizeof(cwd)) || !realpath(cwd, dir))
		return -errno;
	strcpy(cwd, dir);
	for (;;) {
		snprintf(probe, sizeof(probe), "%s/.git", strcmp(dir, "/") ? dir : "");
		if (access(probe, F_OK) == 0) {
			strcpy(root, dir);
			*from = HWT_ROOT_GIT;
			return 0;
		}
		if (build_source(dir, source, from) == 0) {
			/* The project may be wider than the build's top source directory. */
			if (git_top(source, root) == 0)
				return 0;
			strcpy(root, source);
			return 0;
		}
		char *slash = strrchr(dir, '/');

		if (!slash || dir[1] == '\0')
			break;
		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	strcpy(root, cwd);
	*from = HWT_ROOT_CWD;
	return 0;
}

const char *hwt_select_root_source_name(enum hwt_root_source from)
{
	switch (from) {
	case HWT_ROOT_GIVEN:
		return "--root";
	case HWT_ROOT_GIT:
		return "the git work tree";
	case HWT_ROOT_CMAKE:
		return "CMakeCache.txt's CMAKE_HOME_DIRECTORY";
	case HWT_ROOT_AUTOTOOLS:
		return "config.status's srcdir";
	case HWT_ROOT_CWD:
		return "no git work tree or build directory around: the current directory";
	}
	return "?";
}
