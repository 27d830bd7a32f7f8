/*
 * lcov_counts BINARY COUNTS [TEST_NAME]: runs the lcov writer on BINARY with
 * per-instruction counts read from COUNTS ("vaddr count taken not_taken",
 * vaddr in hex, one instruction a line, any order; when taken + not_taken
 * is below count, the rest counts as not taken) and prints the lcov
 * tracefile. Lets tests check the writer with counts from another source
 * (callgrind) or made up by hand.
 */
#include <stdio.h>
#include <stdlib.h>

#include "hwt_lcov.h"

static int cmp_insn(const void *a, const void *b)
{
	const struct hwt_cov_insn *x = a, *y = b;

	return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

static void print_warning(void *context, const char *message)
{
	(void)context;
	fprintf(stderr, "lcov_counts: warning: %s\n", message);
}

int main(int argc, char **argv)
{
	struct hwt_debuginfo *info;
	struct hwt_coverage *cov;
	struct hwt_cov_insn *insns = NULL;
	size_t n = 0, cap = 0;
	unsigned long long v, c, t, nt;
	FILE *f;
	int rc;

	if (argc < 3) {
		fprintf(stderr, "usage: lcov_counts BINARY COUNTS [TEST_NAME]\n");
		return 2;
	}
	f = fopen(argv[2], "r");
	if (!f) {
		perror(argv[2]);
		return 2;
	}
	while (fscanf(f, "%llx %llu %llu %llu", &v, &c, &t, &nt) == 4) {
		if (n == cap) {
			cap = cap ? cap * 2 : 1024;
			insns = realloc(insns, cap * sizeof(*insns));
			if (!insns)
				return 2;
		}
		insns[n].vaddr = v;
		insns[n].count = c;
		insns[n].taken = t;
		/* Counts that leave some executions out: the rest were not taken
		   (callgrind omits conditional jumps that were never taken). */
		insns[n].not_taken = nt + t < c ? c - t : nt;
		n++;
	}
	fclose(f);
	qsort(insns, n, sizeof(*insns), cmp_insn);
	info = hwt_debuginfo_alloc();
	cov = hwt_coverage_alloc();
	if (!info || !cov)
		return 2;
	hwt_coverage_set_warn(cov, &(struct hwt_warn_sink){ print_warning, NULL });
	rc = hwt_debuginfo_load(info, argv[1]);
	if (rc < 0) {
		fprintf(stderr, "lcov_counts: %s: %s\n", argv[1], hwt_lcov_errstr(rc));
		return 1;
	}
	rc = hwt_coverage_add(cov, info, insns, n);
	if (rc < 0 || hwt_coverage_write_lcov(cov, stdout, argc > 3 ? argv[3] : NULL, NULL, NULL) < 0)
		return 1;
	hwt_coverage_free(cov);
	hwt_debuginfo_free(info);
	free(insns);
	return 0;
}
