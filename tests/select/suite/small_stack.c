/*
 * Starts programs from a thread with a small stack, the way some programs
 * (thread pools, coroutines, Go-style runtimes) do: the preloaded library
 * runs on that stack, also in a vfork child, which borrows it. Built
 * without -g: not selected itself.
 *
 * usage: small_stack STACK_KIB SELECTED
 * From one thread whose stack is STACK_KIB KiB: execl (in a fork child),
 * execvp (in a vfork child, through PATH), posix_spawn and system(), each
 * of SELECTED (a program the rule traces) and of true (a system binary).
 * Prints "small_stack ok" when all eight exited with status 0.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static const char *selected;
static char selected_name[256], selected_cmd[4096];

static int wait_ok(pid_t pid, const char *what)
{
	int status;

	if (pid < 0) {
		fprintf(stderr, "small_stack: %s: not started\n", what);
		return 0;
	}
	if (waitpid(pid, &status, 0) != pid) {
		fprintf(stderr, "small_stack: %s: waitpid failed\n", what);
		return 0;
	}
	if (WIFSIGNALED(status)) {
		fprintf(stderr, "small_stack: %s: killed by signal %d\n", what, WTERMSIG(status));
		return 0;
	}
	if (WEXITSTATUS(status) != 0) {
		fprintf(stderr, "small_stack: %s: exit status %d\n", what, WEXITSTATUS(status));
		return 0;
	}
	return 1;
}

static int run_execl(const char *path, const char *arg0, const char *arg1)
{
	pid_t pid = fork();

	if (pid == 0) {
		execl(path, arg0, arg1, "7", (char *)NULL);
		_exit(126);
	}
	return wait_ok(pid, "execl");
}

static int run_execvp(const char *file, const char *arg1)
{
	char *argv[] = { (char *)file, (char *)arg1, "9", NULL };
	pid_t pid = vfork();

	if (pid == 0) {
		execvp(file, argv);
		_exit(126);
	}
	return wait_ok(pid, "execvp");
}

static int run_spawn(const char *path, const char *arg1)
{
	char *argv[] = { (char *)path, (char *)arg1, "30", NULL };
	pid_t pid;

	if (posix_spawn(&pid, path, NULL, NULL, argv, environ) != 0)
		pid = -1;
	return wait_ok(pid, "posix_spawn");
}

static int run_system(const char *cmd)
{
	int status = system(cmd);

	if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "small_stack: system(\"%s\"): status %#x\n", cmd, status);
		return 0;
	}
	return 1;
}

static void *starter(void *arg)
{
	int ok = 1;

	ok &= run_execl(selected, "test_calc", "gcd");
	ok &= run_execl("/bin/true", "true", "x");
	ok &= run_execvp(selected_name, "fib");
	ok &= run_execvp("true", "x");
	ok &= run_spawn(selected, "prime");
	ok &= run_spawn("/bin/true", "x");
	ok &= run_system(selected_cmd);
	ok &= run_system("/bin/true");
	return ok ? arg : NULL;
}

int main(int argc, char **argv)
{
	static char path_env[8192];
	pthread_attr_t attr;
	pthread_t thread;
	void *result = NULL;
	const char *slash;
	size_t kib;
	int err;

	if (argc != 3 || (kib = strtoul(argv[1], NULL, 10)) == 0 || argv[2][0] != '/')
		return 2;
	selected = argv[2];
	slash = strrchr(selected, '/');
	snprintf(selected_name, sizeof(selected_name), "%s", slash + 1);
	snprintf(selected_cmd, sizeof(selected_cmd), "%s gcd 4", selected);
	/* execvp finds SELECTED through PATH: its directory first. */
	snprintf(path_env, sizeof(path_env), "%.*s:%s", (int)(slash - selected), selected,
		 getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	setenv("PATH", path_env, 1);
	fflush(stdout);

	pthread_attr_init(&attr);
	err = pthread_attr_setstacksize(&attr, kib * 1024);
	if (err == 0)
		err = pthread_create(&thread, &attr, starter, (void *)selected);
	if (err == 0)
		err = pthread_join(thread, &result);
	if (err != 0) {
		fprintf(stderr, "small_stack: thread: %s\n", strerror(err));
		return 1;
	}
	printf("small_stack %s (%zu KiB stack)\n", result ? "ok" : "FAIL", kib);
	return result ? 0 : 1;
}
