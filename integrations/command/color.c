/*
 * Colour in the commands' messages (hwt_command.h): on a terminal unless
 * NO_COLOR (https://no-color.org) or TERM=dumb says no, or as --color says.
 * One setting for the process: the messages of every part of a command
 * go to the same stderr.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hwt_command.h"

static int color_on;

int hwt_color_mode_parse(const char *arg)
{
	if (!strcmp(arg, "auto"))
		return hwt_color_auto;
	if (!strcmp(arg, "always"))
		return hwt_color_always;
	if (!strcmp(arg, "never"))
		return hwt_color_never;
	return -1;
}

int hwt_color_set(enum hwt_color_mode mode)
{
	const char *no_color = getenv("NO_COLOR"), *term = getenv("TERM");

	switch (mode) {
	case hwt_color_always:
		color_on = 1;
		break;
	case hwt_color_never:
		color_on = 0;
		break;
	default:
		/* NO_COLOR set and not empty: no colour, whatever the terminal. */
		color_on = !(no_color && *no_color) && !(term && !strcmp(term, "dumb")) &&
			   isatty(STDERR_FILENO);
	}
	return color_on;
}

const char *hwt_color(enum hwt_color_what what)
{
	static const char *const codes[] = {
		[hwt_color_reset] = "\033[0m",
		[hwt_color_error] = "\033[1;31m",
		[hwt_color_warning] = "\033[1;33m",
		[hwt_color_low] = "\033[31m",
		[hwt_color_medium] = "\033[33m",
		[hwt_color_high] = "\033[32m",
		[hwt_color_heading] = "\033[1m",
	};

	return color_on ? codes[what] : "";
}

enum hwt_color_what hwt_color_of_percent(double percent)
{
	/* genhtml's default limits: 90% and up "high", 75% and up "medium". */
	return percent >= 90.0 ? hwt_color_high : percent >= 75.0 ? hwt_color_medium : hwt_color_low;
}
