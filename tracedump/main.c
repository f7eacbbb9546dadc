/*
 * main.c - tracedump: inspect and merge causal logs.
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
	{ "dump", cmd_dump, "FILE|DIR [--format=text|json]",
	  "print the records of raw logs, one per line" },
	{ "merge", cmd_merge, "DIR [-o DB]",
	  "load every log under DIR into one SQLite database" },
	{ "help", cmd_help, "", "show this help" },
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *out)
{
	fprintf(out, "usage: %s COMMAND [ARGS]\n\ncommands:\n", causal_progname);
	for (size_t i = 0; i < N_COMMANDS; i++)
		fprintf(out, "  %-5s %-31s %s\n", commands[i].name,
			commands[i].args, commands[i].help);
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
	causal_progname = "tracedump";
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
