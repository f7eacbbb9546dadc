/*
 * main.c - ccsg: call graphs and CPU profiles of traced RPC programs.
 * Subcommands come from one table; usage is generated from it.
 */
#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "usage.h"

static int cmd_help(int argc, char **argv);

static const struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *args;
	const char *help;
} commands[] = {
	{ "report", cmd_report,
	  "[--format=text|json|xml|dot] [--by=function|object] [--groups FILE]",
	  "the CPU consumption summarization graph (CCSG)" },
	{ "dscg", cmd_dscg, "[--format=text|json]",
	  "the dynamic system call graph, chain by chain" },
	{ "latency", cmd_latency, "[--format=text|json] [--by=function|object]",
	  "end-to-end latency statistics per function" },
	{ "help", cmd_help, "", "show this help" },
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *out)
{
	fprintf(out, "usage: %s COMMAND [--db PATH] [--idl FILE.x]... [OPTIONS]\n\ncommands:\n",
		causal_progname);
	for (size_t i = 0; i < N_COMMANDS; i++)
		fprintf(out, "  %-8s %-67s\n  %8s %s\n", commands[i].name, commands[i].args, "",
			commands[i].help);
	fputs("\nThe trace is logs/trace.db, or $CAUSAL_LOG_DIR/trace.db, unless --db names one.\n",
	      out);
}

static int cmd_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	usage(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	causal_progname = "ccsg";
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return cmd_help(0, NULL);
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "%s: unknown command '%s'\n", causal_progname, argv[1]);
	usage(stderr);
	return 2;
}
