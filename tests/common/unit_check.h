/*
 * CHECK for the unit tests of common/: a failed condition is printed with
 * its line and counted; a test exits non-zero when one failed or none ran.
 * One test program per file, so the counters are the program's own.
 */
#ifndef HWT_UNIT_CHECK_H
#define HWT_UNIT_CHECK_H

#include <stdio.h>

static int checks, failures;

#define CHECK(cond)                                                              \
	do {                                                                     \
		checks++;                                                        \
		if (!(cond)) {                                                   \
			fprintf(stderr, "%s:%d: FAIL %s\n", __FILE__, __LINE__, #cond); \
			failures++;                                              \
		}                                                                \
	} while (0)

/* Prints "NAME: N checks, N failed"; the exit status for main. */
static inline int check_summary(const char *name)
{
	printf("%s: %d checks, %d failed\n", name, checks, failures);
	return failures || !checks;
}

#endif /* HWT_UNIT_CHECK_H */
