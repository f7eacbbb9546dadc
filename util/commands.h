/*
 * commands.h - a tool's subcommands from one table, usage generated from it
 * (git's commands[]).  Each command takes the arguments from its own name
 * on (argv[0] is the name) and returns the exit status: 0, 1 for bad input
 * or a failure, 2 for bad usage.
 */
#ifndef CAUSAL_COMMANDS_H
#define CAUSAL_COMMANDS_H

#include <stddef.h>

#include "options.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *args;	/* synopsis of its arguments */
	const char *help;	/* one line */
	const struct opt *opts;	/* its options, ended by OPT_END */
};

struct command_table {
	const char *synopsis;	/* after "usage: PROG " */
	const char *epilogue;	/* printed after the list, or NULL */
	const struct command *const *commands;
	size_t n;
};

/*
 * Run the command argv[1] names.  "help", "--help" and "-h" print the usage
 * on stdout (status 0), "help COMMAND" the command's own help; no command
 * or an unknown one print the usage on stderr (status 2).  causal_progname
 * names the tool.
 */
int run_command(const struct command_table *t, int argc, char **argv);

#endif
