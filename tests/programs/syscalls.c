/* syscalls: a loop of write/getpid/read on a pipe, many syscall entries and
 * exits with little user code in between. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile int rounds = 500;

int main(void)
{
	int fds[2];
	char out[64], in[64];
	long bytes = 0, pid_sum = 0;

	if (pipe(fds) != 0) {
		perror("syscalls: pipe");
		return 1;
	}
	memset(out, 'p', sizeof out);
	for (int i = 0; i < rounds; i++) {
		size_t n = 1 + (size_t)i % sizeof out;
		ssize_t w, r;

		w = write(fds[1], out, n);
		pid_sum += getpid() > 0;
		r = read(fds[0], in, sizeof in);
		if (w != (ssize_t)n || r != w) {
			fprintf(stderr, "syscalls: short transfer at %d\n", i);
			return 1;
		}
		bytes += r;
	}
	close(fds[0]);
	close(fds[1]);
	printf("syscalls: %d rounds, %ld bytes, %ld getpid\n", rounds, bytes,
	       pid_sum);
	return 0;
}
