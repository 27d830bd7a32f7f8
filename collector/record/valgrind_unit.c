/* Drives the Valgrind trace unit: finds the tool, builds its command line, runs it. */
#define _GNU_SOURCE
#include <dlfcn.h>
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

int hwt_unit_select_option(struct hwt_unit_options *opts, int opt, const char *arg,
			   const char *prefix)
{
	const char **list;
	char *joined;
	size_t n;

	switch (opt) {
	case HWT_UNIT_OPT_TRACE:
	case HWT_UNIT_OPT_NO_TRACE:
		if (!*arg || strchr(arg, '\n')) {
			fprintf(stderr, "%s: --%s wants a glob without newlines\n", prefix,
				opt == HWT_UNIT_OPT_TRACE ? "trace" : "no-trace");
			return -1;
		}
		list = opt == HWT_UNIT_OPT_TRACE ? &opts->trace : &opts->no_trace;
		if (asprintf(&joined, "%s%s%s", *list ? *list : "", *list ? "\n" : "", arg) < 0)
			return -1;
		/* The strings live as long as the process: the previous one is not freed. */
		*list = joined;
		return 1;
	case HWT_UNIT_OPT_TRACE_ALL:
		opts->trace_all = 1;
		return 1;
	case HWT_UNIT_OPT_FILTER:
		for (n = 0; opts->filters[n]; n++)
			;
		if (n + 1 >= sizeof(opts->filters) / sizeof(opts->filters[0]) || !*arg ||
		    *arg == ':' || strchr(arg, '\n')) {
			fprintf(stderr, "%s: --filter wants IMAGE or IMAGE:FUNCTION (at most %zu)\n",
				prefix, sizeof(opts->filters) / sizeof(opts->filters[0]) - 1);
			return -1;
		}
		opts->filters[n] = arg;
		return 1;
	default:
		return 0;
	}
}

/* Finds name in PATH, as execvp would; buf gets the absolute path. */
static int find_in_path(const char *name, char *buf, size_t size)
{
	const char *path = getenv("PATH");
	char candidate[PATH_MAX];

	if (!path)
		path = "/bin:/usr/bin";
	while (*path) {
		size_t n = strcspn(path, ":");

		snprintf(candidate, sizeof(candidate), "%.*s/%s", (int)n, path, name);
		if (n && access(candidate, X_OK) == 0 && size >= PATH_MAX && realpath(candidate, buf))
			return 0;
		path += n;
		if (*path)
			path++;
	}
	return -1;
}

/*
 * With selection, the command starts through the preloaded library itself:
 * the child loads it with dlopen and calls its execvp, which decides
 * whether to trace the command (as it will for every later exec of the
 * tree) and records it when not. Sets up the environment it reads.
 */
static int set_select_env(const char *bundle, const char *lib, const char *unit_lines,
			  const struct hwt_unit_options *opts, char *preload, size_t size)
{
	const char *old = getenv("LD_PRELOAD");
	char *value, path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/../libhwt-preload.so", lib);
	if (size < PATH_MAX || !realpath(path, preload) || !is_file(preload)) {
		fprintf(stderr, "hwt: the preloaded library is missing: no %s/../libhwt-preload.so\n"
			"hwt: build it (cmake --build), or use --trace-all\n", lib);
		return -1;
	}
	if (asprintf(&value, "%s%s%s", preload, old && *old ? ":" : "", old ? old : "") < 0)
		return -1;
	setenv("LD_PRELOAD", value, 1);
	free(value);
	setenv("HWT_SELECT_BUNDLE", bundle, 1);
	setenv("HWT_SELECT_PRELOAD", preload, 1);
	setenv("HWT_SELECT_UNIT", unit_lines, 1);
	setenv("HWT_SELECT_UNIT_LIB", lib, 1);
	if (opts->trace)
		setenv("HWT_SELECT_TRACE", opts->trace, 1);
	if (opts->no_trace)
		setenv("HWT_SELECT_NO_TRACE", opts->no_trace, 1);
	return 0;
}

