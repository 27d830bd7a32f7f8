/*
 * libhwt-preload.so: keeps a recording's process tree followed while only
 * the selected processes run under the trace unit (docs/select.md).
 *
 * `hwt record` starts the command with this library in LD_PRELOAD. In every
 * process of the tree, native or traced (there it runs as guest code under
 * the trace unit: Valgrind with --trace-children=no, or qemu-x86_64, which
 * runs a guest's execve natively), it intercepts the exec family and
 * posix_spawn(p), decides per target (collector/select) and either rewrites
 * the exec into one of the trace unit (HWT_SELECT_UNIT_KIND says which kind of
 * command line) with the same arguments and environment, or lets it run
 * natively and writes an UNTRACED record for the new image into the
 * bundle. Every exec keeps LD_PRELOAD and the
 * HWT_SELECT_* variables, so a program that cleans its children's
 * environment does not lose the tree.
 *
 * Statically linked programs do not load the library: what they start is
 * not followed (the trace unit reports it when it traces one of them:
 * Valgrind when told --hwt-unfollowed=yes, QEMU's plugin by itself).
 *
 * It runs inside programs it knows nothing about, possibly between vfork
 * and exec: no allocation on the exec path, the stack and static buffers.
 * Also in threads with small stacks: the exec path keeps its frames to
 * about 42 KiB (gcc -fstack-usage; the project test's 15 of them) plus vectors sized by the caller's own
 * argv and envp, not by the largest ones it could meet.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <valgrind/valgrind.h>

#include "hwt_record.h"
#include "hwt_select_rule.h"
#include "hwt_trace_budget.h"
#include "select.h"

#define EXPORT __attribute__((visibility("default")))
#define ENV_MAX 8192

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execveat_fn)(int, const char *, char *const[], char *const[], int);
typedef int (*spawn_fn)(pid_t *, const char *, const posix_spawn_file_actions_t *,
			const posix_spawnattr_t *, char *const[], char *const[]);

static execve_fn real_execve;
static execveat_fn real_execveat;
static spawn_fn real_posix_spawn, real_posix_spawnp;

static int active;                      /* configured by `hwt record` */
static struct hwt_select_config config;
/* Our own copies of the variables that every exec must carry on. */
static char env_bundle[ENV_MAX], env_preload[ENV_MAX], env_unit[ENV_MAX], env_unit_lib[ENV_MAX],
	env_unit_kind[ENV_MAX], env_trace[ENV_MAX], env_no_trace[ENV_MAX],
	env_unit_aarch64[ENV_MAX], env_run_aarch64[ENV_MAX], env_root[ENV_MAX],
	env_set_id_only[ENV_MAX];
static const char *preload_path;        /* this library */
static char *env_saved[12];             /* "NAME=value" strings of the above, NULL-terminated */
/* --trace-all under Valgrind, which follows every exec: only set-ID programs
   are ours, exec'ed through this helper (HWT_SELECT_SET_ID_ONLY), or NULL. */
static const char *set_id_helper;
static char cache_dir[ENV_MAX];         /* <bundle>/select: the project test's verdicts */
static int unit_qemu;                   /* the unit is qemu-x86_64, not Valgrind */
/* Made once, not on each exec's stack: */
static char env_valgrind_lib[ENV_MAX];  /* VALGRIND_LIB=<the unit's> for a traced image */
/* A command line prefix, one NUL-terminated line each. */
struct lines {
	char buf[ENV_MAX];
	size_t n;
};
static struct lines unit_lines;         /* the trace unit's (HWT_SELECT_UNIT) */
/* aarch64 programs: under the QEMU unit (HWT_SELECT_UNIT_AARCH64), untraced
   under plain qemu-aarch64 (HWT_SELECT_RUN_AARCH64); n 0 when not set. */
static struct lines unit_lines_aarch64, run_lines_aarch64;

/*
 * buf (ENV_MAX bytes) = a b c, or 0 when it does not fit. Not snprintf: in
 * the constructor of a program that QEMU runs, printf's code would be
 * translated for this alone (about 1 ms a process).
 */
static int concat(char *buf, const char *a, const char *b, const char *c)
{
	size_t na = strlen(a), nb = strlen(b), nc = strlen(c);

	if (na + nb + nc >= ENV_MAX)
		return 0;
	memcpy(buf, a, na);
	memcpy(buf + na, b, nb);
	memcpy(buf + na + nb, c, nc + 1);
	return 1;
}

