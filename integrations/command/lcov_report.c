/*
 * hwt_lcov_report, shared by `hwt report lcov` and hwt-cov: decode the
 * bundle into a profile, add every image's executed instructions to the
 * coverage (converters/lcov), write every -o in its format, run genhtml,
 * print the warnings and a summary, report the diff coverage, check the
 * gates.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hwt_command.h"
#include "hwt_spe_profile.h"
#include "hwt_decode.h"
#include "hwt_lcov.h"
#include "hwt_stacks.h"
#include "hwt_test_calls.h"
#include "profile.h"

/* Whether program is an executable file in a directory of $PATH. */
static int in_path(const char *program)
{
	const char *path = getenv("PATH"), *p, *colon;
	char buf[4096];

	for (p = path; p && *p; p = *colon ? colon + 1 : colon) {
		colon = strchr(p, ':');
		if (!colon)
			colon = p + strlen(p);
		if (colon > p && snprintf(buf, sizeof(buf), "%.*s/%s", (int)(colon - p), p,
					  program) < (int)sizeof(buf) &&
		    access(buf, X_OK) == 0)
			return 1;
	}
	return 0;
}

/*
 * Runs genhtml on the lcov file; returns its exit status (127: not run), or
 * -1. FN records name C++ functions by their mangled names, as gcov's lcov
 * does: genhtml demangles them with c++filt when there is one.
 */
