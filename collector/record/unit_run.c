/*
 * What the trace units share (trace_unit.h): the choice of a
 * unit, the preloaded library's environment, and running the command:
 * fork, exec (a failed exec reported through a close-on-exec pipe), signal
 * forwarding, wait. The units themselves (valgrind_unit.c, qemu_unit.c)
 * find their files and build their command line.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "root.h"
#include "select.h"
#include "trace_unit.h"

static const struct hwt_unit *const units[] = { &hwt_valgrind_unit, &hwt_qemu_unit,
						 &hwt_perf_unit, &hwt_kmod_unit };

static const struct hwt_unit *unit_named(const char *name)
{
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (name && strcmp(units[i]->name, name) == 0)
			return units[i];
	return NULL;
}

int hwt_unit_known(const char *name)
{
	return unit_named(name) || strcmp(name, "auto") == 0;
}

int hwt_unit_record_filter(const struct hwt_unit *unit, const struct hwt_unit_options *opts)
{
	return opts->record_filter && unit && unit->record_filter &&
	       opts->record_filter >= unit->record_filter && !opts->trace_all && !opts->filters[0];
}

int hwt_unit_root(const struct hwt_unit_options *opts, char *root, const char **from)
{
	enum hwt_root_source source;
	int err = hwt_select_root_find(opts->root, root, &source);

	*from = hwt_select_root_source_name(source);
	return err;
}

static int is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* ---- a unit's command line ---- */

int hwt_unit_arg(struct hwt_unit_argv *a, const char *s)
{
	if (!s || a->n == sizeof(a->v) / sizeof(a->v[0]))
		return -1;
	a->v[a->n++] = s;
	return 0;
}

int hwt_unit_argf(struct hwt_unit_argv *a, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	if (a->nowned == sizeof(a->owned) / sizeof(a->owned[0]))
		return -1;
	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	a->owned[a->nowned++] = s;
	return hwt_unit_arg(a, s);
}

static void argv_free(struct hwt_unit_argv *a)
{
	for (size_t i = 0; i < a->nowned; i++)
		free(a->owned[i]);
	a->nowned = a->n = 0;
}

/* ---- finding a unit ---- */

int hwt_unit_find_in_path(const char *name, char *buf, size_t size)
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
 * <prefix>/lib/hwt/<name> of this hwt's <prefix>/bin into buf (installed
 * and build trees alike). -1 (a message unless quiet).
 */
static int own_lib(const char *name, char *buf, size_t size, const char *prefix, int quiet)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n < 0) {
		if (!quiet)
			fprintf(stderr, "%s: cannot find my own executable: %s\n", prefix,
				strerror(errno));
		return -1;
	}
	exe[n] = '\0';
	*strrchr(exe, '/') = '\0';
	snprintf(buf, size, "%s/../lib/hwt/%s", exe, name);
	return 0;
}

/*
 * The unit's directory (canonical) into lib (PATH_MAX bytes): $lib_env, else
 * lib/hwt/<lib_dir> of this hwt. It must hold lib_file. -1 (a message
 * unless quiet).
 */
static int find_lib(const struct hwt_unit *unit, char *lib, const char *prefix, int quiet)
{
	char dir[PATH_MAX + 32], file[PATH_MAX + 64];
	const char *env = unit->lib_env ? getenv(unit->lib_env) : NULL;

	if (!unit->lib_file) {
		lib[0] = '\0'; /* a unit without files of hwt's (perf) */
		return 0;
	}
	if (env && *env)
		snprintf(dir, sizeof(dir), "%s", env);
	else if (own_lib(unit->lib_dir, dir, sizeof(dir), prefix, quiet) < 0)
		return -1;
	snprintf(file, sizeof(file), "%s/%s", dir, unit->lib_file);
	if (!is_file(file) || !realpath(dir, lib)) {
		if (!quiet)
			fprintf(stderr, "%s: the %s trace unit is missing: no %s\n"
				"%s: build it (cmake --build) or set %s\n", prefix, unit->title, file,
				prefix, unit->lib_env);
		return -1;
	}
	return 0;
}

const char *hwt_unit_lib_dir(const char *name, char *buf)
{
	const struct hwt_unit *unit = unit_named(name);

	return find_lib(unit ? unit : &hwt_valgrind_unit, buf, "hwt", 1) == 0 ? buf : NULL;
}

