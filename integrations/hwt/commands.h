/* hwt's subcommands that live here (the others are with their libraries). */
#ifndef HWT_COMMANDS_H
#define HWT_COMMANDS_H

/* `hwt import [-o BUNDLE] PERF_DATA` (import_main.c). Exit status. */
int hwt_import_main(int argc, char **argv);
/* `hwt export [-o perf.data] BUNDLE` (export_main.c). Exit status. */
int hwt_export_main(int argc, char **argv);

#endif
