/*
 * The tests of a per-test lcov file (hwt-cov --per-test: a TN section per
 * test): `hwt report tests COVERAGE.info FILE:LINE|FUNCTION...` lists
 * the tests that ran each, with their counts; `hwt report impact --diff
 * REV COVERAGE.info` lists the tests whose coverage meets the lines
 * changed since REV, as a list, a `ctest -R` regular expression or JSON.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "hwt_command.h"
#include "hwt_diffcov.h"
#include "hwt_lcov.h"

/* One test's section: its records, read into a coverage. */
struct section {
	char *name;                  /* TN ("": outside every test) */
	char *text;                  /* its records */
	size_t size;
	FILE *out;                   /* while reading: text's stream */
	struct hwt_coverage *cov;
	struct hwt_cov_files *files;
};

struct sections {
	struct section **s;          /* each its own: its stream writes to its text and size */
	size_t count;
};

static void sections_free(struct sections *all)
{
	for (size_t i = 0; i < all->count; i++) {
		if (all->s[i]->out)
			fclose(all->s[i]->out);
		free(all->s[i]->name);
		free(all->s[i]->text);
		hwt_cov_files_free(all->s[i]->files);
		hwt_coverage_free(all->s[i]->cov);
		free(all->s[i]);
	}
	free(all->s);
	all->s = NULL;
	all->count = 0;
}

/* The section named name (added when new), or NULL when out of memory. */
static struct section *section_named(struct sections *all, const char *name)
{
	struct section **more, *s;

	for (size_t i = 0; i < all->count; i++)
		if (!strcmp(all->s[i]->name, name))
			return all->s[i];
	more = realloc(all->s, (all->count + 1) * sizeof(*more));
	if (!more)
		return NULL;
	all->s = more;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->name = strdup(name);
	s->out = open_memstream(&s->text, &s->size);
	if (!s->name || !s->out) {
		free(s->name);
		if (s->out)
			fclose(s->out);
		free(s);
		return NULL;
	}
	all->s[all->count++] = s;
	return s;
}

/* Reads the lcov file path into its sections, each read as coverage; -1 with a message. */
static int read_sections(struct sections *all, const char *path, const char *prefix)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	struct section *cur = NULL;
	char *line = NULL;
	size_t cap = 0, bad_line;
	ssize_t n;
	int rc = 0;

	if (!f) {
		fprintf(stderr, "%s: cannot read %s: %s\n", prefix, path, strerror(errno));
		return -1;
	}
	while ((n = getline(&line, &cap, f)) > 0) {
		if (!strncmp(line, "TN:", 3)) {
			char *name = strndup(line + 3, strcspn(line + 3, "\r\n"));

			cur = name ? section_named(all, name) : NULL;
			free(name);
			if (!cur) {
				rc = -hle_nomem;
				break;
			}
		} else if (!cur) {
			/* Records before any TN: a file written without tests. */
			cur = section_named(all, "");
			if (!cur) {
				rc = -hle_nomem;
				break;
			}
		}
		fwrite(line, 1, (size_t)n, cur->out);
	}
	free(line);
	if (f != stdin)
		fclose(f);
	for (size_t i = 0; i < all->count && rc == 0; i++) {
		struct section *s = all->s[i];
		FILE *text;

		fclose(s->out);
		s->out = NULL;
		s->cov = hwt_coverage_alloc();
		text = s->size ? fmemopen(s->text, s->size, "r") : NULL;
		if (!s->cov || !text) {
			if (text)
				fclose(text);
			rc = -hle_nomem;
			break;
		}
		rc = hwt_coverage_read_lcov(s->cov, text, &bad_line);
		fclose(text);
		if (rc == 0)
			rc = hwt_coverage_files(s->cov, NULL, &s->files);
		else if (rc == -hle_syntax)
			/* the section that is wrong, not the last one read */
			fprintf(stderr, "%s: %s: test %s, line %zu of its section: %s\n", prefix,
				path, s->name, bad_line, hwt_lcov_errstr(rc));
	}
	if (rc < 0 && rc != -hle_syntax)
		fprintf(stderr, "%s: %s: %s\n", prefix, path, hwt_lcov_errstr(rc));
	return rc < 0 ? -1 : 0;
}

/* Whether the report's path names the file the user wrote as want. */
static int same_file(const char *path, const char *want)
{
	size_t n = strlen(path), w = strlen(want);
	char *a, *b;
	int same;

	if (!strcmp(path, want) || (n > w && path[n - w - 1] == '/' && !strcmp(path + n - w, want)))
		return 1;
	a = realpath(path, NULL);
	b = realpath(want, NULL);
	same = a && b && !strcmp(a, b);
	free(a);
	free(b);
	return same;
}

