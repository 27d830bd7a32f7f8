/*
 * The diff coverage report: text (a CI log), Markdown (a pull request's
 * comment) and JSON. Percentages in text and Markdown are truncated to
 * one decimal (99.9 until every line ran); JSON has the counts and the
 * exact share.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "hwt_diffcov.h"
#include "write_text.h"

static const char *const format_names[] = {
	[hwt_diff_text] = "text",
	[hwt_diff_markdown] = "markdown",
	[hwt_diff_json] = "json",
};

#define NFORMATS (sizeof(format_names) / sizeof(format_names[0]))

int hwt_diff_format_from_name(const char *name)
{
	size_t i;

	for (i = 0; i < NFORMATS; i++)
		if (!strcmp(format_names[i], name))
			return (int)i;
	return -1;
}

enum hwt_diff_format hwt_diff_format_from_path(const char *path)
{
	size_t n = strlen(path);

	if (n >= 3 && !strcasecmp(path + n - 3, ".md"))
		return hwt_diff_markdown;
	if (n >= 5 && !strcasecmp(path + n - 5, ".json"))
		return hwt_diff_json;
	return hwt_diff_text;
}

/* covered of measured in percent, truncated to a tenth: "83.3%", at least width wide. */
static void write_percent_width(FILE *file, size_t covered, size_t measured, int width)
{
	uint64_t tenths = measured ? (uint64_t)covered * 1000 / measured : 1000;
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu.%llu%%", (unsigned long long)(tenths / 10),
		 (unsigned long long)(tenths % 10));
	fprintf(file, "%*s", width, buf);
}

static void write_percent(FILE *file, size_t covered, size_t measured)
{
	write_percent_width(file, covered, measured, 0);
}

/* "12, 14-16" */
static void write_ranges(FILE *file, const uint32_t *lines, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i = j + 1) {
		for (j = i; j + 1 < n && lines[j + 1] == lines[j] + 1; j++)
			;
		fprintf(file, "%s%u", i ? ", " : "", lines[i]);
		if (j > i)
			fprintf(file, "-%u", lines[j]);
	}
}