static int prepare(struct hwt_unit_run *run, const struct hwt_unit *unit,
		   const struct hwt_unit_options *opts, const char *prefix, int quiet)
{
	run->unit = unit;
	if (unit->prepare(&run->files, opts, prefix, quiet) != 0)
		return -1;
	return !unit->lib_file || find_lib(unit, run->files.lib, prefix, quiet) == 0 ? 0 : -1;
}

int hwt_unit_prepare(struct hwt_unit_run *run, const struct hwt_unit_options *opts,
		     const char *prefix)
{
	const char *name = opts->unit;

	memset(run, 0, sizeof(*run));
	if (!name) {
		name = getenv(HWT_UNIT_ENV);
		if (!name || !*name)
			name = HWT_UNIT_DEFAULT;
		else if (!hwt_unit_known(name)) {
			fprintf(stderr, "%s: %s: unknown trace unit '%s' (known: perf, valgrind, qemu, "
				"kmod, auto)\n", prefix, HWT_UNIT_ENV, name);
			return -1;
		}
	}
	/*
	 * auto: QEMU when it is installed, the plugin built, and opts are its
	 * own; not for --trace-all, which would run every program of the tree
	 * under QEMU 7.2's user mode, which cannot run some (scripts; ctest
	 * dies at its first SIGCHLD): docs/qemu-unit.md.
	 */
	if (opts->spe_interval && strcmp(name, "auto") != 0 && strcmp(name, "qemu") != 0) {
		/* The software SPE unit is the QEMU unit's (its aarch64 guests). */
		fprintf(stderr, "%s: --spe needs the qemu trace unit (--unit qemu), not %s\n", prefix,
			name);
		return -1;
	}
	if (strcmp(name, "auto") == 0) {
		/* Hardware first: perf where the CPU has Intel PT (not with --spe:
		   only the QEMU unit writes SPE records). */
		if (opts->spe_interval)
			return prepare(run, &hwt_qemu_unit, opts, prefix, 0);
		if (prepare(run, &hwt_perf_unit, opts, prefix, 1) == 0)
			return 0;
		return !opts->trace_all && prepare(run, &hwt_qemu_unit, opts, prefix, 1) == 0 ?
			       0 : prepare(run, &hwt_valgrind_unit, opts, prefix, 0);
	}
	return prepare(run, unit_named(name), opts, prefix, 0);
}

int hwt_unit_aarch64_runner(struct hwt_unit_argv *out)
{
	const char *sysroot = getenv("QEMU_LD_PREFIX");
	char exe[PATH_MAX];

	if (hwt_unit_find_in_path(HWT_QEMU_AARCH64, exe, sizeof(exe)) < 0)
		return -1;
	if (!sysroot || !*sysroot)
		sysroot = HWT_AARCH64_SYSROOT;
	return hwt_unit_argf(out, "%s", exe) | hwt_unit_arg(out, "-L") |
			       hwt_unit_argf(out, "%s", sysroot) | hwt_unit_arg(out, "-U") |
			       hwt_unit_arg(out, "LD_PRELOAD") ?
		       -1 : 0;
}

/* ---- running the command ---- */

/*
 * The signals that end a command (SIGINT, SIGTERM, SIGHUP, SIGQUIT) stop the
 * traced command, not us: we live on to write what was recorded. One sent
 * by a process (kill -INT of our pid: si_code <= 0) is passed on to the
 * command; one the kernel sent (a terminal's Ctrl-C or hangup reaches the
 * whole foreground group) has reached the command already. One that comes
 * before the command exists waits for it (pending_signal).
 */
static const int forwarded_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
#define NFORWARDED (sizeof(forwarded_signals) / sizeof(forwarded_signals[0]))

static volatile pid_t child_pid;
static volatile sig_atomic_t pending_signal;

static void forward_signal(int sig, siginfo_t *info, void *ucontext)
{
	(void)ucontext;
	if (child_pid <= 0)
		pending_signal = sig; /* whoever sent it, the command is not there yet */
	else if (!info || info->si_code <= 0)
		kill(child_pid, sig);
	/* else from the kernel (a terminal): the command's group had it too */
}

