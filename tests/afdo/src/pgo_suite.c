/*
 * A training run of several short processes, as a test suite is
 * (pgo_live_test.sh, bench/pgo/live_bench.sh): "train N PAUSE_MS" runs this
 * program N times ("work K SEARCHES"), one after the other, PAUSE_MS
 * apart; "work K SEARCHES" sorts a table that K seeds, searches it
 * SEARCHES times (default 5000) and prints a checksum.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TABLE 2048

static unsigned next(unsigned *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return *seed >> 8;
}

static int by_value(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

static int work(unsigned k, long searches)
{
	static unsigned table[TABLE];
	unsigned seed = k + 1, sum = 0;

	for (int i = 0; i < TABLE; i++)
		table[i] = next(&seed) % 100000;
	qsort(table, TABLE, sizeof(*table), by_value);
	for (long i = 0; i < searches; i++) {
		unsigned want = next(&seed) % 100000;
		const unsigned *hit = bsearch(&want, table, TABLE, sizeof(*table), by_value);

		sum += hit ? (unsigned)(hit - table) : want % 7 == 0 ? 3u : 1u;
	}
	printf("work %u: %u\n", k, sum);
	return 0;
}

static int train(const char *self, int n, long pause_ms, const char *searches)
{
	struct timespec pause = { pause_ms / 1000, (pause_ms % 1000) * 1000000 };

	for (int k = 0; k < n; k++) {
		char arg[16];
		int status;
		pid_t pid;

		snprintf(arg, sizeof(arg), "%d", k);
		fflush(stdout);
		pid = fork();
		if (pid < 0)
			return 1;
		if (pid == 0) {
			execl(self, self, "work", arg, searches, (char *)NULL);
			_exit(127);
		}
		if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			return 1;
		nanosleep(&pause, NULL);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "work"))
		return work((unsigned)atoi(argv[2]), atol(argc == 4 ? argv[3] : "5000"));
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "train"))
		return train(argv[0], atoi(argv[2]), atol(argv[3]), argc == 5 ? argv[4] : "5000");
	fprintf(stderr, "usage: %s train N PAUSE_MS [SEARCHES] | work K [SEARCHES]\n", argv[0]);
	return 2;
}
