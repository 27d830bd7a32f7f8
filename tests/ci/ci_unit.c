/*
 * Unit tests of the CI parts of the converters: the lcov reader, the
 * coverage file by file and its formats (Cobertura, JSON summary,
 * SonarQube), the unified diff reader and diff coverage with its reports.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hwt_diffcov.h"
#include "hwt_lcov.h"
#include "unit_check.h"


/* text as a FILE (fmemopen of a copy). */
static FILE *text_file(const char *text)
{
	return fmemopen((void *)text, strlen(text), "r");
}

/* What write(file) writes, malloc'd. */
#define CAPTURE(buf, call)                                                     \
	do {                                                                   \
		size_t size_ = 0;                                              \
		FILE *file = open_memstream(&(buf), &size_);                   \
		CHECK(file && (call) == 0);                                    \
		fclose(file);                                                  \
	} while (0)

static struct hwt_coverage *read_lcov(const char *text, int *rc, size_t *bad)
{
	struct hwt_coverage *cov = hwt_coverage_alloc();
	FILE *f = text_file(text);

	*rc = hwt_coverage_read_lcov(cov, f, bad);
	fclose(f);
	return cov;
}

static const char lcov_in[] =
	"TN:t\n"
	"SF:/p/b.c\n"
	"FNDA:3,late\n"                 /* before its FN */
	"FN:10,late\n"
	"FN:2,5,early\n"                /* lcov 2: with an end line */
	"FNDA:0,early\n"
	"FNF:2\nFNH:1\n"
	"BRDA:4,0,0,2\nBRDA:4,0,1,-\nBRDA:4,e1,0,0\n"
	"BRF:3\nBRH:1\n"
	"DA:2,0\nDA:4,7,abcdef\nDA:10,3\n"
	"LF:3\nLH:2\n"
	"end_of_record\n"
	"SF:/p/a.c\nDA:1,1\nend_of_record\n"
	"SF:/p/b.c\nDA:4,1\nBRDA:4,0,1,5\nFNDA:2,late\nend_of_record\n";   /* adds up */

static const char lcov_out[] =
	"TN:\nSF:/p/a.c\nFNF:0\nFNH:0\nBRF:0\nBRH:0\nDA:1,1\nLF:1\nLH:1\nend_of_record\n"
	"TN:\nSF:/p/b.c\nFN:2,early\nFN:10,late\nFNDA:0,early\nFNDA:5,late\nFNF:2\nFNH:1\n"
	"BRDA:4,0,0,2\nBRDA:4,0,1,5\nBRDA:4,1,0,0\nBRF:3\nBRH:2\n"
	"DA:2,0\nDA:4,8\nDA:10,3\nLF:3\nLH:2\nend_of_record\n";

static void test_lcov_read(void)
{
	size_t bad;
	int rc;
	struct hwt_coverage *cov = read_lcov(lcov_in, &rc, &bad);
	struct hwt_lcov_totals t;
	char *out = NULL;

	CHECK(rc == 0 && bad == 0);
	CAPTURE(out, hwt_coverage_write_lcov(cov, file, NULL, NULL, &t));
	CHECK(out && !strcmp(out, lcov_out));
	if (out && strcmp(out, lcov_out))
		fprintf(stderr, "got:\n%s", out);
	CHECK(t.files == 2 && t.lines_found == 4 && t.lines_hit == 3 && t.functions_found == 2 &&
	      t.functions_hit == 1 && t.branches_found == 3 && t.branches_hit == 2);
	free(out);
	hwt_coverage_free(cov);

	/* Not lcov: the line is named. */
	cov = read_lcov("SF:/a.c\nDA:1,1\nDA:x,1\n", &rc, &bad);
	CHECK(rc == -hle_syntax && bad == 3);
	hwt_coverage_free(cov);
	cov = read_lcov("DA:1,1\n", &rc, &bad);           /* outside SF */
	CHECK(rc == -hle_syntax && bad == 1);
	hwt_coverage_free(cov);
	cov = read_lcov("SF:/a.c\nXYZ:1\n", &rc, &bad);
	CHECK(rc == -hle_syntax && bad == 2);
	hwt_coverage_free(cov);
	cov = read_lcov("SF:/a.c\nBRDA:1,0,0\n", &rc, &bad);
	CHECK(rc == -hle_syntax && bad == 2);
	hwt_coverage_free(cov);
	cov = read_lcov("SF:/a.c\nDA:1,99999999999999999999\n", &rc, &bad);
	CHECK(rc == -hle_syntax && bad == 2);
	hwt_coverage_free(cov);
	cov = read_lcov("\r\nSF:/a.c\r\nDA:1,1\r\nend_of_record\r\n", &rc, &bad);
	CHECK(rc == 0);
	hwt_coverage_free(cov);
	CHECK(!strcmp(hwt_lcov_errstr(-hle_syntax), "not an lcov record"));
}

