/*
 * The coverage summary hwt-cov prints (hwt_command.h): a table of the
 * source files, the most missed lines last, with the ranges of those
 * lines, as gcovr prints one; then the totals.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwt_command.h"
#include "hwt_lcov.h"

/* A file name wider than this has its figures on the next line (gcovr does the same). */
#define NAME_MAX_WIDTH 40

/* path relative to root when it lies under it. */
static const char *relative(const char *root, const char *path)
{
	size_t n = root ? strlen(root) : 0;

	while (n > 1 && root[n - 1] == '/')
		n--;
	if (n && !strncmp(path, root, n) && path[n] == '/' && path[n + 1])
		return path + n + 1;
	return path;
}

static uint64_t missed(const struct hwt_cov_file *f)
{
	return f->totals.lines_found - f->totals.lines_hit;
}

/*
 * The most missed lines last, just above the totals, where a long table
 * that scrolled by on a terminal ends (gcovr --sort-uncovered does the
 * same); then by name.
 */
static int by_missed(const void *a, const void *b)
{
	const struct hwt_cov_file *x = *(const struct hwt_cov_file *const *)a;
	const struct hwt_cov_file *y = *(const struct hwt_cov_file *const *)b;

	if (missed(x) != missed(y))
		return missed(x) < missed(y) ? -1 : 1;
	return strcmp(x->path, y->path);
}

/*
 * The lines of f with code that never ran, as ranges ("12-15,40"): a range
 * goes on over lines without code, and ends at a line that ran.
 */
static void print_missing(FILE *out, const struct hwt_cov_file *f)
{
	size_t i = 0;
	int first = 1;

	while (i < f->nlines) {
		uint32_t start, end;

		if (f->lines[i].count) {
			i++;
			continue;
		}
		start = end = f->lines[i].line;
		while (++i < f->nlines && !f->lines[i].count)
			end = f->lines[i].line;
		fprintf(out, first ? "%u" : ",%u", start);
		if (end != start)
			fprintf(out, "-%u", end);
		first = 0;
	}
}

/* The width of "hit/found". */
static int count_width(uint64_t hit, uint64_t found)
{
	return snprintf(NULL, 0, "%llu/%llu", (unsigned long long)hit, (unsigned long long)found);
}

/* One figure: "hit/found" right-aligned in width, then the percentage, coloured ("-": none). */
static void print_cell(FILE *out, uint64_t hit, uint64_t found, int width)
{
	char count[48];
	double pct;

	if (!found) {
		fprintf(out, "  %*s %6s", width, "-", "-");
		return;
	}
	snprintf(count, sizeof(count), "%llu/%llu", (unsigned long long)hit,
		 (unsigned long long)found);
	pct = hwt_percent(hit, found);
	fprintf(out, "  %*s %s%5.1f%%%s", width, count, hwt_color(hwt_color_of_percent(pct)), pct,
		hwt_color(hwt_color_reset));
}

struct widths {
	int name, lines, functions, branches;
};

static void print_row(FILE *out, const char *name, const struct hwt_lcov_totals *t,
		      const struct widths *w)
{
	if ((int)strlen(name) > w->name)
		fprintf(out, "%s\n%*s", name, w->name, "");
	else
		fprintf(out, "%-*s", w->name, name);
	print_cell(out, t->lines_hit, t->lines_found, w->lines);
	print_cell(out, t->functions_hit, t->functions_found, w->functions);
	print_cell(out, t->branches_hit, t->branches_found, w->branches);
}

static int max(int a, int b)
{
	return a > b ? a : b;
}

int hwt_summary_table_print(FILE *out, const struct hwt_cov_files *files, const char *root)
{
	const struct hwt_cov_file **sorted = malloc((files->count + 1) * sizeof(*sorted));
	const struct hwt_lcov_totals *t = &files->totals;
	struct widths w = { 5, 5, 9, 8 }; /* "TOTAL", "Lines", "Functions", "Branches" */
	int rule;
	size_t i;

	if (!sorted)
		return -1;
	for (i = 0; i < files->count; i++) {
		const struct hwt_cov_file *f = &files->file[i];
		int len = (int)strlen(relative(root, f->path));

		sorted[i] = f;
		if (len <= NAME_MAX_WIDTH)
			w.name = max(w.name, len);
	}
	/* The totals are the widest of each column. */
	w.lines = max(w.lines - 7, count_width(t->lines_hit, t->lines_found));
	w.functions = max(w.functions - 7, count_width(t->functions_hit, t->functions_found));
	w.branches = max(w.branches - 7, count_width(t->branches_hit, t->branches_found));
	qsort(sorted, files->count, sizeof(*sorted), by_missed);
	rule = w.name + w.lines + w.functions + w.branches + 3 * 9 + 2 + 7;
	fprintf(out, "%s%-*s  %*s  %*s  %*s  Missing%s\n", hwt_color(hwt_color_heading), w.name,
		"File", w.lines + 7, "Lines", w.functions + 7, "Functions", w.branches + 7,
		"Branches", hwt_color(hwt_color_reset));
	fprintf(out, "%.*s\n", rule, "----------------------------------------------------------"
		"------------------------------------------------------------------------------"
		"------------------------------------------------------------------------------");
	for (i = 0; i < files->count; i++) {
		print_row(out, relative(root, sorted[i]->path), &sorted[i]->totals, &w);
		if (missed(sorted[i])) {
			fputs("  ", out);
			print_missing(out, sorted[i]);
		}
		fputc('\n', out);
	}
	fprintf(out, "%.*s\n", rule, "----------------------------------------------------------"
		"------------------------------------------------------------------------------"
		"------------------------------------------------------------------------------");
	print_row(out, "TOTAL", t, &w);
	fputc('\n', out);
	free(sorted);
	return 0;
}

void hwt_summary_totals_print(FILE *out, const struct hwt_lcov_totals *t, const char *prefix)
{
	static const char *const labels[] = { "lines......", "functions..", "branches..." };
	static const char *const nouns[] = { "lines", "functions", "branches" };
	const uint64_t hit[] = { t->lines_hit, t->functions_hit, t->branches_hit };
	const uint64_t found[] = { t->lines_found, t->functions_found, t->branches_found };
	char text[96];

	for (int k = 0; k < 3; k++) {
		hwt_format_ratio(text, sizeof(text), hit[k], found[k], nouns[k]);
		if (found[k]) {
			/* The percentage coloured, its figures not. */
			size_t pct = strcspn(text, " ");

			fprintf(out, "%s: %s: %s%.*s%s%s\n", prefix, labels[k],
				hwt_color(hwt_color_of_percent(hwt_percent(hit[k], found[k]))),
				(int)pct, text, hwt_color(hwt_color_reset), text + pct);
		} else {
			fprintf(out, "%s: %s: %s\n", prefix, labels[k], text);
		}
	}
}
