/*
 * The checks of the converters' unit tests: CHECK says which condition
 * failed where and counts it, CHECK_ERRSTR checks a library's errstr
 * function, unit_exit ends the test with what they found.
 */
#ifndef HWT_UNIT_CHECK_H
#define HWT_UNIT_CHECK_H

#include <stdio.h>
#include <string.h>

static int unit_failures;

#define CHECK(cond)                                                              \
	do {                                                                     \
		if (!(cond)) {                                                   \
			fprintf(stderr, "%s:%d: FAIL: %s\n", __FILE__, __LINE__, #cond); \
			unit_failures++;                                         \
		}                                                                \
	} while (0)

/* Each code first..last has a string of its own, the same when negated;
   any other code is an "unknown error". */
#define CHECK_ERRSTR(errstr, first, last)                                        \
	do {                                                                     \
		for (int code_ = (first); code_ <= (last);                       \
		     code_ = HWT_ERR_NEXT(code_, last)) {                        \
			CHECK(strcmp(errstr(-code_), "unknown error") != 0);     \
			CHECK(!strcmp(errstr(-code_), errstr(code_)));           \
		}                                                                \
		CHECK(!strcmp(errstr(-HWT_ERR_END), "unknown error"));           \
	} while (0)

/* The exit status of test name: 0 when every check passed. */
static inline int unit_exit(const char *name)
{
	if (unit_failures) {
		fprintf(stderr, "%s: %d failure(s)\n", name, unit_failures);
		return 1;
	}
	printf("%s: all passed\n", name);
	return 0;
}

#endif /* HWT_UNIT_CHECK_H */
