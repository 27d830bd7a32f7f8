/*
 * What the commands (hwt's subcommands, hwt-cov, hwt-pgo) share: the parts
 * that parse options, print messages, run other programs or decide exit
 * statuses, on top of the libraries of bundle/ and converters/, which do
 * none of that, and of the recorder (collector/record).
 */
#ifndef HWT_COMMAND_H
#define HWT_COMMAND_H

#include <getopt.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>

#include "hwt_lcov.h"
#include "trace_unit.h"

struct hwt_bundle;
struct hwt_decode_live;
struct hwt_decode_stats;
struct hwt_profile;

/* ----- exit statuses: one table for every command (docs/exit-status.md) --- */

/* Done, whole. */
#define HWT_EXIT_OK          0
/*
 * Written, but from a partial input: the bundle (or a profile) had
 * warnings (a damaged or lost trace, an image missing), or hwt-pgo's
 * training run failed. A bit: the coverage gates' bits add to it.
 */
#define HWT_EXIT_PARTIAL     1
/* Nothing written, or not all of it (an input missing or unreadable, an
   output that cannot be written, a tool that failed). */
#define HWT_EXIT_ERROR       2
/* A bad option or argument: nothing done. */
#define HWT_EXIT_USAGE       2
/* The command (or a tool hwt-pgo runs) was found but cannot be run, or
   was not found: as a shell says it. */
#define HWT_EXIT_CANNOT_RUN  126
#define HWT_EXIT_NOT_FOUND   127
/* The command was killed by signal N: HWT_EXIT_SIGNAL + N (hwt_exit_code). */
#define HWT_EXIT_SIGNAL      128

/* ----- bundle.c: opening a bundle, its diagnostics ------------------------ */

/* Prints the bundle's diagnostics, one a line: "PREFIX: warning: ..." or "error". */
void hwt_command_print_diags(const struct hwt_bundle *bundle, FILE *file, const char *prefix);

/* Opens the bundle in dir, or says why not to err (prefix first) and returns NULL. */
struct hwt_bundle *hwt_command_open_bundle(const char *dir, FILE *err, const char *prefix);

/* ----- wording.c: figures as every command words them --------------------- */

/* one when n is 1, else many: "1 function", "2 functions". */
const char *hwt_noun(uint64_t n, const char *one, const char *many);
/*
 * bytes in buf (at least 16 bytes) with three significant digits in the
 * unit that suits it: "512 bytes", "1.50 KiB", "40.5 MiB", "123 GiB".
 * Returns buf.
 */
const char *hwt_format_size(char *buf, size_t size, uint64_t bytes);
/*
 * hit of found as a percentage with one decimal, as lcov and genhtml show
 * it: rounded, but never 100.0 unless all were hit nor 0.0 unless none.
 */
double hwt_percent(uint64_t hit, uint64_t found);
/*
 * "80.0% (8 of 10 lines)" (the percentage as hwt_percent), or "no
 * lines" when found is 0; many is the plural noun. Returns buf.
 */
const char *hwt_format_ratio(char *buf, size_t size, uint64_t hit, uint64_t found,
			     const char *many);

/* ----- color.c: colour on a terminal ----------------------------------------- */

/* --color=auto|always|never */
enum hwt_color_mode { hwt_color_auto, hwt_color_always, hwt_color_never };
/* The mode arg names, or -1. */
int hwt_color_mode_parse(const char *arg);
/*
 * Sets whether the messages on stderr are coloured: always, never, or
 * (auto) when stderr is a terminal, $NO_COLOR is unset or empty and $TERM
 * is not dumb. Returns 1 when they are. Without a call: no colour.
 */
int hwt_color_set(enum hwt_color_mode mode);
enum hwt_color_what {
	hwt_color_reset,
	hwt_color_error,
	hwt_color_warning,
	hwt_color_low,       /* a coverage under genhtml's medium limit (75%) */
	hwt_color_medium,    /* under its high limit (90%) */
	hwt_color_high,
	hwt_color_heading,
};
/* The escape sequence of what, "" when there is no colour. */
const char *hwt_color(enum hwt_color_what what);
/* low, medium or high, as genhtml colours a coverage percentage. */
enum hwt_color_what hwt_color_of_percent(double percent);
/* getopt_long entry and usage text of --color. */
enum { HWT_OPT_COLOR = 0x10c0 };
#define HWT_OPTION_COLOR { "color", required_argument, NULL, HWT_OPT_COLOR }
#define HWT_COLOR_USAGE                                                                   \
	"      --color WHEN          colour the summary, warnings and errors: auto (on a\n" \
	"                            terminal, unless $NO_COLOR is set), always, never\n"   \
	"                            [auto]\n"

/* ----- progress.c: progress on a terminal (stderr) ------------------------ */

enum hwt_progress_mode {
	hwt_progress_none,
	hwt_progress_tty,    /* when stderr is a terminal */
	hwt_progress_always,
};

struct hwt_progress {
	int shown;           /* mode said yes */
	uint64_t last;       /* bytes done at the last line */
	int printed;         /* a line is up (hwt_progress_end clears it) */
	const char *prefix;  /* of the line: "hwt" unless set after hwt_progress_init */
};

