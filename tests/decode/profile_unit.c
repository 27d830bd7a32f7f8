/*
 * Unit tests of the profile library: counts add up, the serialised form
 * round-trips and is independent of insertion and merge order, bad input
 * is refused with the right error, every error has a string.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "unit_check.h"

static const uint8_t id_a[20] = { 0xaa, 1, 2, 3 };
static const uint8_t id_b[20] = { 0xbb, 9, 8, 7 };

static char *serialise(const struct hwt_profile *p)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	if (!f)
		abort();
	CHECK(hwt_profile_write(p, f) == 0);
	fclose(f);
	return buf;
}

static struct hwt_profile *parse(const char *text, int *status, size_t *line)
{
	struct hwt_profile *p = hwt_profile_alloc();
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	if (!p || !f)
		abort();
	*status = hwt_profile_read(p, f, line);
	fclose(f);
	return p;
}

/* A profile with two images added in the given order, scaled by k. */
static struct hwt_profile *sample(int reversed, uint64_t k)
{
	struct hwt_profile *p = hwt_profile_alloc();
	int a, b;
	struct hwt_profile_edge e;

	if (!p)
		abort();
	if (reversed) {
		b = hwt_profile_image_add(p, "/lib/b.so", id_b, 20, 0);
		a = hwt_profile_image_add(p, "/bin/a with space\nnewline", id_a, 4, 0);
	} else {
		a = hwt_profile_image_add(p, "/bin/a with space\nnewline", id_a, 4, 0);
		b = hwt_profile_image_add(p, "/lib/b.so", id_b, 20, 0);
	}
	CHECK(a >= 0 && b >= 0 && a != b);
	CHECK(hwt_profile_add_block(p, (size_t)a, 0x1000, 0x1010, 5, 3 * k) == 0);
	CHECK(hwt_profile_add_block(p, (size_t)a, 0x1020, 0x1020, 1, 1 * k) == 0);
	CHECK(hwt_profile_add_block(p, (size_t)b, 0x40, 0x48, 3, 7 * k) == 0);
	e = (struct hwt_profile_edge){ (uint32_t)a, (uint32_t)b, 0x1010, 0x40, hwt_edge_call, 7 * k };
	CHECK(hwt_profile_add_edge(p, &e) == 0);
	e = (struct hwt_profile_edge){ (uint32_t)a, (uint32_t)a, 0x1010, 0x1020, hwt_edge_cond_taken, 1 * k };
	CHECK(hwt_profile_add_edge(p, &e) == 0);
	return p;
}

static void test_counts(void)
{
	struct hwt_profile *p = sample(0, 1);
	const struct hwt_profile_block *blocks;
	const struct hwt_profile_edge *edges;
	size_t n;

	CHECK(hwt_profile_image_count(p) == 2);
	/* Same key again: the same image, flags ORed. */
	CHECK(hwt_profile_image_add(p, "/other/path", id_b, 20, HWT_PROFILE_IMAGE_MISSING) == 1);
	CHECK(hwt_profile_image_at(p, 1)->flags == HWT_PROFILE_IMAGE_MISSING);
	/* Without build-id, the path is the key. */
	CHECK(hwt_profile_image_add(p, "/bin/nobuildid", NULL, 0, 0) == 2);
	CHECK(hwt_profile_image_add(p, "/bin/nobuildid", NULL, 0, 0) == 2);
	/* Adding to a block; a block with another instruction count is refused. */
	CHECK(hwt_profile_add_block(p, 0, 0x1000, 0x1010, 5, 2) == 0);
	CHECK(hwt_profile_add_block(p, 0, 0x1000, 0x1010, 4, 2) == -hpe_invalid);
	CHECK(hwt_profile_add_block(p, 9, 0x1000, 0x1010, 5, 2) == -hpe_invalid);
	CHECK(hwt_profile_blocks(p, 0, &blocks, &n) == 0);
	CHECK(n == 2 && blocks[0].begin == 0x1000 && blocks[0].count == 5);
	CHECK(hwt_profile_edges(p, &edges, &n) == 0 && n == 2);
	CHECK(hwt_profile_total_insns(p) == 5 * 5 + 1 + 3 * 7);
	hwt_profile_free(p);
}

static void test_round_trip(void)
{
	struct hwt_profile *p = sample(0, 1), *q;
	char *a, *b;
	size_t line = 0;
	int status;

	a = serialise(p);
	q = parse(a, &status, &line);
	CHECK(status == 0);
	b = serialise(q);
	CHECK(!strcmp(a, b));
	CHECK(!strcmp(hwt_profile_image_at(q, 0)->path, "/bin/a with space\nnewline"));
	free(a);
	free(b);
	hwt_profile_free(q);
	hwt_profile_free(p);
}