static int save_env(char *buf, const char *name)
{
	const char *v = getenv(name);

	return v && concat(buf, name, "=", v);
}

/*
 * A HWT_SELECT_UNIT-style value into l: each line a string (an empty line
 * an empty argument), up to the end or a final newline. NULL: none.
 */
static void split_lines(struct lines *l, const char *value)
{
	size_t len;
	char *p;

	l->n = 0;
	if (!value)
		return;
	len = strlen(value); /* < ENV_MAX: save_env checked */
	memcpy(l->buf, value, len + 1);
	for (p = l->buf; *p; l->n++) {
		p += strcspn(p, "\n");
		if (*p)
			*p++ = '\0';
	}
}

/* The value of a "NAME=value" copy, or NULL when the variable was unset. */
static const char *value_of(const char *saved)
{
	return saved[0] ? strchr(saved, '=') + 1 : NULL;
}

/*
 * The rest of the set-up, at the first exec or spawn rather than in the
 * constructor: a traced program that starts nothing (most tests) never pays
 * for it, and under QEMU every instruction run once is first translated
 * (dlsym, realpath: about 1.2 ms a process).
 */
static void configure(void)
{
	real_execve = (execve_fn)dlsym(RTLD_NEXT, "execve");
	real_execveat = (execveat_fn)dlsym(RTLD_NEXT, "execveat");
	real_posix_spawn = (spawn_fn)dlsym(RTLD_NEXT, "posix_spawn");
	real_posix_spawnp = (spawn_fn)dlsym(RTLD_NEXT, "posix_spawnp");
	if (!env_saved[0])
		return; /* not under `hwt record` */
	preload_path = value_of(env_preload);
	unit_qemu = env_unit_kind[0] && strcmp(value_of(env_unit_kind), "qemu") == 0;
	hwt_select_config_init(&config, value_of(env_trace), value_of(env_no_trace),
			       value_of(env_unit_lib), value_of(env_unit));
	if (!concat(env_valgrind_lib, "VALGRIND_LIB=", config.unit_lib, ""))
		env_valgrind_lib[0] = '\0';
	config.root = env_root[0] ? value_of(env_root) : NULL;
	set_id_helper = env_set_id_only[0] ? value_of(env_set_id_only) : NULL;
	if (concat(cache_dir, value_of(env_bundle), "/", HWT_SELECT_CACHE_DIR))
		config.cache_dir = cache_dir;
	split_lines(&unit_lines, value_of(env_unit));
	split_lines(&unit_lines_aarch64, value_of(env_unit_aarch64));
	split_lines(&run_lines_aarch64, value_of(env_run_aarch64));
	active = real_execve && real_posix_spawn && real_posix_spawnp;
}

/* 1 when `hwt record` configured this process (set up on the first call). */
static int configured(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, configure);
	return active;
}

__attribute__((constructor)) static void hwt_preload_init(int argc, char **argv, char **envp)
{
	int n = 0;

	(void)envp;
	/*
	 * Under the trace unit, argv[0] is the path: give the program the one it
	 * was called by. (Natively, this is Valgrind's launcher, which must pass
	 * the variable on to its client.)
	 */
	if (RUNNING_ON_VALGRIND) {
		const char *argv0 = getenv(HWT_SELECT_ENV_ARGV0);
		static char saved[PATH_MAX];

		if (argv0 && argc > 0 && argv && strlen(argv0) < sizeof(saved)) {
			const char *base;

			strcpy(saved, argv0);
			argv[0] = saved;
			program_invocation_name = saved;
			base = strrchr(saved, '/');
			program_invocation_short_name = base ? (char *)base + 1 : saved;
		}
		if (argv0)
			unsetenv(HWT_SELECT_ENV_ARGV0);
	}

	/* Copies now: the program may change its environment before it execs. */
	if (!save_env(env_bundle, HWT_SELECT_ENV_BUNDLE) ||
	    !save_env(env_preload, HWT_SELECT_ENV_PRELOAD) ||
	    !save_env(env_unit, HWT_SELECT_ENV_UNIT) ||
	    !save_env(env_unit_lib, HWT_SELECT_ENV_UNIT_LIB))
		return;
	env_saved[n++] = env_bundle;
	env_saved[n++] = env_preload;
	env_saved[n++] = env_unit;
	env_saved[n++] = env_unit_lib;
	if (save_env(env_unit_kind, HWT_SELECT_ENV_UNIT_KIND))
		env_saved[n++] = env_unit_kind;
	if (save_env(env_trace, HWT_SELECT_ENV_TRACE))
		env_saved[n++] = env_trace;
	if (save_env(env_no_trace, HWT_SELECT_ENV_NO_TRACE))
		env_saved[n++] = env_no_trace;
	if (save_env(env_unit_aarch64, HWT_SELECT_ENV_UNIT_AARCH64))
		env_saved[n++] = env_unit_aarch64;
	if (save_env(env_run_aarch64, HWT_SELECT_ENV_RUN_AARCH64))
		env_saved[n++] = env_run_aarch64;
	if (save_env(env_root, HWT_SELECT_ENV_ROOT))
		env_saved[n++] = env_root;
	if (save_env(env_set_id_only, HWT_SELECT_ENV_SET_ID_ONLY))
		env_saved[n++] = env_set_id_only;
	env_saved[n] = NULL;
}

