/*
 * lcov_ranges BINARY NAME ENTRY [BEGIN END]...: checks what the loader
 * makes of a function described by DW_AT_ranges (tests/lcov/ranges.py):
 * NAME is one function, its entry is ENTRY (hex), and every line span
 * starting in one of the other parts [BEGIN, END) (hex; the cold part) is
 * linked to it, and there is at least one such span per part.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwt_lcov.h"

int main(int argc, char **argv)
{
	struct hwt_debuginfo *info = hwt_debuginfo_alloc();
	const struct hwt_function *funcs;
	const struct hwt_line_span *spans;
	size_t nfuncs, nspans, i, found = 0;
	uint64_t entry;
	int rc, a, fails = 0;
	long fn = -1;

	if (argc < 4 || argc % 2) {
		fprintf(stderr, "usage: lcov_ranges BINARY NAME ENTRY [BEGIN END]...\n");
		return 2;
	}
	rc = hwt_debuginfo_load(info, argv[1]);
	if (rc < 0) {
		fprintf(stderr, "%s: %s\n", argv[1], hwt_lcov_errstr(rc));
		return 1;
	}
	entry = strtoull(argv[3], NULL, 16);
	funcs = hwt_debuginfo_functions(info, &nfuncs);
	spans = hwt_debuginfo_spans(info, &nspans);
	for (i = 0; i < nfuncs; i++) {
		if (strcmp(funcs[i].name, argv[2]))
			continue;
		found++;
		fn = (long)i;
	}
	if (found != 1) {
		fprintf(stderr, "FAIL: %zu functions named %s\n", found, argv[2]);
		return 1;
	}
	if (funcs[fn].entry != entry) {
		fprintf(stderr, "FAIL: %s: entry %#" PRIx64 ", want %#" PRIx64 "\n", argv[2],
			funcs[fn].entry, entry);
		fails++;
	}
	for (a = 4; a + 1 < argc; a += 2) {
		uint64_t begin = strtoull(argv[a], NULL, 16), end = strtoull(argv[a + 1], NULL, 16);
		size_t in = 0, linked = 0;

		for (i = 0; i < nspans; i++) {
			if (spans[i].begin < begin || spans[i].begin >= end)
				continue;
			in++;
			if (spans[i].function == fn)
				linked++;
		}
		printf("part [%#" PRIx64 ", %#" PRIx64 "): %zu spans, %zu of %s\n", begin, end, in,
		       linked, argv[2]);
		if (!in || linked != in) {
			fprintf(stderr, "FAIL: part [%#" PRIx64 ", %#" PRIx64 ") not all %s's\n",
				begin, end, argv[2]);
			fails++;
		}
	}
	hwt_debuginfo_free(info);
	return fails ? 1 : 0;
}
