/*
 * Unit tests of the lcov writer's small parts: error strings, path
 * normalisation, the include/exclude filter, the writer on coverage with
 * nothing in it, the loader on files that are not what it wants, and the
 * exclusion markers and lines past the end of a source file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hwt_lcov.h"
#include "lcov_int.h"
#include "unit_check.h"

static void check_path(const char *in, const char *want)
{
	char *got = hwt_lcov_normalize_path(in);

	if (!got || strcmp(got, want)) {
		fprintf(stderr, "FAIL: normalize(%s) = %s, want %s\n", in, got ? got : "(null)", want);
		unit_failures++;
	}
	free(got);
}

static void test_paths(void)
{
	check_path("/a/b/c.c", "/a/b/c.c");
	check_path("/a//b/./c.c", "/a/b/c.c");
	check_path("/a/b/../c.c", "/a/c.c");
	check_path("/a/b/../../../c.c", "/c.c");
	check_path("/a/b/..", "/a");
	check_path("./x/./y.c", "x/y.c");
	check_path("../x/y.c", "../x/y.c");
	check_path("a/../../y.c", "../y.c");
	check_path(".", ".");
	check_path("/", "/");
}

static void test_filter(void)
{
	const char *inc[] = { "*/src/*" };
	const char *exc[] = { "*/src/gen_*", "*.h" };
	struct hwt_lcov_filter none = { NULL, 0, NULL, 0 };
	struct hwt_lcov_filter f = { inc, 1, exc, 2 };

	CHECK(hwt_lcov_filter_match(&none, "/any/thing.c"));
	CHECK(hwt_lcov_filter_match(&f, "/p/src/a.c"));
	CHECK(hwt_lcov_filter_match(&f, "/p/src/deep/b.c"));
	CHECK(!hwt_lcov_filter_match(&f, "/p/lib/a.c"));
	CHECK(!hwt_lcov_filter_match(&f, "/p/src/gen_x.c"));
	CHECK(!hwt_lcov_filter_match(&f, "/p/src/a.h"));
}

/* A sink that keeps the warnings handed to it. */
struct kept_warnings {
	char text[4][512];
	size_t count;
};

static void keep_warning(void *context, const char *message)
{
	struct kept_warnings *k = context;

	if (k->count < 4)
		snprintf(k->text[k->count], sizeof(k->text[0]), "%s", message);
	k->count++;
}

static void test_empty_writer(void)
{
	struct hwt_coverage *cov = hwt_coverage_alloc();
	struct kept_warnings kept = { .count = 0 };
	struct hwt_lcov_totals t;
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	CHECK(cov && f);
	if (!cov || !f)
		return;
	CHECK(hwt_coverage_write_lcov(cov, f, "t", NULL, &t) == 0);
	fclose(f);
	CHECK(size == 0);
	CHECK(t.files == 0 && t.lines_found == 0);
	CHECK(hwt_coverage_warn(cov, "dropped %d", 0) == 0);  /* no sink yet */
	hwt_coverage_set_warn(cov, &(struct hwt_warn_sink){ keep_warning, &kept });
	CHECK(hwt_coverage_warn(cov, "w %d", 1) == 0);
	CHECK(kept.count == 1);
	CHECK(!strcmp(kept.text[0], "w 1"));
	CHECK(hwt_coverage_add(cov, NULL, NULL, 0) == -hle_invalid);
	free(buf);
	hwt_coverage_free(cov);
}

static void test_loader(void)
{
	struct hwt_debuginfo *info = hwt_debuginfo_alloc();
	char path[] = "/tmp/lcov_unit.XXXXXX";
	int fd = mkstemp(path), rc;

	CHECK(hwt_debuginfo_load(info, "/nonexistent/file") == -hle_io);
	hwt_debuginfo_free(info);
	/* Not ELF. */
	CHECK(fd >= 0);
	if (fd >= 0) {
		CHECK(write(fd, "hello, not an ELF file\n", 23) == 23);
		close(fd);
		info = hwt_debuginfo_alloc();
		CHECK(hwt_debuginfo_load(info, path) == -hle_not_elf);
		hwt_debuginfo_free(info);
		unlink(path);
	}
	/* ELF (this test itself) read twice: the second load is refused. */
	info = hwt_debuginfo_alloc();
	rc = hwt_debuginfo_load(info, "/proc/self/exe");
	CHECK(rc == 0 || rc == -hle_no_debug);
	CHECK(hwt_debuginfo_load(info, "/proc/self/exe") == -hle_invalid);
	hwt_debuginfo_free(info);
	CHECK(strcmp(hwt_lcov_errstr(-hle_no_debug), "no debug info") == 0);
}

/* The lines, functions and lines with branches of the only file of cov. */
static void source_view(struct hwt_coverage *cov, char *lines, char *fns, char *brs, size_t n)
{
	struct hwt_cov_files *files = NULL;
	size_t k;

	memset(lines, '.', n);
	memset(fns, '.', n);
	memset(brs, '.', n);
	lines[n - 1] = fns[n - 1] = brs[n - 1] = '\0';
	CHECK(hwt_coverage_files(cov, NULL, &files) == 0 && files && files->count == 1);
	if (!files || files->count != 1) {
		hwt_cov_files_free(files);
		return;
	}
	for (k = 0; k < files->file[0].nlines; k++)
		if (files->file[0].lines[k].line < n - 1)
			lines[files->file[0].lines[k].line - 1] = 'x';
	for (k = 0; k < files->file[0].nfunctions; k++)
		if (files->file[0].functions[k].line < n - 1)
			fns[files->file[0].functions[k].line - 1] = 'x';
	for (k = 0; k < files->file[0].nbranches; k++)
		if (files->file[0].branches[k].line < n - 1)
			brs[files->file[0].branches[k].line - 1] = 'x';
	hwt_cov_files_free(files);
}