static void test_merge(void)
{
	struct hwt_profile *x = sample(0, 1), *y = sample(1, 2), *z = sample(0, 5);
	struct hwt_profile *xy = hwt_profile_alloc(), *yx = hwt_profile_alloc();
	struct hwt_profile *xy_z = hwt_profile_alloc(), *yz = hwt_profile_alloc();
	struct hwt_profile *x_yz = hwt_profile_alloc(), *sum = sample(1, 3);
	char *s1, *s2, *s3, *s4, *s5;

	CHECK(hwt_profile_merge(xy, x) == 0 && hwt_profile_merge(xy, y) == 0);
	CHECK(hwt_profile_merge(yx, y) == 0 && hwt_profile_merge(yx, x) == 0);
	CHECK(hwt_profile_merge(xy_z, xy) == 0 && hwt_profile_merge(xy_z, z) == 0);
	CHECK(hwt_profile_merge(yz, y) == 0 && hwt_profile_merge(yz, z) == 0);
	CHECK(hwt_profile_merge(x_yz, x) == 0 && hwt_profile_merge(x_yz, yz) == 0);
	s1 = serialise(xy);
	s2 = serialise(yx);
	s3 = serialise(sum);
	s4 = serialise(xy_z);
	s5 = serialise(x_yz);
	CHECK(!strcmp(s1, s2)); /* commutative, whatever the image order */
	CHECK(!strcmp(s1, s3)); /* x + 2x == 3x */
	CHECK(!strcmp(s4, s5)); /* associative */
	CHECK(hwt_profile_total_insns(xy_z) == 8 * hwt_profile_total_insns(x));
	CHECK(hwt_profile_merge(x, x) == -hpe_invalid);
	free(s1);
	free(s2);
	free(s3);
	free(s4);
	free(s5);
	hwt_profile_free(x);
	hwt_profile_free(y);
	hwt_profile_free(z);
	hwt_profile_free(xy);
	hwt_profile_free(yx);
	hwt_profile_free(xy_z);
	hwt_profile_free(yz);
	hwt_profile_free(x_yz);
	hwt_profile_free(sum);
}

static void expect_bad(const char *text, int want, size_t want_line)
{
	struct hwt_profile *p;
	size_t line = 0;
	int status;

	p = parse(text, &status, &line);
	if (status != want || (want_line && line != want_line)) {
		fprintf(stderr, "bad input gave %d at line %zu, wanted %d at line %zu:\n%s\n", status,
			line, want, want_line, text);
		unit_failures++;
	}
	/* Nothing of a bad file is kept. */
	CHECK(hwt_profile_image_count(p) == 0);
	hwt_profile_free(p);
}

static void test_bad_input(void)
{
	expect_bad("", -hpe_format, 0);
	expect_bad("hwt-profile 2\nend 0 0 0\n", -hpe_version, 1);
	expect_bad("hwt-profile 1\n", -hpe_format, 0); /* truncated: no end line */
	expect_bad("hwt-profile 1\nimage 0 - - 0 /a\nblock 0 10 20 3 1\n", -hpe_format, 0);
	expect_bad("hwt-profile 1\nimage 1 - - 0 /a\nend 1 0 0\n", -hpe_format, 2);
	expect_bad("hwt-profile 1\nimage 0 bogus - 0 /a\nend 1 0 0\n", -hpe_format, 2);
	expect_bad("hwt-profile 1\nimage 0 - zz - 0 /a\nend 1 0 0\n", -hpe_format, 2);
	expect_bad("hwt-profile 1\nimage 0 - - 0 /a\nblock 1 10 20 3 1\nend 1 1 0\n", -hpe_format, 3);
	expect_bad("hwt-profile 1\nimage 0 - - 0 /a\nblock 0 20 10 3 1\nend 1 1 0\n", -hpe_format, 3);
	expect_bad("hwt-profile 1\nimage 0 - - 0 /a\nblock 0 10 20 3 -1\nend 1 1 0\n", -hpe_format, 3);
	expect_bad("hwt-profile 1\nimage 0 - - 0 /a\nblock 0 10 20 3 99999999999999999999\nend 1 1 0\n",
		   -hpe_format, 3);
	expect_bad("hwt-profile 1\nimage 0 - - 0 /a\nedge 0 10 0 20 sideways 1\nend 1 0 1\n",
		   -hpe_format, 3);
	expect_bad("hwt-profile 1\nimage 0 - - 0 /a\nend 1 1 0\n", -hpe_format, 3);
	expect_bad("hwt-profile 1\nimage 0 - - 0 /a\nend 1 0 0\nblock 0 10 20 3 1\n", -hpe_format, 4);
	expect_bad("hwt-profile 1\nimage 0 - - 0 /a\nimage 1 - - 0 /a\nend 2 0 0\n", -hpe_format, 3);
}

static void test_errstr(void)
{
	CHECK_ERRSTR(hwt_profile_errstr, hpe_ok, hpe_not_elf);
}

int main(void)
{
	test_errstr();
	test_counts();
	test_round_trip();
	test_merge();
	test_bad_input();
	return unit_exit("profile_unit");
}
