/*
 * cmds.h - causalctl subcommands (commands.h): each cmd-*.c defines its
 * command, its options and their help in one place.
 */
#ifndef CAUSAL_CTL_CMDS_H
#define CAUSAL_CTL_CMDS_H

#include "commands.h"

extern const struct command cmd_serve, cmd_on, cmd_off, cmd_select, cmd_status;
extern const struct command cmd_bpf_clock;

#endif
