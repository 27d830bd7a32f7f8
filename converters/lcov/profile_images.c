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

/*
 * What the coverages of one run share, image by image (per-test coverage
 * adds the whole run, then a profile per test): an image's debug
 * information, read once; the analysis of its code that counts do not
 * change (struct hwt_cov_plan), made once; and the instructions that ran
 * in it in the first profile added (the whole run's, sorted by offset), so
 * a test's blocks are counted from them instead of being decoded again
 * from the file. The cache owns all of it until hwt_image_cache_free.
 */
struct hwt_image_cache {
	struct cached_image {
		char *path;
		struct hwt_debuginfo *info;
		struct hwt_cov_plan *plan;         /* NULL until first used */
		int have_insns;                    /* insns below are set */
		uint8_t build_id[HWT_PROFILE_BUILD_ID_MAX];
		uint32_t build_id_size;            /* of the profile image insns came from */
		struct hwt_profile_insn *insns;    /* sorted by offset */
		size_t ninsns;
	} *entries;
	size_t count;
	size_t counted, decoded;   /* hwt_image_cache_counts */
};

struct hwt_image_cache *hwt_image_cache_alloc(void)
{
	return calloc(1, sizeof(struct hwt_image_cache));
}

void hwt_image_cache_free(struct hwt_image_cache *cache)
{
	if (!cache)
		return;
	for (size_t i = 0; i < cache->count; i++) {
		free(cache->entries[i].path);
		hwt_cov_plan_free(cache->entries[i].plan);
		hwt_debuginfo_free(cache->entries[i].info);
		free(cache->entries[i].insns);
	}
	free(cache->entries);
	free(cache);
}

void hwt_image_cache_counts(const struct hwt_image_cache *cache, size_t *counted,
			    size_t *decoded)
{
	*counted = cache ? cache->counted : 0;
	*decoded = cache ? cache->decoded : 0;
}

static struct cached_image *cache_find(const struct hwt_image_cache *cache, const char *path)
{
	for (size_t i = 0; cache && i < cache->count; i++)
		if (!strcmp(cache->entries[i].path, path))
			return &cache->entries[i];
	return NULL;
}

/* Keeps info (loaded whole) in cache: its entry, or NULL when it could not
   (the caller frees info). */
static struct cached_image *cache_keep(struct hwt_image_cache *cache, const char *path,
				       struct hwt_debuginfo *info)
{
	struct cached_image *more;
	char *copy;

	if (!cache)
		return NULL;
	more = realloc(cache->entries, (cache->count + 1) * sizeof(*more));
	if (!more)
		return NULL;
	cache->entries = more;
	copy = strdup(path);
	if (!copy)
		return NULL;
	memset(&more[cache->count], 0, sizeof(*more));
	more[cache->count].path = copy;
	more[cache->count].info = info;
	return &more[cache->count++];
}

static int same_build_id(const struct cached_image *e, const struct hwt_profile_image *image)
{
	return e->build_id_size == image->build_id_size &&
	       !memcmp(e->build_id, image->build_id, image->build_id_size);
}

/*
 * The executed instructions of image index of profile, counted from e's
 * (each block's instructions follow one another from its first): 1, with
 * *insns (malloc'd, by offset) and *n; 0 when a block or one of its
 * instructions is not among e's (the caller decodes the file, as without a
 * cache); -hle_nomem.
 */
