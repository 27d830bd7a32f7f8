/*
 * Trace units that `hwt record` can drive. Today: the Valgrind tool, the
 * software unit for machines without trace hardware (collector/valgrind).
 */
#ifndef HWT_TRACE_UNIT_H
#define HWT_TRACE_UNIT_H

struct hwt_unit_options {
	int debug_blocks;   /* write the executed-block log (tests) */
	long psb_period;    /* bytes between PSB+; 0: the unit's default */
};

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
