/* timeit N CMD [ARGS...] - runs CMD N times (stdout and stderr to
 * /dev/null), one after the other, and prints "mean_ms min_ms failures".
 * An argument containing "{}" has it replaced by the run number, so that
 * each run can get a fresh output path. Wall time from fork to reap. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: timeit N CMD [ARGS...]\n");
		return 2;
	}
	int n = atoi(argv[1]);
	int cargc = argc - 2;
	char **cargv = calloc((size_t)cargc + 1, sizeof(char *));
	double sum = 0, min = 1e18;
	int failures = 0;
	for (int r = 0; r < n; r++) {
		for (int i = 0; i < cargc; i++) {
			const char *a = argv[i + 2], *p = strstr(a, "{}");
			if (!p) {
				cargv[i] = argv[i + 2];
				continue;
			}
			char *s;
			if (asprintf(&s, "%.*s%d%s", (int)(p - a), a, r,
				     p + 2) < 0)
				return 2;
			cargv[i] = s;
		}
		double t0 = now_ms();
		pid_t pid = fork();
		if (pid < 0) {
			perror("fork");
			return 2;
		}
		if (pid == 0) {
			int fd = open("/dev/null", O_WRONLY);
			dup2(fd, 1);
			dup2(fd, 2);
			execvp(cargv[0], cargv);
			_exit(127);
		}
		int st;
		waitpid(pid, &st, 0);
		double dt = now_ms() - t0;
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			failures++;
		sum += dt;
		if (dt < min)
			min = dt;
	}
	printf("%.1f %.1f %d\n", sum / n, min, failures);
	return 0;
}
