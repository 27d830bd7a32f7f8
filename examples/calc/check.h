/* A check macro shared by the example's tests. */
#ifndef CHECK_H
#define CHECK_H

#include <stdio.h>

static int check_failures;

#define CHECK(cond)                                                              \
	do {                                                                     \
		if (!(cond)) {                                                   \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__,   \
				__LINE__, #cond);                                \
			check_failures++;                                        \
		}                                                                \
	} while (0)

#endif
