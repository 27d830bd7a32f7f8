/*
 * struct hwt_diff: the lines a unified diff adds, per file of its new
 * side. Hunks are read by their counts ("@@ -a,b +c,d @@"), so a removed
 * line that reads "--- x" is not taken for a file header.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "hwt_diffcov.h"

struct diff_file {
	char *path;
	uint32_t *lines;
	size_t nlines, cap;
};

struct hwt_diff {
	struct diff_file *files;
	size_t nfiles, cap;
};

struct hwt_diff *hwt_diff_alloc(void)
{
	return calloc(1, sizeof(struct hwt_diff));
}

void hwt_diff_free(struct hwt_diff *diff)
{
	size_t i;

	if (!diff)
		return;
	for (i = 0; i < diff->nfiles; i++) {
		free(diff->files[i].path);
		free(diff->files[i].lines);
	}
	free(diff->files);
	free(diff);
}

size_t hwt_diff_file_count(const struct hwt_diff *diff)
{
	return diff->nfiles;
}

const char *hwt_diff_file_path(const struct hwt_diff *diff, size_t i)
{
	return i < diff->nfiles ? diff->files[i].path : NULL;
}

const uint32_t *hwt_diff_file_lines(const struct hwt_diff *diff, size_t i, size_t *count)
{
	if (i >= diff->nfiles) {
		*count = 0;
		return NULL;
	}
	*count = diff->files[i].nlines;
	return diff->files[i].lines;
}

/*
 * The name in a "+++ " header: git's C-style quoting undone ("b/a\tb"),
 * then a tab and what follows (diff -u's time stamp) cut. malloc'd; NULL
 * when out of memory or badly quoted.
 */
static char *header_name(const char *s)
{
	size_t n = strlen(s), len = 0;
	char *out = malloc(n + 1);

	if (!out)
		return NULL;
	if (*s != '"') {
		memcpy(out, s, n + 1);
		out[strcspn(out, "\t")] = '\0';
		return out;
	}
	for (s++; *s && *s != '"'; s++) {
		if (*s != '\\') {
			out[len++] = *s;
			continue;
		}
		s++;
		switch (*s) {
		case 'a': out[len++] = '\a'; break;
		case 'b': out[len++] = '\b'; break;
		case 't': out[len++] = '\t'; break;
		case 'n': out[len++] = '\n'; break;
		case 'v': out[len++] = '\v'; break;
		case 'f': out[len++] = '\f'; break;
		case 'r': out[len++] = '\r'; break;
		case '"': case '\\': out[len++] = *s; break;
		default:
			if (s[0] >= '0' && s[0] <= '3' && s[1] >= '0' && s[1] <= '7' && s[2] >= '0' &&
			    s[2] <= '7') {
				out[len++] = (char)((s[0] - '0') * 64 + (s[1] - '0') * 8 + (s[2] - '0'));
				s += 2;
				break;
			}
			free(out);
			return NULL;
		}
	}
	if (*s != '"') {
		free(out);
		return NULL;
	}
	out[len] = '\0';
	return out;
}

/* A new file named path (taken over), or NULL when out of memory. */
static struct diff_file *file_named(struct hwt_diff *diff, char *path)
{
	struct diff_file *files, *f;

	/* A file comes once per diff; several diffs read in one go merge at the end. */
	files = hwt_grow_array(diff->files, &diff->cap, diff->nfiles + 1, sizeof(*files));
	if (!files)
		return NULL;
	diff->files = files;
	f = &files[diff->nfiles++];
	memset(f, 0, sizeof(*f));
	f->path = path;
	return f;
}

static int add_line(struct diff_file *f, uint32_t line)
{
	uint32_t *lines = hwt_grow_array(f->lines, &f->cap, f->nlines + 1, sizeof(*lines));

	if (!lines)
		return -hdc_nomem;
	f->lines = lines;
	lines[f->nlines++] = line;
	return 0;
}

/* "N" or "N,M" at *s; M is 1 when not given. */
static int range(const char **s, unsigned long *start, unsigned long *count)
{
	char *end;

	if (**s < '0' || **s > '9')
		return -1;
	errno = 0;
	*start = strtoul(*s, &end, 10);
	*count = 1;
	if (*end == ',') {
		const char *c = end + 1;

		if (*c < '0' || *c > '9')
			return -1;
		*count = strtoul(c, &end, 10);
	}
	if (errno || *start > UINT32_MAX || *count > UINT32_MAX)
		return -1;
	*s = end;
	return 0;
}

