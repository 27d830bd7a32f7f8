/* The bundle: its directory, header keys, summary, and creating and removing one. */
#include "bundle_int.h"

#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static const char *const top_dirs[] = { "sideband", "streams", "images", "blocks", "select",
					"spe" };

struct hwt_bundle *hwt_bundle_alloc(void)
{
	return calloc(1, sizeof(struct hwt_bundle));
}

void hwt_bundle_free(struct hwt_bundle *bundle)
{
	size_t i;

	if (!bundle)
		return;
	for (i = 0; i < bundle->nimages; i++) {
		free((char *)bundle->images[i].name);
		free((char *)bundle->images[i].path);
		free((void *)bundle->images[i].bytes);
	}
	free(bundle->images);
	for (i = 0; i < bundle->nstreams; i++) {
		free((char *)bundle->streams[i].name);
		free((char *)bundle->streams[i].path);
	}
	free(bundle->streams);
	for (i = 0; i < bundle->nspe; i++) {
		free((char *)bundle->spe[i].name);
		free((char *)bundle->spe[i].path);
	}
	free(bundle->spe);
	for (i = 0; i < bundle->ndiags; i++) {
		free((char *)bundle->diags[i].path);
		free((char *)bundle->diags[i].message);
	}
	free(bundle->diags);
	hwt_kv_clear(&bundle->keys);
	hwt_kv_clear(&bundle->summary);
	free(bundle->dir);
	free(bundle);
}

/* Reports files at the top of the bundle that the format does not know. */
static int check_top(struct hwt_bundle *bundle)
{
	char **names;
	size_t count, i, j;
	int err;

	err = hwt_dir_list(bundle->dir, &names, &count);
	if (err == -hbe_io)
		return hwt_bundle_diag_add(bundle, hwt_diag_io, NULL, -1,
					   "cannot list the bundle: %s", strerror(errno));
	if (err)
		return err;
	for (i = 0; i < count && !err; i++) {
		int known = !strcmp(names[i], "hwt-bundle") || !strcmp(names[i], "summary");
		int want_dir = 0;
		struct stat st;
		char *path;

		for (j = 0; j < sizeof(top_dirs) / sizeof(top_dirs[0]); j++)
			if (!strcmp(names[i], top_dirs[j]))
				known = want_dir = 1;
		path = hwt_path_join(bundle->dir, names[i]);
		if (!path) {
			err = -hbe_nomem;
			break;
		}
		if (!known)
			err = hwt_bundle_diag_add(bundle, hwt_diag_stray, path, -1,
						  "stray file in the bundle, ignored");
		else if (want_dir && (stat(path, &st) < 0 || !S_ISDIR(st.st_mode)))
			err = hwt_bundle_diag_add(bundle, hwt_diag_stray, path, -1,
						  "not a directory, ignored");
		free(path);
	}
	hwt_dir_list_free(names, count);
	return err;
}

int hwt_bundle_open(struct hwt_bundle *bundle, const char *dir)
{
	struct stat st;
	size_t len;
	int err;

	if (!bundle || !dir || bundle->opened)
		return -hbe_invalid;
	bundle->opened = 1;
	bundle->dir = strdup(dir);
	if (!bundle->dir)
		return -hbe_nomem;
	/* "run.hwt/" names the same bundle as "run.hwt"; keep messages tidy. */
	for (len = strlen(bundle->dir); len > 1 && bundle->dir[len - 1] == '/'; len--)
		bundle->dir[len - 1] = '\0';

	if (stat(dir, &st) < 0) {
		int saved = errno;

		hwt_bundle_diag_add(bundle, hwt_diag_fatal, NULL, -1, "%s",
				    saved == ENOENT ? "no such bundle directory" : strerror(saved));
		errno = saved;
		return saved == ENOENT ? -hbe_no_dir : -hbe_io;
	}
	if (!S_ISDIR(st.st_mode)) {
		hwt_bundle_diag_add(bundle, hwt_diag_fatal, NULL, -1,
				    "not a directory, so not a trace bundle");
		return -hbe_not_dir;
	}

	err = hwt_bundle_header_read(bundle);
	if (err)
		return err;
	err = hwt_bundle_summary_read(bundle);
	if (!err)
		err = check_top(bundle);
	if (!err)
		err = hwt_bundle_images_list(bundle);
	if (!err)
		err = hwt_bundle_streams_list(bundle);
	if (!err)
		err = hwt_bundle_spe_list(bundle);
	if (!err)
		err = hwt_bundle_images_check(bundle);
	if (!err)
		err = hwt_bundle_summary_check(bundle);
	return err;
}

const char *hwt_bundle_dir(const struct hwt_bundle *bundle)
{
	return bundle ? bundle->dir : NULL;
}

const char *hwt_bundle_key(const struct hwt_bundle *bundle, const char *key)
{
	return bundle ? hwt_kv_get(&bundle->keys, key) : NULL;
}

size_t hwt_bundle_key_count(const struct hwt_bundle *bundle)
{
	return bundle ? bundle->keys.count : 0;
}

int hwt_bundle_key_at(const struct hwt_bundle *bundle, size_t i,
		      const char **key, const char **value)
{
	if (!bundle || !key || !value || i >= bundle->keys.count)
		return -hbe_invalid;
	*key = bundle->keys.items[i].key;
	*value = bundle->keys.items[i].value;
	return 0;
}

