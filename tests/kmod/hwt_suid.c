/*
 * Installed set-user-ID root in the test initramfs (run_qemu.sh). Prints its
 * real and effective uid, then runs for MS milliseconds in short sleeps (so
 * it is switched in and out: a traced thread's buffer advances), with
 * "fork" in a child as well, and exits 0.
 *   hwt_suid MS [fork]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void run_for(int ms)
{
	long long end = now_ms() + ms;

	while (now_ms() < end)
		usleep(1000);
}

int main(int argc, char **argv)
{
	int ms = argc > 1 ? atoi(argv[1]) : 0;
	pid_t c = -1;
	int st = 0;

	printf("euid=%d uid=%d\n", (int)geteuid(), (int)getuid());
	fflush(stdout);
	if (argc > 2 && !strcmp(argv[2], "fork")) {
		c = fork();
		if (c == 0) {
			run_for(ms);
			_exit(0);
		}
	}
	run_for(ms);
	if (c > 0 && (waitpid(c, &st, 0) != c || st != 0))
		return 1;
	return 0;
}
