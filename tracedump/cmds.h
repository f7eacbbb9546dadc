/*
 * cmds.h - tracedump subcommands (commands.h): each cmd-*.c defines its
 * command, its options and their help in one place.
 */
#ifndef CAUSAL_CMDS_H
#define CAUSAL_CMDS_H

#include "commands.h"

extern const struct command cmd_dump;
extern const struct command cmd_merge;
extern const struct command cmd_schema;

#endif
