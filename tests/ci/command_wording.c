/*
 * How the commands word figures and colour them (integrations/command:
 * wording.c, color.c): plurals, sizes with three significant digits in
 * the unit that suits them, "no branches" for nothing to count, colour
 * as --color and $NO_COLOR say.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwt_command.h"
#include "unit_check.h"

static void check_size(unsigned long long bytes, const char *want)
{
	char buf[32];

	hwt_format_size(buf, sizeof(buf), bytes);
	if (strcmp(buf, want)) {
		fprintf(stderr, "FAIL: %llu bytes: '%s', want '%s'\n", bytes, buf, want);
		unit_failures++;
	}
}

int main(void)
{
	char buf[96];

	CHECK(!strcmp(hwt_noun(1, "function", "functions"), "function"));
	CHECK(!strcmp(hwt_noun(0, "function", "functions"), "functions"));
	CHECK(!strcmp(hwt_noun(2, "process", "processes"), "processes"));

	check_size(0, "0 bytes");
	check_size(1, "1 byte");
	check_size(1023, "1023 bytes");
	check_size(1024, "1.00 KiB");
	check_size(1536, "1.50 KiB");
	check_size(10 * 1024 - 1, "10.0 KiB");
	check_size(123 * 1024, "123 KiB");
	/* issue 34's "41441.4 KiB" */
	check_size(42435994ULL, "40.5 MiB");
	/* Not "1024 KiB": the next unit. */
	check_size(1024 * 1024 - 1, "1.00 MiB");
	check_size(999ULL * 1024, "999 KiB");
	check_size(3ULL << 30, "3.00 GiB");
	check_size(5ULL << 40, "5.00 TiB");

	CHECK(!strcmp(hwt_format_ratio(buf, sizeof(buf), 0, 0, "branches"), "no branches"));
	CHECK(!strcmp(hwt_format_ratio(buf, sizeof(buf), 8, 10, "lines"), "80.0% (8 of 10 lines)"));
	/* As lcov: rounded, but 9999 of 10000 is not 100%, nor 1 of 10000 0%. */
	CHECK(!strcmp(hwt_format_ratio(buf, sizeof(buf), 8075, 10000, "lines"),
		      "80.8% (8075 of 10000 lines)"));
	CHECK(!strcmp(hwt_format_ratio(buf, sizeof(buf), 1, 10000, "lines"),
		      "0.1% (1 of 10000 lines)"));
	CHECK(!strcmp(hwt_format_ratio(buf, sizeof(buf), 9999, 10000, "lines"),
		      "99.9% (9999 of 10000 lines)"));
	CHECK(!strcmp(hwt_format_ratio(buf, sizeof(buf), 1, 1, "functions"),
		      "100.0% (1 of 1 functions)"));

	CHECK(hwt_color_mode_parse("auto") == hwt_color_auto);
	CHECK(hwt_color_mode_parse("always") == hwt_color_always);
	CHECK(hwt_color_mode_parse("never") == hwt_color_never);
	CHECK(hwt_color_mode_parse("yes") == -1);
	CHECK(hwt_color_set(hwt_color_always) == 1);
	CHECK(strstr(hwt_color(hwt_color_low), "31m") != NULL);
	CHECK(!strcmp(hwt_color(hwt_color_reset), "\033[0m"));
	CHECK(hwt_color_set(hwt_color_never) == 0);
	CHECK(!strcmp(hwt_color(hwt_color_low), ""));
	/* NO_COLOR wins over a terminal (auto), --color=always over NO_COLOR. */
	setenv("NO_COLOR", "1", 1);
	CHECK(hwt_color_set(hwt_color_auto) == 0);
	CHECK(hwt_color_set(hwt_color_always) == 1);
	unsetenv("NO_COLOR");
	/* genhtml's limits */
	CHECK(hwt_color_of_percent(90.0) == hwt_color_high);
	CHECK(hwt_color_of_percent(89.9) == hwt_color_medium);
	CHECK(hwt_color_of_percent(75.0) == hwt_color_medium);
	CHECK(hwt_color_of_percent(74.9) == hwt_color_low);
	return unit_exit("command_wording");
}
