/*
 * The kernel unit against the Valgrind unit: two profiles of the same
 * deterministic run (hwt report profile of each bundle) must give every
 * instruction of the named images the same execution count. Other images
 * (libc, ld.so) are left out: their code depends on the CPU (ifuncs), the
 * guest's and Valgrind's CPUs differ.
 *
 * usage: insn_counts_same KMOD.prof VALGRIND.prof IMAGE_PATH...
 * Prints one line per image and exits 0 when all agree and each image ran
 * in both, 1 otherwise.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"

/* The profile's image whose path is path, or -1. */
static long find_image(const struct hwt_profile *p, const char *path)
{
	for (size_t i = 0; i < hwt_profile_image_count(p); i++)
		if (!strcmp(hwt_profile_image_at(p, i)->path, path))
			return (long)i;
	return -1;
}

static int compare(const struct hwt_profile *a, const struct hwt_profile *b, const char *path)
{
	struct hwt_profile_insn *ia = NULL, *ib = NULL;
	size_t na = 0, nb = 0, i = 0, j = 0, diff = 0;
	long xa = find_image(a, path), xb = find_image(b, path);
	uint64_t total = 0;

	if (xa < 0 || xb < 0) {
		printf("FAIL %s: not in %s\n", path, xa < 0 ? "the kmod profile" : "the valgrind profile");
		return 1;
	}
	if (hwt_profile_image_insns(a, (size_t)xa, NULL, &ia, &na) < 0 ||
	    hwt_profile_image_insns(b, (size_t)xb, NULL, &ib, &nb) < 0) {
		printf("FAIL %s: cannot list its instructions\n", path);
		free(ia);
		free(ib);
		return 1;
	}
	while (i < na || j < nb) {
		uint64_t oa = i < na ? ia[i].offset : UINT64_MAX, ob = j < nb ? ib[j].offset : UINT64_MAX;
		uint64_t ca = oa <= ob ? ia[i].count : 0, cb = ob <= oa ? ib[j].count : 0;

		if (ca != cb && diff++ < 10)
			fprintf(stderr, "%s+0x%" PRIx64 ": kmod %" PRIu64 ", valgrind %" PRIu64 "\n", path,
				oa < ob ? oa : ob, ca, cb);
		total += ca;
		i += oa <= ob;
		j += ob <= oa;
	}
	printf("%s %s: %zu instructions, %" PRIu64 " executions, %zu differ\n",
	       diff || !total ? "FAIL" : "ok", path, na, total, diff);
	free(ia);
	free(ib);
	return diff || !total;
}

int main(int argc, char **argv)
{
	struct hwt_profile *a = hwt_profile_alloc(), *b = hwt_profile_alloc();
	size_t line = 0;
	int failed = 0;

	if (argc < 4) {
		fprintf(stderr, "usage: insn_counts_same KMOD.prof VALGRIND.prof IMAGE_PATH...\n");
		return 2;
	}
	if (!a || !b || hwt_profile_load(a, argv[1], &line) < 0 ||
	    hwt_profile_load(b, argv[2], &line) < 0) {
		fprintf(stderr, "insn_counts_same: cannot read %s or %s (line %zu)\n", argv[1], argv[2],
			line);
		return 2;
	}
	for (int k = 3; k < argc; k++)
		failed |= compare(a, b, argv[k]);
	hwt_profile_free(a);
	hwt_profile_free(b);
	return failed;
}