static const char *plural(size_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

static void write_text(const struct hwt_diff_coverage *c, const struct hwt_diff_report_options *o,
		       FILE *file)
{
	size_t i, width = 0;

	fputs("Diff coverage", file);
	if (o->base)
		fprintf(file, " since %s", o->base);
	if (o->merge_base)
		fprintf(file, " (merge base %.12s)", o->merge_base);
	fputs(":\n", file);
	for (i = 0; i < c->count; i++)
		if (strlen(c->file[i].path) > width)
			width = strlen(c->file[i].path);
	for (i = 0; i < c->count; i++) {
		const struct hwt_diff_file_coverage *f = &c->file[i];

		fprintf(file, "  %-*s ", (int)width, f->path);
		write_percent_width(file, f->covered, f->measured, 7);
		fprintf(file, "  %zu of %zu %s", f->covered, f->measured,
			plural(f->measured, "line", "lines"));
		if (f->measured > f->covered) {
			fputs("; not run: ", file);
			write_ranges(file, f->not_run, f->measured - f->covered);
		}
		fputc('\n', file);
	}
	if (!c->measured)
		fprintf(file, "  no changed line has code in the report (%zu %s changed in %zu %s)\n",
			c->changed, plural(c->changed, "line", "lines"), c->files_changed,
			plural(c->files_changed, "file", "files"));
	fputs("Total: ", file);
	write_percent(file, c->covered, c->measured);
	fprintf(file, " (%zu of %zu changed %s with code ran; %zu %s changed in %zu %s)\n",
		c->covered, c->measured, plural(c->measured, "line", "lines"), c->changed,
		plural(c->changed, "line", "lines"), c->files_changed,
		plural(c->files_changed, "file", "files"));
}

static void write_markdown(const struct hwt_diff_coverage *c,
			   const struct hwt_diff_report_options *o, FILE *file)
{
	size_t i;

	fputs("## Diff coverage: ", file);
	write_percent(file, c->covered, c->measured);
	fputs("\n\n", file);
	fprintf(file, "%zu of the %zu %s with code that this change adds or modifies ran",
		c->covered, c->measured, plural(c->measured, "line", "lines"));
	if (o->base) {
		fputs(" (since `", file);
		fputs(o->base, file);
		fputc('`', file);
		if (o->merge_base)
			fprintf(file, ", merge base `%.12s`", o->merge_base);
		fputc(')', file);
	}
	fprintf(file, "; %zu %s changed in %zu %s.\n", c->changed, plural(c->changed, "line", "lines"),
		c->files_changed, plural(c->files_changed, "file", "files"));
	if (!c->count)
		return;
	fputs("\n| File | Coverage | Lines run | Not run |\n|:--|--:|--:|:--|\n", file);
	for (i = 0; i < c->count; i++) {
		const struct hwt_diff_file_coverage *f = &c->file[i];

		fputs("| ", file);
		hwt_write_markdown_text(file, f->path);
		fputs(" | ", file);
		write_percent(file, f->covered, f->measured);
		fprintf(file, " | %zu / %zu | ", f->covered, f->measured);
		write_ranges(file, f->not_run, f->measured - f->covered);
		fputs(" |\n", file);
	}
	fputs("| **Total** | **", file);
	write_percent(file, c->covered, c->measured);
	fprintf(file, "** | %zu / %zu | |\n", c->covered, c->measured);
}

static void write_json_string_or_null(FILE *file, const char *s)
{
	if (s)
		hwt_write_json_string(file, s);
	else
		fputs("null", file);
}

static void write_json(const struct hwt_diff_coverage *c, const struct hwt_diff_report_options *o,
		       FILE *file)
{
	size_t i, k;

	fputs("{\n  \"base\": ", file);
	write_json_string_or_null(file, o->base);
	fputs(",\n  \"merge_base\": ", file);
	write_json_string_or_null(file, o->merge_base);
	fputs(",\n  \"files\": [", file);
	for (i = 0; i < c->count; i++) {
		const struct hwt_diff_file_coverage *f = &c->file[i];

		fputs(i ? ",\n    {\n      \"path\": " : "\n    {\n      \"path\": ", file);
		hwt_write_json_string(file, f->path);
		fputs(",\n      \"source\": ", file);
		hwt_write_json_string(file, f->source);
		fprintf(file, ",\n      \"lines_changed\": %zu,\n      \"lines_measured\": %zu,\n"
			"      \"lines_covered\": %zu,\n      \"percent_covered\": ",
			f->changed, f->measured, f->covered);
		hwt_write_double(file, hwt_diff_coverage_percent(f->covered, f->measured));
		fputs(",\n      \"lines_not_run\": [", file);
		for (k = 0; k < f->measured - f->covered; k++)
			fprintf(file, "%s%u", k ? ", " : "", f->not_run[k]);
		fputs("]\n    }", file);
	}
	fprintf(file, "%s,\n  \"files_changed\": %zu,\n  \"lines_changed\": %zu,\n"
		"  \"lines_measured\": %zu,\n  \"lines_covered\": %zu,\n  \"percent_covered\": ",
		c->count ? "\n  ]" : "]", c->files_changed, c->changed, c->measured, c->covered);
	hwt_write_double(file, hwt_diff_coverage_percent(c->covered, c->measured));
	fputs("\n}\n", file);
}

int hwt_diff_coverage_write(const struct hwt_diff_coverage *coverage,
			    enum hwt_diff_format format,
			    const struct hwt_diff_report_options *options, FILE *file)
{
	static const struct hwt_diff_report_options none;
	const struct hwt_diff_report_options *o = options ? options : &none;

	if (!coverage || !file)
		return -hdc_invalid;
	switch (format) {
	case hwt_diff_text: write_text(coverage, o, file); break;
	case hwt_diff_markdown: write_markdown(coverage, o, file); break;
	case hwt_diff_json: write_json(coverage, o, file); break;
	default: return -hdc_invalid;
	}
	fflush(file);
	return ferror(file) ? -hdc_io : 0;
}
