/*
 * The coverage of a profile's images (hwt_coverage_add_profile): each image
 * with debug info whose file is still the one that ran, its executed
 * instructions added with its DWARF; a warning for each image left out.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hwt_lcov.h"
#include "lcov_int.h"
#include "profile.h"

/* Code that ships with the system: libc, the loader, ... (also of the
   aarch64 sysroot that aarch64 programs run with under qemu-aarch64). */
static int system_image(const char *path)
{
	static const char *const prefixes[] = {
		"/lib/", "/lib64/", "/lib32/", "/usr/lib/", "/usr/lib64/", "/usr/lib32/",
		"/usr/libexec/", "/usr/bin/", "/bin/", "/usr/sbin/", "/sbin/",
		"/usr/aarch64-linux-gnu/",
	};
	size_t i;

	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(path, prefixes[i], strlen(prefixes[i])))
			return 1;
	return 0;
}

static void hex(char *out, size_t size, const uint8_t *id, size_t n)
{
	size_t i;

	if (n == 0) {
		snprintf(out, size, "none");
		return;
	}
	for (i = 0; i < n && 2 * i + 2 < size; i++)
		snprintf(out + 2 * i, size - 2 * i, "%02x", id[i]);
}

static int cmp_cov_insn(const void *a, const void *b)
{
	const struct hwt_cov_insn *x = a, *y = b;

	return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

/* The image's sources learn it (and its file's mtime): a source edited
   since the build is newer (hwt_coverage_check_sources). */
static int note_image(struct hwt_coverage *cov, const struct hwt_debuginfo *info,
		      const char *path)
{
	struct stat st;
	int64_t mtime;
	size_t i;

	if (stat(path, &st) < 0)
		return 0;
	mtime = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	for (i = 0; i < hwt_debuginfo_file_count(info); i++)
		if (hwt_coverage_source_image(cov, hwt_debuginfo_file(info, i), path, mtime) < 0)
			return -hle_nomem;
	return 0;
}

/* Images whose debug information loaded, by path and the options' debug dirs. */
struct hwt_debuginfo_cache {
	struct cached_info {
		char *path;
		struct hwt_debuginfo *info;
	} *entries;
	size_t count;
};

struct hwt_debuginfo_cache *hwt_debuginfo_cache_alloc(void)
{
	return calloc(1, sizeof(struct hwt_debuginfo_cache));
}

void hwt_debuginfo_cache_free(struct hwt_debuginfo_cache *cache)
{
	if (!cache)
		return;
	for (size_t i = 0; i < cache->count; i++) {
		free(cache->entries[i].path);
		hwt_debuginfo_free(cache->entries[i].info);
	}
	free(cache->entries);
	free(cache);
}

static struct hwt_debuginfo *cache_find(const struct hwt_debuginfo_cache *cache, const char *path)
{
	for (size_t i = 0; cache && i < cache->count; i++)
		if (!strcmp(cache->entries[i].path, path))
			return cache->entries[i].info;
	return NULL;
}

/* Keeps info (loaded whole) in cache: 1, or 0 when it could not (the caller frees it). */
static int cache_keep(struct hwt_debuginfo_cache *cache, const char *path,
		      struct hwt_debuginfo *info)
{
	struct cached_info *more;
	char *copy;

	if (!cache)
		return 0;
	more = realloc(cache->entries, (cache->count + 1) * sizeof(*more));
	if (!more)
		return 0;
	cache->entries = more;
	copy = strdup(path);
	if (!copy)
		return 0;
	more[cache->count].path = copy;
	more[cache->count++].info = info;
	return 1;
}

/* Adds one profile image to the coverage, or warns why it cannot. */
static int add_image(struct hwt_coverage *cov, const struct hwt_profile *profile, size_t index,
		     const struct hwt_lcov_profile_options *options)
{
	const struct hwt_profile_image *image = hwt_profile_image_at(profile, index);
	struct hwt_profile_insn *pinsns = NULL;
	struct hwt_cov_insn *insns = NULL;
	struct hwt_debuginfo *info = NULL;
	const uint8_t *file_id;
	size_t n = 0, i, file_id_size;
	char id[2 * HWT_PROFILE_BUILD_ID_MAX + 1];
	int rc, quiet, cached = 0;

	if (image->flags & (HWT_PROFILE_IMAGE_TRACE_UNIT | HWT_PROFILE_IMAGE_VDSO))
		return 0;
	hex(id, sizeof(id), image->build_id, image->build_id_size);
	if (system_image(image->path) && !options->system) {
		/* Like gcovr's root and lcov's --no-external: the system's own
		   libraries are not the project's code, even with debug info. */
		if (options->verbose)
			hwt_coverage_warn(cov, "%s: a system library: not in the report (--system includes it)",
					  image->path);
		return 0;
	}
	quiet = system_image(image->path) && !options->verbose;
	if (image->flags & HWT_PROFILE_IMAGE_MISSING) {
		if (!quiet)
			hwt_coverage_warn(cov, "%s (build-id %s): deleted or unreadable since the run: not in the report",
					  image->path, id);
		return 0;
	}
	if (image->flags & HWT_PROFILE_IMAGE_REPLACED) {
		if (!quiet)
			hwt_coverage_warn(cov, "%s (build-id %s): replaced since the run: not in the report",
					  image->path, id);
		return 0;
	}
	info = cache_find(options->cache, image->path);
	if (info) {
		/* Read before, whole and with debug info: the checks below hold again. */
		cached = 1;
		rc = 0;
	} else {
		info = hwt_debuginfo_alloc();
		if (!info)
			return -hle_nomem;
		rc = hwt_debuginfo_load_dirs(info, image->path, options->debug_dirs);
		if (rc == 0 && !hwt_debuginfo_crc_mismatch(info))
			cached = cache_keep(options->cache, image->path, info);
	}
	if (hwt_debuginfo_crc_mismatch(info) && !quiet)
		hwt_coverage_warn(cov, "%s: its debug link names %s, whose CRC32 is not the link's "
				  "(another build's debug information): not used",
				  image->path, hwt_debuginfo_crc_mismatch(info));
	if (rc == -hle_io) {
		if (!quiet)
			hwt_coverage_warn(cov, "%s (build-id %s): %s since the run: not in the report",
					  image->path, id, errno == ENOENT ? "deleted" : strerror(errno));
		rc = 0;
		goto out;
	}
	if (rc == -hle_not_elf || rc == -hle_dwarf) {
		hwt_coverage_warn(cov, "%s (build-id %s): %s: not in the report", image->path, id,
				  hwt_lcov_errstr(rc));
		rc = 0;
		goto out;
	}
	file_id = hwt_debuginfo_build_id(info, &file_id_size);
	if (image->build_id_size &&
	    (file_id_size != image->build_id_size ||
	     memcmp(file_id, image->build_id, file_id_size) != 0)) {
		char now[2 * HWT_DEBUGINFO_BUILD_ID_MAX + 1];

		hex(now, sizeof(now), file_id, file_id_size);
		if (!quiet)
			hwt_coverage_warn(cov, "%s (build-id %s): replaced since the run (the file now has build-id %s): not in the report",
					  image->path, id, now);
		rc = 0;
		goto out;
	}
	if (rc == -hle_no_debug) {
		if (!quiet)
			hwt_coverage_warn(cov, "no debug info: %s (build-id %s%s): not in the report",
					  image->path, id,
					  hwt_debuginfo_has_symtab(info) ? "" : ", stripped");
		rc = 0;
		goto out;
	}
	if (rc < 0)
		goto out;
	{
		const struct hwt_profile_block *blocks;
		size_t nblocks = 0;

		/* Nothing ran in it (all its trace was lost): lines, functions
		   and branches are still listed, all at zero. */
		if (hwt_profile_blocks(profile, index, &blocks, &nblocks) < 0)
			nblocks = 0;
		rc = nblocks ? hwt_profile_image_insns(profile, index, NULL, &pinsns, &n) : 0;
	}
	if (rc < 0) {
		hwt_coverage_warn(cov, "%s (build-id %s): executed code cannot be read: %s: not in the report",
				  image->path, id, hwt_profile_errstr(rc));
		rc = 0;
		goto out;
	}
	insns = malloc((n ? n : 1) * sizeof(*insns));
	if (!insns) {
		rc = -hle_nomem;
		goto out;
	}
	for (i = 0; i < n; i++) {
		insns[i].vaddr = pinsns[i].vaddr;
		insns[i].count = pinsns[i].count;
		insns[i].taken = pinsns[i].taken;
		insns[i].not_taken = pinsns[i].not_taken;
	}
	if (n)
		qsort(insns, n, sizeof(*insns), cmp_cov_insn);
	rc = hwt_coverage_add(cov, info, insns, n);
	if (rc == 0)
		rc = note_image(cov, info, image->path);
	if (rc == 0 && image->undecoded)
		hwt_coverage_warn(cov, "%s: %llu piece%s of trace could not be decoded: counts may be low",
				  image->path, (unsigned long long)image->undecoded,
				  image->undecoded == 1 ? "" : "s");
out:
	free(insns);
	free(pinsns);
	if (!cached)
		hwt_debuginfo_free(info);
	return rc;
}

void hwt_coverage_drop_unreadable(struct hwt_coverage *cov, const struct hwt_lcov_filter *filter)
{
	size_t i, n = hwt_coverage_source_count(cov), dropped = 0;
	uint64_t lines, total = 0;

	for (i = 0; i < n; i++) {
		const char *path = hwt_coverage_source_path(cov, i);

		if (!hwt_lcov_filter_match(filter, path) || access(path, R_OK) == 0)
			continue;
		hwt_coverage_source_lines(cov, i, &lines);
		hwt_coverage_source_drop(cov, i);
		if (++dropped <= 10)
			hwt_coverage_warn(cov, "source file not found: %s: its %llu line%s left out",
					  path, (unsigned long long)lines, lines == 1 ? "" : "s");
		else
			total += lines;
	}
	if (dropped > 10)
		hwt_coverage_warn(cov, "and %zu more source files not found (%llu lines): left out",
				  dropped - 10, (unsigned long long)total);
}

static int image_path_cmp(const void *a, const void *b, void *profile)
{
	const struct hwt_profile_image *x = hwt_profile_image_at(profile, *(const size_t *)a);
	const struct hwt_profile_image *y = hwt_profile_image_at(profile, *(const size_t *)b);
	uint32_t n = x->build_id_size < y->build_id_size ? x->build_id_size : y->build_id_size;
	int c = strcmp(x->path, y->path);

	if (!c)
		c = memcmp(x->build_id, y->build_id, n);
	if (!c)
		c = (x->build_id_size > y->build_id_size) - (x->build_id_size < y->build_id_size);
	return c;
}

/*
 * The profile's images by path and build-id: the order of the warnings
 * about them does not depend on the order the decode met them in (a decode
 * while recording meets them as processes end).
 */
static size_t *images_by_path(const struct hwt_profile *profile)
{
	size_t n = hwt_profile_image_count(profile);
	size_t *order = malloc((n ? n : 1) * sizeof(*order));

	if (!order)
		return NULL;
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof(*order), image_path_cmp, (void *)profile);
	return order;
}


int hwt_coverage_add_profile(struct hwt_coverage *cov, const struct hwt_profile *profile,
			     const struct hwt_lcov_profile_options *options, size_t *failed)
{
	static const struct hwt_lcov_profile_options none;
	size_t *order = images_by_path(profile);
	int rc = 0;

	if (failed)
		*failed = SIZE_MAX;
	if (!order)
		return -hle_nomem;
	for (size_t i = 0; i < hwt_profile_image_count(profile) && rc == 0; i++) {
		rc = add_image(cov, profile, order[i], options ? options : &none);
		if (rc < 0 && failed)
			*failed = order[i];
	}
	free(order);
	return rc;
}