void hwt_unit_signals_forward(struct hwt_unit_signals *saved)
{
	struct sigaction sa;

	child_pid = 0;
	pending_signal = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = forward_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NFORWARDED; i++)
		sigaddset(&sa.sa_mask, forwarded_signals[i]);
	for (size_t i = 0; i < NFORWARDED; i++)
		sigaction(forwarded_signals[i], &sa, &saved->old[i]);
}

void hwt_unit_signals_child(pid_t pid)
{
	int sig;

	child_pid = pid;
	sig = pending_signal;
	pending_signal = 0;
	if (sig && pid > 0)
		kill(pid, sig);
}

void hwt_unit_signals_default(void)
{
	for (size_t i = 0; i < NFORWARDED; i++)
		signal(forwarded_signals[i], SIG_DFL);
}

void hwt_unit_signals_restore(const struct hwt_unit_signals *saved)
{
	for (size_t i = 0; i < NFORWARDED; i++)
		sigaction(forwarded_signals[i], &saved->old[i], NULL);
	child_pid = 0;
}

/*
 * What the preloaded library needs in every case: itself first in
 * LD_PRELOAD (before the user's own), the bundle, its own path, the unit's
 * command line and directory. -1 when out of memory.
 */
static int preload_env(const struct hwt_unit_run *run, const char *bundle,
		       const char *unit_lines, const char *preload)
{
	const char *old = getenv("LD_PRELOAD");
	char *value;

	if (asprintf(&value, "%s%s%s", preload, old && *old ? ":" : "", old ? old : "") < 0)
		return -1;
	setenv("LD_PRELOAD", value, 1);
	free(value);
	setenv(HWT_SELECT_ENV_BUNDLE, bundle, 1);
	setenv(HWT_SELECT_ENV_PRELOAD, preload, 1);
	setenv(HWT_SELECT_ENV_UNIT, unit_lines, 1);
	setenv(HWT_SELECT_ENV_UNIT_LIB, run->files.lib, 1);
	return 0;
}

/*
 * With selection, the command starts through the preloaded library itself:
 * the child loads it with dlopen and calls its execvp, which decides
 * whether to trace the command (as it will for every later exec of the
 * tree) and records it when not. Sets up the environment it reads.
 */
static int set_select_env(const struct hwt_unit_run *run, const char *bundle,
			  const char *unit_lines, const char *aarch64_lines, const char *run_lines,
			  const struct hwt_unit_options *opts, char *preload, size_t size,
			  const char *prefix)
{
	char path[PATH_MAX + 32];

	/* hwt's own, whichever unit's directory $HWT_*_LIB names. */
	if (own_lib("libhwt-preload.so", path, sizeof(path), prefix, 0) < 0)
		return -1;
	if (size < PATH_MAX || !realpath(path, preload) || !is_file(preload)) {
		fprintf(stderr, "%s: the preloaded library is missing: no %s\n"
			"%s: build it (cmake --build)%s\n", prefix, path, prefix,
			run->unit->follows_children ? ", or use --trace-all" : "");
		return -1;
	}
	if (preload_env(run, bundle, unit_lines, preload) < 0)
		return -1;
	setenv(HWT_SELECT_ENV_UNIT_KIND, run->unit->name, 1);
	if (opts->project_root)
		setenv(HWT_SELECT_ENV_ROOT, opts->project_root, 1);
	else
		unsetenv(HWT_SELECT_ENV_ROOT);
	if (opts->trace)
		setenv(HWT_SELECT_ENV_TRACE, opts->trace, 1);
	if (opts->no_trace)
		setenv(HWT_SELECT_ENV_NO_TRACE, opts->no_trace, 1);
	if (aarch64_lines)
		setenv(HWT_SELECT_ENV_UNIT_AARCH64, aarch64_lines, 1);
	if (run_lines)
		setenv(HWT_SELECT_ENV_RUN_AARCH64, run_lines, 1);
	return 0;
}

/*
 * --trace-all under a unit that follows every exec itself (Valgrind, which
 * fails the exec of a set-ID program): the preloaded library is there only
 * to exec set-ID programs natively, through the helper (helper, PATH_MAX
 * bytes) that the unit is told not to follow. -1 (said) when the library
 * or the helper is missing.
 */
