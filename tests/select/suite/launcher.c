/* Starts test_calc through posix_spawn, posix_spawnp and execveat (built without -g:
   not selected itself). usage: launcher TEST_CALC */
#define _GNU_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static int wait_ok(pid_t pid)
{
	int status;

	return waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int main(int argc, char **argv)
{
	char *spawn_argv[] = { "test_calc", "gcd", "7", NULL };
	char *spawnp_argv[] = { "test_calc", "fib", "9", NULL };
	char *at_argv[] = { "test_calc", "prime", "30", NULL };
	char dir[4096], *slash;
	pid_t pid;
	int fd, ok = 1;

	if (argc != 2)
		return 2;
	if (posix_spawn(&pid, argv[1], NULL, NULL, spawn_argv, environ) != 0 || !wait_ok(pid))
		ok = 0;
	/* posix_spawnp: through PATH, the test's directory first. */
	snprintf(dir, sizeof(dir), "%s", argv[1]);
	slash = strrchr(dir, '/');
	*slash = '\0';
	{
		char path[8192];

		snprintf(path, sizeof(path), "%s:%s", dir, getenv("PATH") ? getenv("PATH") : "");
		setenv("PATH", path, 1);
	}
	if (posix_spawnp(&pid, "test_calc", NULL, NULL, spawnp_argv, environ) != 0 || !wait_ok(pid))
		ok = 0;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		fd = open(dir, O_RDONLY | O_DIRECTORY);
		execveat(fd, slash + 1, at_argv, environ, 0);
		perror("execveat");
		_exit(127);
	}
	if (!wait_ok(pid))
		ok = 0;
	printf("launcher %s\n", ok ? "ok" : "FAIL");
	return ok ? 0 : 1;
}
