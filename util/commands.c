#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "usage.h"

static void print_usage(const struct command_table *t, FILE *out)
{
	size_t i;

	fprintf(out, "usage: %s %s\n\ncommands:\n", causal_progname,
		t->synopsis);
	for (i = 0; i < t->n; i++)
		fprintf(out, "  %-8s %s\n  %8s %s\n", t->commands[i]->name,
			t->commands[i]->args, "", t->commands[i]->help);
	fprintf(out, "  %-8s [COMMAND]\n  %8s %s\n", "help", "",
		"show this help, or the options of COMMAND");
	if (t->epilogue)
		fprintf(out, "\n%s\n", t->epilogue);
	fprintf(out, "\n'%s COMMAND --help' lists the options of COMMAND.\n",
		causal_progname);
}

static const struct command *find(const struct command_table *t,
				  const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(name, t->commands[i]->name))
			return t->commands[i];
	return NULL;
}

int run_command(const struct command_table *t, int argc, char **argv)
{
	const struct command *c;

	if (argc < 2) {
		print_usage(t, stderr);
		return 2;
	}
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "-h")) {
		if (argc < 3) {
			print_usage(t, stdout);
			return 0;
		}
		if ((c = find(t, argv[2]))) {
			opt_help(c, stdout);
			return 0;
		}
		argv++;		/* "help NAME": NAME is unknown */
	}
	if ((c = find(t, argv[1])))
		return c->fn(argc - 1, argv + 1);
	fprintf(stderr, "%s: unknown command '%s'\n", causal_progname, argv[1]);
	print_usage(t, stderr);
	return 2;
}
