/*
 * main.c - tracedump: inspect and merge causal logs.
 */
#include "cmds.h"
#include "commands.h"
#include "usage.h"

static const struct command *const commands[] = { &cmd_dump, &cmd_merge,
						  &cmd_schema };

int main(int argc, char **argv)
{
	static const struct command_table table = {
		"COMMAND [ARGS]", NULL, commands,
		sizeof(commands) / sizeof(commands[0]),
	};

	causal_progname = "tracedump";
	return run_command(&table, argc, argv);
}