static void test_formats(void)
{
	CHECK(hwt_cov_format_from_path("c.info") == hwt_cov_lcov);
	CHECK(hwt_cov_format_from_path("c") == hwt_cov_lcov);
	CHECK(hwt_cov_format_from_path("out/coverage.XML") == hwt_cov_cobertura);
	CHECK(hwt_cov_format_from_path("sonarqube.xml") == hwt_cov_sonarqube);
	CHECK(hwt_cov_format_from_path("x-sonarqube.xml") == hwt_cov_sonarqube);
	CHECK(hwt_cov_format_from_path("s.json") == hwt_cov_json_summary);
	CHECK(hwt_cov_format_from_name("cobertura") == hwt_cov_cobertura);
	CHECK(hwt_cov_format_from_name("xml") == -1);
	CHECK(!strcmp(hwt_cov_format_name(hwt_cov_json_summary), "json"));
	CHECK(hwt_diff_format_from_path("d.md") == hwt_diff_markdown);
	CHECK(hwt_diff_format_from_path("d.json") == hwt_diff_json);
	CHECK(hwt_diff_format_from_path("d.txt") == hwt_diff_text);
	CHECK(hwt_diff_format_from_name("markdown") == hwt_diff_markdown);
	CHECK(hwt_diff_format_from_name("md") == -1);
}