/* ---- the UNTRACED record ---- */

/*
 * Appends one UNTRACED record to sideband/untraced.sb: the image that pid is
 * about to become runs natively, or (flags HWT_UNTRACED_CANCEL) the exec
 * that pid's last record announced failed. One write(2) with O_APPEND, so
 * the records of processes writing at once do not mix. One file for all of
 * them rather than one per process: on a busy ext4, creating a file costs
 * about 0.5 ms, as much as the exec. Returns 0 or -1.
 */
static int write_untraced(pid_t pid, pid_t ppid, const char *path, const char *reason,
			  unsigned flags)
{
	const char *bundle = value_of(env_bundle);
	size_t plen = strlen(path) + 1, rlen = strlen(reason) + 1, flen;
	ssize_t n;
	uint32_t size;
	int fd;

	if (plen > PATH_MAX)
		plen = PATH_MAX;
	if (rlen > 256)
		rlen = 256;
	flen = strlen(bundle) + sizeof("/sideband/untraced.sb");
	if (flen > PATH_MAX)
		return -1;
	/* The record, as long as this one needs (whole words: the header's alignment). */
	uint64_t words[(sizeof(struct hwt_record_untraced) + plen + rlen + 7) / sizeof(uint64_t)];
	struct hwt_record_untraced *rec = (struct hwt_record_untraced *)words;
	char file[flen];

	size = hwt_record_untraced_build(words, sizeof(words), (uint32_t)ppid, (uint16_t)flags,
					 path, plen, reason, rlen);
	rec->hdr.time = 1;
	rec->hdr.pid = (uint32_t)pid;
	rec->hdr.tid = (uint32_t)pid;
	hwt_record_seal(&rec->hdr);
	snprintf(file, sizeof(file), "%s/sideband/untraced.sb", bundle);
	fd = open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	n = write(fd, words, size);
	close(fd);
	return n == (ssize_t)size ? 0 : -1;
}

/* ---- environment and argument vectors, built on the caller's stack ---- */

static size_t count(char *const v[])
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

static int has_var(char *const envp[], const char *entry)
{
	size_t n = strcspn(entry, "=") + 1;

	for (size_t i = 0; envp && envp[i]; i++)
		if (strncmp(envp[i], entry, n) == 0)
			return 1;
	return 0;
}

/* Does LD_PRELOAD hold this library and nothing of Valgrind's? */
static int preload_ok(const char *value)
{
	size_t n = strlen(preload_path);
	const char *p = value;

	if (strstr(value, "/vgpreload_"))
		return 0;
	while ((p = strstr(p, preload_path)) != NULL) {
		if ((p == value || p[-1] == ':' || p[-1] == ' ') &&
		    (p[n] == '\0' || p[n] == ':' || p[n] == ' '))
			return 1;
		p += n;
	}
	return 0;
}

/* LD_PRELOAD=<this library>:<the others but Valgrind's> into buf. */
static void make_preload(char *buf, size_t size, const char *old)
{
	int at = snprintf(buf, size, "LD_PRELOAD=%s", preload_path);

	while (old && *old && at > 0 && (size_t)at < size) {
		size_t n = strcspn(old, ": ");

		if (n > 0 && !memmem(old, n, "/vgpreload_", 11) &&
		    !(n == strlen(preload_path) && strncmp(old, preload_path, n) == 0))
			at += snprintf(buf + at, size - (size_t)at, ":%.*s", (int)n, old);
		old += n;
		if (*old)
			old++;
	}
}

/*
 * Room for the LD_PRELOAD entry make_preload makes from envp's: this
 * library and the value it had (at most ENV_MAX, as much as was ever kept).
 */
