/* Subcommand entry points; argv[0] is the subcommand name. Return the process exit code. */
#ifndef PMUTRACE_CLI_COMMANDS_H
#define PMUTRACE_CLI_COMMANDS_H

int cmd_dump(int argc, char **argv);
int cmd_synth(int argc, char **argv);
int cmd_script(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_metrics(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_symbols(int argc, char **argv);

/* script and report: decode a trace into samples (report: into counts). */
int spe_decode_command(int argc, char **argv, int is_report);

#endif