/* "@@ -a[,b] +c[,d] @@...": the new side's first line and both counts. */
static int hunk_header(const char *s, unsigned long *new_line, unsigned long *old_count,
		       unsigned long *new_count)
{
	unsigned long old_line;

	if (strncmp(s, "@@ -", 4))
		return -1;
	s += 4;
	if (range(&s, &old_line, old_count) < 0 || strncmp(s, " +", 2))
		return -1;
	s += 2;
	if (range(&s, new_line, new_count) < 0 || strncmp(s, " @@", 3))
		return -1;
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_file(const void *a, const void *b)
{
	return strcmp(((const struct diff_file *)a)->path, ((const struct diff_file *)b)->path);
}

/* Files sorted by path, each once, their lines sorted and unique. */
static int finish(struct hwt_diff *diff)
{
	size_t i, j, k, n = 0;

	if (diff->nfiles)
		qsort(diff->files, diff->nfiles, sizeof(*diff->files), cmp_file);
	for (i = 0; i < diff->nfiles; i++) {
		struct diff_file *f = &diff->files[i];

		if (n && !strcmp(diff->files[n - 1].path, f->path)) {
			struct diff_file *to = &diff->files[n - 1];

			for (k = 0; k < f->nlines; k++)
				if (add_line(to, f->lines[k]) < 0)
					return -hdc_nomem;
			free(f->path);
			free(f->lines);
			continue;
		}
		diff->files[n++] = *f;
	}
	diff->nfiles = n;
	for (i = 0; i < n; i++) {
		struct diff_file *f = &diff->files[i];

		if (f->nlines)
			qsort(f->lines, f->nlines, sizeof(*f->lines), cmp_u32);
		for (j = 0, k = 0; j < f->nlines; j++)
			if (!k || f->lines[k - 1] != f->lines[j])
				f->lines[k++] = f->lines[j];
		f->nlines = k;
	}
	return 0;
}

int hwt_diff_read(struct hwt_diff *diff, FILE *file, size_t *bad_line)
{
	struct diff_file *cur = NULL;
	unsigned long new_line = 0, old_left = 0, new_left = 0;
	size_t cap = 0, number = 0;
	char *text = NULL;
	ssize_t n;
	int rc = 0;

	if (bad_line)
		*bad_line = 0;
	if (!diff || !file)
		return -hdc_invalid;
	errno = 0;
	while ((n = getline(&text, &cap, file)) >= 0) {
		number++;
		if (n > 0 && text[n - 1] == '\n')
			text[--n] = '\0';
		if (old_left || new_left) {
			/* Inside a hunk: ' ' context, '-' removed, '+' added. */
			if (text[0] == '\\')
				continue; /* "\ No newline at end of file" */
			if ((text[0] == ' ' || text[0] == '\0') && old_left && new_left) {
				old_left--;
				new_left--;
				new_line++;
			} else if (text[0] == '-' && old_left) {
				old_left--;
			} else if (text[0] == '+' && new_left) {
				if (cur && (rc = add_line(cur, (uint32_t)new_line)) < 0)
					break;
				new_left--;
				new_line++;
			} else {
				rc = -hdc_syntax;
				break;
			}
			continue;
		}
		if (!strncmp(text, "@@@", 3)) {
			rc = -hdc_combined;
			break;
		}
		if (!strncmp(text, "@@", 2)) {
			if (hunk_header(text, &new_line, &old_left, &new_left) < 0) {
				rc = -hdc_syntax;
				break;
			}
			continue;
		}
		if (!strncmp(text, "diff --cc ", 10)) {
			rc = -hdc_combined;
			break;
		}
		if (!strncmp(text, "diff --git ", 11)) {
			cur = NULL; /* until its "+++" */
			continue;
		}
		if (!strncmp(text, "+++ ", 4)) {
			char *path = header_name(text + 4);

			if (!path) {
				rc = errno == ENOMEM ? -hdc_nomem : -hdc_syntax;
				break;
			}
			if (!strcmp(path, "/dev/null")) {
				free(path);
				cur = NULL; /* deleted */
				continue;
			}
			if (!strncmp(path, "b/", 2))
				memmove(path, path + 2, strlen(path + 2) + 1);
			cur = file_named(diff, path);
			if (!cur) {
				free(path);
				rc = -hdc_nomem;
				break;
			}
			continue;
		}
		/* Anything else between hunks: "index", "--- a/x", modes, renames,
		   "Binary files ... differ", a commit's header. */
	}
	if (rc == 0 && ferror(file))
		rc = errno == ENOMEM ? -hdc_nomem : -hdc_io;
	if (rc == 0 && (old_left || new_left))
		rc = -hdc_syntax; /* the diff ends inside a hunk */
	if (rc < 0 && rc != -hdc_nomem && rc != -hdc_io && bad_line)
		*bad_line = number;
	free(text);
	if (rc == 0)
		rc = finish(diff);
	return rc;
}
