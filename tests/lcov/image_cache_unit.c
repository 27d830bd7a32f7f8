/*
 * image_cache_unit PROGRAM: per-test coverage through struct
 * hwt_image_cache gives each test the coverage it gets without the cache,
 * byte for byte, and counts a test's instructions from the whole run's
 * instead of decoding its file again.
 *
 * PROGRAM (built -O0 -g) is read, never run: its functions' instructions
 * make one-instruction blocks, and its conditional branches taken edges.
 * Test A runs the even functions, test B the odd ones and the first, the
 * whole run both; test C runs the last function, which neither ran (its
 * instructions are not the whole run's: decoded from the file again).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf_file.h"
#include "hwt_lcov.h"
#include "insn.h"
#include "profile.h"
#include "unit_check.h"

/* One-instruction blocks of function f into profile p (image 0), count times. */
static void add_function(struct hwt_profile *p, const struct hwt_elf_file *elf,
			 const struct hwt_function *f, uint64_t count)
{
	for (uint64_t va = f->entry; va < f->end;) {
		size_t avail = 0;
		const uint8_t *code = hwt_elf_file_code(elf, va, &avail);
		uint64_t off = hwt_elf_file_offset(elf, va);
		struct hwt_insn insn;
		int len = code ? hwt_insn_decode(elf->machine, code, avail, &insn) : -1;

		if (len <= 0)
			break;
		CHECK(hwt_profile_add_block(p, 0, off, off, 1, count) == 0);
		if (insn.kind == HWT_INSN_COND) {
			struct hwt_profile_edge e = { 0, 0, off, off + (uint64_t)len,
						      hwt_edge_cond_taken, count };

			CHECK(hwt_profile_add_edge(p, &e) == 0);
		}
		va += (uint64_t)len;
	}
}

/* Every warning fails: the profile's images are all readable. */
static void unexpected_warning(void *context, const char *message)
{
	(void)context;
	CHECK(!message);
	fprintf(stderr, "warning: %s\n", message);
}

/* The lcov text of profile's coverage, through cache (NULL: none); malloc'd. */
static char *coverage_text(const struct hwt_profile *profile, struct hwt_image_cache *cache)
{
	struct hwt_lcov_profile_options options = { 0 };
	struct hwt_coverage *cov = hwt_coverage_alloc();
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	options.cache = cache;
	CHECK(cov && f);
	if (!cov || !f)
		exit(2);
	hwt_coverage_set_warn(cov, &(struct hwt_warn_sink){ unexpected_warning, NULL });
	CHECK(hwt_coverage_add_profile(cov, profile, &options, NULL) == 0);
	CHECK(hwt_coverage_write_lcov(cov, f, "t", NULL, NULL) == 0);
	fclose(f);
	hwt_coverage_free(cov);
	return buf;
}

static void check_same(const char *name, const char *cached, const char *plain)
{
	if (strcmp(cached, plain)) {
		fprintf(stderr, "FAIL: test %s: the coverage through the cache differs:\n"
			"--- cached\n%s--- not cached\n%s", name, cached, plain);
		unit_failures++;
	}
	/* Something ran, and something did not. */
	CHECK(strstr(plain, "DA:") && strstr(plain, ",0\n"));
	CHECK(strstr(plain, "BRDA:"));
}

int main(int argc, char **argv)
{
	struct hwt_profile *p[4];   /* whole run, A, B, C */
	struct hwt_debuginfo *info = hwt_debuginfo_alloc();
	const struct hwt_function *fns;
	struct hwt_image_cache *cache = hwt_image_cache_alloc();
	struct hwt_elf_file elf;
	char path[PATH_MAX], *cached[4], *plain[4];
	size_t nfns, counted, decoded, last = 0, i;

	if (argc != 2 || !realpath(argv[1], path)) {
		fprintf(stderr, "usage: image_cache_unit PROGRAM\n");
		return 2;
	}
	if (!info || !cache || hwt_debuginfo_load(info, path) < 0 ||
	    hwt_elf_file_open(&elf, path) < 0 || !hwt_insn_machine_known(elf.machine)) {
		fprintf(stderr, "image_cache_unit: %s: cannot be read\n", path);
		return 2;
	}
	fns = hwt_debuginfo_functions(info, &nfns);
	for (i = 0; i < nfns; i++)
		if (!fns[i].artificial && fns[i].end > fns[i].entry)
			last = i;
	CHECK(nfns >= 4);
	for (i = 0; i < 4; i++) {
		p[i] = hwt_profile_alloc();
		CHECK(p[i] && hwt_profile_image_add(p[i], path, elf.build_id, elf.build_id_size, 0) == 0);
	}
	for (i = 0; i < last; i++)
		if (!fns[i].artificial)
			add_function(p[i % 2 ? 2 : 1], &elf, &fns[i], i + 1);
	add_function(p[2], &elf, &fns[0], 5);
	add_function(p[3], &elf, &fns[last], 3);
	CHECK(hwt_profile_merge(p[0], p[1]) == 0 && hwt_profile_merge(p[0], p[2]) == 0);
	/* The whole run first, then each test, as hwt report lcov --per-test. */
	for (i = 0; i < 4; i++)
		cached[i] = coverage_text(p[i], cache);
	hwt_image_cache_counts(cache, &counted, &decoded);
	CHECK(counted == 2);   /* A and B */
	CHECK(decoded == 2);   /* the whole run, and C */
	for (i = 0; i < 4; i++)
		plain[i] = coverage_text(p[i], NULL);
	check_same("whole run", cached[0], plain[0]);
	check_same("A", cached[1], plain[1]);
	check_same("B", cached[2], plain[2]);
	check_same("C", cached[3], plain[3]);
	CHECK(strcmp(plain[1], plain[2]) != 0);
	for (i = 0; i < 4; i++) {
		free(cached[i]);
		free(plain[i]);
		hwt_profile_free(p[i]);
	}
	hwt_image_cache_free(cache);
	hwt_elf_file_close(&elf);
	hwt_debuginfo_free(info);
	if (unit_failures)
		fprintf(stderr, "%d check(s) failed\n", unit_failures);
	return unit_failures ? 1 : 0;
}
