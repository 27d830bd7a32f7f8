/*
 * struct hwt_diff_coverage: the diff's lines met with the coverage files,
 * counted as diff-cover counts them: a changed line is measured when the
 * report has it (it has code), and covered when it ran; files without a
 * measured line are not listed, and with no measured line at all the
 * coverage is 100%.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwt_diffcov.h"
#include "hwt_lcov.h"

/* Per coverage file: the realpath of its path, or NULL. */
struct key {
	char *real;
};

struct coverage {
	struct hwt_diff_coverage pub;
	struct hwt_diff_file_coverage *file;
	uint32_t **not_run;
};

void hwt_diff_coverage_free(struct hwt_diff_coverage *coverage)
{
	struct coverage *c = (struct coverage *)coverage;
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->pub.count; i++)
		free(c->not_run[i]);
	free(c->not_run);
	free(c->file);
	free(c);
}

double hwt_diff_coverage_percent(size_t covered, size_t measured)
{
	return measured ? 100.0 * (double)covered / (double)measured : 100.0;
}

/* The count of line in f; *found says whether f has the line. */
static uint64_t line_in(const struct hwt_cov_file *f, uint32_t line, int *found)
{
	size_t lo = 0, hi = f->nlines;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->lines[mid].line < line)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < f->nlines && f->lines[lo].line == line;
	return *found ? f->lines[lo].count : 0;
}

/* Does coverage file i name top/path (abs), or the same file after links (real)? */
static int names(const struct hwt_cov_files *files, const struct key *keys, size_t i,
		 const char *abs, const char *real)
{
	return !strcmp(files->file[i].path, abs) ||
	       (real && keys[i].real && !strcmp(keys[i].real, real));
}

static int one_file(struct coverage *c, const struct hwt_diff *diff, size_t d,
		    const struct hwt_cov_files *files, const struct key *keys, const char *top)
{
	const char *path = hwt_diff_file_path(diff, d);
	size_t nlines, i, k, matches = 0, measured = 0, covered = 0, nnot = 0;
	const uint32_t *lines = hwt_diff_file_lines(diff, d, &nlines);
	char *abs, real[PATH_MAX];
	const char *realp;
	size_t *match;
	uint32_t *not_run;

	if (!nlines)
		return 0;
	c->pub.files_changed++;
	c->pub.changed += nlines;
	if (asprintf(&abs, "%s/%s", top, path) < 0)
		return -hdc_nomem;
	realp = realpath(abs, real);
	match = malloc((files->count ? files->count : 1) * sizeof(*match));
	not_run = malloc(nlines * sizeof(*not_run));
	if (!match || !not_run) {
		free(abs);
		free(match);
		free(not_run);
		return -hdc_nomem;
	}
	/* Usually one file; a source reached by two names (a link) twice. */
	for (i = 0; i < files->count; i++)
		if (names(files, keys, i, abs, realp))
			match[matches++] = i;
	for (k = 0; k < nlines && matches; k++) {
		uint64_t count = 0;
		int has = 0, found;

		for (i = 0; i < matches; i++) {
			count += line_in(&files->file[match[i]], lines[k], &found);
			has |= found;
		}
		if (!has)
			continue;
		measured++;
		if (count)
			covered++;
		else
			not_run[nnot++] = lines[k];
	}
	free(abs);
	if (!measured) {
		free(match);
		free(not_run);
		return 0;
	}
	c->file[c->pub.count].path = path;
	c->file[c->pub.count].source = files->file[match[0]].path;
	c->file[c->pub.count].changed = nlines;
	c->file[c->pub.count].measured = measured;
	c->file[c->pub.count].covered = covered;
	c->file[c->pub.count].not_run = not_run;
	c->not_run[c->pub.count] = not_run;
	c->pub.count++;
	c->pub.measured += measured;
	c->pub.covered += covered;
	free(match);
	return 0;
}

int hwt_diff_coverage_compute(const struct hwt_diff *diff, const struct hwt_cov_files *files,
			      const char *top, struct hwt_diff_coverage **out)
{
	size_t nfiles = hwt_diff_file_count(diff), i;
	struct coverage *c = calloc(1, sizeof(*c));
	struct key *keys = calloc(files->count ? files->count : 1, sizeof(*keys));
	char real[PATH_MAX];
	int rc = 0;

	*out = NULL;
	if (c) {
		c->file = calloc(nfiles ? nfiles : 1, sizeof(*c->file));
		c->not_run = calloc(nfiles ? nfiles : 1, sizeof(*c->not_run));
	}
	if (!c || !keys || !c->file || !c->not_run) {
		if (c) {
			free(c->file);
			free(c->not_run);
		}
		free(c);
		free(keys);
		return -hdc_nomem;
	}
	c->pub.file = c->file;
	for (i = 0; i < files->count && rc == 0; i++) {
		if (realpath(files->file[i].path, real) && !(keys[i].real = strdup(real)))
			rc = -hdc_nomem;
	}
	/* The diff's files are sorted by path: so are the ones listed. */
	for (i = 0; i < nfiles && rc == 0; i++)
		rc = one_file(c, diff, i, files, keys, top);
	for (i = 0; i < files->count; i++)
		free(keys[i].real);
	free(keys);
	if (rc < 0) {
		hwt_diff_coverage_free(&c->pub);
		return rc;
	}
	*out = &c->pub;
	return 0;
}