void hwt_progress_init(struct hwt_progress *progress, enum hwt_progress_mode mode);
/* An hwt_decode_progress_fn: context is the struct hwt_progress. */
void hwt_progress_print(uint64_t done, uint64_t total, void *context);
/* Clears the line when one was printed. */
void hwt_progress_end(struct hwt_progress *progress);

/*
 * The recording's progress, a line that hwt_record_progress_show redraws
 * (record_run.c does it every second while the command runs): the process
 * images traced so far and the size of their trace, as the bundle (or the
 * unit's work directory) in dir has them, and the unit. Shown as mode
 * says; NULL when not (every function takes NULL and does nothing).
 * hwt_record_progress_clear clears the line (before another message),
 * hwt_record_progress_free too.
 */
struct hwt_record_progress;
struct hwt_record_progress *hwt_record_progress_new(const char *dir, const char *unit,
						    const char *prefix, enum hwt_progress_mode mode);
void hwt_record_progress_show(struct hwt_record_progress *progress);
void hwt_record_progress_clear(struct hwt_record_progress *progress);
void hwt_record_progress_free(struct hwt_record_progress *progress);

/* ----- run.c: another program ------------------------------------------ */

/*
 * Runs argv[0] (looked up in PATH when it has no '/') with argv, standard
 * output to /dev/null when stdout_to_null, and waits for it. Returns 0
 * with its waitpid status in *status, or the errno value that kept it from
 * running (ENOENT: no such program).
 */
int hwt_command_run(char *const argv[], int stdout_to_null, int *status);

/* The same with its standard output into out (a file opened for writing). */
int hwt_command_run_output(char *const argv[], FILE *out, int *status);

/* The exit status a shell gives when it cannot run a program: err (an errno
   value) ENOENT HWT_EXIT_NOT_FOUND, any other HWT_EXIT_CANNOT_RUN. */
int hwt_command_exec_status(int err);

/*
 * Whether the command file (looked up in PATH when it has no '/', as
 * execvp does) can be run, before anything is recorded: 0, or
 * HWT_EXIT_NOT_FOUND / HWT_EXIT_CANNOT_RUN with a message (prefix first)
 * said, as a shell would.
 */
int hwt_command_check_runnable(const char *file, const char *prefix);

/* ----- decode.c: a bundle's decode ---------------------------------------- */

struct hwt_flow_consumer;
struct hwt_command_decode_options {
	const char *prefix;              /* of every message */
	enum hwt_progress_mode progress;
	int quiet;                       /* do not print the bundle's diagnostics */
	int no_notes;                    /* -q of a command that prints warnings: not the
	                                    notes (the record-time filter's line) */
	unsigned jobs;                   /* hwt_decode_options.jobs */
	const char *decoder;             /* --decoder NAME; NULL: $HWT_DECODER, else edge */
	struct hwt_decode_live *live;    /* the decode while recording to finish, or NULL */
	struct hwt_decode_stats *stats;  /* filled when not NULL */
	/* Per test (--per-test): image i of the bundle decoded into
	   profiles[image_group[i]], -1 into profiles[groups] (outside every
	   test), instead of into profile; live is then not used. */
	const int32_t *image_group;
	size_t groups;
	struct hwt_profile **profiles;
	/* The ordered flow of every stream to this consumer (hwt_decode_options.flow)
	   instead of counts into profile, which gets the images; NULL: none. */
	const struct hwt_flow_consumer *flow;
	/* The trace the counts come from (--trace): NULL the exact one (the
	   thread streams) when the bundle has any, else its SPE samples;
	   "etm" the thread streams (Intel PT or ETMv4); "spe" the SPE
	   samples (converters/spe: not with per-test groups or flow). */
	const char *trace;
	/* Filled when not NULL: whether the counts came from SPE samples
	   (used_spe) and that conversion's figures. */
	int *used_spe;
	struct hwt_spe_profile_stats *spe_stats;
};

/* Checks a --trace value: 0, or -1 with a message (prefix first). */
int hwt_command_trace_check(const char *trace, const char *prefix);
/* The --trace line of --help. */
#define HWT_TRACE_SOURCE_HELP \
	"  --trace SOURCE  the trace to count from: etm (the exact branch trace,\n" \
	"                ETMv4 or Intel PT streams) or spe (the Arm SPE samples, each\n" \
	"                counted the interval's times: estimates); default: the exact\n" \
	"                trace when the bundle has one, else spe\n"
/* What a report says of SPE counts: "SPE samples (interval N, M samples)". */
struct hwt_spe_profile_stats;
void hwt_command_spe_source(char *buf, size_t size, const struct hwt_spe_profile_stats *stats);

/*
 * Opens the bundle in dir, decodes it into profile (adding to what is
 * there) and prints its diagnostics unless how->quiet. Returns the number
 * of warnings the bundle had (0 clean), or -1 when it cannot be opened or
 * decoded (the message printed).
 */
int hwt_command_decode(const char *dir, struct hwt_profile *profile,
		       const struct hwt_command_decode_options *how);
/* Readies the heap for a decode on several threads (glibc's top pad: see
   decode.c); hwt_command_decode and hwt_record_run_live call it. */
