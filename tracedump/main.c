/*
 * main.c - tracedump: inspect and merge causal logs.
 */
#include "cmds.h"
#include "commands.h"
#include "usage.h"

static const struct command commands[] = {
	{ "dump", cmd_dump, "FILE|DIR [--format=text|json]",
	  "print the records of raw logs, one per line" },
	{ "merge", cmd_merge, "DIR [-o DB]",
	  "load every log under DIR into one SQLite database" },
};

int main(int argc, char **argv)
{
	static const struct command_table table = {
		"COMMAND [ARGS]", NULL, commands,
		sizeof(commands) / sizeof(commands[0]),
	};

	causal_progname = "tracedump";
	return run_command(&table, argc, argv);
}