static void test_writers(void)
{
	static const char in[] =
		"SF:/r/src/a&b.c\nBRDA:3,0,0,1\nBRDA:3,0,1,0\nDA:1,1\nDA:3,2\nDA:4,0\nend_of_record\n"
		"SF:/r/top.c\nFN:1,main\nFNDA:1,main\nDA:1,1\nend_of_record\n"
		"SF:/elsewhere/x.c\nDA:7,0\nend_of_record\n"
		"SF:/r/empty.h\nend_of_record\n";
	struct hwt_cov_write_options o = { .root = "/r", .timestamp = 1234, .producer = "hwt test" };
	struct hwt_cov_files *files;
	size_t bad;
	int rc;
	struct hwt_coverage *cov = read_lcov(in, &rc, &bad);
	char *xml = NULL, *json = NULL, *sonar = NULL;
	const char *inc[] = { "/r/*" };
	struct hwt_lcov_filter filter = { inc, 1, NULL, 0 };

	CHECK(rc == 0);
	CHECK(hwt_coverage_files(cov, NULL, &files) == 0);
	/* empty.h has nothing to say: left out. */
	CHECK(files->count == 3 && !strcmp(files->file[0].path, "/elsewhere/x.c"));
	CHECK(files->totals.lines_found == 5 && files->totals.lines_hit == 3);
	CAPTURE(xml, hwt_cov_files_write(files, hwt_cov_cobertura, &o, file));
	CAPTURE(json, hwt_cov_files_write(files, hwt_cov_json_summary, &o, file));
	CAPTURE(sonar, hwt_cov_files_write(files, hwt_cov_sonarqube, &o, file));
	CHECK(xml && strstr(xml, "<coverage line-rate=\"0.6\" branch-rate=\"0.5\" lines-covered=\"3\" "
			    "lines-valid=\"5\" branches-covered=\"1\" branches-valid=\"2\" "
			    "complexity=\"0\" version=\"hwt test\" timestamp=\"1234\">"));
	CHECK(xml && strstr(xml, "<source>/r</source>"));
	CHECK(xml && strstr(xml, "<package name=\"src\" line-rate=\"0.6666666666666666\" "
			    "branch-rate=\"0.5\""));
	CHECK(xml && strstr(xml, "<class name=\"a&amp;b_c\" filename=\"src/a&amp;b.c\""));
	CHECK(xml && strstr(xml, "<line number=\"3\" hits=\"2\" branch=\"true\" "
			    "condition-coverage=\"50% (1/2)\"/>"));
	/* No branches: rate 1, as Cobertura says; outside the root: absolute. */
	CHECK(xml && strstr(xml, "filename=\"top.c\" line-rate=\"1\" branch-rate=\"1\""));
	CHECK(xml && strstr(xml, "filename=\"/elsewhere/x.c\" line-rate=\"0\""));
	CHECK(json && strstr(json, "\"filename\": \"src/a&b.c\",\n      \"line_total\": 3,\n"
			     "      \"line_covered\": 2,\n      \"line_percent\": 66.6,"));
	CHECK(json && strstr(json, "\"function_total\": 0,\n      \"function_covered\": 0,\n"
			     "      \"function_percent\": null"));
	CHECK(json && strstr(json, "\n  \"line_total\": 5,\n  \"line_covered\": 3,\n"
			     "  \"line_percent\": 60.0,"));
	CHECK(sonar && strstr(sonar, "<file path=\"src/a&amp;b.c\">\n"
			      "    <lineToCover lineNumber=\"1\" covered=\"true\"/>\n"
			      "    <lineToCover lineNumber=\"3\" covered=\"true\" branchesToCover=\"2\" "
			      "coveredBranches=\"1\"/>\n"
			      "    <lineToCover lineNumber=\"4\" covered=\"false\"/>"));
	hwt_cov_files_free(files);
	CHECK(hwt_coverage_files(cov, &filter, &files) == 0);
	CHECK(files->count == 2 && files->totals.files == 2);
	hwt_cov_files_free(files);
	free(xml);
	free(json);
	free(sonar);
	hwt_coverage_free(cov);
}

