/*
 * Diff coverage from git (hwt-cov --diff, hwt report diff): the lines
 * added or changed since the merge base of a revision and HEAD, taken
 * from `git diff` of that commit against the working tree (committed,
 * staged and unstaged changes: the sources the coverage was measured on),
 * met with the coverage (converters/diffcov).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "hwt_command.h"
#include "hwt_diffcov.h"

/* Runs git with argv into a temporary file, rewound; NULL with a message. */
static FILE *git_output(char *const argv[], const char *what, const char *prefix)
{
	FILE *out = tmpfile();
	int status, err;

	if (!out) {
		fprintf(stderr, "%s: cannot make a temporary file: %s\n", prefix, strerror(errno));
		return NULL;
	}
	err = hwt_command_run_output(argv, out, &status);
	if (err) {
		fprintf(stderr, "%s: cannot run git: %s\n", prefix, strerror(err));
		fclose(out);
		return NULL;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		/* git said why on stderr. */
		fprintf(stderr, "%s: git failed: %s\n", prefix, what);
		fclose(out);
		return NULL;
	}
	rewind(out);
	return out;
}

/* The first line git writes (malloc'd), or NULL with a message. */
static char *git_line(char *const argv[], const char *what, const char *prefix)
{
	FILE *out = git_output(argv, what, prefix);
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	if (!out)
		return NULL;
	n = getline(&line, &cap, out);
	fclose(out);
	if (n <= 1) {
		fprintf(stderr, "%s: git said nothing: %s\n", prefix, what);
		free(line);
		return NULL;
	}
	line[strcspn(line, "\n")] = '\0';
	return line;
}

struct report_write {
	const struct hwt_diff_coverage *coverage;
	enum hwt_diff_format format;
	const struct hwt_diff_report_options *options;
};

static int write_report(FILE *file, void *context)
{
	const struct report_write *w = context;

	return hwt_diff_coverage_write(w->coverage, w->format, w->options, file);
}

int hwt_diff_from_git(const char *rev, const char *prefix, struct hwt_diff **diffp, char **topp,
		      char **merge_basep)
{
	char *top = NULL, *base = NULL;
	struct hwt_diff *diff = NULL;
	FILE *out = NULL;
	size_t bad_line;
	int rc = -1;

	char *toplevel[] = { "git", "rev-parse", "--show-toplevel", NULL };
	char *merge_base[] = { "git", "merge-base", (char *)rev, "HEAD", NULL };
	char *diff_argv[] = { "git", "-c", "core.quotePath=false", "-c", "diff.noprefix=false",
			      "diff", "--no-color", "--no-ext-diff", "--no-textconv",
			      "--no-relative", "-U0", "--src-prefix=a/", "--dst-prefix=b/",
			      NULL /* the merge base */, "--", NULL };

	if (!rev[0] || rev[0] == '-') {
		/* git would read it as an option. */
		fprintf(stderr, "%s: '%s' is not a revision\n", prefix, rev);
		return -1;
	}
	top = git_line(toplevel, "not in a git repository?", prefix);
	if (!top)
		goto out;
	base = git_line(merge_base, "no merge base of the --diff revision and HEAD", prefix);
	if (!base)
		goto out;
	diff_argv[13] = base;
	out = git_output(diff_argv, "git diff", prefix);
	if (!out)
		goto out;
	diff = hwt_diff_alloc();
	if (!diff) {
		fprintf(stderr, "%s: out of memory\n", prefix);
		goto out;
	}
	rc = hwt_diff_read(diff, out, &bad_line);
	if (rc < 0) {
		if (bad_line)
			fprintf(stderr, "%s: git diff, line %zu: %s\n", prefix, bad_line,
				hwt_diffcov_errstr(rc));
		else
			fprintf(stderr, "%s: git diff: %s\n", prefix, hwt_diffcov_errstr(rc));
		rc = -1;
		goto out;
	}
	*diffp = diff;
	*topp = top;
	*merge_basep = base;
	diff = NULL;
	top = base = NULL;
	rc = 0;
out:
	if (out)
		fclose(out);
	hwt_diff_free(diff);
	free(base);
	free(top);
	return rc;
}

int hwt_diff_report_run(const struct hwt_cov_files *files, struct hwt_diff_report_command *how)
{
	char *top = NULL, *base = NULL;
	struct hwt_diff *diff = NULL;
	struct hwt_diff_coverage *coverage = NULL;
	struct hwt_diff_report_options options = { how->base, NULL };
	struct report_write w;
	int rc = -1;

	if (hwt_diff_from_git(how->base, how->prefix, &diff, &top, &base) < 0)
		return -1;
	options.merge_base = base;
	rc = hwt_diff_coverage_compute(diff, files, top, &coverage);
	if (rc < 0) {
		fprintf(stderr, "%s: %s\n", how->prefix, hwt_diffcov_errstr(rc));
		rc = -1;
		goto out;
	}
	how->covered = coverage->covered;
	how->measured = coverage->measured;
	how->percent = hwt_diff_coverage_percent(coverage->covered, coverage->measured);
	w.coverage = coverage;
	w.options = &options;
	if (how->output) {
		w.format = how->format >= 0 ? (enum hwt_diff_format)how->format
					    : hwt_diff_format_from_path(how->output);
		rc = hwt_command_write_file(how->output, write_report, &w, how->prefix);
	} else if (!how->quiet) {
		w.format = how->format >= 0 ? (enum hwt_diff_format)how->format : hwt_diff_text;
		rc = write_report(stderr, &w);
	} else {
		rc = 0;
	}
	if (rc < 0) {
		rc = -1;
		goto out;
	}
	rc = hwt_coverage_gate_check_diff(how->gates, how->percent, how->prefix);
out:
	hwt_diff_coverage_free(coverage);
	hwt_diff_free(diff);
	free(base);
	free(top);
	return rc;
}
