/*
 * main.c - ccsg: call graphs and CPU profiles of traced RPC programs.
 */
#include "cmds.h"
#include "commands.h"
#include "usage.h"

static const struct command *const commands[] = {
	&cmd_report, &cmd_dscg, &cmd_latency, &cmd_compact,
	&cmd_impact, &cmd_pes, &cmd_serve, &cmd_spikes,
	&cmd_export, &cmd_diff, &cmd_calls, &cmd_diagnose,
};

int main(int argc, char **argv)
{
	static const struct command_table table = {
		"COMMAND [--db PATH] [--idl FILE.x]... [OPTIONS]",
		"The trace is logs/trace.db, or $CAUSAL_LOG_DIR/trace.db, unless "
		"--db names one.",
		commands, sizeof(commands) / sizeof(commands[0]),
	};

	causal_progname = "ccsg";
	return run_command(&table, argc, argv);
}
