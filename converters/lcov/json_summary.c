/*
 * The JSON summary: totals per file and overall, under the keys of gcovr's
 * JSON summary (line_total, line_covered, line_percent, and function_,
 * branch_ likewise), so that scripts written for one read the other.
 * Percentages are truncated to one decimal (99.9 until everything is
 * covered); null when there is nothing to cover.
 */
#include <stdint.h>

#include "write_text.h"
#include "hwt_lcov.h"
#include "lcov_int.h"

static void write_kind(FILE *file, const char *kind, uint64_t total, uint64_t covered,
		       const char *indent)
{
	fprintf(file, "%s\"%s_total\": %llu,\n%s\"%s_covered\": %llu,\n%s\"%s_percent\": ", indent,
		kind, (unsigned long long)total, indent, kind, (unsigned long long)covered, indent,
		kind);
	if (total) {
		uint64_t tenths = covered * 1000 / total;

		fprintf(file, "%llu.%llu", (unsigned long long)(tenths / 10),
			(unsigned long long)(tenths % 10));
	} else {
		fputs("null", file);
	}
}

static void write_totals(FILE *file, const struct hwt_lcov_totals *t, const char *indent)
{
	write_kind(file, "line", t->lines_found, t->lines_hit, indent);
	fputs(",\n", file);
	write_kind(file, "function", t->functions_found, t->functions_hit, indent);
	fputs(",\n", file);
	write_kind(file, "branch", t->branches_found, t->branches_hit, indent);
	fputc('\n', file);
}

int hwt_cov_write_json_summary(const struct hwt_cov_files *files, const char *root, FILE *file)
{
	size_t i;

	fputs("{\n  \"hwt/summary_format_version\": \"1\",\n  \"root\": ", file);
	if (root)
		hwt_write_json_string(file, root);
	else
		fputs("null", file);
	fputs(",\n  \"files\": [", file);
	for (i = 0; i < files->count; i++) {
		fputs(i ? ",\n    {\n      \"filename\": " : "\n    {\n      \"filename\": ", file);
		hwt_write_json_string(file, hwt_cov_relative_path(root, files->file[i].path));
		fputs(",\n", file);
		write_totals(file, &files->file[i].totals, "      ");
		fputs("    }", file);
	}
	fputs(files->count ? "\n  ],\n" : "],\n", file);
	write_totals(file, &files->totals, "  ");
	fputs("}\n", file);
	fflush(file);
	return ferror(file) ? -hle_io : 0;
}
