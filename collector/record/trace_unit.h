/*
 * Trace units that `hwt record` can drive. Today: the Valgrind tool, the
 * software unit for machines without trace hardware (collector/valgrind).
 */
#ifndef HWT_TRACE_UNIT_H
#define HWT_TRACE_UNIT_H

struct hwt_unit_options {
	int debug_blocks;   /* write the executed-block log (tests) */
	long psb_period;    /* bytes between PSB+; 0: the unit's default */
	int trace_all;      /* trace every process (no selection, no preloaded library) */
	const char *trace;  /* --trace globs, newline-separated, or NULL */
	const char *no_trace; /* --no-trace globs, newline-separated, or NULL */
	const char *filters[16]; /* --filter IMAGE[:FUNCTION], NULL-terminated */
};

/*
 * Parses the selection options shared by `hwt record` and hwt-cov (--trace,
 * --no-trace, --trace-all, --filter) into opts. Returns 1 when opt was one
 * of them, 0 when not, -1 (message printed, prefix first) on a bad value.
 */
int hwt_unit_select_option(struct hwt_unit_options *opts, int opt, const char *arg,
			   const char *prefix);
/* getopt_long entries and usage text for those options. */
#define HWT_UNIT_SELECT_LONG_OPTIONS                                   \
	{ "trace", required_argument, NULL, HWT_UNIT_OPT_TRACE },      \
	{ "no-trace", required_argument, NULL, HWT_UNIT_OPT_NO_TRACE }, \
	{ "trace-all", no_argument, NULL, HWT_UNIT_OPT_TRACE_ALL },    \
	{ "filter", required_argument, NULL, HWT_UNIT_OPT_FILTER }
enum {
	HWT_UNIT_OPT_TRACE = 0x1000,
	HWT_UNIT_OPT_NO_TRACE,
	HWT_UNIT_OPT_TRACE_ALL,
	HWT_UNIT_OPT_FILTER,
};
#define HWT_UNIT_SELECT_USAGE                                                              \
	"      --trace GLOB      trace executables matching GLOB (repeatable; '*' matches\n" \
	"                        across '/'; a GLOB without '/' also matches the base name)\n" \
	"                        and programs that load a library matching it\n"             \
	"      --no-trace GLOB   run executables matching GLOB natively (repeatable); a\n"   \
	"                        library matching it does not select a program\n"             \
	"                        default: trace what is not under /usr /bin /sbin /lib and\n" \
	"                        has debug info, and programs that will load such a\n"       \
	"                        library (DT_NEEDED, LD_LIBRARY_PATH, RPATH); every other\n" \
	"                        process runs natively, and its children are still\n"        \
	"                        followed (docs/select.md)\n"                                 \
	"      --trace-all       trace every process of the tree (no selection)\n"           \
	"      --filter IMAGE[:FUNCTION]  only trace code of IMAGE (a path or base-name\n"   \
	"                        glob), or of its FUNCTION (ELF symbol); repeatable\n"

/*
 * Runs argv (argv[0] looked up in PATH) under the Valgrind trace unit,
 * recording into the bundle directory bundle (absolute path, already
 * created), following every child process. Returns 0 and the command's
 * waitpid status in *status, or -1 with a message printed when the command
 * could not be started under the unit.
 */
int hwt_valgrind_unit_run(const char *bundle, const struct hwt_unit_options *opts,
			  char *const argv[], int *status);

/* Where the Valgrind tool is, or NULL with a message printed. */
const char *hwt_valgrind_unit_lib(void);

#endif /* HWT_TRACE_UNIT_H */