int hwt_bundle_has_summary(const struct hwt_bundle *bundle)
{
	return bundle ? bundle->has_summary : 0;
}

const char *hwt_bundle_summary_key(const struct hwt_bundle *bundle, const char *key)
{
	return bundle ? hwt_kv_get(&bundle->summary, key) : NULL;
}

size_t hwt_bundle_summary_count(const struct hwt_bundle *bundle)
{
	return bundle ? bundle->summary.count : 0;
}

int hwt_bundle_summary_at(const struct hwt_bundle *bundle, size_t i,
			  const char **key, const char **value)
{
	if (!bundle || !key || !value || i >= bundle->summary.count)
		return -hbe_invalid;
	*key = bundle->summary.items[i].key;
	*value = bundle->summary.items[i].value;
	return 0;
}

/* 1 when dir is a directory without entries, 0 otherwise, -1 on error. */
static int empty_dir(const char *dir)
{
	char **names;
	size_t count;

	if (hwt_dir_list(dir, &names, &count))
		return -1;
	hwt_dir_list_free(names, count);
	return count == 0;
}

int hwt_bundle_create(const char *dir, const char *unit, const char *clock,
		      const char *command)
{
	return hwt_bundle_create_keys(dir, unit, clock, command, NULL);
}

int hwt_bundle_create_keys(const char *dir, const char *unit, const char *clock,
			   const char *command, const char *const *keys)
{
	struct stat st;
	char *text;
	const char *start = NULL;
	size_t i, more = 0;
	int err;

	if (!dir || !*dir || !unit || !clock || !command || strchr(unit, '\n') ||
	    strchr(clock, '\n') || strchr(command, '\n'))
		return -hbe_invalid;
	for (i = 0; keys && keys[i]; i++) {
		if (strchr(keys[i], '\n') || !strchr(keys[i], '='))
			return -hbe_invalid;
		if (!strncmp(keys[i], "start=", 6))
			start = keys[i] + 6;
		else
			more += strlen(keys[i]) + 1;
	}

	if (mkdir(dir, 0777) < 0) {
		int empty;

		if (errno != EEXIST)
			return -hbe_io;
		if (stat(dir, &st) < 0)
			return -hbe_io;
		if (!S_ISDIR(st.st_mode))
			return -hbe_exists;
		empty = empty_dir(dir);
		if (empty < 0)
			return -hbe_io;
		if (!empty)
			return -hbe_exists;
	}
	for (i = 0; i < sizeof(top_dirs) / sizeof(top_dirs[0]); i++) {
		char *sub = hwt_path_join(dir, top_dirs[i]);

		if (!sub)
			return -hbe_nomem;
		err = mkdir(sub, 0777) < 0 && errno != EEXIST ? -hbe_io : 0;
		free(sub);
		if (err)
			return err;
	}

	if (start)
		text = hwt_strdup_printf("hwt-bundle %d\nunit=%s\nclock=%s\ncommand=%s\nstart=%s\n",
					 HWT_BUNDLE_VERSION, unit, clock, command, start);
	else
		text = hwt_strdup_printf("hwt-bundle %d\nunit=%s\nclock=%s\ncommand=%s\nstart=%lld\n",
					 HWT_BUNDLE_VERSION, unit, clock, command,
					 (long long)time(NULL));
	if (!text)
		return -hbe_nomem;
	if (more) {
		size_t len = strlen(text);
		char *all = realloc(text, len + more + 1);

		if (!all) {
			free(text);
			return -hbe_nomem;
		}
		text = all;
		for (i = 0; keys[i]; i++) {
			if (!strncmp(keys[i], "start=", 6))
				continue;
			len += (size_t)sprintf(text + len, "%s\n", keys[i]);
		}
	}
	err = hwt_file_write_atomic(dir, "hwt-bundle", text, strlen(text));
	free(text);
	return err;
}

int hwt_bundle_add_key(const char *dir, const char *key)
{
	char *path, *text = NULL, *all;
	size_t len = 0;
	int err;

	if (!dir || !key || strchr(key, '\n') || !strchr(key, '=') || *key == '=')
		return -hbe_invalid;
	path = hwt_path_join(dir, "hwt-bundle");
	if (!path)
		return -hbe_nomem;
	err = hwt_file_read(path, 1 << 20, &text, &len);
	free(path);
	if (err)
		return err;
	if (len < 11 || strncmp(text, "hwt-bundle ", 11) != 0) {
		free(text);
		return -hbe_bad_header;
	}
	all = hwt_strdup_printf("%.*s%s%s\n", (int)len, text, text[len - 1] == '\n' ? "" : "\n",
				key);
	free(text);
	if (!all)
		return -hbe_nomem;
	err = hwt_file_write_atomic(dir, "hwt-bundle", all, strlen(all));
	free(all);
	return err;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path) != 0 && errno != ENOENT ? -1 : 0;
}

int hwt_bundle_remove(const char *dir)
{
	if (!dir)
		return -hbe_invalid;
	/* Depth first, not crossing symbolic links. */
	if (nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS) != 0 && errno != ENOENT)
		return -hbe_io;
	return 0;
}
