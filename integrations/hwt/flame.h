/* `hwt flame` and `hwt report flame|folded|speedscope|chrome` (flame.c). */
#ifndef HWT_FLAME_COMMAND_H
#define HWT_FLAME_COMMAND_H

/* argv[0] is the format's name. Exit status. */
int hwt_report_flame_main(int argc, char **argv);
/* `hwt flame [options] -- CMD ARGS...`: argv[0] is "flame". */
int hwt_flame_main(int argc, char **argv);

#endif
