/* signal_handler: SIGUSR1 and SIGALRM handlers installed with sigaction,
 * delivered synchronously by raise() and kill(getpid()); a SIGSEGV handler
 * that leaves the faulting code with siglongjmp(). */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t usr1_count, alrm_count, info_sum;
static volatile long handler_work;
static sigjmp_buf segv_env;
static volatile int segv_count;
static volatile int *volatile bad_pointer;	/* NULL */

static void on_signal(int signo)
{
	long w = 0;

	if (signo == SIGUSR1) {
		usr1_count++;
		for (int i = 0; i < 10 + usr1_count; i++)
			w += (i & 1) ? i : -i;
	} else if (signo == SIGALRM) {
		alrm_count++;
		for (int i = 0; i < 5 * alrm_count; i++)
			if (i % 3 == 0)
				w++;
	}
	handler_work += w;
}

static void on_usr2(int signo, siginfo_t *info, void *context)
{
	(void)context;
	if (signo == SIGUSR2 && info->si_pid == getpid())
		info_sum += 1;
}

static void on_segv(int signo)
{
	(void)signo;
	segv_count++;
	siglongjmp(segv_env, segv_count);
}

static int install(int signo, void (*handler)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	return sigaction(signo, &sa, NULL);
}

static int touch(int depth)
{
	if (depth == 0)
		return *bad_pointer;	/* faults */
	return touch(depth - 1) + 1;
}

int main(void)
{
	struct sigaction sa;
	volatile int caught = 0;

	if (install(SIGUSR1, on_signal) || install(SIGALRM, on_signal) ||
	    install(SIGSEGV, on_segv)) {
		perror("signal_handler: sigaction");
		return 1;
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_usr2;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR2, &sa, NULL)) {
		perror("signal_handler: sigaction");
		return 1;
	}

	for (int i = 0; i < 6; i++) {
		raise(SIGUSR1);
		kill(getpid(), SIGALRM);
		if (i % 2 == 0)
			kill(getpid(), SIGUSR2);
	}

	for (int i = 0; i < 3; i++) {
		/* savemask=1: the SIGSEGV stays unblocked after siglongjmp */
		if (sigsetjmp(segv_env, 1) == 0)
			touch(i + 2);
		else
			caught++;
	}

	printf("usr1 %d alrm %d usr2 %d work %ld segv %d\n", (int)usr1_count,
	       (int)alrm_count, (int)info_sum, handler_work, caught);
	return usr1_count == 6 && alrm_count == 6 && info_sum == 3 && caught == 3 ? 0 : 1;
}
