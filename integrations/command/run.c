/*
 * Running another program (a compiler, genhtml, llvm-profdata) and waiting
 * for it. The recorder's start of the traced command is not this: its
 * child does work between fork and exec (collector/record/unit_run.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <sys/wait.h>

#include "hwt_command.h"

extern char **environ;

/* stdout_fd: the child's standard output, -1 /dev/null, -2 this one's. */
static int run(char *const argv[], int stdout_fd, int *status)
{
	posix_spawn_file_actions_t actions;
	pid_t pid;
	int err;

	err = posix_spawn_file_actions_init(&actions);
	if (err)
		return err;
	if (stdout_fd == -1)
		err = posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
	else if (stdout_fd >= 0)
		err = posix_spawn_file_actions_adddup2(&actions, stdout_fd, 1);
	/* glibc reports a failed exec here, as the error of the spawn. */
	if (!err)
		err = posix_spawnp(&pid, argv[0], &actions, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&actions);
	if (err)
		return err;
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR)
			return errno;
	return 0;
}

int hwt_command_run(char *const argv[], int stdout_to_null, int *status)
{
	return run(argv, stdout_to_null ? -1 : -2, status);
}

int hwt_command_run_output(char *const argv[], FILE *out, int *status)
{
	if (fflush(out) != 0)
		return errno;
	return run(argv, fileno(out), status);
}
