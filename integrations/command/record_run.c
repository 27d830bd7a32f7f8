/*
 * hwt_record_run, shared by `hwt record` and hwt-cov: make the bundle, run
 * the command under the trace unit (collector/record) into it, write the
 * summary, saying what went wrong; hwt_exit_code.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "hwt_bundle.h"
#include "hwt_command.h"
#include "trace_unit.h"

int hwt_exit_code(int wait_status)
{
	if (WIFEXITED(wait_status))
		return WEXITSTATUS(wait_status);
	if (WIFSIGNALED(wait_status))
		return 128 + WTERMSIG(wait_status);
	return 255;
}

int hwt_record_run(const char *dir, const struct hwt_unit_options *unit, char *const argv[],
		   int *status, const char *prefix)
{
	struct hwt_unit_run run;
	char abs_dir[PATH_MAX], *command;
	int argc, err;

	if (hwt_unit_prepare(&run, unit, prefix) < 0)
		return -1;
	for (argc = 0; argv[argc]; argc++)
		;
	command = hwt_bundle_quote_argv(argc, argv);
	/* The header names the unit that writes the bundle. */
	err = hwt_bundle_create_trace(dir, run.unit->name, run.unit->clock ? run.unit->clock : "sequence",
				      command ? command : "", run.unit->traces);
	free(command);
	if (err < 0) {
		fprintf(stderr, "%s: cannot create the bundle %s: %s%s%s\n", prefix, dir,
			hwt_bundle_errstr(err), err == -hbe_io ? ": " : "",
			err == -hbe_io ? strerror(errno) : "");
		if (err == -hbe_exists)
			fprintf(stderr, "%s: use -f to replace an old bundle, or another directory\n",
				prefix);
		return -1;
	}
	if (!realpath(dir, abs_dir)) {
		fprintf(stderr, "%s: %s: %s\n", prefix, dir, strerror(errno));
		return -1;
	}
	if (hwt_unit_run(&run, abs_dir, unit, argv, status, prefix) < 0)
		return -1;
	err = hwt_bundle_write_summary(abs_dir, *status);
	if (err < 0)
		fprintf(stderr, "%s: cannot write the summary of %s: %s\n", prefix, dir,
			hwt_bundle_errstr(err));
	return 0;
}

