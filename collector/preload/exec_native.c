/*
 * hwt-exec-native PATH ARGV0 [ARG...]: execs PATH natively with argv
 * ARGV0 ARG..., through the execve system call itself (not libc's, which
 * the preloaded library would judge again).
 *
 * Under `--trace-all` the Valgrind unit follows every exec itself
 * (--trace-children=yes), and Valgrind refuses to run a set-ID program
 * (the exec fails with EACCES). It is told not to follow this helper
 * (--trace-children-skip), so the preloaded library execs a set-ID
 * program through it and the program runs natively with its privileges
 * (docs/select.md).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

extern char **environ;

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: hwt-exec-native PATH ARGV0 [ARG...]\n");
		return 127;
	}
	syscall(SYS_execve, argv[1], argv + 2, environ);
	fprintf(stderr, "hwt-exec-native: %s: %m\n", argv[1]);
	return 127;
}
