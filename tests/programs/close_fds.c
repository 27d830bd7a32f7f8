/*
 * Closes every file descriptor it did not open, in a fork child and in the
 * parent, as daemons and Python's subprocess (close_fds) do: the trace unit's
 * own files must survive it.
 */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static long work(int mod)
{
	long sum = 0;

	for (int i = 0; i < 2000; i++)
		sum += i % mod ? i : -1;
	return sum;
}

static void close_all(void)
{
	struct rlimit lim;

	getrlimit(RLIMIT_NOFILE, &lim);
	for (rlim_t fd = 3; fd < lim.rlim_cur && fd < 65536; fd++)
		close((int)fd);
}

int main(void)
{
	pid_t child = fork();
	long sum;
	int status;

	if (child == 0) {
		close_all();
		_exit(work(5) > 0 ? 0 : 1);
	}
	waitpid(child, &status, 0);
	close_all();
	sum = work(3);
	printf("close_fds: %ld, child %d\n", sum, WEXITSTATUS(status));
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
