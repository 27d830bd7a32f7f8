/* `hwt record`: runs a command under a trace unit into a trace bundle. */
#ifndef HWT_RECORD_COMMAND_H
#define HWT_RECORD_COMMAND_H

int hwt_record_main(int argc, char **argv);

/* Exit status a shell would give for a waitpid status (128 + signal when killed). */
int hwt_exit_code(int wait_status);

#endif
