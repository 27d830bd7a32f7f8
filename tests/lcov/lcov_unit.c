/*
 * Unit tests of the lcov writer's small parts: error strings, path
 * normalisation, the include/exclude filter, the writer on coverage with
 * nothing in it, and the loader on files that are not what it wants.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static void test_empty_writer(void)
{
	struct hwt_coverage *cov = hwt_coverage_alloc();
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
	CHECK(hwt_coverage_warn(cov, "w %d", 1) == 0);
	CHECK(hwt_coverage_warning_count(cov) == 1);
	CHECK(!strcmp(hwt_coverage_warning_at(cov, 0), "w 1"));
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
	return unit_exit("lcov_unit");
}
