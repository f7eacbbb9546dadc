/*
 * commands.h - a tool's subcommands from one table, usage generated from it
 * (git's commands[]).  Each command takes the arguments from its own name
 * on (argv[0] is the name) and returns the exit status.
 */
#ifndef CAUSAL_COMMANDS_H
#define CAUSAL_COMMANDS_H

#include <stddef.h>

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *args;	/* synopsis of its arguments */
	const char *help;	/* one line */
};

struct command_table {
	const char *synopsis;	/* after "usage: PROG " */
	const char *epilogue;	/* printed after the list, or NULL */
	const struct command *commands;
	size_t n;
};

/*
 * Run the command argv[1] names.  "help", "--help" and "-h" print the usage
 * on stdout (status 0); no command or an unknown one print it on stderr
 * (status 2).  causal_progname names the tool.
 */
int run_command(const struct command_table *t, int argc, char **argv);

#endif