static int set_id_only_env(const struct hwt_unit_run *run, const char *bundle,
			   const char *unit_lines, const char *helper, char *preload, size_t size,
			   const char *prefix)
{
	char path[PATH_MAX + 32];

	if (own_lib("libhwt-preload.so", path, sizeof(path), prefix, 0) < 0)
		return -1;
	if (size < PATH_MAX || !realpath(path, preload) || !is_file(preload) || !is_file(helper)) {
		fprintf(stderr, "%s: the preloaded library or its helper is missing: no %s or %s\n"
			"%s: build them (cmake --build)\n", prefix, path, helper, prefix);
		return -1;
	}
	if (preload_env(run, bundle, unit_lines, preload) < 0)
		return -1;
	setenv(HWT_SELECT_ENV_SET_ID_ONLY, helper, 1);
	return 0;
}

typedef int (*execvp_fn)(const char *, char *const[]);

/*
 * The command line to exec: the unit's, "--" and argv when the unit runs
 * the command itself (direct), and its lines, one argument a line, for the
 * preloaded library. NULL when out of memory or an argument has a newline.
 */
static const char **command_line(const struct hwt_unit_argv *unit_argv, char *const argv[],
				 int direct, char **lines, const char *prefix)
{
	size_t argc, i, len = 0;
	const char **v;
	FILE *out;

	for (argc = 0; argv[argc]; argc++)
		;
	v = calloc(unit_argv->n + argc + 2, sizeof(*v));
	out = open_memstream(lines, &len);
	if (!v || !out) {
		if (out) {
			fclose(out);
			free(*lines);
		}
		free(v);
		return NULL;
	}
	for (i = 0; i < unit_argv->n; i++) {
		if (strchr(unit_argv->v[i], '\n')) {
			fprintf(stderr, "%s: cannot pass '%s' to the trace unit: it has a newline\n",
				prefix, unit_argv->v[i]);
			fclose(out);
			free(*lines);
			free(v);
			return NULL;
		}
		fprintf(out, "%s%s", i ? "\n" : "", unit_argv->v[i]);
		v[i] = unit_argv->v[i];
	}
	fclose(out);
	if (direct) {
		v[i++] = "--";
		for (size_t k = 0; k < argc; k++)
			v[i++] = argv[k];
	}
	v[i] = NULL;
	return v;
}

/*
 * The lines of the command lines for aarch64 programs (each NULL when
 * there is none): the unit's, and plain qemu-aarch64's.
 */
static void aarch64_lines(const struct hwt_unit_run *run, const char *bundle,
			  const struct hwt_unit_options *opts, char **unit_lines, char **run_lines,
			  const char *prefix)
{
	struct hwt_unit_argv a = { 0 }, r = { 0 };
	char *const none[] = { NULL };

	*unit_lines = *run_lines = NULL;
	if (hwt_unit_aarch64_runner(&r) == 0)
		free(command_line(&r, none, 0, run_lines, prefix));
	if (*run_lines && run->unit->argv_prefix_aarch64 &&
	    run->unit->argv_prefix_aarch64(&run->files, bundle, opts, &a) == 0)
		free(command_line(&a, none, 0, unit_lines, prefix));
	argv_free(&a);
	argv_free(&r);
}

