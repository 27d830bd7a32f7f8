/* `hwt report FORMAT ...`: dispatch to the converters. */
#ifndef HWT_REPORT_COMMAND_H
#define HWT_REPORT_COMMAND_H

int hwt_report_main(int argc, char **argv);

#endif
