/*
 * Trace units that `hwt record` can drive: software units for machines
 * without trace hardware, the Valgrind tool (collector/valgrind,
 * valgrind_unit.c), the QEMU user-mode TCG plugin (collector/qemu,
 * qemu_unit.c) and hwt.ko's sw backend (collector/kmod, kmod_unit.c); and
 * Intel PT hardware through Linux perf (perf_unit.c: perf record, then hwt
 * import). unit_run.c is what they share: the choice of a unit, the
 * preloaded library's environment, running the command (the commands parse
 * the options: integrations/command).
 */
#ifndef HWT_TRACE_UNIT_H
#define HWT_TRACE_UNIT_H

#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

/* The unit when neither --unit nor $HWT_UNIT names one (valgrind, qemu or auto). */
#define HWT_UNIT_DEFAULT "auto"
/* The environment variable that --unit overrides. */
#define HWT_UNIT_ENV "HWT_UNIT"

/* Levels of struct hwt_unit_options.record_filter and hwt_unit.record_filter. */
#define HWT_RECORD_FILTER_DEFAULT 1
#define HWT_RECORD_FILTER_ALWAYS 2

struct hwt_unit_options {
	const char *unit;   /* --unit: valgrind, qemu, kmod, perf, auto; NULL: $HWT_UNIT, else HWT_UNIT_DEFAULT */
	int debug_blocks;   /* write the executed-block log (tests) */
	long psb_period;    /* bytes between PSB+; 0: the unit's default */
	int trace_all;      /* trace every process (no selection) */
	int no_preload;     /* with trace_all under a unit that follows children: no
			       preloaded library, so no set-ID program runs natively */
	const char *trace;  /* --trace globs, newline-separated, or NULL */
	const char *no_trace; /* --no-trace globs, newline-separated, or NULL */
	const char *root;   /* --root as given, or NULL: found (hwt_unit_root) */
	/* The root the recording uses (canonical; hwt_record_run sets it): the
	   project test's (HWT_SELECT_ROOT); NULL: none (--trace-all, kmod). */
	const char *project_root;
	int quiet;          /* say nothing but errors and warnings (the root used) */
	const char *filters[16]; /* --filter IMAGE[:FUNCTION], NULL-terminated */
	/* Filter the trace at record time to the images the selection selects:
	   HWT_RECORD_FILTER_DEFAULT (hwt-cov's and hwt-pgo's default: the units
	   where filtering costs nothing), HWT_RECORD_FILTER_ALWAYS
	   (--record-filter: every unit that can), 0 (--no-record-filter, hwt
	   record): see hwt_unit_record_filter. */
	int record_filter;
	/* --spe[=INTERVAL]: the QEMU unit's aarch64 guests also write Arm SPE records,
	   one per INTERVAL operations (docs/qemu-unit.md); 0: none. */
	long spe_interval;
	/* --no-etm (with --spe): the SPE records alone, no ETMv4 streams. */
	int no_etm;
	/* --max-trace-size: bytes of trace of the whole run (valgrind, qemu units); 0: no cap. */
	unsigned long long max_trace_size;
	/* The kernel unit's (kmod_unit.c): */
	int wrap;           /* --wrap: a full trace buffer is written over (LOST), not paused */
	size_t bufsize;     /* --buffer-size: bytes per thread; 0: the unit's default */
	int pid;            /* -p: attach to this running process (no command) */
	double duration;    /* --duration: seconds of an attach or CPU recording; 0: until Ctrl-C */
	const char *cpus;   /* -a ("all") or --cpu LIST: CPU mode (no command) */
	/* Called in the recorder once the command runs (after its fork), for
	   work alongside it (hwt-cov's decode while recording); NULL: none. */
	void (*running)(void *context);
	void *running_context;
};

/*
 * The project's root for opts (--root, else found from the current
 * directory: collector/select/root.h) into root (PATH_MAX bytes); *from
 * says where it came from. 0, or -errno (--root names no directory).
 */
