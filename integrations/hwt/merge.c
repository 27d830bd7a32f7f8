/*
 * hwt merge -o OUT IN...: adds profiles together.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "hwt_command.h"
#include "profile.h"

static void usage(FILE *out)
{
	fputs("usage: hwt merge -o OUT IN...\n"
	      "\n"
	      "Adds the counts of the profiles IN... (written by 'hwt report profile'\n"
	      "or 'hwt merge') and writes the sum to OUT ('-': standard output).\n"
	      "Images are matched by build-id, else by path.\n"
	      "\n"
	      "Exit status: 0 written, 2 nothing written (an input missing or not a\n"
	      "profile, OUT cannot be written) or a bad option (docs/exit-status.md).\n", out);
}

static void report(const char *path, int status, size_t line)
{
	if (status == -hpe_io)
		fprintf(stderr, "hwt merge: %s: %s\n", path, strerror(errno));
	else if (status == -hpe_format)
		fprintf(stderr, "hwt merge: %s:%zu: %s\n", path, line, hwt_profile_errstr(status));
	else
		fprintf(stderr, "hwt merge: %s: %s\n", path, hwt_profile_errstr(status));
}

int hwt_merge_main(int argc, char **argv)
{
	const char *out = NULL;
	struct hwt_profile *profile;
	int first = 0, status, i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return HWT_EXIT_OK;
		} else if (!strcmp(argv[i], "--version")) {
			return hwt_command_version("hwt merge");
		} else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			out = argv[++i];
		} else if (!strncmp(argv[i], "-o", 2) && argv[i][2]) {
			out = argv[i] + 2;
		} else if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return hwt_command_usage_error(usage, "hwt merge", "unknown option '%s'",
						       argv[i]);
		} else {
			break;
		}
	}
	first = i;
	if (!out || first >= argc)
		return hwt_command_usage_error(usage, "hwt merge", "%s",
					       !out ? "no output (-o OUT)" : "no profiles to add");
	for (i = first; i < argc; i++) {
		if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "hwt merge: options go before the inputs ('%s')\n", argv[i]);
			return HWT_EXIT_USAGE;
		}
	}
	profile = hwt_profile_alloc();
	if (!profile) {
		fprintf(stderr, "hwt merge: out of memory\n");
		return HWT_EXIT_ERROR;
	}
	for (i = first; i < argc; i++) {
		size_t line = 0;

		if (!strcmp(argv[i], "-"))
			status = hwt_profile_read(profile, stdin, &line);
		else
			status = hwt_profile_load(profile, argv[i], &line);
		if (status < 0) {
			report(argv[i], status, line);
			hwt_profile_free(profile);
			return HWT_EXIT_ERROR;
		}
	}
	if (!strcmp(out, "-"))
		status = hwt_profile_write(profile, stdout);
	else
		status = hwt_profile_save(profile, out);
	if (status < 0)
		report(out, status, 0);
	hwt_profile_free(profile);
	return status < 0 ? HWT_EXIT_ERROR : HWT_EXIT_OK;
}
