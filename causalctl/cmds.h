/*
 * cmds.h - causalctl subcommands (commands.h): each cmd-*.c defines its
 * command, its options and their help in one place.
 */
#ifndef CAUSAL_CTL_CMDS_H
#define CAUSAL_CTL_CMDS_H

#include "commands.h"

extern const struct command cmd_serve, cmd_on, cmd_off, cmd_select, cmd_status;
extern const struct command cmd_bpf_clock;

/* ---- shared by the coordinator's commands (cmd-on.c) ----------------------
 */

/* The coordinator to ask: the option given, else $CAUSAL_COORDINATOR,
 * else "local" (this host's, on its Unix socket). */
const char *ctl_coordinator(const char *given);

/* The exit status of a failed coord_request(): 2 for bad usage (a bad
 * address, no key), else 1. */
int ctl_failed(int r);

/* Send "PUBLISH what" and print the event's number; the exit status. */
int ctl_publish(const char *where, const char *what);

#endif