int hwt_unit_root(const struct hwt_unit_options *opts, char *root, const char **from);

/*
 * 1 when a recording with opts under unit filters its trace to the images
 * the selection selects (docs/select.md, "Filtering to the selected
 * images"): opts->record_filter, a unit that can (valgrind, qemu), and
 * neither --trace-all (no selection) nor --filter (the user's own ranges).
 */
struct hwt_unit;
int hwt_unit_record_filter(const struct hwt_unit *unit, const struct hwt_unit_options *opts);

/* 1 when name is a trace unit --unit takes. */
int hwt_unit_known(const char *name);

/* aarch64 programs run under qemu-aarch64 with $QEMU_LD_PREFIX as its sysroot
   (-L), else this one (libc6-arm64-cross). */
#define HWT_AARCH64_SYSROOT "/usr/aarch64-linux-gnu"
#define HWT_QEMU_AARCH64 "qemu-aarch64"

/* A unit's command line up to its "--", built by the unit (entries it owns are freed). */
struct hwt_unit_argv {
	const char *v[64];
	size_t n;
	char *owned[64];
	size_t nowned;
};

/* Appends s (not copied) / a formatted string; -1 when full or out of memory. */
int hwt_unit_arg(struct hwt_unit_argv *a, const char *s);
int hwt_unit_argf(struct hwt_unit_argv *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * How an aarch64 program runs, untraced or before a unit's own options:
 * qemu-aarch64 (from PATH), -L and the sysroot, -U LD_PRELOAD (hwt's
 * preloaded library is loaded into QEMU, not into the guest). -1 when
 * qemu-aarch64 is not in PATH.
 */
int hwt_unit_aarch64_runner(struct hwt_unit_argv *out);

/* Where a unit's files are, found before the bundle is made. */
struct hwt_unit_files {
	char lib[PATH_MAX];   /* its directory (canonical): HWT_SELECT_UNIT_LIB, never traced */
	char exe[PATH_MAX];   /* what is exec'ed (absolute): valgrind(.bin), qemu-x86_64 */
};

struct hwt_unit {
	const char *name;     /* --unit, HWT_SELECT_UNIT_KIND and the bundle header's unit= */
	const char *title;    /* in messages: "the <title> trace unit" */
	/* Its directory: $lib_env, else <prefix>/lib/hwt/<lib_dir> of this hwt; holds lib_file. */
	const char *lib_env, *lib_dir, *lib_file;
	/*
	 * Checks that the unit can take opts and finds its executable (into
	 * files->exe); -1 with a message (prefix first), none when quiet.
	 */
	int (*prepare)(struct hwt_unit_files *files, const struct hwt_unit_options *opts,
		       const char *prefix, int quiet);
	/* Its command line up to "--" for a recording into bundle (absolute); 0 or -1. */
	int (*argv_prefix)(const struct hwt_unit_files *files, const char *bundle,
			   const struct hwt_unit_options *opts, struct hwt_unit_argv *out);
	/* Sets what the environment of the command needs for it (in the child), or NULL. */
	void (*child_env)(const struct hwt_unit_files *files);
	/* The trace formats its streams may be in: the bundle header's trace= key. */
	const char *traces;
	/*
	 * Its command line up to "--" for aarch64 programs (which run under
	 * qemu-aarch64), or NULL when it traces none; -1 when it cannot make
	 * one (then they run untraced).
	 */
	int (*argv_prefix_aarch64)(const struct hwt_unit_files *files, const char *bundle,
				   const struct hwt_unit_options *opts, struct hwt_unit_argv *out);
	/*
	 * It follows children itself (Valgrind's --trace-children=yes): --trace-all
	 * runs it directly, without the preloaded library. Else --trace-all is
	 * selection that selects every x86-64 ELF executable (--trace '*').
	 */
	int follows_children;
	/* It filters to the selected images when asked (hwt_unit_record_filter):
	   HWT_RECORD_FILTER_DEFAULT where filtering saves time (QEMU: blocks
	   left out are not encoded), HWT_RECORD_FILTER_ALWAYS where it must be
	   asked for (Valgrind: its filtered path checks every block exit
	   against the ranges, 2.4 times the CPU on a CPU-bound program). */
	int record_filter;
	/* The bundle's clock (docs/bundle.md); NULL: "sequence". */
	const char *clock;
	/*
	 * A unit that is no command line (the kernel unit): records argv (or,
	 * with opts->pid or opts->cpus, what runs) itself, as hwt_unit_run does;
	 * NULL: hwt_unit_run execs argv_prefix. No lib_file: no directory.
	 */
	int (*record)(const char *bundle, const struct hwt_unit_options *opts, char *const argv[],
		      int *status, const char *prefix);
	/*
	 * It always runs the command directly and traces the whole tree (perf):
	 * no preloaded library. It writes not the bundle but files of its own
	 * into a work directory (the "bundle" argv_prefix gets), and finish
	 * makes the bundle from them once the command has exited. NULL: the
	 * unit writes the bundle.
	 */
	int (*finish)(const struct hwt_unit_files *files, const char *work, const char *bundle,
		      const struct hwt_unit_options *opts, const char *prefix, int quiet);
};

extern const struct hwt_unit hwt_valgrind_unit, hwt_qemu_unit, hwt_perf_unit, hwt_kmod_unit;

/* Finds name in PATH, as execvp would; buf (PATH_MAX bytes) gets the canonical path. */
int hwt_unit_find_in_path(const char *name, char *buf, size_t size);

/* The unit chosen for a recording and its files. */
struct hwt_unit_run {
	const struct hwt_unit *unit;
	struct hwt_unit_files files;
};

/*
 * Chooses the unit (opts->unit, $HWT_UNIT, HWT_UNIT_DEFAULT; auto: perf where
 * the CPU has Intel PT, else qemu when it can run opts, else valgrind) and finds its files. Returns 0, or -1
 * with a message printed (prefix first).
 */
int hwt_unit_prepare(struct hwt_unit_run *run, const struct hwt_unit_options *opts,
		     const char *prefix);

/*
 * Runs argv (argv[0] looked up in PATH) under the prepared unit, recording
 * into the bundle directory bundle (absolute path, already created),
 * following every child process. Returns 0 and the command's waitpid
 * status in *status, or -1 with a message printed when the command could
 * not be started.
 */
int hwt_unit_run(const struct hwt_unit_run *run, const char *bundle,
		 const struct hwt_unit_options *opts, char *const argv[], int *status,
		 const char *prefix);

/*
 * SIGINT, SIGTERM, SIGHUP and SIGQUIT while a command is recorded (the
 * units that run it: unit_run.c, kmod_unit.c): hwt_unit_signals_forward
 * before the fork passes those a process sends us on to the command
 * (those of a terminal reached it already) and keeps one that comes before
 * it exists; hwt_unit_signals_child names the command (pid), passing on a
 * kept one; the child calls hwt_unit_signals_default before its exec;
 * hwt_unit_signals_restore puts the old handlers back.
 */
struct hwt_unit_signals {
	struct sigaction old[4];
};
void hwt_unit_signals_forward(struct hwt_unit_signals *saved);
void hwt_unit_signals_child(pid_t pid);
void hwt_unit_signals_default(void);
void hwt_unit_signals_restore(const struct hwt_unit_signals *saved);

/*
 * The directory (canonical) of the unit a bundle names in its header (unit=;
 * valgrind when it names none we know) into buf (PATH_MAX bytes), or NULL
 * when it is not there. No message.
 */
const char *hwt_unit_lib_dir(const char *name, char *buf);

#endif /* HWT_TRACE_UNIT_H */
