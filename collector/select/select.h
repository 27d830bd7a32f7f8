/*
 * Which processes a recording traces (docs/select.md).
 *
 * `hwt record` puts the configuration into the environment of the command
 * (HWT_SELECT_* below); the preloaded library (preload.c) reads it in every
 * process of the tree and decides, at each exec, whether the new image runs
 * under the trace unit. `hwt record` uses the same code for the command
 * itself. No allocation: the library runs inside programs it knows nothing
 * about, also between vfork and exec.
 */
#ifndef HWT_SELECT_H
#define HWT_SELECT_H

#include <stddef.h>

/* Environment variables (values newline-separated where they are lists). */
#define HWT_SELECT_ENV_BUNDLE   "HWT_SELECT_BUNDLE"    /* bundle directory (absolute) */
#define HWT_SELECT_ENV_PRELOAD  "HWT_SELECT_PRELOAD"   /* this library (absolute) */
#define HWT_SELECT_ENV_UNIT     "HWT_SELECT_UNIT"      /* trace unit argv prefix, one per line */
#define HWT_SELECT_ENV_UNIT_LIB "HWT_SELECT_UNIT_LIB"  /* the unit's directory (VALGRIND_LIB) */
#define HWT_SELECT_ENV_UNIT_KIND "HWT_SELECT_UNIT_KIND" /* valgrind (when unset) or qemu */
#define HWT_SELECT_ENV_TRACE    "HWT_SELECT_TRACE"     /* --trace globs */
#define HWT_SELECT_ENV_NO_TRACE "HWT_SELECT_NO_TRACE"  /* --no-trace globs */
#define HWT_SELECT_ENV_ARGV0    "HWT_SELECT_ARGV0"     /* argv[0] for the traced image */
#define HWT_SELECT_ENV_ROOT     "HWT_SELECT_ROOT"      /* the project's root (canonical) */
/* set-ID programs run natively, everything else under the unit that follows
   children itself (--trace-all with Valgrind): the value is the helper that
   the unit does not follow, which execs the program natively. */
#define HWT_SELECT_ENV_SET_ID_ONLY "HWT_SELECT_SET_ID_ONLY"

/* The directory of a bundle where the verdicts of the project test are kept
   by build-id (one byte a file: project.h). */
#define HWT_SELECT_CACHE_DIR "select"
/* aarch64 programs (run under qemu-aarch64): the QEMU unit's argv prefix for
   them, and plain qemu-aarch64's for those that run untraced, one per line. */
#define HWT_SELECT_ENV_UNIT_AARCH64 "HWT_SELECT_UNIT_AARCH64"
#define HWT_SELECT_ENV_RUN_AARCH64  "HWT_SELECT_RUN_AARCH64"

/* UNTRACED reason of another Valgrind's tool binary (memcheck-amd64-linux, ...). */
#define HWT_SELECT_WHY_VALGRIND_TOOL \
	"another Valgrind tool: the program it runs cannot be traced; run it without Valgrind"

/* UNTRACED reason of a process started after the run's trace reached --max-trace-size. */
#define HWT_SELECT_WHY_CAPPED "started after the trace reached --max-trace-size"
/* UNTRACED reason of an aarch64 program under a unit that does not trace them. */
#define HWT_SELECT_WHY_AARCH64 "an aarch64 program: only the QEMU unit traces them"

enum hwt_select_verdict {
	HWT_SELECT_PASS,    /* not ours to judge (the trace unit itself, a missing file) */
	HWT_SELECT_TRACE,   /* run under the trace unit */
	HWT_SELECT_NATIVE,  /* run natively; reason says why */
};

struct hwt_select_config {
	const char *trace;     /* newline-separated globs, or NULL */
	const char *no_trace;
	const char *unit_lib;  /* never traced: the trace unit's own files */
	const char *unit_exe;  /* the trace unit's launcher (first line of UNIT) */
	int executable_only;   /* judge the executable alone, not its libraries */
	const char *root;      /* the project's root (canonical), or NULL: no project test */
	const char *cache_dir; /* where the project test keeps its verdicts, or NULL */
};

/*
 * The configuration from the values of HWT_SELECT_TRACE, _NO_TRACE,
 * _UNIT_LIB and _UNIT (each NULL when unset; cfg points into them).
 */
void hwt_select_config_init(struct hwt_select_config *cfg, const char *trace,
			    const char *no_trace, const char *unit_lib, const char *unit);

/*
 * Decides for the executable at path, started with the environment envp
 * (its LD_LIBRARY_PATH takes part in finding the libraries it loads). real
 * receives its canonical path (PATH_MAX bytes), reason a short text when
 * the verdict is NATIVE (static storage). static_exe is set when the
 * verdict is TRACE and the file is a statically linked ELF (its children
 * cannot be followed by the preloaded library).
 */
enum hwt_select_verdict hwt_select_decide(const struct hwt_select_config *cfg, const char *path,
					  char *const envp[], char *real, const char **reason,
					  int *static_exe);
/*
 * The same, for executables of either machine hwt traces (x86-64, or
 * aarch64 under qemu-aarch64): *machine receives the ELF e_machine (0 when
 * not such an ELF file). An aarch64 program is judged by itself (its
 * libraries are not looked up).
 */
enum hwt_select_verdict hwt_select_decide_machine(const struct hwt_select_config *cfg,
						  const char *path, char *const envp[], char *real,
						  const char **reason, int *static_exe,
						  unsigned *machine);

/* 1 when the shared library at the canonical path real (open at fd, or -1) is
   selected: no --no-trace glob matches, and a --trace glob does, or it is
   not under a system directory and has debug info naming a source under
   the root. */
int hwt_select_library(const struct hwt_select_config *cfg, const char *real, int fd);

/* 1 when a glob of the newline-separated list matches path (or its base name
   for globs without '/'); '*' matches across '/'. */
int hwt_select_match(const char *globs, const char *path);

/* 1 when the ELF file at fd has DWARF, or a separate debug file is installed. */
int hwt_select_has_debug_info(int fd, const char *real);

/*
 * The project test of the ELF file at fd (canonical path real), in its own
 * DWARF or its separate debug file, kept by build-id in cfg->cache_dir:
 * a hwt_project_verdict (project.h). Without cfg->root, HWT_PROJECT_IN
 * when it has debug information.
 */
int hwt_select_project(const struct hwt_select_config *cfg, int fd, const char *real);

#endif /* HWT_SELECT_H */
