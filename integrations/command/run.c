/*
 * Running another program (a compiler, genhtml, llvm-profdata) and waiting
 * for it. The recorder's start of the traced command is not this: its
 * child does work between fork and exec (collector/record/unit_run.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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

int hwt_command_exec_status(int err)
{
	return err == ENOENT ? HWT_EXIT_NOT_FOUND : HWT_EXIT_CANNOT_RUN;
}

/* 0 an executable file, else the errno value execve would give for path. */
static int executable(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return errno;
	if (S_ISDIR(st.st_mode))
		return EISDIR;
	return access(path, X_OK) == 0 ? 0 : errno;
}

int hwt_command_check_runnable(const char *file, const char *prefix)
{
	const char *path = getenv("PATH"), *p;
	char *candidate;
	int err = ENOENT, e;

	if (!file || !*file) {
		fprintf(stderr, "%s: '': command not found\n", prefix);
		return HWT_EXIT_NOT_FOUND;
	}
	if (strchr(file, '/')) {
		err = executable(file);
		if (err)
			fprintf(stderr, "%s: %s: %s\n", prefix, file, strerror(err));
		return err ? hwt_command_exec_status(err) : 0;
	}
	/* execvp's search: glibc's default path, an empty entry the current directory. */
	if (!path)
		path = "/bin:/usr/bin";
	for (p = path;; p++) {
		size_t n = strcspn(p, ":");

		if (asprintf(&candidate, "%.*s%s%s", (int)n, p, n ? "/" : "", file) < 0)
			return 0; /* out of memory: exec will tell */
		e = executable(candidate);
		free(candidate);
		if (!e)
			return 0;
		/* A file that is there but cannot be run (a shell: 126), unless one later can. */
		if (e != ENOENT && e != ENOTDIR && e != EISDIR)
			err = e;
		p += n;
		if (!*p)
			break;
	}
	if (err == ENOENT)
		fprintf(stderr, "%s: %s: command not found\n", prefix, file);
	else
		fprintf(stderr, "%s: %s: %s\n", prefix, file, strerror(err));
	return hwt_command_exec_status(err);
}
