/*
 * report_lcov_cli: `hwt report lcov` as an executable of its own, so that
 * tests reach hwt_report_lcov_main whether or not the hwt front end lists
 * it yet.
 */
#include "commands.h"

int main(int argc, char **argv)
{
	return hwt_report_lcov_main(argc, argv);
}