/* What want (FILE:LINE, else FUNCTION) ran in s: its count, 0 when it did not run. */
static unsigned long long ran_in(const struct section *s, const char *want)
{
	const char *colon = strrchr(want, ':');
	char *end = NULL, *file = NULL;
	unsigned long line = colon ? strtoul(colon + 1, &end, 10) : 0;
	unsigned long long count = 0;

	if (colon && end && !*end && line > 0)
		file = strndup(want, (size_t)(colon - want));
	for (size_t i = 0; s->files && i < s->files->count; i++) {
		const struct hwt_cov_file *f = &s->files->file[i];

		if (file) {
			if (!same_file(f->path, file))
				continue;
			for (size_t k = 0; k < f->nlines; k++)
				if (f->lines[k].line == line)
					count += f->lines[k].count;
		} else {
			for (size_t k = 0; k < f->nfunctions; k++)
				if (!strcmp(f->functions[k].name, want))
					count += f->functions[k].count;
		}
	}
	free(file);
	return count;
}

static void tests_usage(FILE *out)
{
	fputs("usage: hwt report tests COVERAGE.info FILE:LINE|FUNCTION...\n"
	      "\n"
	      "The tests that ran a line or a function, with their counts (times the line\n"
	      "ran, calls of the function), from an lcov file with a section per test\n"
	      "(hwt-cov --per-test). FILE is the path of the report or its end\n"
	      "(src/calc.c); FUNCTION the name of its FN records (C++: the linkage name).\n"
	      "\n"
	      "  -h, --help                this text\n"
	      "\n"
	      "Exit status: 0 (a line or function that ran in no test is listed with\n"
	      "\"(no test)\"); 2 when the file cannot be read.\n",
	      out);
}

int hwt_report_tests_main(int argc, char **argv)
{
	static const struct option long_options[] = {
		HWT_OPTION_HELP,
		{ NULL, 0, NULL, 0 },
	};
	const char *prefix = "hwt report tests";
	struct sections all = { 0 };
	int opt, rc = HWT_EXIT_ERROR;

	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":h", long_options, NULL)) != -1) {
		rc = hwt_command_option_end(opt, 0, argv, tests_usage, prefix);
		return rc < 0 ? HWT_EXIT_ERROR : rc;
	}
	if (argc - optind < 2)
		return hwt_command_usage_error(tests_usage, prefix, "%s", optind >= argc ?
					       "which lcov file?" : "which line or function?");
	if (read_sections(&all, argv[optind], prefix) < 0)
		goto out;
	rc = 0;
	for (int a = optind + 1; a < argc; a++) {
		size_t tests = 0;

		printf("%s:\n", argv[a]);
		for (size_t i = 0; i < all.count; i++) {
			unsigned long long count = ran_in(all.s[i], argv[a]);

			if (!count)
				continue;
			printf("  %llu\t%s\n", count, all.s[i]->name[0] ? all.s[i]->name
								      : "(outside every test)");
			tests += all.s[i]->name[0] != 0;
		}
		if (!tests)
			printf("  (no test)\n");
	}
out:
	sections_free(&all);
	return rc;
}

/* ----- impact ----- */

enum impact_format { impact_list, impact_regex, impact_json };

static void impact_usage(FILE *out)
{
	fputs("usage: hwt report impact --diff REV [options] COVERAGE.info\n"
	      "\n"
	      "The tests whose coverage meets the lines added or changed since the merge\n"
	      "base of REV and HEAD (git diff to the working tree), from an lcov file with\n"
	      "a section per test (hwt-cov --per-test): the tests a change can affect.\n"
	      "\n"
	      "      --diff REV            the revision the change is measured from\n"
	      "      --format FORMAT       list (a name a line), regex (for ctest -R: lcov's\n"
	      "                            names with '.' for each '_', which matches what\n"
	      "                            lcov replaced; '^$' when there is none), or json\n"
	      "                            [list]\n"
	      "  -o, --output FILE         write it to FILE [the standard output]\n"
	      "  -h, --help                this text\n"
	      "\n"
	      "Exit status: 0; 2 when it cannot be made (no such revision, not an lcov\n"
	      "file, not in a git repository).\n",
	      out);
}

struct impact {
	const struct sections *all;
	const unsigned char *met;
	const size_t *lines;         /* changed lines that ran, per section */
	enum impact_format format;
	const char *rev, *merge_base;
};

static void json_string(FILE *file, const char *s)
{
	fputc('"', file);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(file, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(file, "\\u%04x", *s);
		else
			fputc(*s, file);
	}
	fputc('"', file);
}