int hwt_unit_run(const struct hwt_unit_run *run, const char *bundle,
		 const struct hwt_unit_options *opts_in, char *const argv[], int *status,
		 const char *prefix)
{
	struct hwt_unit_options opts = *opts_in;
	struct hwt_unit_argv unit_argv = { 0 };
	char preload[PATH_MAX], helper[PATH_MAX + 32] = "";
	char *unit_lines = NULL, *a64_lines = NULL, *a64_run_lines = NULL;
	const char **cmd;
	int direct = run->unit->finish || (opts.trace_all && run->unit->follows_children);
	int pipefd[2];
	struct hwt_unit_signals signals;
	pid_t pid;

	if (run->unit->record)
		return run->unit->record(bundle, opts_in, argv, status, prefix);
	/* --trace-all under a unit that does not follow children: select every executable. */
	if (opts.trace_all && !direct && !run->unit->finish) {
		opts.trace = "*";
		opts.no_trace = NULL;
	}
	/* Set-ID programs run natively: Valgrind does not follow the helper they go through. */
	if (opts.trace_all && direct && !run->unit->finish && !opts.no_preload &&
	    own_lib("hwt-exec-native", helper, sizeof(helper), prefix, 0) < 0)
		return -1;
	if (run->unit->argv_prefix(&run->files, bundle, &opts, &unit_argv) < 0 ||
	    (helper[0] && hwt_unit_argf(&unit_argv, "--trace-children-skip=%s", helper) < 0)) {
		fprintf(stderr, "%s: cannot make the command line of the %s trace unit\n", prefix,
			run->unit->title);
		argv_free(&unit_argv);
		return -1;
	}
	cmd = command_line(&unit_argv, argv, direct, &unit_lines, prefix);
	if (!cmd) {
		argv_free(&unit_argv);
		return -1;
	}
	if (!direct)
		aarch64_lines(run, bundle, &opts, &a64_lines, &a64_run_lines, prefix);
	if (!direct && opts.project_root) {
		/* Where the preloaded library keeps the project test's verdicts (by build-id). */
		char cache[PATH_MAX + 16];

		snprintf(cache, sizeof(cache), "%s/" HWT_SELECT_CACHE_DIR, bundle);
		if (mkdir(cache, 0777) < 0 && errno != EEXIST)
			fprintf(stderr, "%s: warning: cannot create %s: %s\n", prefix, cache,
				strerror(errno));
	}

	/*
	 * Not the commands' runner (hwt_command_run, posix_spawn): this child
	 * works between fork and exec, setting the unit's environment and
	 * starting the command through the preloaded library's execvp, which
	 * decides whether to trace it. It reports a failed exec through a
	 * close-on-exec pipe.
	 */
	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		fprintf(stderr, "%s: pipe: %s\n", prefix, strerror(errno));
		pid = -1;
		goto out;
	}
	/* From here on a signal is the command's: forwarded, or kept until it exists. */
	hwt_unit_signals_forward(&signals);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "%s: fork: %s\n", prefix, strerror(errno));
		close(pipefd[0]);
		close(pipefd[1]);
		hwt_unit_signals_restore(&signals);
		goto out;
	}
	if (pid == 0) {
		int err;

		hwt_unit_signals_default();
		close(pipefd[0]);
		if (run->unit->child_env)
			run->unit->child_env(&run->files);
		if (direct) {
			if (!helper[0] || set_id_only_env(run, bundle, unit_lines, helper, preload,
							  sizeof(preload), prefix) == 0)
				execv(run->files.exe, (char *const *)cmd);
		} else if (set_select_env(run, bundle, unit_lines, a64_lines, a64_run_lines, &opts,
					  preload, sizeof(preload), prefix) == 0) {
			void *handle = dlopen(preload, RTLD_NOW | RTLD_LOCAL);
			execvp_fn select_execvp = handle ? (execvp_fn)dlsym(handle, "execvp") : NULL;

			if (select_execvp)
				select_execvp(argv[0], argv);
			else
				fprintf(stderr, "%s: cannot load %s: %s\n", prefix, preload, dlerror());
		}
		err = errno;
		if (write(pipefd[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(127);
	}
	close(pipefd[1]);
	hwt_unit_signals_child(pid);
	{
		int err;
		ssize_t n;

		while ((n = read(pipefd[0], &err, sizeof(err))) < 0 && errno == EINTR)
			;
		if (n == sizeof(err)) {
			close(pipefd[0]);
			while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
				;
			hwt_unit_signals_restore(&signals);
			fprintf(stderr, "%s: %s: %s\n", prefix, direct ? run->files.exe : argv[0],
				err == ENOENT ? "command not found" : strerror(err));
			/* As a shell says it: 127 not found, 126 found but not run. */
			*status = (err == ENOENT ? 127 : 126) << 8;
			goto out;
		}
		close(pipefd[0]);
	}
	/* Threads start only now: the child above does more than exec. */
	if (opts.running)
		opts.running(opts.running_context);

	while (waitpid(pid, status, 0) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "%s: waitpid: %s\n", prefix, strerror(errno));
			*status = 0x7f00;
			break;
		}
	}
	hwt_unit_signals_restore(&signals);
out:
	free(unit_lines);
	free(a64_lines);
	free(a64_run_lines);
	free(cmd);
	argv_free(&unit_argv);
	return pid < 0 ? -1 : 0;
}
