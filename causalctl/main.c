/*
 * main.c - causalctl: what runs once per host beside the traced programs
 * (today the bpf clock; a command table, so more can follow).
 */
#include "cmds.h"
#include "commands.h"
#include "usage.h"

static const struct command *const commands[] = { &cmd_bpf_clock, &cmd_serve,
						  &cmd_on,	  &cmd_off,
						  &cmd_select,	  &cmd_status };

int main(int argc, char **argv)
{
	static const struct command_table table = {
		"COMMAND [ARGS]",
		NULL,
		commands,
		sizeof(commands) / sizeof(commands[0]),
	};

	causal_progname = "causalctl";
	return run_command(&table, argc, argv);
}
