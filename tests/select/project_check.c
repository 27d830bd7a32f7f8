/*
 * The project test (collector/select/project.c, through select.c's
 * hwt_select_project, which also finds separate debug files): the verdict
 * on one file against the one expected; with "mutate", the same file with
 * bytes changed at random, again and again, must give some verdict (never
 * a crash or a read out of bounds: run under ASan+UBSan); with "time", the
 * CPU time of one judgement (no cache), for bench/select/project_cost.sh.
 *
 * usage: project_check ROOT FILE in|outside|unreadable|no-debug
 *        project_check ROOT FILE mutate WORKDIR ROUNDS
 *        project_check ROOT FILE time ROUNDS
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "project.h"
#include "select.h"

static const char *const names[] = { "in", "outside", "unreadable", "no-debug" };

static int judge(const char *root, const char *file)
{
	struct hwt_select_config cfg = { .root = root };
	char real[4096];
	int fd, v;

	if (!realpath(file, real) || (fd = open(real, O_RDONLY)) < 0) {
		perror(file);
		exit(2);
	}
	v = hwt_select_project(&cfg, fd, real);
	close(fd);
	return v;
}

static double cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static int mutate(const char *root, const char *file, const char *work, long rounds)
{
	char copy[4096];
	struct stat st;
	unsigned char *data;
	unsigned long seed = 42;
	int fd, counts[4] = { 0 };
	FILE *in = fopen(file, "rb");

	if (!in || fstat(fileno(in), &st) < 0 || !(data = malloc((size_t)st.st_size)) ||
	    fread(data, 1, (size_t)st.st_size, in) != (size_t)st.st_size)
		return 2;
	fclose(in);
	snprintf(copy, sizeof(copy), "%s/mutant", work);
	for (long r = 0; r < rounds; r++) {
		unsigned char *m = malloc((size_t)st.st_size);
		size_t len = (size_t)st.st_size;
		int v;

		memcpy(m, data, len);
		for (int k = 0; k < 16; k++) {
			seed = seed * 6364136223846793005ul + 1442695040888963407ul;
			m[(seed >> 20) % len] = (unsigned char)(seed >> 56);
		}
		if (r % 8 == 7) /* truncated too */
			len = (size_t)((seed >> 12) % len);
		fd = open(copy, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || write(fd, m, len) != (ssize_t)len)
			return 2;
		close(fd);
		free(m);
		v = judge(root, copy);
		if (v < 0 || v > 3) {
			printf("FAIL mutant %ld: verdict %d\n", r, v);
			return 1;
		}
		counts[v]++;
	}
	free(data);
	printf("ok   %ld mutants of %s: in %d, outside %d, unreadable %d, no-debug %d\n", rounds,
	       file, counts[0], counts[1], counts[2], counts[3]);
	return 0;
}

int main(int argc, char **argv)
{
	int v;

	if (argc >= 6 && !strcmp(argv[3], "mutate"))
		return mutate(argv[1], argv[2], argv[4], atol(argv[5]));
	if (argc >= 5 && !strcmp(argv[3], "time")) {
		long n = atol(argv[4]);
		double t0 = cpu_seconds();

		v = judge(argv[1], argv[2]);
		for (long i = 1; i < n; i++)
			v = judge(argv[1], argv[2]);
		printf("%s: %s, %.0f us of CPU a judgement\n", argv[2], names[v],
		       (cpu_seconds() - t0) * 1e6 / (double)n);
		return 0;
	}
	if (argc != 4) {
		fprintf(stderr, "usage: project_check ROOT FILE in|outside|unreadable|no-debug\n");
		return 2;
	}
	v = judge(argv[1], argv[2]);
	if (strcmp(names[v], argv[3]) != 0) {
		printf("FAIL %s: %s, expected %s\n", argv[2], names[v], argv[3]);
		return 1;
	}
	printf("ok   %s: %s\n", argv[2], names[v]);
	return 0;
}
