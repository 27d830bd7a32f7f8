/* Drives the Valgrind trace unit: finds the tool, builds its command line, runs it. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "trace_unit.h"

static int is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

const char *hwt_valgrind_unit_lib(void)
{
	static char lib[PATH_MAX + 32];
	char exe[PATH_MAX], tool[PATH_MAX + 64];
	const char *env = getenv("HWT_VALGRIND_LIB");
	ssize_t n;

	if (env && *env) {
		snprintf(lib, sizeof(lib), "%s", env);
	} else {
		/* Installed and build trees alike: <prefix>/bin/hwt, <prefix>/lib/hwt/valgrind. */
		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		if (n < 0) {
			fprintf(stderr, "hwt: cannot find my own executable: %s\n", strerror(errno));
			return NULL;
		}
		exe[n] = '\0';
		*strrchr(exe, '/') = '\0';
		snprintf(lib, sizeof(lib), "%s/../lib/hwt/valgrind", exe);
	}
	snprintf(tool, sizeof(tool), "%s/hwt-amd64-linux", lib);
	if (!is_file(tool)) {
		fprintf(stderr, "hwt: the Valgrind trace unit is missing: no %s\n"
			"hwt: build it (cmake --build) or set HWT_VALGRIND_LIB\n", tool);
		return NULL;
	}
	return lib;
}

/* Signals that should stop the traced command rather than us. */
static volatile pid_t child_pid;

static void forward_signal(int sig)
{
	if (child_pid > 0)
		kill(child_pid, sig);
}

int hwt_valgrind_unit_run(const char *bundle, const struct hwt_unit_options *opts,
			  char *const argv[], int *status)
{
	const char *lib = hwt_valgrind_unit_lib();
	char bundle_opt[PATH_MAX + 32], psb_opt[64];
	const char *vg_argv[16 + 1024];
	int argc = 0, i, pipefd[2];
	struct sigaction sa, old_int, old_term, old_hup, old_quit;
	pid_t pid;

	if (!lib)
		return -1;
	snprintf(bundle_opt, sizeof(bundle_opt), "--hwt-bundle=%s", bundle);
	vg_argv[argc++] = "valgrind";
	vg_argv[argc++] = "--tool=hwt";
	vg_argv[argc++] = "-q";
	vg_argv[argc++] = "--trace-children=yes";
	/* One translated block per run of straight-line code (see collector/valgrind/instrument.c). */
	vg_argv[argc++] = "--vex-guest-chase=no";
	vg_argv[argc++] = "--vex-iropt-unroll-thresh=0";
	vg_argv[argc++] = bundle_opt;
	if (opts->debug_blocks)
		vg_argv[argc++] = "--hwt-debug-blocks=yes";
	if (opts->psb_period > 0) {
		snprintf(psb_opt, sizeof(psb_opt), "--hwt-psb-period=%ld", opts->psb_period);
		vg_argv[argc++] = psb_opt;
	}
	vg_argv[argc++] = "--";
	for (i = 0; argv[i]; i++) {
		if (argc == (int)(sizeof(vg_argv) / sizeof(vg_argv[0])) - 1) {
			fprintf(stderr, "hwt: too many arguments\n");
			return -1;
		}
		vg_argv[argc++] = argv[i];
	}
	vg_argv[argc] = NULL;

	/* The child reports a failed exec through a close-on-exec pipe. */
	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		fprintf(stderr, "hwt: pipe: %s\n", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "hwt: fork: %s\n", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		int err;

		close(pipefd[0]);
		setenv("VALGRIND_LIB", lib, 1);
		execvp("valgrind", (char *const *)vg_argv);
		err = errno;
		if (write(pipefd[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(127);
	}
	close(pipefd[1]);
	{
		int err;

		if (read(pipefd[0], &err, sizeof(err)) == sizeof(err)) {
			close(pipefd[0]);
			waitpid(pid, NULL, 0);
			fprintf(stderr, "hwt: cannot run valgrind: %s%s\n", strerror(err),
				err == ENOENT ? " (install it: apt-get install valgrind)" : "");
			return -1;
		}
		close(pipefd[0]);
	}

	/* Terminal signals reach the command directly; others are passed on. */
	child_pid = pid;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = forward_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGQUIT, &sa, &old_quit);
	while (waitpid(pid, status, 0) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "hwt: waitpid: %s\n", strerror(errno));
			*status = 0x7f00;
			break;
		}
	}
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	child_pid = 0;
	return 0;
}
