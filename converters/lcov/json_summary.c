/*
 * The JSON summary: totals per file and overall, under the keys of gcovr's
 * JSON summary (line_total, line_covered, line_percent, and function_,
 * branch_ likewise), so that scripts written for one read the other.
 * Percentages are truncated to one decimal (99.9 until everything is
 * covered); null when there is nothing to cover. Per test, the same for
 * each test (write_tests).
 */
#include <stdint.h>
#include <string.h>

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

/* The totals, each key on a line of its own after indent; no newline after the last. */
static void write_totals(FILE *file, const struct hwt_lcov_totals *t, const char *indent)
{
	write_kind(file, "line", t->lines_found, t->lines_hit, indent);
	fputs(",\n", file);
	write_kind(file, "function", t->functions_found, t->functions_hit, indent);
	fputs(",\n", file);
	write_kind(file, "branch", t->branches_found, t->branches_hit, indent);
}

/* "files": [...] and the totals of files, as members at indent (its length: depth). */
static void write_files(FILE *file, const struct hwt_cov_files *files, const char *root,
			const char *indent)
{
	int depth = (int)strlen(indent);
	char inner[32];

	snprintf(inner, sizeof(inner), "%*s", depth + 4, "");
	fprintf(file, "%s\"files\": [", indent);
	for (size_t i = 0; i < files->count; i++) {
		fprintf(file, "%s\n%*s{\n%*s\"filename\": ", i ? "," : "", depth + 2, "",
			depth + 4, "");
		hwt_write_json_string(file, hwt_cov_relative_path(root, files->file[i].path));
		fputs(",\n", file);
		write_totals(file, &files->file[i].totals, inner);
		fprintf(file, "\n%*s}", depth + 2, "");
	}
	if (files->count)
		fprintf(file, "\n%s", indent);
	fputs("],\n", file);
	write_totals(file, &files->totals, indent);
}

/*
 * Per test (--per-test): "tests", an object per test with its name, its
 * lcov TN, its files and totals as the whole run has them; the code that
 * ran outside every test in "outside_tests", the same without the names.
 * gcovr's summary has no tests (gcov does not know them): the keys are
 * hwt's, the objects inside gcovr's.
 */
static void write_tests(FILE *file, const struct hwt_cov_test *tests, size_t ntests,
			const char *root)
{
	const struct hwt_cov_test *outside = NULL;
	size_t named = 0;

	fputs(",\n  \"tests\": [", file);
	for (size_t t = 0; t < ntests; t++) {
		if (!tests[t].name) {
			if (!outside)
				outside = &tests[t];
			continue;
		}
		fputs(named++ ? ",\n    {\n      \"name\": " : "\n    {\n      \"name\": ", file);
		hwt_write_json_string(file, tests[t].name);
		fputs(",\n      \"lcov_test_name\": ", file);
		hwt_write_json_string(file, tests[t].tn ? tests[t].tn : "");
		fputs(",\n", file);
		write_files(file, tests[t].files, root, "      ");
		fputs("\n    }", file);
	}
	fputs(named ? "\n  ]" : "]", file);
	if (outside) {
		fputs(",\n  \"outside_tests\": {\n", file);
		write_files(file, outside->files, root, "    ");
		fputs("\n  }", file);
	}
}

int hwt_cov_write_json_summary(const struct hwt_cov_files *files,
			       const struct hwt_cov_test *tests, size_t ntests, const char *root,
			       FILE *file)
{
	fputs("{\n  \"hwt/summary_format_version\": \"1\",\n  \"root\": ", file);
	if (root)
		hwt_write_json_string(file, root);
	else
		fputs("null", file);
	fputs(",\n", file);
	write_files(file, files, root, "  ");
	if (tests)
		write_tests(file, tests, ntests, root);
	fputs("\n}\n", file);
	fflush(file);
	return ferror(file) ? -hle_io : 0;
}
