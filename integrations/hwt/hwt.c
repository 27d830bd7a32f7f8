/*
 * hwt: the command front end. Subcommands like git and perf: each is a
 * function taking (argc, argv) with argv[0] its own name.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "hwt_command.h"

#ifndef HWT_VERSION
#define HWT_VERSION "unknown"
#endif

struct hwt_command {
	const char *name;
	int (*main)(int argc, char **argv);
	const char *help;
};

static const struct hwt_command commands[] = {
	{ "record", hwt_record_main, "run a command and record its branch trace into a bundle" },
	{ "report", hwt_report_main,
	  "a bundle as lcov, afdo, profile, flame, ... ('hwt report --help')" },
	{ "flame", hwt_flame_main, "run a command and draw the flame graph of its exact stacks" },
	{ "merge", hwt_merge_main, "add hwt profiles of several runs into one" },
	{ "dump", hwt_dump_main, "list a trace bundle: header, sideband records, streams, packets" },
	{ "import", hwt_import_main, "a perf.data file with Intel PT or ETM trace into a bundle" },
	{ "export", hwt_export_main, "a bundle as perf.data that Linux perf decodes" },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *out)
{
	size_t i;

	fputs("usage: hwt [--version] [--help] COMMAND [ARGS]\n"
	      "\n"
	      "Turns branch traces (Intel PT packets) into coverage and profiles.\n"
	      "\n"
	      "commands:\n", out);
	for (i = 0; i < NCOMMANDS; i++)
		fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].help);
	fputs("\n"
	      "'hwt help COMMAND' or 'hwt COMMAND --help' describes a command.\n", out);
}

static const struct hwt_command *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static int unknown_command(const char *name)
{
	return hwt_command_usage_error(usage, "hwt", "'%s' is not an hwt command", name);
}

int main(int argc, char **argv)
{
	const struct hwt_command *command;

	if (argc < 2) {
		usage(stderr);
		return HWT_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return HWT_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("hwt %s\n", HWT_VERSION);
		return HWT_EXIT_OK;
	}
	if (!strcmp(argv[1], "help")) {
		char help[] = "--help";
		char *sub_argv[3];

		if (argc < 3) {
			usage(stdout);
			return HWT_EXIT_OK;
		}
		command = find_command(argv[2]);
		if (!command)
			return unknown_command(argv[2]);
		sub_argv[0] = argv[2];
		sub_argv[1] = help;
		sub_argv[2] = NULL;
		return command->main(2, sub_argv);
	}
	if (argv[1][0] == '-') {
		return hwt_command_usage_error(usage, "hwt", "unknown option '%s'", argv[1]);
	}
	command = find_command(argv[1]);
	if (!command)
		return unknown_command(argv[1]);
	return command->main(argc - 1, argv + 1);
}
