/* The lcov tracefile: TN, SF, FN, FNDA, FNF, FNH, BRDA, BRF, BRH, DA, LF, LH. */
#include <stdio.h>

#include "hwt_lcov.h"
#include "lcov_int.h"

int hwt_cov_write_lcov(const struct hwt_cov_files *files, const char *test_name, FILE *file)
{
	size_t i, k;

	for (i = 0; i < files->count; i++) {
		const struct hwt_cov_file *f = &files->file[i];

		fprintf(file, "TN:%s\nSF:%s\n", test_name ? test_name : "", f->path);
		for (k = 0; k < f->nfunctions; k++)
			fprintf(file, "FN:%u,%s\n", f->functions[k].line, f->functions[k].name);
		for (k = 0; k < f->nfunctions; k++)
			fprintf(file, "FNDA:%llu,%s\n", (unsigned long long)f->functions[k].count,
				f->functions[k].name);
		fprintf(file, "FNF:%zu\nFNH:%llu\n", f->nfunctions,
			(unsigned long long)f->totals.functions_hit);
		for (k = 0; k < f->nbranches; k++) {
			const struct hwt_cov_branch *b = &f->branches[k];

			if (b->executed)
				fprintf(file, "BRDA:%u,%u,%u,%llu\n", b->line, b->block, b->branch,
					(unsigned long long)b->taken);
			else
				fprintf(file, "BRDA:%u,%u,%u,-\n", b->line, b->block, b->branch);
		}
		fprintf(file, "BRF:%zu\nBRH:%llu\n", f->nbranches,
			(unsigned long long)f->totals.branches_hit);
		for (k = 0; k < f->nlines; k++)
			fprintf(file, "DA:%u,%llu\n", f->lines[k].line,
				(unsigned long long)f->lines[k].count);
		fprintf(file, "LF:%zu\nLH:%llu\nend_of_record\n", f->nlines,
			(unsigned long long)f->totals.lines_hit);
	}
	fflush(file);
	return ferror(file) ? -hle_io : 0;
}

int hwt_coverage_write_lcov(const struct hwt_coverage *cov, FILE *file, const char *test_name,
			    const struct hwt_lcov_filter *filter,
			    struct hwt_lcov_totals *totals)
{
	struct hwt_cov_files *files;
	int rc = hwt_coverage_files(cov, filter, &files);

	if (rc < 0)
		return rc;
	rc = hwt_cov_write_lcov(files, test_name, file);
	if (totals)
		*totals = files->totals;
	hwt_cov_files_free(files);
	return rc;
}
