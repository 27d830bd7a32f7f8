/* Separate debug files, where gdb looks for them (debug_file.h). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "debug_file.h"

static uint32_t crc_table[256];
static pthread_once_t crc_table_once = PTHREAD_ONCE_INIT;

static void crc_table_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
}

uint32_t hwt_debug_file_crc32(const uint8_t *data, size_t size)
{
	uint32_t crc = 0xffffffffu;

	pthread_once(&crc_table_once, crc_table_init);
	for (size_t i = 0; i < size; i++)
		crc = crc_table[(crc ^ data[i]) & 0xff] ^ (crc >> 8);
	return crc ^ 0xffffffffu;
}

/* Whether a and b are one file (the link naming the image itself). */
static int same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

/* DIR/.build-id/XX/REST.debug with the image's build-id: 1 when it is there. */
static int by_build_id(const struct hwt_elf_file *image, const char *dir, char **path)
{
	struct hwt_elf_file candidate;
	char hex[2 * HWT_ELF_BUILD_ID_MAX + 1];
	int match;

	*path = NULL;
	for (uint32_t i = 0; i < image->build_id_size; i++)
		snprintf(hex + 2 * i, 3, "%02x", image->build_id[i]);
	if (asprintf(path, "%s/.build-id/%.2s/%s.debug", dir, hex, hex + 2) < 0) {
		*path = NULL;
		return -hee_nomem;
	}
	/* gdb takes it when its build-id is the image's. */
	if (hwt_elf_file_open(&candidate, *path) < 0)
		match = 0;
	else
		match = candidate.is_elf && candidate.build_id_size == image->build_id_size &&
			!memcmp(candidate.build_id, image->build_id, image->build_id_size);
	hwt_elf_file_close(&candidate);
	if (!match) {
		free(*path);
		*path = NULL;
	}
	return match;
}

/* A file the debug link names: 1 when it is there with the link's CRC. */
static int by_link(const struct hwt_elf_file *image, const char *image_path, char *path,
		   struct hwt_debug_file *found)
{
	struct hwt_elf_file candidate;
	int match;

	if (same_file(path, image_path) || hwt_elf_file_open(&candidate, path) < 0)
		return 0;
	match = hwt_debug_file_crc32(candidate.data, candidate.size) == image->debuglink_crc;
	hwt_elf_file_close(&candidate);
	if (!match && !found->crc_mismatch) {
		found->crc_mismatch = strdup(path);
		if (!found->crc_mismatch)
			return -hee_nomem;
	}
	return match;
}

int hwt_debug_file_find(const struct hwt_elf_file *image, const char *image_path,
			const char *const *dirs, struct hwt_debug_file *found)
{
	static const char *const default_dirs[] = { HWT_DEBUG_DIR_DEFAULT, NULL };
	const char *slash;
	char *path = NULL, *real = NULL;
	int dirlen, rc = 0;

	if (!found)
		return -hee_invalid;
	memset(found, 0, sizeof(*found));
	if (!image || !image_path || !image->is_elf)
		return -hee_invalid;
	if (!dirs)
		dirs = default_dirs;
	if (image->build_id_size >= 2) {
		for (size_t d = 0; dirs[d] && rc == 0; d++)
			if ((rc = by_build_id(image, dirs[d], &path)) == 1)
				found->by_build_id = 1;
	}
	if (rc != 0 || !image->debuglink)
		goto out;
	/* The image's directory, with its '/' (none: the current directory);
	   gdb's is that of the file's real path (absolute, links followed). */
	real = realpath(image_path, NULL);
	if (real)
		image_path = real;
	slash = strrchr(image_path, '/');
	dirlen = slash ? (int)(slash - image_path + 1) : 0;
	for (int place = 0; rc == 0; place++) {
		const char *debug_dir = place >= 2 ? dirs[place - 2] : NULL;
		int n;

		if (place >= 2 && !debug_dir)
			break;
		if (place == 0)
			n = asprintf(&path, "%.*s%s", dirlen, image_path, image->debuglink);
		else if (place == 1)
			n = asprintf(&path, "%.*s.debug/%s", dirlen, image_path, image->debuglink);
		else /* the image's directory below the debug directory */
			n = asprintf(&path, "%s%s%.*s%s", debug_dir,
				     dirlen && image_path[0] == '/' ? "" : "/", dirlen, image_path,
				     image->debuglink);
		if (n < 0) {
			path = NULL;
			rc = -hee_nomem;
			break;
		}
		rc = by_link(image, image_path, path, found);
		if (rc != 1) {
			free(path);
			path = NULL;
		}
	}
out:
	if (rc == 1)
		found->path = path;
	else
		free(path);
	free(real);
	return rc;
}

int hwt_debug_file_dwarf(const struct hwt_elf_file *image, const char *image_path,
			 const char *const *dirs, struct hwt_debug_file *found, char **dwarf_path)
{
	int rc;

	*dwarf_path = NULL;
	if (!found)
		return -hee_invalid;
	memset(found, 0, sizeof(*found));
	if (!image || !image_path)
		return -hee_invalid;
	if (image->has_debug_info) {
		*dwarf_path = strdup(image_path);
		return *dwarf_path ? 1 : -hee_nomem;
	}
	rc = hwt_debug_file_find(image, image_path, dirs, found);
	if (rc == 1) {
		*dwarf_path = strdup(found->path);
		if (!*dwarf_path)
			return -hee_nomem;
	}
	return rc;
}

void hwt_debug_file_fini(struct hwt_debug_file *found)
{
	if (!found)
		return;
	free(found->path);
	free(found->crc_mismatch);
	found->path = found->crc_mismatch = NULL;
}
