/*
 * Coverage gates (--fail-under-lines, -functions, -branches, -diff): a
 * percentage each, and an exit status bit each when the coverage is
 * under it, so that CI can tell which one failed.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "hwt_command.h"

void hwt_coverage_gates_init(struct hwt_coverage_gates *gates)
{
	gates->lines = gates->functions = gates->branches = gates->diff = -1;
}

int hwt_coverage_gate_parse(const char *arg, const char *name, double *value,
			    const char *prefix)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (end == arg || *end || errno || !(v >= 0 && v <= 100)) {
		fprintf(stderr, "%s: --%s wants a percentage from 0 to 100, not '%s'\n", prefix, name,
			arg);
		return -1;
	}
	*value = v;
	return 0;
}

/* bit when percent (found 0: empty) is under minimum, with the message. */
static int check(double minimum, uint64_t hit, uint64_t found, double empty, const char *what,
		 const char *option, int bit, const char *prefix)
{
	double percent = found ? 100.0 * (double)hit / (double)found : empty;

	if (minimum < 0 || percent >= minimum)
		return 0;
	/* Truncated: a coverage under the gate never reads as the gate itself. */
	fprintf(stderr, "%s: %s%s coverage%s %.2f%% (%llu of %llu) is under --%s %g: exit status "
		"bit %d\n", prefix, hwt_color(hwt_color_error), what, hwt_color(hwt_color_reset), floor(percent * 100) / 100, (unsigned long long)hit,
		(unsigned long long)found, option, minimum, bit);
	return bit;
}

int hwt_coverage_gates_check(const struct hwt_coverage_gates *gates,
			     const struct hwt_lcov_totals *t, const char *prefix)
{
	return check(gates->lines, t->lines_hit, t->lines_found, 0, "line", "fail-under-lines",
		     HWT_EXIT_LINES, prefix) |
	       check(gates->functions, t->functions_hit, t->functions_found, 100, "function",
		     "fail-under-functions", HWT_EXIT_FUNCTIONS, prefix) |
	       check(gates->branches, t->branches_hit, t->branches_found, 100, "branch",
		     "fail-under-branches", HWT_EXIT_BRANCHES, prefix);
}

int hwt_coverage_gate_check_diff(const struct hwt_coverage_gates *gates, double percent,
				 const char *prefix)
{
	if (gates->diff < 0 || percent >= gates->diff)
		return 0;
	fprintf(stderr, "%s: diff coverage %.2f%% is under --fail-under-diff %g: exit status bit %d\n",
		prefix, floor(percent * 100) / 100, gates->diff, HWT_EXIT_DIFF);
	return HWT_EXIT_DIFF;
}
