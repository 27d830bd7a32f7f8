/* The hwt-bundle header: the first line names the version, then key=value. */
#include "bundle_int.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define HEADER_MAGIC "hwt-bundle "

/* 1 when dir holds nothing, 0 when it holds something, -1 when unreadable. */
static int dir_is_empty(const char *dir)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int empty = 1;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			empty = 0;
			break;
		}
	}
	closedir(d);
	return empty;
}

int hwt_bundle_header_read(struct hwt_bundle *bundle)
{
	const char *first, *eol;
	char *path, *text;
	char shown[80];
	size_t len, first_len;
	int err;

	path = hwt_path_join(bundle->dir, "hwt-bundle");
	if (!path)
		return -hbe_nomem;

	err = hwt_file_read(path, HWT_BUNDLE_TEXT_MAX, &text, &len);
	if (err == -hbe_io && errno == ENOENT) {
		int empty = dir_is_empty(bundle->dir);

		hwt_bundle_diag_add(bundle, hwt_diag_fatal, NULL, -1,
				    "%s: no hwt-bundle header file",
				    empty == 1 ? "an empty directory, not a trace bundle"
					       : "not a trace bundle");
		free(path);
		return -hbe_not_bundle;
	}
	if (err == -hbe_io) {
		hwt_bundle_diag_add(bundle, hwt_diag_fatal, path, -1, "cannot read the header: %s",
				    errno == EFBIG ? "too large to be a bundle header"
						   : strerror(errno));
		free(path);
		return errno == EFBIG ? -hbe_bad_header : -hbe_io;
	}
	if (err) {
		free(path);
		return err;
	}

	first = text;
	eol = memchr(text, '\n', len);
	first_len = eol ? (size_t)(eol - text) : len;
	if (first_len && first[first_len - 1] == '\r')
		first_len--;

	if (first_len < sizeof(HEADER_MAGIC) - 1 ||
	    memcmp(first, HEADER_MAGIC, sizeof(HEADER_MAGIC) - 1) ||
	    memchr(text, '\0', len)) {
		if (len == 0) {
			hwt_bundle_diag_add(bundle, hwt_diag_fatal, path, -1,
					    "not a trace bundle header: the file is empty, "
					    "expected \"hwt-bundle %d\"", HWT_BUNDLE_VERSION);
		} else {
			hwt_escape(shown, sizeof(shown), first, first_len);
			hwt_bundle_diag_add(bundle, hwt_diag_fatal, path, -1,
					    "not a trace bundle header: first line is \"%s\", "
					    "expected \"hwt-bundle %d\"", shown, HWT_BUNDLE_VERSION);
		}
		free(text);
		free(path);
		return -hbe_bad_header;
	}

	/* The rest of the first line is the version: only "1" is known. */
	if (first_len != sizeof(HEADER_MAGIC) - 1 + 1 || first[sizeof(HEADER_MAGIC) - 1] != '1') {
		const char *version = first + sizeof(HEADER_MAGIC) - 1;

		hwt_escape(shown, sizeof(shown), version,
			   first_len - (sizeof(HEADER_MAGIC) - 1));
		hwt_bundle_diag_add(bundle, hwt_diag_fatal, path, -1,
				    "bundle version \"%s\" is not supported "
				    "(this hwt reads version %d)", shown, HWT_BUNDLE_VERSION);
		free(text);
		free(path);
		return -hbe_version;
	}

	err = 0;
	if (eol)
		err = hwt_kv_parse(bundle, &bundle->keys, path, eol + 1,
				   len - (size_t)(eol + 1 - text), 2);
	free(text);
	free(path);
	return err;
}