void hwt_command_decode_heap(void);
/*
 * Adds each of the n inputs to profile: a directory is a trace bundle,
 * decoded with hwt_command_decode as common's -q, -j and --decoder say
 * (progress on a terminal), anything else an hwt profile. Returns -1 when
 * one cannot be read (the message printed, prefix first), else the number
 * of bundles that had warnings.
 */
struct hwt_command_options;
int hwt_command_load_inputs(const char *const *inputs, size_t n, struct hwt_profile *profile,
			    struct hwt_command_options *common, const char *prefix);

/*
 * The decode while recording (hwt_decode_live, converters/decode/live.c)
 * as hwt-cov, hwt-pgo and hwt flame run it: hwt_record_run, with live's
 * thread started once the command runs (hwt_decode_live_run: the decoder
 * of decoder, else $HWT_DECODER; flow its consumer, NULL: a profile). how
 * or how->live NULL, or $HWT_DECODE_LIVE 0: hwt_record_run alone (the
 * finish then decodes the whole bundle). The decode at the end finishes
 * it (hwt_command_decode_options.live, or hwt_decode_live_finish).
 */
struct hwt_flow_consumer;
struct hwt_record_live {
	struct hwt_decode_live *live;    /* hwt_decode_live_alloc'ed for the bundle dir */
	const char *decoder;             /* --decoder NAME, or NULL */
	const struct hwt_flow_consumer *flow;
};
int hwt_record_run_live(const char *dir, const struct hwt_unit_options *unit, char *const argv[],
			int *status, const char *prefix, const struct hwt_record_live *how);
/* What -v says of it, once finished: how many images were decoded early. */
void hwt_command_live_say(const struct hwt_decode_live *live, const char *prefix);

/* ----- options.c: the options several commands take ----------------------- */

struct hwt_command_options {
	const char *output;            /* -o, --output FILE */
	unsigned jobs;                 /* -j, --jobs N: decode threads (0: one per CPU) */
	const char *jobs_arg;          /* N as given */
	const char *decoder;           /* --decoder NAME (checked), or NULL */
	int quiet;                     /* -q, --quiet */
	int verbose;                   /* -v, --verbose */
	struct hwt_unit_options unit;  /* --unit, --trace, --no-trace, --trace-all, --filter */
	const char *const *debug_dirs; /* --debug-dir DIR (repeatable), NULL-terminated; NULL:
	                                  none given (/usr/lib/debug) */
	const char *trace_source;      /* --trace SOURCE of the reports (etm, spe), or NULL */
	/* Set by hwt_command_load_inputs when a bundle's counts came from its
	   SPE samples (then the reports say they are sampled). */
	int used_spe;
};

/*
 * Takes opt (what getopt_long returned) and its arg into o when it is one
 * of the options above. Returns 1 when it was, 0 when not, -1 on a bad
 * value (the message printed, prefix first: exit status 2).
 */
int hwt_command_option(struct hwt_command_options *o, int opt, const char *arg,
		       const char *prefix);

/*
 * The end of a command's option switch, for what the command does not take
 * itself: taken is what an option parser (hwt_command_option, or the lcov
 * report's) returned for opt: 1 taken, 0 not, -1 a bad value (said).
 * Prints usage to stdout for -h, the version for --version; says an option
 * getopt_long refused or no one took as the user wrote it ('?' unknown,
 * ':' its value missing; the optstring starts with ':' and opterr is 0),
 * with the usage line (hwt_command_usage_error).
 * Returns -1 to go on, else the exit status: 0 after -h or --version, 2 on
 * an error.
 */
int hwt_command_option_end(int opt, int taken, char *const argv[], void (*usage)(FILE *),
			   const char *prefix);

/*
 * --help of every command: what usage prints, with the descriptions of
 * the options in one column, wrapped at 80 (help.c).
 */
void hwt_command_help(void (*usage)(FILE *), FILE *out);

/*
 * --version of every command and subcommand: "hwt 0.1.0" on stdout, the
 * command named as prefix names it. Returns the exit status, 0.
 */
int hwt_command_version(const char *prefix);

/*
 * A wrong option or argument: "prefix: " and the message (printf format),
 * then the first line of usage and where the rest is ("see 'prefix
 * --help'"), all on stderr; not the whole help. Returns the exit status, 2.
 */