/*
 * Exclusion markers and a source shorter than its lines: lcov's flat
 * sections, gcovr's nested ones, a STOP and a START on one line, branch
 * markers, functions on excluded lines; a line, a function and a branch
 * on each of lines 1..20 of a 16-line file.
 */
static void test_markers(void)
{
	static const char text[] =
		"int a;\n"                              /* 1 */
		"x(); // LCOV_EXCL_START\n"             /* 2 */
		"y(); // LCOV_EXCL_START again\n"       /* 3 */
		"// LCOV_EXCL_STOP\n"                   /* 4 */
		"w();\n"                                /* 5 */
		"/* LCOV_EXCL_STOP LCOV_EXCL_START */\n" /* 6: STOP wins */
		"v();\n"                                /* 7 */
		"// GCOVR_EXCL_START\n"                 /* 8 */
		"// GCOVR_EXCL_START\n"                 /* 9 */
		"u(); // GCOVR_EXCL_STOP\n"             /* 10 */
		"t();\n"                                /* 11 */
		"// GCOVR_EXCL_STOP\n"                  /* 12 */
		"s();\n"                                /* 13 */
		"if (r) q(); // LCOV_EXCL_BR_LINE\n"    /* 14 */
		"p(); // LCOV_EXCL_LINE\n"              /* 15 */
		"o();";                                 /* 16, no newline */
	/* Lines 1..20: what is left, with markers and without. */
	static const char want_lines[] = "x..xxxx....xxx.x....";
	static const char want_fns[] = ".....xxx.......x....";
	static const char want_brs[] = "x..xxxx....xx..x....";
	static const char plain[] = "xxxxxxxxxxxxxxxx....";
	char path[] = "/tmp/lcov_unit_src.XXXXXX";
	char lines[21], fns[21], brs[21];
	int fd = mkstemp(path), markers;

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK(write(fd, text, sizeof(text) - 1) == (ssize_t)sizeof(text) - 1);
	close(fd);
	for (markers = 1; markers >= 0; markers--) {
		struct hwt_coverage *cov = hwt_coverage_alloc();
		struct kept_warnings kept = { .count = 0 };
		long i;

		hwt_coverage_set_warn(cov, &(struct hwt_warn_sink){ keep_warning, &kept });
		i = hwt_coverage_source_add(cov, path);

		CHECK(i == 0);
		for (uint32_t line = 1; line <= 20; line++) {
			char name[16];

			snprintf(name, sizeof(name), "f%u", line);
			CHECK(hwt_coverage_source_add_line(cov, 0, line, line) == 0);
			/* Functions on lines 2, 6, 7, 8, 15, 16, 18. */
			if (line == 2 || line == 6 || line == 7 || line == 8 || line == 15 ||
			    line == 16 || line == 18)
				CHECK(hwt_coverage_source_add_function(cov, 0, name, line, 1) == 0);
			CHECK(hwt_coverage_source_add_branch(cov, 0, line, 0, 0, 1, 1) == 0);
		}
		CHECK(hwt_coverage_check_sources(cov, NULL, markers) == 0);
		source_view(cov, lines, fns, brs, sizeof(lines));
		if (markers) {
			CHECK(!strcmp(lines, want_lines));
			CHECK(!strcmp(brs, want_brs));
			/* lcov drops the functions of 2 and 15; gcovr keeps 8's. */
			CHECK(!strcmp(fns, want_fns));
		} else {
			CHECK(!strcmp(lines, plain));
			CHECK(!strcmp(brs, plain));
			CHECK(!strcmp(fns, ".x...xxx......xx...."));
		}
		for (size_t w = 0; w < kept.count && w < 4; w++) {
			const char *msg = kept.text[w];

			CHECK(strstr(msg, path) && strstr(msg, "has 16 lines but the line table names line 20") &&
			      strstr(msg, "4 lines past its end left out"));
		}
		CHECK(kept.count == 1);
		hwt_coverage_free(cov);
	}
	unlink(path);
}

/* Sources that are not regular files are not read (a FIFO would block). */
static void test_source_kinds(void)
{
	char dir[] = "/tmp/lcov_unit_dir.XXXXXX", fifo[64];
	struct hwt_source_text text;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(fifo, sizeof(fifo), "%s/fifo.c", dir);
	CHECK(mkfifo(fifo, 0600) == 0);
	CHECK(hwt_source_text_read(&text, fifo) == -hle_io);
	CHECK(hwt_source_text_read(&text, dir) == -hle_io);
	CHECK(hwt_source_text_read(&text, "/nonexistent/x.c") == -hle_io);
	CHECK(hwt_source_text_read(&text, "/dev/null") == -hle_io);
	unlink(fifo);
	rmdir(dir);
}

static void test_errstr(void)
{
	CHECK_ERRSTR(hwt_lcov_errstr, hle_ok, hle_mismatch);
}

int main(void)
{
	test_errstr();
	test_paths();
	test_filter();
	test_empty_writer();
	test_loader();
	test_markers();
	test_source_kinds();
	return unit_exit("lcov_unit");
}
