/* facts.c MODE - small probes of what a QEMU-plugin trace unit depends on.
 *   fork    fork; the child runs a loop of 50000 and exits, the parent waits
 *   exec    execve ARGV[2..] (to see whether the new image runs under QEMU)
 *   threads two threads, each a loop of 50000
 *   signal  a SIGUSR1 handler running a loop of 30000, raised once
 *   nosignal the same without raising it (the baseline)
 *   addr    print addresses (main, a stack local, malloc) and the auxv vDSO
 *           entry, then the [vdso]/binary lines of /proc/self/maps, then
 *           pause 1 s so that the host's view of the maps can be read
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/wait.h>
#include <unistd.h>

static void loop(long n)
{
	volatile long s = 0;
	for (long i = 0; i < n; i++)
		s += i;
}

static void *thread_main(void *arg)
{
	(void)arg;
	loop(50000);
	return NULL;
}

static volatile sig_atomic_t handled;

static void on_usr1(int sig)
{
	(void)sig;
	loop(30000);
	handled = 1;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	if (!strcmp(mode, "fork")) {
		fflush(stdout);
		pid_t pid = fork();
		if (pid < 0)
			return 1;
		if (pid == 0) {
			loop(50000);
			_exit(0); /* like a test child: no atexit */
		}
		int st;
		waitpid(pid, &st, 0);
		printf("parent %d child %d status %d\n", (int)getpid(), (int)pid,
		       st);
		return 0;
	}
	if (!strcmp(mode, "exec") && argc > 2) {
		execv(argv[2], argv + 2);
		perror("execv");
		return 1;
	}
	if (!strcmp(mode, "threads")) {
		pthread_t t[2];
		for (int i = 0; i < 2; i++)
			pthread_create(&t[i], NULL, thread_main, NULL);
		for (int i = 0; i < 2; i++)
			pthread_join(t[i], NULL);
		return 0;
	}
	if (!strcmp(mode, "signal") || !strcmp(mode, "nosignal")) {
		signal(SIGUSR1, on_usr1);
		if (!strcmp(mode, "signal"))
			raise(SIGUSR1);
		printf("handled %d\n", (int)handled);
		return 0;
	}
	if (!strcmp(mode, "addr")) {
		int local;
		void *heap = malloc(16);
		printf("main=%p stack=%p heap=%p AT_SYSINFO_EHDR=%#lx pid=%d\n",
		       (void *)main, (void *)&local, heap,
		       getauxval(AT_SYSINFO_EHDR), (int)getpid());
		FILE *f = fopen("/proc/self/maps", "r");
		char line[512];
		while (f && fgets(line, sizeof(line), f))
			if (strstr(line, "vdso") || strstr(line, "facts") ||
			    strstr(line, "vvar") || strstr(line, "qemu") ||
			    strstr(line, "stack"))
				printf("  guest maps: %s", line);
		if (f)
			fclose(f);
		fflush(stdout);
		sleep(1);
		return 0;
	}
	fprintf(stderr, "usage: facts fork|exec PROG ARGS|threads|signal|nosignal|addr\n");
	return 2;
}