static size_t preload_size(char *const envp[])
{
	size_t longest = 0, n;

	for (size_t i = 0; envp && envp[i]; i++)
		if (strncmp(envp[i], "LD_PRELOAD=", 11) == 0 && (n = strlen(envp[i])) > longest)
			longest = n;
	n = longest + strlen(preload_path) + 16;
	return n < ENV_MAX ? n : ENV_MAX;
}

/*
 * The environment a child gets: envp, with LD_PRELOAD and our variables
 * made sure of, plus extra (NULL-terminated) entries. out has room for
 * count(envp) + 16 entries; preload_buf (preload_size(envp) bytes) for the
 * LD_PRELOAD entry.
 */
static char *const *fix_env(char *const envp[], char **out, char *preload_buf, size_t size,
			    char *const extra[])
{
	size_t n = 0, i;
	int changed = extra && extra[0];
	const char *old = NULL;

	for (i = 0; envp && envp[i]; i++) {
		if (strncmp(envp[i], "LD_PRELOAD=", 11) == 0) {
			old = envp[i] + 11;
			if (!preload_ok(old)) {
				changed = 1;
				continue;
			}
		}
		out[n++] = envp[i];
	}
	if (old == NULL || changed) {
		if (old == NULL || !preload_ok(old)) {
			make_preload(preload_buf, size, old);
			out[n++] = preload_buf;
			changed = 1;
		}
	}
	for (i = 0; env_saved[i]; i++) {
		if (!has_var(envp, env_saved[i])) {
			out[n++] = env_saved[i];
			changed = 1;
		}
	}
	for (i = 0; extra && extra[i]; i++)
		out[n++] = extra[i];
	out[n] = NULL;
	return changed ? out : envp;
}

/*
 * How a program of machine (an ELF e_machine) runs: the lines of its
 * command line prefix, and whether they are QEMU's. An aarch64 program
 * cannot run natively here: untraced, it runs under plain qemu-aarch64.
 * NULL: natively (the host's machine, or no QEMU for the guest's).
 */
static const struct lines *runner(unsigned machine, int traced, int *qemu)
{
	*qemu = unit_qemu;
	if (machine != EM_AARCH64)
		return traced ? &unit_lines : NULL;
	*qemu = 1;
	if (traced)
		return unit_lines_aarch64.n ? &unit_lines_aarch64 : NULL;
	return run_lines_aarch64.n ? &run_lines_aarch64 : NULL;
}

/* Entries of the argv runner lines l make for a program started with argv. */
static size_t unit_argv_size(const struct lines *l, char *const argv[])
{
	return l->n + count(argv) + 5;
}

/*
 * The argv (unit_argv_size(l, argv) entries) for the program at real
 * called as arg0: the lines l, then for Valgrind --hwt-unfollowed=yes when
 * the program is static (Valgrind gets arg0 in HWT_SELECT_ARGV0), for QEMU
 * (qemu) -0 arg0; then "--", the program, argv[1..].
 */
static void unit_argv(char **out, const struct lines *l, int qemu, const char *real,
		      const char *arg0, char *const argv[], int static_exe)
{
	size_t n = 0;
	const char *p = l->buf;

	for (; n < l->n; n++) {
		out[n] = (char *)p;
		p += strlen(p) + 1;
	}
	if (qemu) {
		out[n++] = "-0";
		out[n++] = (char *)arg0;
	} else if (static_exe) {
		out[n++] = "--hwt-unfollowed=yes";
	}
	out[n++] = "--";
	out[n++] = (char *)real;
	for (size_t i = 1; argv && argv[i]; i++)
		out[n++] = argv[i];
	out[n] = NULL;
}

/* Room for HWT_SELECT_ARGV0=arg0 (as much as PATH_MAX + 32 allows). */
static size_t argv0_size(const char *arg0)
{
	size_t n = sizeof(HWT_SELECT_ENV_ARGV0) + 1 + strlen(arg0);

	return n < PATH_MAX + 32 ? n : PATH_MAX + 32;
}

/*
 * The entries a traced image's environment gets besides ours, into extra
 * (3 entries): for Valgrind, HWT_SELECT_ARGV0=arg0 (into argv0,
 * argv0_size(arg0) bytes; the constructor restores argv[0] from it) and
 * VALGRIND_LIB; for QEMU none (-0 gives the program its argv[0]).
 */
static void unit_env(char **extra, int qemu, char *argv0, size_t size, const char *arg0)
{
	size_t n = 0;

	if (!qemu) {
		snprintf(argv0, size, "%s=%s", HWT_SELECT_ENV_ARGV0, arg0);
		extra[n++] = argv0;
		extra[n++] = env_valgrind_lib;
	}
	extra[n] = NULL;
}