/* --per-test: lcov writes a section per test, the JSON summary a "tests" entry each. */
static void test_writers_per_test(void)
{
	static const char whole_in[] = "SF:/r/a.c\nFN:1,f\nFNDA:3,f\nDA:1,3\nDA:2,0\nend_of_record\n";
	static const char test_in[] = "SF:/r/a.c\nFN:1,f\nFNDA:2,f\nDA:1,2\nDA:2,0\nend_of_record\n";
	static const char outside_in[] = "SF:/r/a.c\nFN:1,f\nFNDA:1,f\nDA:1,1\nDA:2,0\n"
					 "end_of_record\n";
	struct hwt_cov_files *whole = NULL, *one = NULL, *outside = NULL;
	size_t bad;
	int rc[3];
	struct hwt_coverage *covs[3] = { read_lcov(whole_in, &rc[0], &bad),
					 read_lcov(test_in, &rc[1], &bad),
					 read_lcov(outside_in, &rc[2], &bad) };
	char *lcov = NULL, *json = NULL, *xml = NULL, *xml_whole = NULL;
	const char *json_end = "    \"branch_percent\": null\n  }\n}\n";

	CHECK(rc[0] == 0 && rc[1] == 0 && rc[2] == 0);
	CHECK(hwt_coverage_files(covs[0], NULL, &whole) == 0);
	CHECK(hwt_coverage_files(covs[1], NULL, &one) == 0);
	CHECK(hwt_coverage_files(covs[2], NULL, &outside) == 0);
	if (!whole || !one || !outside)
		goto out;
	{
		struct hwt_cov_test tests[] = { { "calc.t-1", "calc_t_1", one },
						{ NULL, "", outside } };
		struct hwt_cov_write_options o = { .root = "/r", .timestamp = 1, .producer = "p",
						   .tests = tests, .ntests = 2 };
		struct hwt_cov_write_options plain = o;

		plain.tests = NULL;
		plain.ntests = 0;
		CAPTURE(lcov, hwt_cov_files_write(whole, hwt_cov_lcov, &o, file));
		CAPTURE(json, hwt_cov_files_write(whole, hwt_cov_json_summary, &o, file));
		CAPTURE(xml, hwt_cov_files_write(whole, hwt_cov_cobertura, &o, file));
		CAPTURE(xml_whole, hwt_cov_files_write(whole, hwt_cov_cobertura, &plain, file));
	}
	/* lcov: the test's section, then the one outside every test; not the whole. */
	CHECK(lcov && !strncmp(lcov, "TN:calc_t_1\nSF:/r/a.c\n", strlen("TN:calc_t_1\nSF:/r/a.c\n")));
	CHECK(lcov && strstr(lcov, "FNDA:2,f\n") && strstr(lcov, "\nTN:\nSF:/r/a.c\n") &&
	      strstr(lcov, "FNDA:1,f\n") && !strstr(lcov, "FNDA:3,f"));
	/* JSON: the whole run first (as without tests), then each test and what was outside. */
	CHECK(json && strstr(json, "\n  \"line_total\": 2,\n  \"line_covered\": 1,\n"
			     "  \"line_percent\": 50.0,\n"));
	CHECK(json && strstr(json, "\n  \"tests\": [\n    {\n      \"name\": \"calc.t-1\",\n"
			     "      \"lcov_test_name\": \"calc_t_1\",\n      \"files\": [\n"
			     "        {\n          \"filename\": \"a.c\",\n"
			     "          \"line_total\": 2,\n"));
	CHECK(json && strstr(json, "      ],\n      \"line_total\": 2,\n      \"line_covered\": 1,\n"
			     "      \"line_percent\": 50.0,\n      \"function_total\": 1,\n"
			     "      \"function_covered\": 1,\n"));
	CHECK(json && strstr(json, "\n  ],\n  \"outside_tests\": {\n    \"files\": [\n"));
	CHECK(json && strlen(json) > strlen(json_end) &&
	      !strcmp(json + strlen(json) - strlen(json_end), json_end));
	/* Cobertura has no place for tests: the whole run, as without them. */
	CHECK(xml && xml_whole && !strcmp(xml, xml_whole) && strstr(xml, "hits=\"3\""));
out:
	free(lcov);
	free(json);
	free(xml);
	free(xml_whole);
	hwt_cov_files_free(whole);
	hwt_cov_files_free(one);
	hwt_cov_files_free(outside);
	for (int i = 0; i < 3; i++)
		hwt_coverage_free(covs[i]);
}

static struct hwt_diff *read_diff(const char *text, int *rc, size_t *bad)
{
	struct hwt_diff *diff = hwt_diff_alloc();
	FILE *f = text_file(text);

	*rc = hwt_diff_read(diff, f, bad);
	fclose(f);
	return diff;
}

/* The lines of file path in diff as "1,2,3", or "-" when it is not there. */
static const char *lines_of(const struct hwt_diff *diff, const char *path)
{
	static char buf[256];
	size_t i, k, n, len = 0;

	for (i = 0; i < hwt_diff_file_count(diff); i++) {
		const uint32_t *lines;

		if (strcmp(hwt_diff_file_path(diff, i), path))
			continue;
		lines = hwt_diff_file_lines(diff, i, &n);
		buf[0] = '\0';
		for (k = 0; k < n; k++)
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%u", k ? "," : "",
						lines[k]);
		return buf;
	}
	return "-";
}

