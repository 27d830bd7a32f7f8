/*
 * Stands in for qemu-x86_64 in tests/select/run_unit.sh: appends its argv
 * (one line, tab-separated) and the variables the trace unit's environment
 * is checked for to LOG (a compile-time string), then runs the program
 * natively as QEMU would run it: `[-plugin ARG] [-0 ARGV0] -- PROGRAM
 * ARGS...`, argv[0] from -0, with the execve system call (not libc's, as
 * QEMU does: the preloaded library must not see it). Built with -g: the
 * selection rule would trace it, were it not the trace unit.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef LOG
#error "build with -DLOG='\"path\"'"
#endif

extern char **environ;

static const char *const vars[] = { "LD_PRELOAD", "HWT_SELECT_ARGV0", "VALGRIND_LIB",
				    "HWT_SELECT_UNIT_KIND" };

int main(int argc, char **argv)
{
	static char buf[1 << 16];
	size_t at = 0;
	const char *argv0 = NULL, *path;
	int i, fd;

	at += (size_t)snprintf(buf + at, sizeof(buf) - at, "argv");
	for (i = 0; i < argc && at < sizeof(buf); i++)
		at += (size_t)snprintf(buf + at, sizeof(buf) - at, "\t%s", argv[i]);
	for (size_t v = 0; v < sizeof(vars) / sizeof(vars[0]) && at < sizeof(buf); v++) {
		const char *value = getenv(vars[v]);

		if (value)
			at += (size_t)snprintf(buf + at, sizeof(buf) - at, "\nenv\t%s=%s", vars[v], value);
	}
	if (at < sizeof(buf))
		at += (size_t)snprintf(buf + at, sizeof(buf) - at, "\n");
	if (at > sizeof(buf))
		at = sizeof(buf);
	fd = open(LOG, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, buf, at) != (ssize_t)at)
		return 126;
	close(fd);

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-plugin") && i + 1 < argc)
			i++;
		else if (!strcmp(argv[i], "-0") && i + 1 < argc)
			argv0 = argv[++i];
		else if (!strcmp(argv[i], "--"))
			break;
		else
			return 125; /* not a command line hwt makes */
	}
	if (i + 1 >= argc)
		return 0; /* no program: logged only */
	path = argv[i + 1];
	if (argv0)
		argv[i + 1] = (char *)argv0;
	syscall(SYS_execve, path, argv + i + 1, environ);
	perror("fake qemu-x86_64: execve");
	return 127;
}