typedef int (*execvp_fn)(const char *, char *const[]);

int hwt_valgrind_unit_run(const char *bundle, const struct hwt_unit_options *opts,
			  char *const argv[], int *status)
{
	const char *unit_lib = hwt_valgrind_unit_lib();
	char bundle_opt[PATH_MAX + 32], psb_opt[64], valgrind[PATH_MAX], preload[PATH_MAX];
	char lib[PATH_MAX];
	char filter_opts[16][PATH_MAX + 16];
	const char *vg_argv[32 + 1024];
	char *unit_lines = NULL;
	size_t lines_len = 0;
	int argc = 0, nopts, i, pipefd[2];
	struct sigaction sa, old_int, old_term, old_hup, old_quit;
	FILE *lines;
	pid_t pid;

	if (!unit_lib)
		return -1;
	if (!realpath(unit_lib, lib)) {
		fprintf(stderr, "hwt: %s: %s\n", unit_lib, strerror(errno));
		return -1;
	}
	/* Debian's `valgrind` is a shell script around valgrind.bin: spare a shell per
	   traced process when selecting (with --trace-all, as before). */
	if ((opts->trace_all || find_in_path("valgrind.bin", valgrind, sizeof(valgrind)) < 0) &&
	    find_in_path("valgrind", valgrind, sizeof(valgrind)) < 0) {
		fprintf(stderr, "hwt: cannot run valgrind: not found in PATH "
			"(install it: apt-get install valgrind)\n");
		return -1;
	}
	snprintf(bundle_opt, sizeof(bundle_opt), "--hwt-bundle=%s", bundle);
	vg_argv[argc++] = valgrind;
	vg_argv[argc++] = "--tool=hwt";
	vg_argv[argc++] = "-q";
	vg_argv[argc++] = opts->trace_all ? "--trace-children=yes" : "--trace-children=no";
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
	for (i = 0; opts->filters[i] && i < 16; i++) {
		snprintf(filter_opts[i], sizeof(filter_opts[i]), "--hwt-filter=%s", opts->filters[i]);
		vg_argv[argc++] = filter_opts[i];
	}
	nopts = argc;
	vg_argv[argc++] = "--";
	for (i = 0; argv[i]; i++) {
		if (argc == (int)(sizeof(vg_argv) / sizeof(vg_argv[0])) - 1) {
			fprintf(stderr, "hwt: too many arguments\n");
			return -1;
		}
		vg_argv[argc++] = argv[i];
	}
	vg_argv[argc] = NULL;

	/* The trace unit's command line, one argument a line, for the preloaded library. */
	lines = open_memstream(&unit_lines, &lines_len);
	if (!lines)
		return -1;
	for (i = 0; i < nopts; i++)
		fprintf(lines, "%s%s", i ? "\n" : "", vg_argv[i]);
	fclose(lines);

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
		if (opts->trace_all) {
			execv(valgrind, (char *const *)vg_argv);
		} else if (set_select_env(bundle, lib, unit_lines, opts, preload,
					  sizeof(preload)) == 0) {
			void *handle = dlopen(preload, RTLD_NOW | RTLD_LOCAL);
			execvp_fn select_execvp = handle ? (execvp_fn)dlsym(handle, "execvp") : NULL;

			if (select_execvp)
				select_execvp(argv[0], argv);
			else
				fprintf(stderr, "hwt: cannot load %s: %s\n", preload, dlerror());
		}
		err = errno;
		if (write(pipefd[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(127);
	}
	free(unit_lines);
	close(pipefd[1]);
	{
		int err;

		if (read(pipefd[0], &err, sizeof(err)) == sizeof(err)) {
			close(pipefd[0]);
			waitpid(pid, NULL, 0);
			fprintf(stderr, "hwt: cannot run %s: %s\n", opts->trace_all ? valgrind : argv[0],
				strerror(err));
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