/* 1 when path is a set-ID regular file (its canonical path into real, PATH_MAX bytes). */
static int is_set_id(const char *path, char *real)
{
	struct stat st;

	return realpath(path, real) && stat(real, &st) == 0 && S_ISREG(st.st_mode) &&
	       (st.st_mode & (S_ISUID | S_ISGID));
}

/*
 * The helper's argv (count(argv) + 4 entries) for the set-ID program at
 * real started with argv: helper, real, argv[0] (or real), argv[1..].
 */
static void set_id_argv(char **out, const char *real, char *const argv[])
{
	size_t n = 0;

	out[n++] = (char *)set_id_helper;
	out[n++] = (char *)real;
	out[n++] = argv && argv[0] ? argv[0] : (char *)real;
	for (size_t i = 1; argv && argv[0] && argv[i]; i++)
		out[n++] = argv[i];
	out[n] = NULL;
}

/*
 * --trace-all under Valgrind: the unit follows the exec itself, but it
 * cannot run a set-ID program (the exec fails), so that one runs natively
 * through the helper, with an UNTRACED record.
 */
static int exec_set_id_only(const char *path, char *const argv[], char *const envp[],
			    int (*native)(const void *ctx, char *const envp[]), const void *ctx)
{
	char real[PATH_MAX];
	int written, err;

	if (!is_set_id(path, real))
		return native(ctx, (char *const *)envp);

	char *helper_argv[count(argv) + 4];

	set_id_argv(helper_argv, real, argv);
	written = write_untraced(getpid(), getppid(), real, HWT_RULE_WHY_SET_ID, 0) == 0;
	real_execve(set_id_helper, helper_argv, envp);
	err = errno;
	if (written)
		write_untraced(getpid(), getppid(), real, "the exec failed", HWT_UNTRACED_CANCEL);
	errno = err;
	return -1;
}

/*
 * Whether the run's trace size cap (--max-trace-size) was reached: a
 * process that starts now runs natively, still followed. No file: no cap.
 */
static int trace_budget_spent(void)
{
	const char *bundle = value_of(env_bundle);
	size_t flen = strlen(bundle) + sizeof("/" HWT_TRACE_BUDGET_FILE);
	struct hwt_trace_budget b;
	ssize_t n;
	int fd;

	if (flen > PATH_MAX)
		return 0;
	char file[flen];

	snprintf(file, sizeof(file), "%s/" HWT_TRACE_BUDGET_FILE, bundle);
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = pread(fd, &b, sizeof(b), 0);
	close(fd);
	return n == (ssize_t)sizeof(b) && hwt_trace_budget_spent(&b);
}

/*
 * One exec of path (what the kernel would open). Returns only when the exec
 * failed, with errno set.
 */
static int exec_selected(const char *path, char *const argv[], char *const envp[],
			 int (*native)(const void *ctx, char *const envp[]), const void *ctx)
{
	char real[PATH_MAX];
	const char *reason, *arg0 = argv && argv[0] ? argv[0] : path;
	const struct lines *l;
	int static_exe, written, err, qemu;
	unsigned machine = 0;
	enum hwt_select_verdict v;

	if (!configured())
		return native(ctx, (char *const *)envp);
	if (set_id_helper)
		return exec_set_id_only(path, argv, envp, native, ctx);

	char *env_out[count(envp) + 16], preload_buf[preload_size(envp)];

	v = hwt_select_decide_machine(&config, path, envp, real, &reason, &static_exe, &machine);
	if (v == HWT_SELECT_TRACE && trace_budget_spent()) {
		v = HWT_SELECT_NATIVE;
		reason = HWT_SELECT_WHY_CAPPED;
	}
	if (v == HWT_SELECT_TRACE && (l = runner(machine, 1, &qemu)) != NULL) {
		char argv0[argv0_size(arg0)], *unit_args[unit_argv_size(l, argv)], *extra[3];
		char *const *env;

		unit_env(extra, qemu, argv0, sizeof(argv0), arg0);
		env = fix_env(envp, env_out, preload_buf, sizeof(preload_buf), extra);
		unit_argv(unit_args, l, qemu, real, arg0, argv, static_exe);
		real_execve(unit_args[0], unit_args, env);
		/* The trace unit cannot be started: say so, and run the program natively. */
		reason = "the trace unit could not be started";
	} else if (v == HWT_SELECT_TRACE) {
		reason = HWT_SELECT_WHY_AARCH64;
	}
	written = (v == HWT_SELECT_NATIVE || v == HWT_SELECT_TRACE) &&
		  write_untraced(getpid(), getppid(), real, reason, 0) == 0;
	if (v != HWT_SELECT_PASS && (l = runner(machine, 0, &qemu)) != NULL) {
		/* A guest program, untraced: under its QEMU. */
		char *run_args[unit_argv_size(l, argv)];

		unit_argv(run_args, l, 1, real, arg0, argv, 0);
		real_execve(run_args[0], run_args,
			    fix_env(envp, env_out, preload_buf, sizeof(preload_buf), NULL));
	} else {
		native(ctx, fix_env(envp, env_out, preload_buf, sizeof(preload_buf), NULL));
	}
	err = errno;
	if (written) /* still here: the exec failed */
		write_untraced(getpid(), getppid(), real, "the exec failed", HWT_UNTRACED_CANCEL);
	errno = err;
	return -1;
}

