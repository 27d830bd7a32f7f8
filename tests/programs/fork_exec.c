/* fork_exec: one child execs another program (argv[1], or HWT_EXEC_TARGET
 * given at build time, normally the loops program); a second child only
 * computes and _exit()s with a known status. The parent waits for both. */
#include <stdio.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef HWT_EXEC_TARGET
#define HWT_EXEC_TARGET "./loops"
#endif

static volatile int limit = 5000;

static int compute(void)
{
	unsigned long h = 0;

	for (int i = 0; i < limit; i++)
		h = (h * 31 + (unsigned long)i) % 1000003;
	return (int)(h % 100);
}

static int wait_for(pid_t pid, const char *what)
{
	int status;

	if (waitpid(pid, &status, 0) != pid) {
		perror("fork_exec: waitpid");
		return -1;
	}
	if (!WIFEXITED(status)) {
		fprintf(stderr, "fork_exec: %s did not exit normally\n", what);
		return -1;
	}
	return WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
	const char *target = argc > 1 ? argv[1] : HWT_EXEC_TARGET;
	int expected = compute();
	pid_t pid;
	int status;

	printf("parent: expecting %d\n", expected);
	fflush(stdout);		/* nothing buffered may be copied into children */

	pid = fork();
	if (pid < 0) {
		perror("fork_exec: fork");
		return 1;
	}
	if (pid == 0) {
		char *child_argv[] = { (char *)target, NULL };

		execv(target, child_argv);
		perror("fork_exec: execv");
		_exit(127);
	}
	status = wait_for(pid, "exec child");
	printf("exec child exited %d\n", status);
	if (status != 0)
		return 1;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("fork_exec: fork");
		return 1;
	}
	if (pid == 0)
		_exit(compute());
	status = wait_for(pid, "compute child");
	printf("compute child exited %d\n", status);
	return status == expected ? 0 : 1;
}
