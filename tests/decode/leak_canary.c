/*
 * A process that loads OpenCSD, as every ETM decode does, and with "leak"
 * leaks a block: LeakSanitizer's check, which runs earlier in such a
 * process (perfdata/opencsd.c), must still find it (leak_check_test.sh).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwt_opencsd.h"

/* On a thread of its own, so that no stale copy of the pointer stays on
   the main thread's stack or in its registers for the check to find. */
static void *leak(void *unused)
{
	char *p = malloc(4242);

	(void)unused;
	if (p)
		memset(p, 1, 4242);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t thread;

	if (!hwt_opencsd()) {
		fprintf(stderr, "SKIP: OpenCSD cannot be loaded: %s\n", hwt_opencsd_error());
		return 77;
	}
	if (argc == 2 && !strcmp(argv[1], "leak")) {
		if (pthread_create(&thread, NULL, leak, NULL) || pthread_join(thread, NULL)) {
			fprintf(stderr, "leak_canary: no thread\n");
			return 2;
		}
	} else if (argc != 1) {
		fprintf(stderr, "usage: leak_canary [leak]\n");
		return 2;
	}
	return 0;
}