struct execve_ctx {
	const char *path;
	char *const *argv;
};

static int native_execve(const void *c, char *const envp[])
{
	const struct execve_ctx *ctx = c;

	return real_execve(ctx->path, ctx->argv, envp);
}

/* Calls inside the library go here, not through the symbol (which a dlopen'ed
   copy would not own). */
static int do_execve(const char *path, char *const argv[], char *const envp[])
{
	struct execve_ctx ctx = { path, argv };

	return exec_selected(path, argv, envp, native_execve, &ctx);
}

EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	return do_execve(path, argv, envp);
}

EXPORT int execv(const char *path, char *const argv[])
{
	return do_execve(path, argv, environ);
}

struct execveat_ctx {
	int dirfd;
	const char *path;
	char *const *argv;
	int flags;
	const char *file; /* the same file as a path (execveat_path) */
};

static int native_execveat(const void *c, char *const envp[])
{
	const struct execveat_ctx *ctx = c;

	if (!real_execveat) {
		errno = ENOSYS;
		return -1;
	}
	real_execveat(ctx->dirfd, ctx->path, ctx->argv, envp, ctx->flags);
	/* qemu-x86_64 7.2 (the QEMU trace unit) has no execveat: the same file by path. */
	if (errno == ENOSYS && !(ctx->flags & AT_SYMLINK_NOFOLLOW))
		real_execve(ctx->file, ctx->argv, envp);
	return -1;
}

/* The file that execveat would run, as a path the trace unit can open. */
static void execveat_path(int dirfd, const char *path, int flags, char *out, size_t size)
{
	if ((flags & AT_EMPTY_PATH) && path[0] == '\0')
		snprintf(out, size, "/proc/self/fd/%d", dirfd);
	else if (path[0] == '/' || dirfd == AT_FDCWD)
		snprintf(out, size, "%s", path);
	else
		snprintf(out, size, "/proc/self/fd/%d/%s", dirfd, path);
}

static int do_execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
		       int flags)
{
	size_t len = strlen(path) + 64;
	char file[len < PATH_MAX + 64 ? len : PATH_MAX + 64];
	struct execveat_ctx ctx = { dirfd, path, argv, flags, file };

	execveat_path(dirfd, path, flags, file, sizeof(file));
	return exec_selected(file, argv, envp, native_execveat, &ctx);
}

EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
		    int flags)
{
	return do_execveat(dirfd, path, argv, envp, flags);
}

EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	return do_execveat(fd, "", argv, envp, AT_EMPTY_PATH);
}

/*
 * PATH search as execvp does it (glibc): a name with '/' is used as is;
 * else each PATH entry in turn, going on after ENOENT, EACCES and ENOTDIR.
 * A file that is not a valid executable (ENOEXEC) runs with /bin/sh.
 */
/* Room for "<the longest entry of the PATH list>/file" (as much as PATH_MAX allows). */
static size_t search_size(const char *list, const char *file)
{
	size_t longest = 0, n;

	for (;;) {
		n = strcspn(list, ":");
		if (n > longest)
			longest = n;
		if (!list[n])
			break;
		list += n + 1;
	}
	n = longest + strlen(file) + 2;
	return n < PATH_MAX ? n : PATH_MAX;
}

