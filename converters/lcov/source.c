/*
 * A source file's text, and the coverage checked against it
 * (hwt_coverage_check_sources): a source edited since the image was built
 * gets gcov's warning ("source file is newer than notes file"), lines past
 * its end leave the report, and its exclusion markers (exclusion.c) take
 * out what lcov and gcovr take out.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grow.h"
#include "hwt_lcov.h"
#include "lcov_int.h"

int hwt_source_text_read(struct hwt_source_text *text, const char *path)
{
	/* Not blocking on a FIFO, nor reading a device or a directory forever. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), err = 0;
	size_t cap = 0, n = 0, i, k;
	struct stat st;
	FILE *f = NULL;

	memset(text, 0, sizeof(*text));
	if (fd < 0)
		return -hle_io;
	if (fstat(fd, &st) < 0)
		err = errno;
	else if (!S_ISREG(st.st_mode))
		err = EINVAL;
	else if (!(f = fdopen(fd, "rb")))
		err = errno;
	if (!f) {
		close(fd);
		errno = err;
		return -hle_io;
	}
	text->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	for (;;) {
		char *p = hwt_grow_array(text->text, &cap, n + 4096, 1);
		size_t got;

		if (!p) {
			fclose(f);
			hwt_source_text_fini(text);
			return -hle_nomem;
		}
		text->text = p;
		got = fread(text->text + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	err = ferror(f) ? errno : 0;
	fclose(f);
	if (err) {
		hwt_source_text_fini(text);
		errno = err;
		return -hle_io;
	}
	text->size = n;
	/* A last line without its newline is a line too. */
	for (i = 0, k = 0; i < n; i++)
		k += text->text[i] == '\n';
	if (n && text->text[n - 1] != '\n')
		k++;
	if (k > UINT32_MAX - 1) {
		hwt_source_text_fini(text);
		errno = EFBIG;
		return -hle_io;
	}
	text->line_start = malloc((k + 1) * sizeof(*text->line_start));
	if (!text->line_start) {
		hwt_source_text_fini(text);
		return -hle_nomem;
	}
	text->line_start[0] = text->text;
	for (i = 0, k = 1; i < n; i++)
		if (text->text[i] == '\n' && i + 1 < n)
			text->line_start[k++] = text->text + i + 1;
	text->lines = n ? (uint32_t)k : 0;
	text->line_start[text->lines] = text->text + n;
	return 0;
}

const char *hwt_source_text_line(const struct hwt_source_text *text, uint32_t line, size_t *len)
{
	if (!text->line_start || line == 0 || line > text->lines)
		return NULL;
	*len = (size_t)(text->line_start[line] - text->line_start[line - 1]);
	return text->line_start[line - 1];
}

void hwt_source_text_fini(struct hwt_source_text *text)
{
	free(text->text);
	free(text->line_start);
	memset(text, 0, sizeof(*text));
}

#define PROBLEMS_SHOWN 8

/* The markers' warnings of source i: which marker, where, what was done. */
static int warn_problems(struct hwt_coverage *cov, const char *path,
			 const struct hwt_exclusion_problem *problems, long n)
{
	long k;

	for (k = 0; k < n && k < PROBLEMS_SHOWN; k++)
		if (hwt_coverage_warn(cov, "%s:%u: %s %s", path, problems[k].line,
				      problems[k].marker, problems[k].what) < 0)
			return -hle_nomem;
	if (n > PROBLEMS_SHOWN &&
	    hwt_coverage_warn(cov, "%s: and %ld more exclusion markers that do not pair", path,
			      n - PROBLEMS_SHOWN) < 0)
		return -hle_nomem;
	return 0;
}

/* One source file: its markers, its end, its age against its image. */
static int check_source(struct hwt_coverage *cov, size_t i, int markers)
{
	struct hwt_exclusion_problem problems[PROBLEMS_SHOWN];
	const char *path = hwt_coverage_source_path(cov, i), *image;
	struct hwt_cov_excluded excluded = { 0 };
	struct hwt_source_text text;
	uint32_t last = hwt_coverage_source_last_line(cov, i);
	uint8_t *flags = NULL;
	int64_t image_mtime = 0;
	long nproblems = 0;
	int rc;

	rc = hwt_source_text_read(&text, path);
	if (rc < 0)
		return rc == -hle_nomem ? rc : 0; /* hwt_coverage_drop_unreadable's case */
	image = hwt_coverage_source_image_at(cov, i, &image_mtime);
	if (markers) {
		flags = calloc((size_t)text.lines + 1, 1);
		if (!flags) {
			hwt_source_text_fini(&text);
			return -hle_nomem;
		}
		nproblems = hwt_exclusion_scan(&text, flags, problems, PROBLEMS_SHOWN);
		if (nproblems < 0) {
			rc = (int)nproblems;
			goto out;
		}
	}
	rc = hwt_coverage_source_exclude(cov, i, flags, text.lines, &excluded);
	if (rc < 0)
		goto out;
	/* gcov says it once per source file; so does this. */
	if (last > text.lines)
		rc = hwt_coverage_warn(cov, "%s: the source file has %u line%s but %s%s names line %u: "
				       "changed since the build; %llu line%s past its end left out",
				       path, text.lines, text.lines == 1 ? "" : "s",
				       image ? "the line table of " : "the line table",
				       image ? image : "", last,
				       (unsigned long long)excluded.past_end,
				       excluded.past_end == 1 ? "" : "s");
	else if (image && text.mtime_ns > image_mtime)
		rc = hwt_coverage_warn(cov, "%s: the source file is newer than %s, built from it: "
				       "lines may not match the code", path, image);
	if (rc == 0)
		rc = warn_problems(cov, path, problems, nproblems);
out:
	free(flags);
	hwt_source_text_fini(&text);
	return rc;
}

int hwt_coverage_check_sources(struct hwt_coverage *cov, const struct hwt_lcov_filter *filter,
			       int markers)
{
	size_t i, n;
	int rc;

	if (!cov)
		return -hle_invalid;
	n = hwt_coverage_source_count(cov);
	for (i = 0; i < n; i++) {
		if (hwt_coverage_source_dropped(cov, i) ||
		    (filter && !hwt_lcov_filter_match(filter, hwt_coverage_source_path(cov, i))))
			continue;
		rc = check_source(cov, i, markers);
		if (rc < 0)
			return rc;
	}
	return 0;
}
