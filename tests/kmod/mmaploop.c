/*
 * mmaploop SECONDS FILE: four threads map and unmap two executable pages of
 * FILE for SECONDS. Load for mttcg_repro.sh (no hwt.ko involved).
 */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static const char *path;
static time_t end;

static void *body(void *arg)
{
	while (time(NULL) < end) {
		int fd = open(path, O_RDONLY);
		void *p = mmap(NULL, 8192, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 4096);

		close(fd);
		if (p != MAP_FAILED)
			munmap(p, 8192);
		sched_yield();
	}
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t[4];
	int i;

	if (argc < 3)
		return 2;
	end = time(NULL) + atoi(argv[1]);
	path = argv[2];
	for (i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, body, NULL);
	for (i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	return 0;
}