static int exec_search(const char *file, char *const argv[], char *const envp[])
{
	const char *path = getenv("PATH");
	int seen_eacces = 0;

	if (!file || !*file) {
		errno = ENOENT;
		return -1;
	}
	if (strchr(file, '/'))
		return do_execve(file, argv, envp);
	if (!path)
		path = "/bin:/usr/bin";

	char buf[search_size(path, file)];

	while (1) {
		size_t n = strcspn(path, ":");

		if (n == 0)
			snprintf(buf, sizeof(buf), "%s", file);
		else
			snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, path, file);
		do_execve(buf, argv, envp);
		if (errno == ENOEXEC) {
			size_t argc = count(argv);
			char *sh_argv[argc + 3];

			sh_argv[0] = "/bin/sh";
			sh_argv[1] = buf;
			for (size_t i = 1; i <= argc; i++)
				sh_argv[i + 1] = argv[i];
			if (argc == 0)
				sh_argv[2] = NULL;
			do_execve("/bin/sh", sh_argv, envp);
			return -1;
		}
		if (errno == EACCES)
			seen_eacces = 1;
		else if (errno != ENOENT && errno != ENOTDIR)
			return -1;
		path += n;
		if (!*path)
			break;
		path++;
	}
	if (seen_eacces)
		errno = EACCES;
	return -1;
}

EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	return exec_search(file, argv, envp);
}

EXPORT int execvp(const char *file, char *const argv[])
{
	return exec_search(file, argv, environ);
}

/*
 * execl, execle, execlp: the arguments into a vector on the stack, as long
 * as the list (counted first, as glibc does). A NULL arg (which the
 * declaration says cannot be) is an empty argv: arg goes through an empty
 * asm first, so that no compiler drops the test on the declaration's word.
 */
static int no_arg(const char *arg)
{
	__asm__("" : "+r"(arg));
	return arg == NULL;
}

/* Entries before the NULL that ends the list (arg the first). */
#define COUNT_ARGS(arg, ap, n)                                             \
	do {                                                               \
		va_list count_ap;                                          \
		va_copy(count_ap, ap);                                     \
		for (n = no_arg(arg) ? 0 : 1; n && va_arg(count_ap, const char *); n++) \
			;                                                  \
		va_end(count_ap);                                          \
	} while (0)

/* The n entries and the NULL into vec; ap past the NULL (where execle's envp is). */
static void collect_args(const char *arg, va_list *ap, char **vec, size_t n)
{
	vec[0] = (char *)arg;
	for (size_t i = 1; i < n; i++)
		vec[i] = va_arg(*ap, char *);
	vec[n] = NULL;
	if (n > 0)
		(void)va_arg(*ap, char *);
}

EXPORT int execl(const char *path, const char *arg, ...)
{
	va_list ap;
	size_t n;

	va_start(ap, arg);
	COUNT_ARGS(arg, ap, n);

	char *vec[n + 1];

	collect_args(arg, &ap, vec, n);
	va_end(ap);
	return do_execve(path, vec, environ);
}

EXPORT int execlp(const char *file, const char *arg, ...)
{
	va_list ap;
	size_t n;

	va_start(ap, arg);
	COUNT_ARGS(arg, ap, n);

	char *vec[n + 1];

	collect_args(arg, &ap, vec, n);
	va_end(ap);
	return exec_search(file, vec, environ);
}

EXPORT int execle(const char *path, const char *arg, ...)
{
	char *const *envp;
	va_list ap;
	size_t n;

	va_start(ap, arg);
	COUNT_ARGS(arg, ap, n);

	char *vec[n + 1];

	collect_args(arg, &ap, vec, n);
	envp = va_arg(ap, char *const *);
	va_end(ap);
	return do_execve(path, vec, envp);
}

/* ---- posix_spawn(p) ---- */

/*
 * The executable posix_spawnp would run: the first entry of the PATH list
 * path where file is executable (into buf, search_size(path, file) bytes).
 */
static const char *spawn_resolve(const char *path, const char *file, char *buf, size_t size)
{
	while (1) {
		size_t n = strcspn(path, ":");

		snprintf(buf, size, "%.*s%s%s", (int)n, path, n ? "/" : "", file);
		if (access(buf, X_OK) == 0)
			return buf;
		path += n;
		if (!*path)
			return NULL;
		path++;
	}
}

