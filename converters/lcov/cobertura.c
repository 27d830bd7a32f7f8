/*
 * Cobertura XML (coverage-04.dtd), as GitLab, Jenkins and Azure DevOps
 * read it: one package per directory (relative to the root, '/' read as
 * '.'), one class per source file with its lines; a line with conditional
 * branches says how many were taken (condition-coverage). Rates are
 * covered / valid, and 1 when there is nothing to cover, as Cobertura
 * itself says. Methods are left empty: functions are in lcov and the JSON
 * summary.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "write_text.h"
#include "hwt_lcov.h"
#include "lcov_int.h"

/* covered / valid (1 when valid is 0). */
static void write_rate(FILE *file, uint64_t covered, uint64_t valid)
{
	hwt_write_double(file, valid ? (double)covered / (double)valid : 1.0);
}

struct entry {
	const char *rel;      /* path relative to the root */
	size_t dir_len;       /* of its directory in rel (0: none) */
	size_t index;         /* in files */
};

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	size_t n = x->dir_len < y->dir_len ? x->dir_len : y->dir_len;
	int c = strncmp(x->rel, y->rel, n);

	if (c)
		return c;
	if (x->dir_len != y->dir_len)
		return x->dir_len < y->dir_len ? -1 : 1;
	return strcmp(x->rel + x->dir_len, y->rel + y->dir_len);
}

/* Same directory: 0. */
static int cmp_entry_dir(const struct entry *x, const struct entry *y)
{
	return x->dir_len != y->dir_len || strncmp(x->rel, y->rel, x->dir_len);
}

static void write_name(FILE *file, const char *s, size_t n, char from, char to)
{
	char *copy = strndup(s, n);
	char *p;

	if (!copy)
		return;
	for (p = copy; *p; p++)
		if (*p == from)
			*p = to;
	hwt_write_xml_text(file, copy);
	free(copy);
}

static void write_class(FILE *file, const struct hwt_cov_file *f, const struct entry *e)
{
	const char *base = e->rel + e->dir_len + (e->dir_len ? 1 : 0);
	size_t k, b = 0;

	fputs("        <class name=\"", file);
	write_name(file, base, strlen(base), '.', '_');
	fputs("\" filename=\"", file);
	hwt_write_xml_text(file, e->rel);
	fputs("\" line-rate=\"", file);
	write_rate(file, f->totals.lines_hit, f->totals.lines_found);
	fputs("\" branch-rate=\"", file);
	write_rate(file, f->totals.branches_hit, f->totals.branches_found);
	fputs("\" complexity=\"0\">\n          <methods/>\n          <lines>\n", file);
	for (k = 0; k < f->nlines; k++) {
		uint32_t line = f->lines[k].line;
		uint64_t taken, total = hwt_cov_line_branches(f, line, &b, &taken);

		fprintf(file, "            <line number=\"%u\" hits=\"%llu\" branch=\"%s\"", line,
			(unsigned long long)f->lines[k].count, total ? "true" : "false");
		if (total)
			fprintf(file, " condition-coverage=\"%llu%% (%llu/%llu)\"",
				(unsigned long long)(taken * 100 / total), (unsigned long long)taken,
				(unsigned long long)total);
		fputs("/>\n", file);
	}
	fputs("          </lines>\n        </class>\n", file);
}

int hwt_cov_write_cobertura(const struct hwt_cov_files *files, const char *root,
			    long long timestamp, const char *producer, FILE *file)
{
	const struct hwt_lcov_totals *t = &files->totals;
	struct entry *entries = malloc((files->count ? files->count : 1) * sizeof(*entries));
	size_t i, j, k;

	if (!entries)
		return -hle_nomem;
	for (i = 0; i < files->count; i++) {
		const char *rel = hwt_cov_relative_path(root, files->file[i].path);
		const char *slash = strrchr(rel, '/');

		entries[i].rel = rel;
		entries[i].dir_len = slash ? (size_t)(slash - rel) : 0;
		entries[i].index = i;
	}
	if (files->count)
		qsort(entries, files->count, sizeof(*entries), cmp_entry);
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	      "<!DOCTYPE coverage SYSTEM \"http://cobertura.sourceforge.net/xml/coverage-04.dtd\">\n"
	      "<coverage line-rate=\"", file);
	write_rate(file, t->lines_hit, t->lines_found);
	fputs("\" branch-rate=\"", file);
	write_rate(file, t->branches_hit, t->branches_found);
	fprintf(file, "\" lines-covered=\"%llu\" lines-valid=\"%llu\" branches-covered=\"%llu\""
		" branches-valid=\"%llu\" complexity=\"0\" version=\"",
		(unsigned long long)t->lines_hit, (unsigned long long)t->lines_found,
		(unsigned long long)t->branches_hit, (unsigned long long)t->branches_found);
	hwt_write_xml_text(file, producer ? producer : "hwt");
	fprintf(file, "\" timestamp=\"%lld\">\n  <sources>\n", timestamp);
	if (root) {
		fputs("    <source>", file);
		hwt_write_xml_text(file, root);
		fputs("</source>\n", file);
	}
	fputs("  </sources>\n  <packages>\n", file);
	for (i = 0; i < files->count; i = j) {
		struct hwt_lcov_totals p = { 0 };

		for (j = i; j < files->count && !cmp_entry_dir(&entries[i], &entries[j]); j++) {
			const struct hwt_lcov_totals *ft = &files->file[entries[j].index].totals;

			p.lines_found += ft->lines_found;
			p.lines_hit += ft->lines_hit;
			p.branches_found += ft->branches_found;
			p.branches_hit += ft->branches_hit;
		}
		fputs("    <package name=\"", file);
		write_name(file, entries[i].rel, entries[i].dir_len, '/', '.');
		fputs("\" line-rate=\"", file);
		write_rate(file, p.lines_hit, p.lines_found);
		fputs("\" branch-rate=\"", file);
		write_rate(file, p.branches_hit, p.branches_found);
		fputs("\" complexity=\"0\">\n      <classes>\n", file);
		for (k = i; k < j; k++)
			write_class(file, &files->file[entries[k].index], &entries[k]);
		fputs("      </classes>\n    </package>\n", file);
	}
	fputs("  </packages>\n</coverage>\n", file);
	free(entries);
	fflush(file);
	return ferror(file) ? -hle_io : 0;
}