static int insns_from_cache(const struct cached_image *e, const struct hwt_profile *profile,
			    size_t index, struct hwt_profile_insn **insns, size_t *n)
{
	const struct hwt_profile_block *blocks;
	const struct hwt_profile_edge *edges;
	struct hwt_profile_insn *all;
	size_t nblocks, nedges, k;
	uint8_t *ran;

	*insns = NULL;
	*n = 0;
	if (hwt_profile_blocks(profile, index, &blocks, &nblocks) < 0 ||
	    hwt_profile_edges(profile, &edges, &nedges) < 0)
		return 0;
	all = calloc(e->ninsns ? e->ninsns : 1, sizeof(*all));
	ran = calloc(e->ninsns ? e->ninsns : 1, 1);
	if (!all || !ran) {
		free(all);
		free(ran);
		return -hle_nomem;
	}
	for (k = 0; k < nblocks; k++) {
		const struct hwt_profile_block *b = &blocks[k];
		const struct hwt_profile_insn *at = hwt_profile_insn_at(e->insns, e->ninsns, b->begin);
		uint64_t off = b->begin;

		for (uint32_t i = 0; i < b->insns; i++) {
			size_t x;

			if (i) {
				off += at->length;
				if ((size_t)(at - e->insns) + 1 < e->ninsns && at[1].offset == off)
					at++;
				else
					at = hwt_profile_insn_at(e->insns, e->ninsns, off);
			}
			if (!at || (i + 1 == b->insns && off != b->end))
				goto not_there;
			x = (size_t)(at - e->insns);
			if (!ran[x]) {
				ran[x] = 1;
				all[x] = *at;
				all[x].count = all[x].taken = all[x].not_taken = 0;
			}
			all[x].count += b->count;
		}
	}
	/* Only from instructions of its blocks, as hwt_profile_image_insns. */
	for (k = 0; k < nedges; k++) {
		const struct hwt_profile_edge *ed = &edges[k];
		const struct hwt_profile_insn *at;
		size_t x;

		if (ed->from_image != index ||
		    (ed->kind != hwt_edge_cond_taken && ed->kind != hwt_edge_cond_not_taken))
			continue;
		at = hwt_profile_insn_at(e->insns, e->ninsns, ed->from);
		if (!at || !ran[x = (size_t)(at - e->insns)])
			continue;
		if (ed->kind == hwt_edge_cond_taken)
			all[x].taken += ed->count;
		else
			all[x].not_taken += ed->count;
	}
	for (k = 0; k < e->ninsns; k++)
		if (ran[k])
			all[(*n)++] = all[k];
	free(ran);
	*insns = all;
	return 1;
not_there:
	free(all);
	free(ran);
	return 0;
}

/* Adds one profile image to the coverage, or warns why it cannot. */
static int add_image(struct hwt_coverage *cov, const struct hwt_profile *profile, size_t index,
		     const struct hwt_lcov_profile_options *options)
{
	const struct hwt_profile_image *image = hwt_profile_image_at(profile, index);
	struct hwt_profile_insn *pinsns = NULL;
	struct hwt_cov_insn *insns = NULL;
	struct hwt_debuginfo *info = NULL;
	struct cached_image *entry;
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
	entry = cache_find(options->cache, image->path);
	if (entry) {
		/* Read before, whole and with debug info: the checks below hold again. */
		info = entry->info;
		rc = 0;
	} else {
		info = hwt_debuginfo_alloc();
		if (!info)
			return -hle_nomem;
		rc = hwt_debuginfo_load_dirs(info, image->path, options->debug_dirs);
		if (rc == 0 && !hwt_debuginfo_crc_mismatch(info))
			entry = cache_keep(options->cache, image->path, info);
	}
	cached = entry != NULL;
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
		rc = 0;
		if (nblocks && entry && entry->have_insns && same_build_id(entry, image) &&
		    insns_from_cache(entry, profile, index, &pinsns, &n) < 0) {
			rc = -hle_nomem;
			goto out;
		}
		if (pinsns)
			options->cache->counted++;
		else if (nblocks) {
			rc = hwt_profile_image_insns(profile, index, NULL, &pinsns, &n);
			if (options->cache)
				options->cache->decoded++;
		}
		if (rc == 0 && entry && !entry->have_insns) {
			/* The first profile's (the whole run's): each test's are among them. */
			entry->insns = malloc((n ? n : 1) * sizeof(*entry->insns));
			if (!entry->insns) {
				rc = -hle_nomem;
				goto out;
			}
			if (n)
				memcpy(entry->insns, pinsns, n * sizeof(*pinsns));
			entry->ninsns = n;
			entry->build_id_size = image->build_id_size;
			memcpy(entry->build_id, image->build_id, image->build_id_size);
			entry->have_insns = 1;
		}
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
	if (entry && !entry->plan)
		rc = hwt_cov_plan_make(cov, info, &entry->plan);
	if (rc == 0)
		rc = entry ? hwt_cov_plan_apply(cov, entry->plan, info, insns, n)
			   : hwt_coverage_add(cov, info, insns, n);
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