static int spawn_selected(pid_t *pid, const char *file, int search,
			  const posix_spawn_file_actions_t *actions, const posix_spawnattr_t *attr,
			  char *const argv[], char *const envp[])
{
	char real[PATH_MAX];
	const char *path, *reason = NULL, *list;
	const struct lines *l;
	int static_exe, rc, qemu;
	unsigned machine = 0;
	pid_t child;
	enum hwt_select_verdict v = HWT_SELECT_PASS;
	int on = configured();
	spawn_fn spawn = search ? real_posix_spawnp : real_posix_spawn;

	if (!on)
		return spawn(pid, file, actions, attr, argv, envp);
	if (set_id_helper) {
		char found_id[search_size(getenv("PATH") ? getenv("PATH") : "/bin:/usr/bin", file)];
		const char *target = search && !strchr(file, '/') ?
			spawn_resolve(getenv("PATH") ? getenv("PATH") : "/bin:/usr/bin", file,
				      found_id, sizeof(found_id)) : file;

		if (!target || !is_set_id(target, real))
			return spawn(pid, file, actions, attr, argv, envp);

		char *helper_argv[count(argv) + 4];

		set_id_argv(helper_argv, real, argv);
		rc = real_posix_spawn(&child, set_id_helper, actions, attr, helper_argv, envp);
		if (rc == 0)
			write_untraced(child, getpid(), real, HWT_RULE_WHY_SET_ID, 0);
		if (rc == 0 && pid)
			*pid = child;
		return rc;
	}

	char *env_out[count(envp) + 16], preload_buf[preload_size(envp)];

	search = search && !strchr(file, '/');
	list = search && getenv("PATH") ? getenv("PATH") : "/bin:/usr/bin";

	char found[search ? search_size(list, file) : 1];

	path = search ? spawn_resolve(list, file, found, sizeof(found)) : file;
	if (path)
		v = hwt_select_decide_machine(&config, path, envp, real, &reason, &static_exe,
					      &machine);
	if (v == HWT_SELECT_TRACE && (l = runner(machine, 1, &qemu)) != NULL) {
		const char *arg0 = argv && argv[0] ? argv[0] : path;
		char argv0[argv0_size(arg0)], *unit_args[unit_argv_size(l, argv)], *extra[3];

		unit_env(extra, qemu, argv0, sizeof(argv0), arg0);
		unit_argv(unit_args, l, qemu, real, arg0, argv, static_exe);
		rc = real_posix_spawn(pid, unit_args[0], actions, attr, unit_args,
				      fix_env(envp, env_out, preload_buf, sizeof(preload_buf), extra));
		if (rc == 0)
			return 0;
		reason = "the trace unit could not be started";
	} else if (v == HWT_SELECT_TRACE) {
		reason = HWT_SELECT_WHY_AARCH64;
	}
	if (v != HWT_SELECT_PASS && (l = runner(machine, 0, &qemu)) != NULL) {
		const char *arg0 = argv && argv[0] ? argv[0] : path;
		char *run_args[unit_argv_size(l, argv)];

		unit_argv(run_args, l, 1, real, arg0, argv, 0);
		rc = real_posix_spawn(&child, run_args[0], actions, attr, run_args,
				      fix_env(envp, env_out, preload_buf, sizeof(preload_buf), NULL));
	} else {
		rc = spawn(&child, file, actions, attr, argv,
			   fix_env(envp, env_out, preload_buf, sizeof(preload_buf), NULL));
	}
	if (rc == 0 && v != HWT_SELECT_PASS)
		write_untraced(child, getpid(), real, reason, 0);
	if (rc == 0 && pid)
		*pid = child;
	return rc;
}

EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *actions,
		       const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return spawn_selected(pid, path, 0, actions, attr, argv, envp);
}

EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *actions,
			const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return spawn_selected(pid, file, 1, actions, attr, argv, envp);
}

/* ---- the QEMU trace unit's last words ---- */

/*
 * The environment that carries this library into a traced program also
 * loads it into qemu-x86_64 itself. When a signal kills the guest, QEMU
 * 7.2 runs no plugin callback: it resets the host signal to its default
 * action and kill()s itself. The QEMU unit (collector/qemu) registers a
 * function here, called before such a kill, that writes out its streams.
 * Anywhere else no function is registered and kill() is passed on.
 */
static void (*self_kill_hook)(int);

EXPORT void hwt_preload_on_self_kill(void (*hook)(int sig));
EXPORT void hwt_preload_on_self_kill(void (*hook)(int sig))
{
	self_kill_hook = hook;
}

/* The system call itself, not libc's through dlsym: kill() may be called
   from a signal handler, where dlsym is not safe. */
EXPORT int kill(pid_t pid, int sig)
{
	if (self_kill_hook && sig != 0 && (pid == getpid() || pid == 0))
		self_kill_hook(sig);
	return (int)syscall(SYS_kill, pid, sig);
}
