/*
 * cmds.h - tracedump subcommands.  Each takes the arguments after the
 * command name (argv[0] is the name) and returns the exit status.
 */
#ifndef CAUSAL_CMDS_H
#define CAUSAL_CMDS_H

int cmd_dump(int argc, char **argv);
int cmd_merge(int argc, char **argv);

#endif
