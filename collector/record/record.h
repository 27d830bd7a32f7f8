/* `hwt record`: runs a command under a trace unit into a trace bundle. */
#ifndef HWT_RECORD_COMMAND_H
#define HWT_RECORD_COMMAND_H

#include <stdio.h>

struct hwt_bundle;
struct hwt_unit_options;

int hwt_record_main(int argc, char **argv);

/*
 * Creates the bundle dir, runs argv (and everything it starts) under the
 * trace unit into it and writes its summary. Returns 0 with the command's
 * waitpid status in *status, or -1 with a message (prefixed) printed.
 */
int hwt_record_run(const char *dir, const struct hwt_unit_options *unit, char *const argv[],
		   int *status, const char *prefix);

/*
 * Says which processes ran natively for a reason that may surprise (no debug
 * info, setuid, below a static program; not system tools or scripts), one
 * line per executable and reason, so that a user who expected their coverage
 * knows what to select. Returns the number of untraced processes.
 */
size_t hwt_record_print_untraced(struct hwt_bundle *bundle, FILE *out, const char *prefix);

/*
 * Says which traced processes were selected for a library they load rather
 * than for their executable (judged again from the bundle with unit's
 * --trace/--no-trace), one line per executable and library. Returns their
 * number.
 */
size_t hwt_record_print_by_library(struct hwt_bundle *bundle, const struct hwt_unit_options *unit,
				   FILE *out, const char *prefix);

/* Removes an old bundle for --force; refuses anything that is not one. 0 or -1 (message). */
int hwt_remove_bundle(const char *dir, const char *prefix);

/* Exit status a shell would give for a waitpid status (128 + signal when killed). */
int hwt_exit_code(int wait_status);

#endif
