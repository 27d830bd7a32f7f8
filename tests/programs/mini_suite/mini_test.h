/* A few checking helpers shared by the mini suite's tests. */
#ifndef MINI_TEST_H
#define MINI_TEST_H

#include <stdio.h>
#include <string.h>

static int mt_failures, mt_checks;

#define MT_CHECK(cond) mt_check((cond), #cond, __FILE__, __LINE__)

static inline void mt_check(int ok, const char *what, const char *file, int line)
{
	mt_checks++;
	if (!ok) {
		mt_failures++;
		fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what);
	}
}

static inline int mt_done(const char *name)
{
	printf("%s: %d of %d checks passed\n", name, mt_checks - mt_failures, mt_checks);
	return mt_failures ? 1 : 0;
}

#endif