static const char diff_in[] =
	"diff --git a/src/a.c b/src/a.c\n"
	"index 1111111..2222222 100644\n"
	"--- a/src/a.c\n"
	"+++ b/src/a.c\n"
	"@@ -3,2 +3,3 @@ int f(void)\n"
	"-old\n"
	"--- a removed line that looks like a header\n"
	"+new 3\n"
	"++++ an added line that looks like one\n"
	"+new 5\n"
	"@@ -10,0 +12,1 @@\n"
	"+new 12\n"
	"@@ -20 +22 @@\n"
	"-x\n"
	"+y 22\n"
	"\\ No newline at end of file\n"
	"diff --git a/gone.c b/gone.c\n"
	"deleted file mode 100644\n"
	"--- a/gone.c\n"
	"+++ /dev/null\n"
	"@@ -1,2 +0,0 @@\n"
	"-a\n"
	"-b\n"
	"diff --git a/img.png b/img.png\n"
	"Binary files a/img.png and b/img.png differ\n"
	"diff --git \"a/sp ace\\tq\\\"\\303\\251.c\" \"b/sp ace\\tq\\\"\\303\\251.c\"\n"
	"new file mode 100644\n"
	"--- /dev/null\n"
	"+++ \"b/sp ace\\tq\\\"\\303\\251.c\"\n"
	"@@ -0,0 +1,2 @@\n"
	"+one\n"
	"+two\n"
	"diff --git a/src/a.c b/src/a.c\n"           /* a second diff of the same file */
	"--- a/src/a.c\n"
	"+++ b/src/a.c\n"
	"@@ -1,3 +1,3 @@\n"
	" context 1\n"
	"-x\n"
	"+changed 2\n"
	" context 3\n";

static void test_diff_read(void)
{
	size_t bad;
	int rc;
	struct hwt_diff *diff = read_diff(diff_in, &rc, &bad);

	CHECK(rc == 0);
	CHECK(hwt_diff_file_count(diff) == 2);
	CHECK(!strcmp(lines_of(diff, "src/a.c"), "2,3,4,5,12,22"));
	CHECK(!strcmp(lines_of(diff, "sp ace\tq\"\xc3\xa9.c"), "1,2"));
	CHECK(!strcmp(lines_of(diff, "gone.c"), "-"));
	hwt_diff_free(diff);

	/* diff -u output, time stamps after a tab. */
	diff = read_diff("--- x.c\t2024-01-01\n+++ x.c\t2024-01-02\n@@ -1 +1,2 @@\n a\n+b\n", &rc,
			 &bad);
	CHECK(rc == 0 && !strcmp(lines_of(diff, "x.c"), "2"));
	hwt_diff_free(diff);

	/* Errors name the line. */
	diff = read_diff("+++ b/x.c\n@@ -1,2 +1,2 @@\n a\n", &rc, &bad);
	CHECK(rc == -hdc_syntax && bad == 3);           /* ends inside a hunk */
	hwt_diff_free(diff);
	diff = read_diff("+++ b/x.c\n@@ -1 +1 @@\n?\n", &rc, &bad);
	CHECK(rc == -hdc_syntax && bad == 3);
	hwt_diff_free(diff);
	diff = read_diff("+++ b/x.c\n@@ -1 +x @@\n", &rc, &bad);
	CHECK(rc == -hdc_syntax && bad == 2);
	hwt_diff_free(diff);
	diff = read_diff("diff --cc x.c\n@@@ -1,1 -1,1 +1,1 @@@\n", &rc, &bad);
	CHECK(rc == -hdc_combined && bad == 1);
	hwt_diff_free(diff);
	diff = read_diff("+++ \"b/bad\\q\"\n", &rc, &bad);
	CHECK(rc == -hdc_syntax && bad == 1);
	hwt_diff_free(diff);
	CHECK(!strcmp(hwt_diffcov_errstr(-hdc_syntax), "not a unified diff"));
}

