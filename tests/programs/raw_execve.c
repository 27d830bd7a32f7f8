/* raw_execve: a fork child execs another program (argv[1], or HWT_EXEC_TARGET
 * given at build time, normally loops_static) with the execve system call
 * itself, not libc's execve: no preloaded library sees that exec. The parent
 * waits and exits with the child's status. */
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef HWT_EXEC_TARGET
#define HWT_EXEC_TARGET "./loops_static"
#endif

extern char **environ;

int main(int argc, char **argv)
{
	char *target = argc > 1 ? argv[1] : (char *)HWT_EXEC_TARGET;
	char *args[] = { target, NULL };
	int status;
	pid_t pid;

	printf("raw_execve: %s\n", target);
	fflush(stdout);		/* nothing buffered may be copied into the child */
	pid = fork();
	if (pid < 0) {
		perror("raw_execve: fork");
		return 1;
	}
	if (pid == 0) {
		syscall(SYS_execve, target, args, environ);
		perror("raw_execve: execve");
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
		fprintf(stderr, "raw_execve: the child did not exit normally\n");
		return 1;
	}
	return WEXITSTATUS(status);
}
