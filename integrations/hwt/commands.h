/*
 * The hwt subcommands, one file each (report formats one file each too):
 * each takes (argc, argv) with argv[0] its own name and returns its exit
 * status. hwt.c dispatches to them; hwt-pgo and the tests' front ends call
 * some of them directly.
 */
#ifndef HWT_COMMANDS_H
#define HWT_COMMANDS_H

#include <stdio.h>

/* record.c: `hwt record [-o BUNDLE] [options] -- CMD ARGS...`. */
int hwt_record_main(int argc, char **argv);
/* report.c: `hwt report FORMAT ...`, dispatching to the formats below. */
int hwt_report_main(int argc, char **argv);
/* report_profile.c: `hwt report profile BUNDLE -o OUT`. */
int hwt_report_profile_main(int argc, char **argv);
/* report_lcov.c: `hwt report lcov BUNDLE -o cov.info [...]`. */
int hwt_report_lcov_main(int argc, char **argv);
/* report_afdo.c: `hwt report afdo BUNDLE|PROFILE... -o prog.afdo` and
   `hwt report afdo-text BUNDLE|PROFILE... --binary PROG -o prog.txt`. */
int hwt_report_afdo_main(int argc, char **argv);
int hwt_report_afdo_text_main(int argc, char **argv);
/* report_bolt.c: `hwt report bolt BUNDLE|PROFILE... -o prog.fdata [--binary PROG]`. */
int hwt_report_bolt_main(int argc, char **argv);
/* flame.c: `hwt report flame|folded|speedscope|chrome [options] BUNDLE`
   (argv[0] is the format's name) and `hwt flame [options] -- CMD ARGS...`. */
int hwt_report_flame_main(int argc, char **argv);
int hwt_flame_main(int argc, char **argv);
/* report_diff.c: `hwt report diff --base REF COVERAGE.info`. */
int hwt_report_diff_main(int argc, char **argv);
/* report_tests.c: `hwt report tests COVERAGE.info FILE:LINE|FUNCTION...` and
   `hwt report impact --diff REV COVERAGE.info` (lcov of hwt-cov --per-test). */
int hwt_report_tests_main(int argc, char **argv);
int hwt_report_impact_main(int argc, char **argv);
/* merge.c: `hwt merge -o OUT IN...`. */
int hwt_merge_main(int argc, char **argv);
/* record.c: removes an old bundle for -f (hwt record, hwt import); refuses
   anything that is not one. 0, or -1 with a message (prefix first). */
int hwt_remove_bundle(const char *dir, const char *prefix);
/* import.c: `hwt import [-o BUNDLE] PERF_DATA`. */
int hwt_import_main(int argc, char **argv);
/* export.c: `hwt export [-o perf.data] BUNDLE`. */
int hwt_export_main(int argc, char **argv);
/* dump.c: `hwt dump [options] BUNDLE`. */
int hwt_dump_main(int argc, char **argv);

/* Exit statuses of hwt dump. */
/* HWT_EXIT_OK, _PARTIAL and _ERROR of hwt_command.h (docs/exit-status.md); tests
   that do not see that header use these. */
#define HWT_DUMP_OK       0  /* clean */
#define HWT_DUMP_WARNINGS 1  /* readable, with warnings */
#define HWT_DUMP_UNUSABLE 2  /* not a bundle, bad usage */

/*
 * What hwt dump does once its options are read (for the fuzz test too):
 * lists the bundle in dir to out, its diagnostics to err; returns an exit
 * status.
 */
struct hwt_dump_options;
int hwt_dump(const char *dir, const struct hwt_dump_options *options, FILE *out, FILE *err);

#endif