static void test_diff_coverage(void)
{
	char dir[] = "/tmp/ci_unit.XXXXXX", real_c[128], link[160], lcov[512];
	struct hwt_diff_report_options o = { "main", "0123456789abcdef0123" };
	struct hwt_diff_coverage *dc;
	struct hwt_cov_files *files;
	struct hwt_coverage *cov;
	struct hwt_diff *diff;
	char *text = NULL, *md = NULL, *json = NULL;
	size_t bad;
	int rc;
	FILE *f;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(real_c, sizeof(real_c), "%s/b.c", dir);
	f = fopen(real_c, "w");
	CHECK(f != NULL);
	if (f)
		fclose(f);
	/* The coverage names b.c through a link, the diff by its own name. */
	snprintf(link, sizeof(link), "%s/link", dir);
	CHECK(symlink(".", link) == 0);
	snprintf(lcov, sizeof(lcov),
		 "SF:%s/a_b.c\nDA:1,1\nDA:2,0\nDA:3,0\nDA:4,5\nDA:5,0\nend_of_record\n"
		 "SF:%s/b.c\nDA:10,1\nend_of_record\n", dir, link);
	cov = read_lcov(lcov, &rc, &bad);
	CHECK(rc == 0);
	diff = read_diff("+++ b/a_b.c\n@@ -0,0 +1,6 @@\n+1\n+2\n+3\n+4\n+5\n+6\n"
			 "+++ b/b.c\n@@ -9,0 +10,1 @@\n+10\n"
			 "+++ b/README\n@@ -1 +1 @@\n-x\n+y\n", &rc, &bad);
	CHECK(rc == 0);
	CHECK(hwt_coverage_files(cov, NULL, &files) == 0);
	CHECK(hwt_diff_coverage_compute(diff, files, dir, &dc) == 0);
	CHECK(dc->count == 2 && dc->files_changed == 3 && dc->changed == 8);
	CHECK(dc->measured == 6 && dc->covered == 3);
	CHECK(!strcmp(dc->file[0].path, "a_b.c") && dc->file[0].measured == 5 &&
	      dc->file[0].covered == 2 && dc->file[0].not_run[0] == 2 && dc->file[0].not_run[2] == 5);
	CHECK(!strcmp(dc->file[1].path, "b.c") && dc->file[1].covered == 1);
	CHECK(hwt_diff_coverage_percent(3, 6) == 50.0 && hwt_diff_coverage_percent(0, 0) == 100.0);
	CAPTURE(text, hwt_diff_coverage_write(dc, hwt_diff_text, &o, file));
	CAPTURE(md, hwt_diff_coverage_write(dc, hwt_diff_markdown, &o, file));
	CAPTURE(json, hwt_diff_coverage_write(dc, hwt_diff_json, &o, file));
	CHECK(text && strstr(text, "Diff coverage since main (merge base 0123456789ab):\n"));
	CHECK(text && strstr(text, "  a_b.c   40.0%  2 of 5 lines; not run: 2-3, 5\n"));
	CHECK(text && strstr(text, "Total: 50.0% (3 of 6 changed lines with code ran; "
			      "8 lines changed in 3 files)\n"));
	CHECK(md && strstr(md, "## Diff coverage: 50.0%\n"));
	CHECK(md && strstr(md, "| a\\_b.c | 40.0% | 2 / 5 | 2-3, 5 |\n"));
	CHECK(json && strstr(json, "\"lines_not_run\": [2, 3, 5]"));
	CHECK(json && strstr(json, "\"percent_covered\": 40,"));
	CHECK(json && strstr(json, "\"lines_changed\": 8,\n  \"lines_measured\": 6,\n"
			     "  \"lines_covered\": 3,\n  \"percent_covered\": 50\n}"));
	hwt_diff_coverage_free(dc);
	hwt_cov_files_free(files);
	hwt_diff_free(diff);
	hwt_coverage_free(cov);
	free(text);
	free(md);
	free(json);
	unlink(link);
	unlink(real_c);
	rmdir(dir);
}

int main(void)
{
	test_lcov_read();
	test_formats();
	test_writers();
	test_writers_per_test();
	test_diff_read();
	test_diff_coverage();
	return unit_exit("ci_unit");
}