int hwt_command_usage_error(void (*usage)(FILE *), const char *prefix, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The same for the options of hwt_command_option: its taken for opt and arg. */
int hwt_command_other_option(struct hwt_command_options *o, int opt, const char *arg,
			     char *const argv[], void (*usage)(FILE *), const char *prefix);

/* getopt_long entries of the options above. */
#define HWT_OPTION_OUTPUT  { "output", required_argument, NULL, 'o' }
#define HWT_OPTION_JOBS    { "jobs", required_argument, NULL, 'j' }
#define HWT_OPTION_DECODER { "decoder", required_argument, NULL, HWT_OPT_DECODER }
#define HWT_OPTION_QUIET   { "quiet", no_argument, NULL, 'q' }
#define HWT_OPTION_VERBOSE { "verbose", no_argument, NULL, 'v' }
/* Those of the trace unit; --unit alone (hwt-pgo). */
#define HWT_UNIT_LONG_OPTION { "unit", required_argument, NULL, HWT_UNIT_OPT_UNIT }, \
	{ "max-trace-size", required_argument, NULL, HWT_UNIT_OPT_MAX_TRACE_SIZE }
#define HWT_UNIT_SELECT_LONG_OPTIONS                                   \
	HWT_UNIT_LONG_OPTION,                                          \
	{ "trace", required_argument, NULL, HWT_UNIT_OPT_TRACE },      \
	{ "no-trace", required_argument, NULL, HWT_UNIT_OPT_NO_TRACE }, \
	{ "trace-all", no_argument, NULL, HWT_UNIT_OPT_TRACE_ALL },    \
	{ "no-preload", no_argument, NULL, HWT_UNIT_OPT_NO_PRELOAD },  \
	{ "filter", required_argument, NULL, HWT_UNIT_OPT_FILTER }
/* --root of the commands that record but write no Cobertura (hwt-cov's --root is both). */
#define HWT_UNIT_ROOT_LONG_OPTION { "root", required_argument, NULL, HWT_UNIT_OPT_ROOT }
enum {
	HWT_UNIT_OPT_TRACE = 0x1000,
	HWT_UNIT_OPT_NO_TRACE,
	HWT_UNIT_OPT_TRACE_ALL,
	HWT_UNIT_OPT_NO_PRELOAD,
	HWT_UNIT_OPT_FILTER,
	HWT_UNIT_OPT_UNIT,
	HWT_OPT_DECODER,
	HWT_UNIT_OPT_ROOT,
	HWT_OPT_VERSION,
	HWT_UNIT_OPT_MAX_TRACE_SIZE,
	HWT_UNIT_OPT_NO_RECORD_FILTER,
	HWT_UNIT_OPT_RECORD_FILTER,
};
/* --no-record-filter and --record-filter of the commands that filter at record
   time by default (hwt-cov, hwt-pgo). */
#define HWT_UNIT_RECORD_FILTER_LONG_OPTION                                              \
	{ "no-record-filter", no_argument, NULL, HWT_UNIT_OPT_NO_RECORD_FILTER },        \
	{ "record-filter", no_argument, NULL, HWT_UNIT_OPT_RECORD_FILTER }
#define HWT_UNIT_RECORD_FILTER_USAGE                                                        \
	"      --no-record-filter\n"                                                       \
	"                        trace every image of a traced process, not only the\n"  \
	"                        selected ones (by default the qemu unit traces only\n"  \
	"                        the images the selection selects, as a hardware IP\n"  \
	"                        filter: libc and ld.so cost only the emulator's\n"     \
	"                        floor; docs/select.md)\n"                               \
	"      --record-filter   filter under the valgrind unit too (its filter costs\n" \
	"                        more CPU than it saves on CPU-bound code)\n"
/* getopt_long entries of -h, --help and --version, which every command takes. */
#define HWT_OPTION_HELP                          \
	{ "help", no_argument, NULL, 'h' },      \
	{ "version", no_argument, NULL, HWT_OPT_VERSION }

/* --trace SOURCE of the reports (not of the commands that record, whose
   --trace selects programs): etm or spe (HWT_TRACE_SOURCE_HELP). */
enum { HWT_OPT_TRACE_SOURCE = 0x10a0 };
#define HWT_OPTION_TRACE_SOURCE { "trace", required_argument, NULL, HWT_OPT_TRACE_SOURCE }

/* --debug-dir DIR: where separate debug files are (converters/elf/debug_file.h). */
enum { HWT_OPT_DEBUG_DIR = 0x1080 };
#define HWT_OPTION_DEBUG_DIR { "debug-dir", required_argument, NULL, HWT_OPT_DEBUG_DIR }
#define HWT_DEBUG_DIR_USAGE                                                                 \
	"      --debug-dir DIR       where separate debug files are, as gdb's\n"              \
	"                            debug-file-directory: DIR/.build-id/, and DIR/ + the\n"  \
	"                            image's directory for its .gnu_debuglink (repeatable;\n" \
	"                            replaces /usr/lib/debug: give it too to keep it)\n"

/* Usage text of -j. */
#define HWT_JOBS_HELP "decode with N threads (default: one per CPU, at most 16)"
#define HWT_DECODER_HELP \
	"  --decoder NAME      Intel PT decoder: edge (default), libipt, or check\n" \
	"                      (both, an error where they differ)\n"
/* The decoder a name says (hwt_decoder_kind), -1 when none. */
int hwt_command_decoder(const char *name);
/* Usage text of --unit. */
#define HWT_UNIT_USAGE                                                                     \
	"      --unit UNIT       the trace unit: perf (Intel PT hardware through Linux\n"    \
	"                        perf, docs/perf.md), valgrind (the Valgrind tool), qemu\n"  \
	"                        (qemu-x86_64 with hwt's TCG plugin; no --filter), kmod\n"   \
	"                        (hwt.ko's sw backend in the kernel: hwt_sw.ko loaded) or\n" \
	"                        auto (perf where the CPU has Intel PT and perf is\n"        \
	"                        installed, else qemu when qemu-x86_64 and the plugin\n"   \
	"                        are there and neither --filter nor --trace-all is given,\n" \
	"                        else valgrind); $" HWT_UNIT_ENV " when not given [" HWT_UNIT_DEFAULT "]\n" \
	"                        aarch64 programs run under qemu-aarch64 (sysroot\n"        \
	"                        $QEMU_LD_PREFIX or /usr/aarch64-linux-gnu), traced (ETMv4)\n" \
	"                        by the qemu unit\n"                                         \
	"      --max-trace-size N  stop tracing (not the command) once the run wrote N\n" \
	"                        bytes of trace (suffix K, M, G: KiB, MiB, GiB), counted over\n" \
	"                        every process and thread; processes started after that\n" \
	"                        run natively, still followed (valgrind and qemu units)\n" \
	"                        [no cap]\n"
/* Usage text of --root where it is the selection's alone (hwt record, hwt flame). */
#define HWT_UNIT_ROOT_USAGE \
	"      --root DIR        the project's root (the default is below)\n"
/* Usage text of the selection options. */
#define HWT_UNIT_SELECT_USAGE                                                              \
	"      --trace GLOB      trace executables matching GLOB (repeatable; '*' matches\n" \
	"                        across '/'; a GLOB without '/' also matches the base name)\n" \
	"                        and programs that load a library matching it\n"             \
	"      --no-trace GLOB   run executables matching GLOB natively (repeatable); a\n"   \
	"                        library matching it does not select a program\n"             \
	"                        default: trace what the project built (not under /usr\n"   \
	"                        /bin /sbin /lib, debug info naming a source under the\n"   \
	"                        root), and programs that will load such a library\n"      \
	"                        (DT_NEEDED, LD_LIBRARY_PATH, RPATH); every other\n"         \
	"                        process runs natively, and its children are still\n"        \
	"                        followed (docs/select.md)\n"                                 \
	"                        root: --root DIR, else the git work tree around the\n"    \
	"                        current directory, else the source directory of its\n"    \
	"                        build directory (CMakeCache.txt, config.status), else\n"  \
	"                        the current directory\n"                                   \
	"      --trace-all       trace every process of the tree (no selection; under qemu,\n" \
	"                        every x86-64 executable, not scripts); set-ID programs\n"  \
	"                        always run natively\n"                                      \
	"      --no-preload      with --trace-all under valgrind: no library of hwt's in\n"  \
	"                        the processes, run exactly as Valgrind runs them (as\n"   \
	"                        callgrind sees them); set-ID programs then fail to run\n" \
	"      --filter IMAGE[:FUNCTION]  only trace code of IMAGE (a path or base-name\n"   \
	"                        glob), or of its FUNCTION (ELF symbol); repeatable\n"       \
	"                        (valgrind, perf and kmod units)\n"


/* ----- record_run.c: a recording ------------------------------------------ */

/*
 * Creates the bundle dir, runs argv (and everything it starts) under the
 * trace unit into it and writes its summary. Returns 0 with the command's
 * waitpid status in *status, or -1 with a message (prefixed) printed.
 */
int hwt_record_run(const char *dir, const struct hwt_unit_options *unit, char *const argv[],
		   int *status, const char *prefix);

/* Exit status a shell would give for a waitpid status (128 + signal when killed). */
int hwt_exit_code(int wait_status);

/*
 * Says which processes of the recording in dir ran natively, and which
 * programs were traced for a library (hwt-cov, hwt-pgo): a user who
 * expected their counts learns why.
 */
void hwt_command_print_untraced(const char *dir, const struct hwt_unit_options *unit,
				const char *prefix);

/* ----- gates.c: coverage gates and their exit statuses -------------------- */

/*
 * Exit status bits of a coverage under its gate (--fail-under-*), or'ed
 * together when several fail, as gcovr does (2 stays "no report").
 */
#define HWT_EXIT_LINES     4
#define HWT_EXIT_FUNCTIONS 8
#define HWT_EXIT_BRANCHES  16
#define HWT_EXIT_DIFF      32

/* Minimum percentages; below 0: no gate. */
struct hwt_coverage_gates {
	double lines, functions, branches, diff;
};

/* No gates. */
void hwt_coverage_gates_init(struct hwt_coverage_gates *gates);

/*
 * A gate's value (0 to 100, decimals allowed) from the option named name
 * ("fail-under-lines"); -1 with a message (prefix first) when it is not one.
 */
int hwt_coverage_gate_parse(const char *arg, const char *name, double *value,
			    const char *prefix);

/*
 * The bits of the gates on lines, functions and branches that totals do
 * not meet, each said on stderr. No line at all is 0% (nothing was
 * measured), no function or branch 100%.
 */
int hwt_coverage_gates_check(const struct hwt_coverage_gates *gates,
			     const struct hwt_lcov_totals *totals, const char *prefix);

/* HWT_EXIT_DIFF (said on stderr) when percent is under the diff gate, else 0. */
int hwt_coverage_gate_check_diff(const struct hwt_coverage_gates *gates, double percent,
				 const char *prefix);

/* Usage text of the gates on lines, functions and branches. */
#define HWT_COVERAGE_GATES_USAGE                                                        \
	"      --fail-under-lines N  exit status 4 when under N% of the lines ran\n"    \
	"      --fail-under-functions N\n"                                              \
	"                            exit status 8 when under N% of the functions ran\n" \
	"      --fail-under-branches N\n"                                               \
	"                            exit status 16 when under N% of the branches were\n" \
	"                            taken (several gates failing: the sum)\n"
/* Usage text of the diff gate. */
#define HWT_DIFF_GATE_USAGE                                                             \
	"      --fail-under-diff N   exit status 32 when under N% of the changed lines\n" \
	"                            with code ran\n"

/* ----- write_file.c: an output file, whole or not at all ------------------ */

/*
 * Calls write(file, context) on a file beside path, then renames it to
 * path: no half-written report. A device or a pipe (-o /dev/stdout) is
 * written in place; "-" is stdout. Returns write's value (< 0: a message
 * naming path said, prefix first, and nothing left behind).
 */
int hwt_command_write_file(const char *path, int (*write)(FILE *file, void *context),
			   void *context, const char *prefix);

/*
 * Whether hwt_command_write_file could write path, checked before a run so
 * that a bad -o is said before anything runs: it is not a directory, its
 * directory exists, and either can be written. 0, or -1 with a message
 * naming path said (prefix first). "-" is always fine.
 */
int hwt_command_check_output(const char *path, const char *prefix);

/* The same for an output directory (--html DIR): it or the nearest of its
   parents that exists is a directory that can be written. */
int hwt_command_check_output_dir(const char *path, const char *prefix);

/* ----- diff_report.c: diff coverage from git -------------------------------- */

struct hwt_cov_files;

struct hwt_diff_report_command {
	const char *base;      /* --diff REF / --base REF */
	const char *output;    /* the report's file ("-": stdout), or NULL: stderr */
	int format;            /* enum hwt_diff_format, or -1: by output's name */
	int quiet;             /* no report on stderr when output is NULL */
	const struct hwt_coverage_gates *gates;
	const char *prefix;
	double percent;        /* out: the diff coverage */
	size_t covered, measured; /* out: its lines */
};

/*
 * The coverage of the lines added or changed since the merge base of
 * base and HEAD (`git diff` from there to the working tree, in the
 * repository of the current directory) in files: writes the report,
 * checks the diff gate. Returns 0, HWT_EXIT_DIFF, or -1 (a message said:
 * no git, no such revision, the report cannot be written).
 */
int hwt_diff_report_run(const struct hwt_cov_files *files, struct hwt_diff_report_command *how);

/* ----- summary_table.c: the coverage summary on the terminal -------------- */

/*
 * The table of files (hwt-cov's default): per source file its lines,
 * functions and branches (hit/found, percent) and the ranges of its lines
 * that never ran ("12-15,40"), the most missed lines last; paths relative
 * to root (absolute, or NULL) when under it; then a TOTAL row. Percentages
 * coloured as hwt_color says. 0, or -1 when out of memory (nothing printed).
 */
int hwt_summary_table_print(FILE *out, const struct hwt_cov_files *files, const char *root);
/* The totals, a line each: "PREFIX: lines......: 80.0% (8 of 10 lines)" or "no lines". */
void hwt_summary_totals_print(FILE *out, const struct hwt_lcov_totals *totals,
			      const char *prefix);
struct hwt_diff;
/*
 * The lines added or changed since the merge base of rev and HEAD (`git
 * diff` from there to the working tree, in the repository of the current
 * directory): *diff, the repository's top directory (*top, malloc'd) and
 * the merge base (*merge_base, malloc'd). 0, or -1 with a message said.
 */
int hwt_diff_from_git(const char *rev, const char *prefix, struct hwt_diff **diff, char **top,
		      char **merge_base);

/* ----- ctest_list.c: the tests CTest would run ---------------------------- */

struct hwt_ctest_test {
	char *name;
	char **argv;                 /* its command, NULL-terminated */
	size_t argc;
};

struct hwt_ctest_list {
	struct hwt_ctest_test *tests;
	size_t count;
};

/*
 * Runs `command --show-only=json-v1` (command: a ctest command line as
 * hwt_bundle_quote_argv quotes it; split into its words here, never given
 * to a shell) and reads its tests into list: 0, or -1 with a message said
 * (prefix first).
 */
int hwt_ctest_list_run(struct hwt_ctest_list *list, const char *command, const char *prefix);
/* Reads `ctest --show-only=json-v1` output: 0, or -1 (malformed, out of memory). */
int hwt_ctest_list_parse(struct hwt_ctest_list *list, const char *json, size_t size);
void hwt_ctest_list_fini(struct hwt_ctest_list *list);

/* ----- test_split.c: which test each process ran for ---------------------- */

struct hwt_test_split {
	char **names;                /* the tests, in the order they started */
	size_t count;
	int32_t *image_test;         /* per bundle image: index in names, -1: no test */
	size_t images;
	char **programs;             /* the executables of the traced processes, once each */
	size_t nprograms;
};

/*
 * The tests of the processes of bundle (test_split.c says how): by the
 * CTest list when the recorded command is ctest (ctest may be NULL), else
 * by the regular expression name (--test-name, may be NULL), else by
 * command line. 0, or -1 when out of memory.
 */
int hwt_test_split_find(struct hwt_test_split *split, struct hwt_bundle *bundle,
			const struct hwt_ctest_list *ctest, const regex_t *name);
void hwt_test_split_fini(struct hwt_test_split *split);
/* The index of the test named name (added when new, after the others), or -1
   when out of memory. */
int32_t hwt_test_split_name(struct hwt_test_split *split, const char *name, size_t len);

/* ----- lcov_report.c: a bundle's lcov report ------------------------------ */

/* What `hwt report lcov` and hwt-cov write: the file hwt_lcov_report_options_init names. */
#define HWT_LCOV_REPORT_DEFAULT_OUTPUT "hwt-cov.info"

/* One -o: a file and its format (enum hwt_cov_format). */
struct hwt_cov_output {
	const char *path;
	int format;
	int format_given;            /* by --format, not by the file's name */
};

struct hwt_lcov_report_options {
	/* output (the last -o), quiet (no summary, no progress), verbose
	   (also say which system images were left out), jobs; hwt-cov's unit. */
	struct hwt_command_options common;
	struct hwt_cov_output *outputs; /* every -o, in order (room for argc) */
	size_t noutputs;
	int next_format;             /* --format not yet taken by an -o, or -1 */
	const char *root;            /* --root: paths of the XML and JSON formats relative to it */
	const char *html;            /* genhtml output directory, or NULL */
	struct hwt_lcov_filter filter;
	int system;                  /* report system images (libc, ...) with debug info too */
	int no_markers;              /* --no-markers: LCOV_EXCL_* and GCOVR_EXCL_* ignored */
	int summary_only;            /* --summary-only: the totals without the table of files */
	struct hwt_coverage_gates gates;
	const char *diff_base;       /* --diff REF, or NULL */
	const char *diff_output;     /* --diff-output FILE, or NULL */
	const char *prefix;          /* message prefix ("hwt report lcov", "hwt-cov") */
	struct hwt_decode_live *live; /* the decode while recording to finish, or NULL */
	int per_test;                /* --per-test: a TN section per test */
	const char *test_name;       /* --test-name REGEX, or NULL */
	const char **test_functions; /* --test-function GLOBs, NULL-terminated (room for argc) */
	size_t ntest_functions;
};

/* Defaults, room for up to argc filters; -1 when out of memory. */
int hwt_lcov_report_options_init(struct hwt_lcov_report_options *options, int argc,
				 const char *prefix);
void hwt_lcov_report_options_fini(struct hwt_lcov_report_options *options);
/*
 * hwt_command_option, and -o (repeatable), --format, --root, --html,
 * --include, --exclude, --system, --no-markers, the gates, --diff, --diff-output.
 */
int hwt_lcov_report_option(struct hwt_lcov_report_options *options, int opt, const char *arg);
enum {
	HWT_LCOV_OPT_FORMAT = 0x1100,
	HWT_LCOV_OPT_ROOT,
	HWT_LCOV_OPT_FAIL_LINES,
	HWT_LCOV_OPT_FAIL_FUNCTIONS,
	HWT_LCOV_OPT_FAIL_BRANCHES,
	HWT_LCOV_OPT_FAIL_DIFF,
	HWT_LCOV_OPT_DIFF,
	HWT_LCOV_OPT_DIFF_OUTPUT,
	HWT_LCOV_OPT_NO_MARKERS,
	HWT_LCOV_OPT_SUMMARY_ONLY,
	HWT_LCOV_OPT_PER_TEST,
	HWT_LCOV_OPT_TEST_NAME,
	HWT_LCOV_OPT_TEST_FUNCTION,
};
/* getopt_long entries of the diff gate. */
#define HWT_OPTION_FAIL_UNDER_DIFF { "fail-under-diff", required_argument, NULL, HWT_LCOV_OPT_FAIL_DIFF }
/* getopt_long entries and short options of those (with -h, --help). */
#define HWT_LCOV_REPORT_LONG_OPTIONS                                                     \
	HWT_OPTION_OUTPUT,                                                                \
	{ "format", required_argument, NULL, HWT_LCOV_OPT_FORMAT },                       \
	{ "root", required_argument, NULL, HWT_LCOV_OPT_ROOT },                           \
	{ "html", required_argument, NULL, 'H' },                                         \
	{ "include", required_argument, NULL, 'i' },                                      \
	{ "exclude", required_argument, NULL, 'x' },                                      \
	HWT_OPTION_VERBOSE,                                                               \
	{ "system", no_argument, NULL, 'S' },                                             \
	{ "no-markers", no_argument, NULL, HWT_LCOV_OPT_NO_MARKERS },                     \
	{ "fail-under-lines", required_argument, NULL, HWT_LCOV_OPT_FAIL_LINES },         \
	{ "fail-under-functions", required_argument, NULL, HWT_LCOV_OPT_FAIL_FUNCTIONS }, \
	{ "fail-under-branches", required_argument, NULL, HWT_LCOV_OPT_FAIL_BRANCHES },   \
	HWT_OPTION_FAIL_UNDER_DIFF,                                                       \
	{ "diff", required_argument, NULL, HWT_LCOV_OPT_DIFF },                           \
	{ "diff-output", required_argument, NULL, HWT_LCOV_OPT_DIFF_OUTPUT },             \
	{ "per-test", no_argument, NULL, HWT_LCOV_OPT_PER_TEST },                         \
	{ "test-name", required_argument, NULL, HWT_LCOV_OPT_TEST_NAME },                 \
	{ "test-function", required_argument, NULL, HWT_LCOV_OPT_TEST_FUNCTION },         \
	HWT_OPTION_QUIET,                                                                 \
	{ "summary-only", no_argument, NULL, HWT_LCOV_OPT_SUMMARY_ONLY },                 \
	HWT_OPTION_COLOR,                                                                 \
	HWT_OPTION_JOBS,                                                                  \
	HWT_OPTION_DECODER,                                                               \
	HWT_OPTION_DEBUG_DIR,                                                             \
	HWT_OPTION_HELP
#define HWT_LCOV_REPORT_SHORT_OPTIONS "o:vqj:h"
/* Usage text of --summary-only and --color (after -q's). */
#define HWT_LCOV_REPORT_SUMMARY_USAGE                                                      \
	"      --summary-only        the totals alone, without the table of files\n"        \
	HWT_COLOR_USAGE
/* Usage text of the options above but -v, -q, -j, -h (hwt-cov and hwt report lcov). */
#define HWT_LCOV_REPORT_USAGE                                                              \
	"  -o, --output FILE         write the coverage to FILE (repeatable), in the format\n" \
	"                            of its name: *.info lcov, *.xml Cobertura,\n"            \
	"                            *sonarqube.xml SonarQube, *.json a JSON summary\n"       \
	"                            [" HWT_LCOV_REPORT_DEFAULT_OUTPUT "]\n"                   \
	"      --format FORMAT       the format of the -o that follows (or of the last one):\n" \
	"                            lcov, cobertura, sonarqube, json\n"                      \
	"      --root DIR            Cobertura, SonarQube and JSON name files relative to\n"  \
	"                            DIR [the current directory]; hwt-cov: also the\n"      \
	"                            project's root for the selection (below)\n"            \
	"      --html DIR            also write an HTML report (genhtml) into DIR, C++\n"     \
	"                            names demangled when c++filt is installed\n"            \
	"      --include GLOB        only source files matching GLOB (repeatable; '*'\n"      \
	"                            matches across '/', e.g. '*/src/*')\n"                  \
	"      --exclude GLOB        leave out source files matching GLOB (repeatable)\n"     \
	"      --system              also report system libraries (libc, ...) that have\n"    \
	"                            debug info (left out by default)\n"                      \
	"      --no-markers          ignore the exclusion markers in the sources\n"          \
	"                            (LCOV_EXCL_LINE, LCOV_EXCL_START/STOP, GCOVR_EXCL_*...)\n" \
	HWT_DEBUG_DIR_USAGE                                                                   \
	HWT_COVERAGE_GATES_USAGE                                                              \
	"      --diff REF            also the coverage of the lines added or changed since\n" \
	"                            the merge base of REF and HEAD (git diff to the\n"       \
	"                            working tree), per file and in total\n"                  \
	"      --diff-output FILE    write that report to FILE: Markdown (*.md), JSON\n"      \
	"                            (*.json) or text [text on stderr]\n"                     \
	HWT_DIFF_GATE_USAGE                                                                   \
	"      --per-test            a section (lcov TN) per test: each CTest test when\n"   \
	"                            the command is ctest, else each process tree that\n"    \
	"                            an untraced driver starts (by its command line);\n"    \
	"                            inside a process, each call of a test function\n"     \
	"                            (GoogleTest, Catch2, Unity, cmocka, Check, CUnit:\n"  \
	"                            named as they name it);\n"                            \
	"                            code outside every test in a section of its own;\n"    \
	"                            the JSON summary lists the tests too (Cobertura\n"      \
	"                            and SonarQube have no place for them)\n"                \
	"                            (docs/hwt-cov.md, \"Per-test coverage\")\n"            \
	"      --test-name REGEX     with --per-test: a test is a process whose command\n"  \
	"                            line matches REGEX (POSIX extended), named by the\n"   \
	"                            match or its first group\n"                           \
	"      --test-function GLOB  with --per-test: each call of a function whose name\n"  \
	"                            matches GLOB (C++: demangled, without parameters)\n"  \
	"                            is a test of that name (repeatable)\n"

/* Checks every output of options (-o, --html, --diff-output) with
   hwt_command_check_output before a run: 0, or -1 (said). */
int hwt_lcov_report_check_outputs(const struct hwt_lcov_report_options *options);

/*
 * Decodes the bundle in bundle_dir, writes every output, runs genhtml when
 * asked, prints the summary and every warning (images without debug info,
 * deleted or replaced since the run, damaged trace), reports the diff
 * coverage when asked and checks the gates. Returns 0 when the report was
 * written and meets its gates; else the bits of HWT_EXIT_PARTIAL (the
 * bundle had warnings) and of the gates it does not meet; or
 * HWT_EXIT_ERROR alone when it could not be written (the bundle cannot be
 * read, a file cannot be written, genhtml or git failed).
 */
int hwt_lcov_report(const char *bundle_dir, const struct hwt_lcov_report_options *options);

#endif