static int run_genhtml(const char *info, const char *dir, int details, const char *prefix)
{
	char *argv[] = { "genhtml", "--quiet", "--branch-coverage", "--function-coverage",
			 "-o", (char *)dir, (char *)info, NULL, NULL, NULL };
	int status, err;

	if (in_path("c++filt")) {
		memmove(&argv[2], &argv[1], 6 * sizeof(*argv));
		argv[1] = "--demangle-cpp";
	}
	/* Per test: each line's tests, as genhtml lists them. */
	if (details) {
		memmove(&argv[2], &argv[1], 7 * sizeof(*argv));
		argv[1] = "--show-details";
	}
	err = hwt_command_run(argv, 0, &status);

	if (err) {
		fprintf(stderr, "%s: cannot run genhtml: %s\n", prefix, strerror(err));
		return 127;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* --per-test: the coverage of each test, and of the code outside every test. */
struct per_test {
	struct hwt_test_split split;
	struct hwt_profile **profiles;   /* split.count + 1: the last is outside every test */
	struct hwt_coverage **covs;      /* the same */
	struct hwt_cov_files **files;    /* the same (their names are the covs') */
	char **tn;                       /* their lcov TN: \W as '_', as lcov has it; "" outside */
	struct hwt_cov_test *list;       /* the same, for the formats that carry tests */
	size_t slots;                    /* what each array above holds */
};

/*
 * Room for @slots groups in each of t's arrays, the new ones zeroed: 0, or
 * -1 when out of memory (t->slots unchanged: per_test_fini reads no more).
 */
static int per_test_grow(struct per_test *t, size_t slots)
{
	void *p;

	if (!(p = realloc(t->profiles, slots * sizeof(*t->profiles))))
		return -1;
	t->profiles = p;
	if (!(p = realloc(t->covs, slots * sizeof(*t->covs))))
		return -1;
	t->covs = p;
	if (!(p = realloc(t->files, slots * sizeof(*t->files))))
		return -1;
	t->files = p;
	if (!(p = realloc(t->tn, slots * sizeof(*t->tn))))
		return -1;
	t->tn = p;
	if (!(p = realloc(t->list, slots * sizeof(*t->list))))
		return -1;
	t->list = p;
	for (size_t g = t->slots; g < slots; g++) {
		t->profiles[g] = NULL;
		t->covs[g] = NULL;
		t->files[g] = NULL;
		t->tn[g] = NULL;
		memset(&t->list[g], 0, sizeof(t->list[g]));
	}
	t->slots = slots;
	return 0;
}

/* What one -o writes. */
struct output_write {
	const struct hwt_cov_files *files;
	enum hwt_cov_format format;
	const struct hwt_cov_write_options *options;
	const struct per_test *tests;    /* lcov: a section each, JSON: a test each; NULL: none */
};

static int write_output(FILE *file, void *context)
{
	const struct output_write *w = context;
	struct hwt_cov_write_options how = { 0 };

	if (w->options)
		how = *w->options;
	if (w->tests) {
		how.tests = w->tests->list;
		how.ntests = w->tests->split.count + 1;
	}
	return hwt_cov_files_write(w->files, w->format, &how, file);
}

/* The default output of a format, when no -o is given. */
static const char *default_output(enum hwt_cov_format format)
{
	switch (format) {
	case hwt_cov_lcov: return HWT_LCOV_REPORT_DEFAULT_OUTPUT;
	case hwt_cov_cobertura: return "hwt-cov.xml";
	case hwt_cov_json_summary: return "hwt-cov.json";
	case hwt_cov_sonarqube: return "hwt-cov.sonarqube.xml";
	}
	return HWT_LCOV_REPORT_DEFAULT_OUTPUT;
}

/* The outputs, a --format after the last -o applied: into out (room for noutputs + 1). */
static size_t resolve_outputs(const struct hwt_lcov_report_options *o, struct hwt_cov_output *out)
{
	size_t n = o->noutputs;

	memcpy(out, o->outputs, n * sizeof(*out));
	if (n == 0) {
		out[0].format = o->next_format >= 0 ? o->next_format : hwt_cov_lcov;
		out[0].path = default_output((enum hwt_cov_format)out[0].format);
		out[0].format_given = o->next_format >= 0;
		return 1;
	}
	if (o->next_format >= 0 && !out[n - 1].format_given) {
		out[n - 1].format = o->next_format;
		out[n - 1].format_given = 1;
	}
	return n;
}

/*
 * The directory the XML and JSON formats name files from: --root (made
 * absolute), else the current directory as the compilers name it ($PWD
 * when it is this directory, as gcc's DW_AT_comp_dir has it). malloc'd.
 */
static char *root_dir(const char *root)
{
	const char *pwd = getenv("PWD");
	struct stat a, b;

	if (root)
		return root[0] == '/' ? strdup(root) : realpath(root, NULL);
	if (pwd && pwd[0] == '/' && stat(pwd, &a) == 0 && stat(".", &b) == 0 &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		return strdup(pwd);
	return getcwd(NULL, 0);
}

/* Cobertura's time stamp: $SOURCE_DATE_EPOCH (reproducible builds), else now. */
static long long timestamp(void)
{
	const char *epoch = getenv("SOURCE_DATE_EPOCH");
	char *end;
	long long t;

	if (epoch && *epoch) {
		t = strtoll(epoch, &end, 10);
		if (!*end)
			return t;
	}
	return (long long)time(NULL);
}

/* genhtml's input: the first lcov output, else a temporary lcov file (*tmp to remove). */
static const char *html_input(const struct hwt_cov_output *outputs, size_t n,
			      const struct hwt_cov_files *files, const struct per_test *tests,
			      char **tmp, const char *prefix)
{
	const char *dir = getenv("TMPDIR");
	struct output_write w = { files, hwt_cov_lcov, NULL, tests };
	size_t i;
	int fd;

	for (i = 0; i < n; i++)
		if (outputs[i].format == hwt_cov_lcov && strcmp(outputs[i].path, "-"))
			return outputs[i].path;
	if (asprintf(tmp, "%s/hwt-cov.XXXXXX.info", dir && *dir ? dir : "/tmp") < 0) {
		*tmp = NULL;
		return NULL;
	}
	fd = mkstemps(*tmp, 5);
	if (fd < 0) {
		fprintf(stderr, "%s: cannot make a temporary file for genhtml: %s\n", prefix,
			strerror(errno));
		free(*tmp);
		*tmp = NULL;
		return NULL;
	}
	close(fd);
	if (hwt_command_write_file(*tmp, write_output, &w, prefix) < 0) {
		unlink(*tmp);
		free(*tmp);
		*tmp = NULL;
		return NULL;
	}
	return *tmp;
}

int hwt_lcov_report_check_outputs(const struct hwt_lcov_report_options *options)
{
	struct hwt_cov_output *outputs = malloc((options->noutputs + 1) * sizeof(*outputs));
	const char *prefix = options->prefix ? options->prefix : "hwt report lcov";
	size_t n, i;
	int rc = 0;

	if (!outputs)
		return 0; /* out of memory: the report will tell */
	n = resolve_outputs(options, outputs);
	for (i = 0; i < n; i++)
		if (hwt_command_check_output(outputs[i].path, prefix) < 0)
			rc = -1;
	if (options->html && hwt_command_check_output_dir(options->html, prefix) < 0)
		rc = -1;
	if (options->diff_output && hwt_command_check_output(options->diff_output, prefix) < 0)
		rc = -1;
	free(outputs);
	return rc;
}

/*
 * Writes every output, the HTML and the diff report of files; 0, gate bits,
 * or HWT_EXIT_ERROR. Only an output that was written is said to be.
 */
/* sampled: NULL, or what the counts were sampled from (the SPE samples):
   the lcov test name and the summary say so. */
static int write_reports(const struct hwt_cov_files *files, const struct per_test *tests,
			 const struct hwt_lcov_report_options *options, const char *prefix,
			 const char *sampled)
{
	struct hwt_cov_output *outputs = malloc((options->noutputs + 1) * sizeof(*outputs));
	unsigned char *written = calloc(options->noutputs + 1, 1);
	struct hwt_cov_write_options how = { .timestamp = timestamp(),
					     .producer = "hwt " HWT_VERSION };
	struct hwt_diff_report_command diff = { 0 };
	struct output_write w = { files, hwt_cov_lcov, &how, tests };
	char *root = root_dir(options->root), *tmp = NULL;
	const char *info;
	size_t n = 0, i;
	int ret = 0, rc;

	if (!outputs || !written || !root) {
		fprintf(stderr, "%s: %s\n", prefix,
			outputs && written ? "cannot find the --root directory" : "out of memory");
		ret = HWT_EXIT_ERROR;
		goto out;
	}
	how.root = root;
	if (sampled)
		how.test_name = "spe_sampled";
	n = resolve_outputs(options, outputs);
	for (i = 0; i < n; i++) {
		w.format = (enum hwt_cov_format)outputs[i].format;
		if (hwt_command_write_file(outputs[i].path, write_output, &w, prefix) < 0)
			ret = HWT_EXIT_ERROR;
		else
			written[i] = 1;
	}
	if (files->totals.files == 0)
		fprintf(stderr, "%s: %swarning:%s no source file with debug info%s ran: %s%s empty\n",
			prefix, hwt_color(hwt_color_warning), hwt_color(hwt_color_reset),
			options->filter.includes || options->filter.excludes ?
			" passed the filters" : "", n == 1 ? outputs[0].path : "the reports",
			n == 1 ? " is" : " are");
	if (!options->common.quiet) {
		/* The table first (a CI log too), the totals last, where the eye ends. */
		if (!options->summary_only && files->count &&
		    hwt_summary_table_print(stderr, files, root) < 0)
			fprintf(stderr, "%s: out of memory: no table of files\n", prefix);
		hwt_summary_totals_print(stderr, &files->totals, prefix);
		if (sampled)
			fprintf(stderr, "%s: %swarning:%s SAMPLED coverage, from %s: a line or branch "
				"without a sample may still have run (not 'not run')\n", prefix,
				hwt_color(hwt_color_warning), hwt_color(hwt_color_reset), sampled);
		for (i = 0; i < n; i++)
			if (written[i] && strcmp(outputs[i].path, "-"))
				fprintf(stderr, "%s: wrote %s (%s%s%llu %s)\n", prefix,
					outputs[i].path,
					outputs[i].format == hwt_cov_lcov ? "" :
					hwt_cov_format_name((enum hwt_cov_format)outputs[i].format),
					outputs[i].format == hwt_cov_lcov ? "" : ", ",
					(unsigned long long)files->totals.files,
					hwt_noun(files->totals.files, "source file", "source files"));
	}
	if (options->html && files->totals.files) {
		info = html_input(outputs, n, files, tests, &tmp, prefix);
		rc = info ? run_genhtml(info, options->html, tests != NULL, prefix) : -1;
		if (tmp)
			unlink(tmp);
		if (rc != 0) {
			fprintf(stderr, "%s: genhtml failed (status %d): no HTML report in %s\n", prefix,
				rc, options->html);
			ret = HWT_EXIT_ERROR;
		} else if (!options->common.quiet) {
			fprintf(stderr, "%s: HTML report in %s/index.html\n", prefix, options->html);
		}
	}
	if (options->diff_base) {
		diff.base = options->diff_base;
		diff.output = options->diff_output;
		diff.format = -1;
		diff.quiet = options->common.quiet;
		diff.gates = &options->gates;
		diff.prefix = prefix;
		rc = hwt_diff_report_run(files, &diff);
		if (rc < 0)
			ret = HWT_EXIT_ERROR;
		else
			ret |= rc;
		/* Truncated to a tenth, as the diff report says it. */
		if (rc >= 0 && !options->common.quiet && !diff.measured)
			fprintf(stderr, "%s: diff.......: no changed lines with code\n", prefix);
		else if (rc >= 0 && !options->common.quiet)
			fprintf(stderr, "%s: diff.......: %.1f%% (%zu of %zu changed lines with code)\n",
				prefix, floor(diff.percent * 10) / 10, diff.covered, diff.measured);
	}
	ret |= hwt_coverage_gates_check(&options->gates, &files->totals, prefix);
out:
	free(tmp);
	free(root);
	free(written);
	free(outputs);
	/* No report: HWT_EXIT_ERROR alone, whatever the gates say. */
	return ret & HWT_EXIT_ERROR ? HWT_EXIT_ERROR : ret;
}

/* Whether the shell-quoted command line runs ctest. */
static int runs_ctest(const char *command)
{
	size_t n = strcspn(command, " \t'\"");
	const char *base = command;

	for (size_t i = 0; i < n; i++)
		if (command[i] == '/')
			base = command + i + 1;
	return command + n - base == 5 && !strncmp(base, "ctest", 5);
}

/* The tests of the bundle in dir, and a profile for each: 0, or -1 (said). */
static int per_test_split(struct per_test *t, const char *dir,
			  const struct hwt_lcov_report_options *options, const char *prefix)
{
	struct hwt_ctest_list ctest = { 0 };
	struct hwt_bundle *bundle = hwt_command_open_bundle(dir, stderr, prefix);
	const char *command = bundle ? hwt_bundle_key(bundle, "command") : NULL;
	regex_t re;
	int rc, have_ctest = 0, have_re = 0;

	if (!bundle)
		return -1;
	/* No list (ctest failed, said): the tests are named by their command lines. */
	if (command && runs_ctest(command) && !options->test_name)
		have_ctest = hwt_ctest_list_run(&ctest, command, prefix) == 0;
	if (options->test_name)
		have_re = regcomp(&re, options->test_name, REG_EXTENDED) == 0;
	rc = hwt_test_split_find(&t->split, bundle, have_ctest ? &ctest : NULL,
				 have_re ? &re : NULL);
	if (have_re)
		regfree(&re);
	hwt_ctest_list_fini(&ctest);
	hwt_bundle_free(bundle);
	if (rc < 0)
		goto nomem;
	if (per_test_grow(t, t->split.count + 1) < 0)
		goto nomem;
	for (size_t g = 0; g <= t->split.count; g++) {
		t->profiles[g] = hwt_profile_alloc();
		t->tn[g] = strdup(g < t->split.count ? t->split.names[g] : "");
		if (!t->profiles[g] || !t->tn[g])
			goto nomem;
		for (char *c = t->tn[g]; *c; c++)
			if (!isalnum((unsigned char)*c) && *c != '_')
				*c = '_';
	}
	return 0;
nomem:
	fprintf(stderr, "%s: out of memory\n", prefix);
	return -1;
}

/* Each test's coverage (its warnings are the whole run's, said once): 0 or -1 (said). */
static int per_test_coverage(struct per_test *t, const struct hwt_lcov_report_options *options,
			     const struct hwt_lcov_profile_options *images, const char *prefix)
{
	struct hwt_lcov_profile_options quiet = *images;
	int rc = 0;

	quiet.verbose = 0;
	for (size_t g = 0; g <= t->split.count && rc == 0; g++) {
		struct hwt_coverage *cov = t->covs[g] = hwt_coverage_alloc();

		rc = cov ? hwt_coverage_add_profile(cov, t->profiles[g], &quiet, NULL) : -hle_nomem;
		if (rc == 0) {
			hwt_coverage_drop_unreadable(cov, &options->filter);
			rc = hwt_coverage_check_sources(cov, &options->filter, !options->no_markers);
		}
		if (rc == 0)
			rc = hwt_coverage_files(cov, &options->filter, &t->files[g]);
		if (rc == 0) {
			t->list[g].name = g < t->split.count ? t->split.names[g] : NULL;
			t->list[g].tn = t->tn[g];
			t->list[g].files = t->files[g];
		}
	}
	if (rc < 0)
		fprintf(stderr, "%s: %s\n", prefix, hwt_lcov_errstr(rc));
	return rc < 0 ? -1 : 0;
}

/*
 * --per-test inside processes: the ordered flow to a struct hwt_test_calls
 * when a traced program holds a test function (the per-process split
 * alone, as fast as before, when none does). NULL: none, or out of memory
 * (*failed set, said).
 */
static struct hwt_test_calls *in_process_calls(const struct per_test *t,
					       const struct hwt_lcov_report_options *options,
					       struct hwt_stacks_symbols *symbols, int *failed,
					       const char *prefix)
{
	struct hwt_test_calls_options how = { 0 };
	struct hwt_test_calls *calls;
	size_t i;

	*failed = 0;
	for (i = 0; i < t->split.nprograms; i++)
		if (hwt_test_calls_in_file(t->split.programs[i], options->test_functions))
			break;
	if (i == t->split.nprograms)
		return NULL;
	how.functions = options->test_functions;
	how.image_test = t->split.image_test;
	how.images = t->split.images;
	how.process_tests = t->split.count;
	calls = symbols ? hwt_test_calls_alloc(symbols, &how) : NULL;
	if (!calls) {
		fprintf(stderr, "%s: out of memory\n", prefix);
		*failed = 1;
	}
	return calls;
}

/* The FN record of function in files: its file (NULL: none) and *line. */
static const char *function_line(const struct hwt_cov_files *files, const char *function,
				 uint32_t *line)
{
	for (size_t f = 0; files && f < files->count; f++)
		for (size_t k = 0; k < files->file[f].nfunctions; k++)
			if (!strcmp(files->file[f].functions[k].name, function)) {
				*line = files->file[f].functions[k].line;
				return files->file[f].path;
			}
	return NULL;
}

/* Lines line..line+2 of the source file path, joined, into buf ("" when unreadable). */
static void source_lines(const char *path, uint32_t line, char *buf, size_t size)
{
	FILE *f = path ? fopen(path, "r") : NULL;
	char text[1024];
	uint32_t n = 0;

	buf[0] = 0;
	while (f && n < line + 2 && fgets(text, sizeof(text), f)) {
		size_t len = strlen(text);

		if (len && text[len - 1] == '\n')
			n++;
		if (n >= line && n <= line + 2 && strlen(buf) + len < size)
			strcat(buf, text);
	}
	if (f)
		fclose(f);
}

/* The identifier at *p (after blanks) into id, *p past it: its length (0: none). */
static size_t take_identifier(const char **p, char *id, size_t size)
{
	size_t n = 0;

	while (isspace((unsigned char)**p))
		(*p)++;
	while ((isalnum((unsigned char)**p) || **p == '_') && n + 1 < size)
		id[n++] = *(*p)++;
	id[n] = 0;
	while (isspace((unsigned char)**p))
		(*p)++;
	return n;
}

/*
 * GoogleTest's name of the test whose class is Suite_Name_Test (cls:
 * "Suite_Name"), from its TEST(Suite, Name), TEST_F or TEST_P at the
 * source line of TestBody (an underscore in Suite or Name makes the class
 * name ambiguous): "Suite.Name" into name. 0, or -1 when the line says
 * nothing of it.
 */
static int gtest_name(const char *source, const char *cls, char *name, size_t size)
{
	for (const char *p = strstr(source, "TEST"); p; p = strstr(p + 1, "TEST")) {
		const char *q = p + 4;
		char suite[256], test[256];

		if (p > source && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
			continue;
		if (*q == '_' && (q[1] == 'F' || q[1] == 'P'))
			q += 2;
		while (isspace((unsigned char)*q))
			q++;
		if (*q++ != '(' || !take_identifier(&q, suite, sizeof(suite)) || *q++ != ',' ||
		    !take_identifier(&q, test, sizeof(test)) || *q != ')')
			continue;
		if (strlen(suite) + 1 + strlen(test) != strlen(cls) ||
		    strncmp(cls, suite, strlen(suite)) || cls[strlen(suite)] != '_' ||
		    strcmp(cls + strlen(suite) + 1, test))
			continue;
		snprintf(name, size, "%s.%s", suite, test);
		return 0;
	}
	return -1;
}

/* Catch2's name of a TEST_CASE("name", ...) (SCENARIO: "Scenario: name"): 0, or -1. */
static int catch2_name(const char *source, char *name, size_t size)
{
	const char *q = strchr(source, '"'), *scenario = strstr(source, "SCENARIO");
	size_t n = 0, at;

	if (!q)
		return -1;
	at = (size_t)snprintf(name, size, "%s", scenario && scenario < q ? "Scenario: " : "");
	for (q++; *q && *q != '"' && at + n + 1 < size; q++) {
		if (*q == '\\' && q[1])
			q++;
		name[at + n++] = *q;
	}
	name[at + n] = 0;
	return *q == '"' ? 0 : -1;
}

/* The test's name as its framework prints it, into name. */
static void test_call_name(const struct hwt_test_call *call, const struct hwt_cov_files *files,
			   char *name, size_t size)
{
	char source[3 * 1024];
	uint32_t line = 0;
	const char *path = NULL;

	if (call->framework == hwt_test_gtest || call->framework == hwt_test_catch2)
		path = function_line(files, call->function, &line);
	source_lines(path, line, source, sizeof(source));
	if (call->framework == hwt_test_gtest && gtest_name(source, call->name, name, size) < 0) {
		/* Unreadable source: the class's first '_' taken for the '.'. */
		char *u;

		snprintf(name, size, "%s", call->name);
		u = strchr(name, '_');
		if (u)
			*u = '.';
		return;
	}
	if (call->framework == hwt_test_gtest ||
	    (call->framework == hwt_test_catch2 && catch2_name(source, name, size) == 0))
		return;
	snprintf(name, size, "%s", call->name);
}

/* A test inside a process, by its name (then by the order it was found). */
struct named_call {
	char *name;
	size_t k;
};

static int named_call_cmp(const void *pa, const void *pb)
{
	const struct named_call *a = pa, *b = pb;
	int c = strcmp(a->name, b->name);

	return c ? c : (a->k > b->k) - (a->k < b->k);
}

/*
 * The tests inside processes into t, after its process tests (a name
 * already there is the same test), named from files (the whole run's), in
 * the order of their names: a parallel decode finds them in an order of
 * its threads' making. 0, or -1 when out of memory (said).
 */
static int per_test_add_calls(struct per_test *t, const struct hwt_test_calls *calls,
			      const struct hwt_cov_files *files, const char *prefix)
{
	size_t before = t->split.count, n = hwt_test_calls_count(calls);
	int32_t *group = calloc(n + 1, sizeof(*group));
	struct named_call *named = calloc(n + 1, sizeof(*named));
	struct hwt_profile *outside = t->profiles[before];
	char *outside_tn = t->tn[before];
	char name[1024];
	int rc = -1;

	if (!group || !named)
		goto out;
	for (size_t k = 0; k < n; k++) {
		test_call_name(hwt_test_calls_at(calls, k), files, name, sizeof(name));
		named[k].k = k;
		if (!(named[k].name = strdup(name)))
			goto out;
	}
	qsort(named, n, sizeof(*named), named_call_cmp);
	for (size_t i = 0; i < n; i++) {
		size_t k = named[i].k;

		group[k] = hwt_test_split_name(&t->split, named[i].name, strlen(named[i].name));
		if (group[k] < 0)
			goto out;
	}
	/* Room for the new tests; outside every test moves to the last slot. */
	if (per_test_grow(t, t->split.count + 1) < 0)
		goto out;
	t->profiles[before] = NULL;
	t->tn[before] = NULL;
	t->profiles[t->split.count] = outside;
	t->tn[t->split.count] = outside_tn;
	for (size_t g = before; g < t->split.count; g++) {
		t->profiles[g] = hwt_profile_alloc();
		t->tn[g] = strdup(t->split.names[g]);
		if (!t->profiles[g] || !t->tn[g])
			goto out;
		for (char *c = t->tn[g]; *c; c++)
			if (!isalnum((unsigned char)*c) && *c != '_')
				*c = '_';
	}
	for (size_t k = 0; k < n; k++) {
		const struct hwt_profile *from = hwt_test_calls_profile(calls, before + 1 + k);

		if (from && hwt_profile_merge(t->profiles[group[k]], from) < 0)
			goto out;
	}
	rc = 0;
out:
	if (rc < 0)
		fprintf(stderr, "%s: out of memory\n", prefix);
	for (size_t k = 0; named && k < n; k++)
		free(named[k].name);
	free(named);
	free(group);
	return rc;
}

static void per_test_fini(struct per_test *t)
{
	for (size_t g = 0; g < t->slots; g++) {
		hwt_profile_free(t->profiles[g]);
		hwt_cov_files_free(t->files[g]);
		hwt_coverage_free(t->covs[g]);
		free(t->tn[g]);
	}
	free(t->profiles);
	free(t->files);
	free(t->covs);
	free(t->tn);
	free(t->list);
	hwt_test_split_fini(&t->split);
}

/* The coverage's warnings, as they come: context is the prefix. */
static void print_warning(void *context, const char *message)
{
	fprintf(stderr, "%s: %swarning:%s %s\n", (const char *)context, hwt_color(hwt_color_warning),
		hwt_color(hwt_color_reset), message);
}

int hwt_lcov_report(const char *bundle_dir, const struct hwt_lcov_report_options *options)
{
	struct per_test tests = { 0 };
	struct hwt_stacks_symbols *symbols = NULL;
	struct hwt_test_calls *calls = NULL;
	const char *prefix = options->prefix ? options->prefix : "hwt report lcov";
	struct hwt_command_decode_options how = { 0 };
	struct hwt_spe_profile_stats spe_stats;
	char sampled[128];
	int used_spe = 0;
	struct hwt_lcov_profile_options images = { 0 };
	struct hwt_cov_files *files = NULL;
	struct hwt_profile *profile;
	struct hwt_coverage *cov;
	size_t failed;
	int rc, ret = 0, warnings;

	profile = hwt_profile_alloc();
	cov = hwt_coverage_alloc();
	if (!profile || !cov) {
		fprintf(stderr, "%s: out of memory\n", prefix);
		ret = HWT_EXIT_ERROR;
		goto done;
	}
	hwt_coverage_set_warn(cov, &(struct hwt_warn_sink){ print_warning, (void *)prefix });
	how.prefix = prefix;
	how.progress = options->common.quiet ? hwt_progress_none : hwt_progress_tty;
	how.no_notes = options->common.quiet;
	how.jobs = options->common.jobs;
	how.decoder = options->common.decoder;
	how.live = options->live;
	how.trace = options->common.trace_source;
	how.used_spe = &used_spe;
	how.spe_stats = &spe_stats;
	if (options->per_test) {
		if (per_test_split(&tests, bundle_dir, options, prefix) < 0) {
			ret = HWT_EXIT_ERROR;
			goto done;
		}
		how.live = NULL;
		how.image_group = tests.split.image_test;
		how.groups = tests.split.count;
		how.profiles = tests.profiles;
		symbols = hwt_stacks_symbols_alloc(profile, bundle_dir, 0);
		if (symbols)
			hwt_stacks_symbols_set_debug_dirs(symbols, options->common.debug_dirs);
		calls = in_process_calls(&tests, options, symbols, &rc, prefix);
		if (rc) {
			ret = HWT_EXIT_ERROR;
			goto done;
		}
		if (calls)
			how.flow = hwt_test_calls_consumer(calls);
	}
	warnings = hwt_command_decode(bundle_dir, profile, &how);
	if (warnings < 0) {
		ret = HWT_EXIT_ERROR;
		goto done;
	}
	/* Inside processes: the process tests' and the outside's counts; the
	   test functions' go to the whole run now, to their tests once named. */
	for (size_t g = 0; calls && g <= tests.split.count + hwt_test_calls_count(calls); g++) {
		struct hwt_profile *from = hwt_test_calls_profile(calls, g);

		if (from && hwt_profile_merge(g <= tests.split.count ? tests.profiles[g] : profile,
					      from) < 0) {
			fprintf(stderr, "%s: out of memory\n", prefix);
			ret = HWT_EXIT_ERROR;
			goto done;
		}
	}
	if (calls && hwt_test_calls_status(calls) < 0) {
		fprintf(stderr, "%s: out of memory: the per-test coverage is incomplete\n", prefix);
		ret = HWT_EXIT_ERROR;
		goto done;
	}
	/* The whole run: the sum of its tests and of what ran outside them. */
	for (size_t g = 0; options->per_test && g <= tests.split.count; g++)
		if (hwt_profile_merge(profile, tests.profiles[g]) < 0) {
			fprintf(stderr, "%s: out of memory\n", prefix);
			ret = HWT_EXIT_ERROR;
			goto done;
		}
	/* Per test, each image's debug information is read once, not once a test. */
	images.cache = options->per_test ? hwt_image_cache_alloc() : NULL;
	images.system = options->system;
	images.verbose = options->common.verbose;
	images.debug_dirs = options->common.debug_dirs;
	rc = hwt_coverage_add_profile(cov, profile, &images, &failed);
	if (rc < 0) {
		if (failed != SIZE_MAX)
			fprintf(stderr, "%s: %s: %s\n", prefix,
				hwt_profile_image_at(profile, failed)->path, hwt_lcov_errstr(rc));
		else
			fprintf(stderr, "%s: %s\n", prefix, hwt_lcov_errstr(rc));
		ret = HWT_EXIT_ERROR;
		goto done;
	}
	hwt_coverage_drop_unreadable(cov, &options->filter);
	rc = hwt_coverage_check_sources(cov, &options->filter, !options->no_markers);
	if (rc < 0) {
		fprintf(stderr, "%s: %s\n", prefix, hwt_lcov_errstr(rc));
		ret = 2;
		goto done;
	}
	rc = hwt_coverage_files(cov, &options->filter, &files);
	if (rc < 0) {
		fprintf(stderr, "%s: %s\n", prefix, hwt_lcov_errstr(rc));
		ret = HWT_EXIT_ERROR;
		goto done;
	}
	if (calls && per_test_add_calls(&tests, calls, files, prefix) < 0) {
		ret = HWT_EXIT_ERROR;
		goto done;
	}
	if (options->per_test && per_test_coverage(&tests, options, &images, prefix) < 0) {
		ret = HWT_EXIT_ERROR;
		goto done;
	}
	if (used_spe)
		hwt_command_spe_source(sampled, sizeof(sampled), &spe_stats);
	ret = write_reports(files, options->per_test ? &tests : NULL, options, prefix,
			    used_spe ? sampled : NULL);
	/* Written from a bundle with warnings: a partial result, as every report says it. */
	if (warnings > 0 && ret != HWT_EXIT_ERROR)
		ret |= HWT_EXIT_PARTIAL;
done:
	if (options->per_test)
		per_test_fini(&tests);
	hwt_test_calls_free(calls);
	hwt_stacks_symbols_free(symbols);
	hwt_image_cache_free(images.cache);
	hwt_cov_files_free(files);
	hwt_coverage_free(cov);
	hwt_profile_free(profile);
	return ret;
}

int hwt_lcov_report_options_init(struct hwt_lcov_report_options *options, int argc,
				 const char *prefix)
{
	const char **include = calloc((size_t)argc + 1, sizeof(*include));
	const char **exclude = calloc((size_t)argc + 1, sizeof(*exclude));
	struct hwt_cov_output *outputs = calloc((size_t)argc + 1, sizeof(*outputs));
	const char **functions = calloc((size_t)argc + 1, sizeof(*functions));

	memset(options, 0, sizeof(*options));
	options->test_functions = functions;
	options->common.output = HWT_LCOV_REPORT_DEFAULT_OUTPUT;
	options->prefix = prefix;
	options->filter.include = include;
	options->filter.exclude = exclude;
	options->outputs = outputs;
	options->next_format = -1;
	hwt_coverage_gates_init(&options->gates);
	hwt_color_set(hwt_color_auto); /* until --color says otherwise */
	if (!include || !exclude || !outputs || !functions) {
		hwt_lcov_report_options_fini(options);
		return -1;
	}
	return 0;
}

void hwt_lcov_report_options_fini(struct hwt_lcov_report_options *options)
{
	free((void *)options->filter.include);
	free((void *)options->filter.exclude);
	free(options->outputs);
	free(options->test_functions);
	options->test_functions = NULL;
	options->filter.include = options->filter.exclude = NULL;
	options->outputs = NULL;
}

int hwt_lcov_report_option(struct hwt_lcov_report_options *options, int opt, const char *arg)
{
	/* The filters and outputs have room for one per argument. */
	const char **include = (const char **)options->filter.include;
	const char **exclude = (const char **)options->filter.exclude;
	struct hwt_coverage_gates *g = &options->gates;
	struct hwt_cov_output *out;
	const char *p = options->prefix;

	switch (opt) {
	case 'o':
		out = &options->outputs[options->noutputs++];
		out->path = arg;
		out->format_given = options->next_format >= 0;
		out->format = out->format_given ? options->next_format
						: (int)hwt_cov_format_from_path(arg);
		options->next_format = -1;
		options->common.output = arg;
		return 1;
	case HWT_LCOV_OPT_FORMAT:
		options->next_format = hwt_cov_format_from_name(arg);
		if (options->next_format < 0) {
			fprintf(stderr, "%s: unknown format '%s' (known: lcov, cobertura, sonarqube, "
				"json)\n", p, arg);
			return -1;
		}
		return 1;
	case HWT_LCOV_OPT_ROOT: options->root = arg; return 1;
	case HWT_LCOV_OPT_FAIL_LINES:
		return hwt_coverage_gate_parse(arg, "fail-under-lines", &g->lines, p) < 0 ? -1 : 1;
	case HWT_LCOV_OPT_FAIL_FUNCTIONS:
		return hwt_coverage_gate_parse(arg, "fail-under-functions", &g->functions, p) < 0 ? -1 : 1;
	case HWT_LCOV_OPT_FAIL_BRANCHES:
		return hwt_coverage_gate_parse(arg, "fail-under-branches", &g->branches, p) < 0 ? -1 : 1;
	case HWT_LCOV_OPT_FAIL_DIFF:
		return hwt_coverage_gate_parse(arg, "fail-under-diff", &g->diff, p) < 0 ? -1 : 1;
	case HWT_LCOV_OPT_DIFF: options->diff_base = arg; return 1;
	case HWT_LCOV_OPT_DIFF_OUTPUT: options->diff_output = arg; return 1;
	case 'H': options->html = arg; return 1;
	case 'i': include[options->filter.includes++] = arg; return 1;
	case 'x': exclude[options->filter.excludes++] = arg; return 1;
	case 'S': options->system = 1; return 1;
	case HWT_LCOV_OPT_NO_MARKERS: options->no_markers = 1; return 1;
	case HWT_LCOV_OPT_SUMMARY_ONLY: options->summary_only = 1; return 1;
	case HWT_OPT_COLOR:
		if (hwt_color_mode_parse(arg) < 0) {
			fprintf(stderr, "%s: --color wants auto, always or never, not '%s'\n", p, arg);
			return -1;
		}
		hwt_color_set((enum hwt_color_mode)hwt_color_mode_parse(arg));
		return 1;
	case HWT_LCOV_OPT_PER_TEST: options->per_test = 1; return 1;
	case HWT_LCOV_OPT_TEST_NAME: {
		regex_t re;
		int err = regcomp(&re, arg, REG_EXTENDED);

		if (err) {
			char msg[256];

			regerror(err, &re, msg, sizeof(msg));
			fprintf(stderr, "%s: --test-name '%s': %s\n", p, arg, msg);
			return -1;
		}
		regfree(&re);
		options->test_name = arg;
		options->per_test = 1;
		return 1;
	}
	case HWT_LCOV_OPT_TEST_FUNCTION:
		options->test_functions[options->ntest_functions++] = arg;
		options->per_test = 1;
		return 1;
	default: return hwt_command_option(&options->common, opt, arg, options->prefix);
	}
}
