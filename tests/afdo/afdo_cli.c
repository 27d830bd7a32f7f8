/*
 * afdo_cli afdo|afdo-text ARGS...: the two report commands as `hwt report`
 * runs them, for the tests (independent of the front end's wiring).
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "afdo"))
		return hwt_report_afdo_main(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "afdo-text"))
		return hwt_report_afdo_text_main(argc - 1, argv + 1);
	fprintf(stderr, "usage: afdo_cli afdo|afdo-text ARGS...\n");
	return 2;
}
