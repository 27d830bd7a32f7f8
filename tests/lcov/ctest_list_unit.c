/*
 * The reader of `ctest --show-only=json-v1` (hwt-cov --per-test names
 * CTest tests by it): names and commands, escapes, members it skips,
 * tests without a command, and malformed text refused whole.
 */
#include <stdio.h>
#include <string.h>

#include "hwt_command.h"
#include "unit_check.h"


static const char good[] =
	"{\"kind\": \"ctestInfo\", \"version\": {\"major\": 1, \"minor\": 0},\n"
	" \"backtraceGraph\": {\"commands\": [\"add_test\"], \"files\": [\"CMakeLists.txt\"],\n"
	"   \"nodes\": [{\"file\": 0}, {\"command\": 0, \"file\": 0, \"line\": 7, \"parent\": 0}]},\n"
	" \"tests\": [\n"
	"  {\"backtrace\": 1, \"command\": [\"/b/test_arith\", \"a \\\"q\\\" \\\\ \\/ \\u00e9\"],\n"
	"   \"name\": \"calc.test_arith\",\n"
	"   \"properties\": [{\"name\": \"WORKING_DIRECTORY\", \"value\": \"/b\"},\n"
	"                  {\"name\": \"WILL_FAIL\", \"value\": true},\n"
	"                  {\"name\": \"COST\", \"value\": -1.5e2}, {\"name\": \"X\", \"value\": null}]},\n"
	"  {\"backtrace\": 1, \"name\": \"missing\"},\n"
	"  {\"command\": [], \"name\": \"empty\"}\n"
	" ]}\n";

int main(void)
{
	struct hwt_ctest_list list;
	static const char *bad[] = {
		"", "[]", "{\"tests\": [", "{\"tests\": [{\"name\": \"a\"}]",
		"{\"tests\": [{\"name\": \"a\\u00\"}]}", "{\"tests\" [] }", "{\"tests\": [}]}",
	};

	CHECK(hwt_ctest_list_parse(&list, good, sizeof(good) - 1) == 0);
	CHECK(list.count == 3);
	if (list.count == 3) {
		CHECK(!strcmp(list.tests[0].name, "calc.test_arith"));
		CHECK(list.tests[0].argc == 2);
		CHECK(list.tests[0].argc == 2 && !strcmp(list.tests[0].argv[0], "/b/test_arith"));
		CHECK(list.tests[0].argc == 2 &&
		      !strcmp(list.tests[0].argv[1], "a \"q\" \\ / \xc3\xa9"));
		CHECK(list.tests[0].argc == 2 && list.tests[0].argv[2] == NULL);
		/* No command (a test CTest cannot run): matches no process. */
		CHECK(!strcmp(list.tests[1].name, "missing") && list.tests[1].argc == 0);
		CHECK(!strcmp(list.tests[2].name, "empty") && list.tests[2].argc == 0);
	}
	hwt_ctest_list_fini(&list);
	CHECK(list.count == 0 && list.tests == NULL);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = hwt_ctest_list_parse(&list, bad[i], strlen(bad[i]));

		if (rc != -1)
			fprintf(stderr, "accepted: %s\n", bad[i]);
		CHECK(rc == -1);
		CHECK(list.count == 0);
		hwt_ctest_list_fini(&list);
	}
	return unit_exit("ctest_list_unit");
}