static int write_impact(FILE *file, void *context)
{
	const struct impact *im = context;
	size_t n = 0, met = 0;

	for (size_t i = 0; i < im->all->count; i++)
		met += im->met[i];
	if (im->format == impact_regex && !met) {
		fputs("^$\n", file); /* no test: one that ctest -R selects none with */
		fflush(file);
		return ferror(file) ? -1 : 0;
	}
	if (im->format == impact_json) {
		fputs("{\"base\": ", file);
		json_string(file, im->rev);
		fputs(", \"merge_base\": ", file);
		json_string(file, im->merge_base);
		fputs(", \"tests\": [", file);
	} else if (im->format == impact_regex) {
		fputs("^(", file);
	}
	for (size_t i = 0; i < im->all->count; i++) {
		const char *name = im->all->s[i]->name;

		if (!im->met[i])
			continue;
		if (im->format == impact_list) {
			fprintf(file, "%s\n", name);
		} else if (im->format == impact_regex) {
			if (n)
				fputc('|', file);
			for (const char *c = name; *c; c++)
				fputc(*c == '_' ? '.' : *c, file);
		} else {
			fputs(n ? ", {\"name\": " : "{\"name\": ", file);
			json_string(file, name);
			fprintf(file, ", \"changed_lines_run\": %zu}", im->lines[i]);
		}
		n++;
	}
	if (im->format == impact_json)
		fputs("]}\n", file);
	else if (im->format == impact_regex)
		fputs(")$\n", file);
	fflush(file);
	return ferror(file) ? -1 : 0;
}

int hwt_report_impact_main(int argc, char **argv)
{
	static const struct option long_options[] = {
		{ "diff", required_argument, NULL, 'd' },
		{ "format", required_argument, NULL, 'F' },
		HWT_OPTION_OUTPUT,
		HWT_OPTION_HELP,
		{ NULL, 0, NULL, 0 },
	};
	const char *prefix = "hwt report impact", *rev = NULL, *output = "-";
	struct sections all = { 0 };
	struct hwt_diff *diff = NULL;
	char *top = NULL, *merge_base = NULL;
	unsigned char *met = NULL;
	size_t *lines = NULL;
	struct impact im = { 0 };
	int opt, rc = HWT_EXIT_ERROR;

	im.format = impact_list;
	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":o:h", long_options, NULL)) != -1) {
		switch (opt) {
		case 'd': rev = optarg; break;
		case 'o': output = optarg; break;
		case 'F':
			if (!strcmp(optarg, "list"))
				im.format = impact_list;
			else if (!strcmp(optarg, "regex"))
				im.format = impact_regex;
			else if (!strcmp(optarg, "json"))
				im.format = impact_json;
			else
				return hwt_command_usage_error(impact_usage, prefix,
							       "unknown format '%s' (known: list, regex, json)",
							       optarg);
			break;
		default:
			rc = hwt_command_option_end(opt, 0, argv, impact_usage, prefix);
			return rc < 0 ? HWT_EXIT_ERROR : rc;
		}
	}
	if (!rev || optind != argc - 1)
		return hwt_command_usage_error(impact_usage, prefix, "%s", !rev ? "--diff REV is needed" :
					       optind >= argc ? "which lcov file?" : "one lcov file at a time");
	if (read_sections(&all, argv[optind], prefix) < 0 ||
	    hwt_diff_from_git(rev, prefix, &diff, &top, &merge_base) < 0)
		goto out;
	met = calloc(all.count + 1, 1);
	lines = calloc(all.count + 1, sizeof(*lines));
	if (!met || !lines) {
		fprintf(stderr, "%s: out of memory\n", prefix);
		goto out;
	}
	for (size_t i = 0; i < all.count; i++) {
		struct hwt_diff_coverage *c = NULL;
		int err;

		if (!all.s[i]->name[0] || !all.s[i]->files)
			continue; /* outside every test: no test to run */
		err = hwt_diff_coverage_compute(diff, all.s[i]->files, top, &c);
		if (err < 0) {
			fprintf(stderr, "%s: %s\n", prefix, hwt_diffcov_errstr(err));
			goto out;
		}
		met[i] = c->covered > 0;
		lines[i] = c->covered;
		hwt_diff_coverage_free(c);
	}
	im.all = &all;
	im.met = met;
	im.lines = lines;
	im.rev = rev;
	im.merge_base = merge_base;
	rc = hwt_command_write_file(output, write_impact, &im, prefix) < 0 ? HWT_EXIT_ERROR : 0;
out:
	free(met);
	free(lines);
	hwt_diff_free(diff);
	free(top);
	free(merge_base);
	sections_free(&all);
	return rc;
}
