/*
 * options.h - a command's options from one table: parsed with getopt_long,
 * and the --help text and the bad-usage messages generated from the same
 * table, so that an option cannot exist without its help line.
 *
 *	static const struct opt merge_opts[] = {
 *		{ "output", 'o', "DB", "write the database to DB" },
 *		OPT_END
 *	};
 *	const struct command cmd_merge = { "merge", run_merge, "DIR [-o DB]",
 *		"load every log under DIR into one SQLite database", merge_opts };
 *
 *	struct opt_parser p;
 *	const char *v;
 *	int c;
 *
 *	opt_init(&p, &cmd_merge, argc, argv);
 *	while ((c = opt_next(&p, &v)) > 0)
 *		if (c == 'o')
 *			output = v;
 *	if (c == OPT_STOP)
 *		return p.status;
 *	... p.args[0 .. p.nargs) are the operands ...
 *
 * Every option has a long name (--output, --output=DB, --output DB) and
 * may have a one-letter one (-o DB, -oDB); -h and --help are added to
 * every command.  Options and operands mix in any order; "--" ends the
 * options.  Messages follow usage.h: "PROG: option '-o' needs a value",
 * then the command's usage line, all on stderr.
 */
#ifndef CAUSAL_OPTIONS_H
#define CAUSAL_OPTIONS_H

#include <getopt.h>
#include <stdio.h>

#include "usage.h"

struct command;

struct opt {
	const char *name;	/* long name, without "--" */
	int key;		/* one-letter name, or OPT_LONG + n: none */
	const char *arg;	/* its value's name in the help; NULL: a flag */
	const char *help;	/* one line */
};

#define OPT_LONG 256		/* keys from here on have no letter */
#define OPT_END { NULL, 0, NULL, NULL }
#define OPT_MAX 16		/* options of one command, --help aside */

/* What opt_next() returns besides an option's key. */
enum {
	OPT_DONE = 0,		/* no more options: the operands are in args */
	OPT_STOP = -1,		/* --help printed or bad usage reported: exit
				 * with status */
};

struct opt_parser {
	const struct command *cmd;
	int argc;
	char **argv;
	char **args;		/* operands, once opt_next() returned OPT_DONE */
	int nargs;
	int status;		/* once it returned OPT_STOP: 0 or 2 */
	struct option longopts[OPT_MAX + 2];
	char shorts[3 * OPT_MAX + 8];
};

/* Parse the options of cmd in argv (argv[0] is the command's name). */
void opt_init(struct opt_parser *p, const struct command *cmd, int argc,
	      char **argv);

/*
 * The key of the next option (its value, or NULL for a flag, in *value),
 * OPT_DONE after the last one, or OPT_STOP after printing the help on
 * stdout (status 0) or a bad-usage message on stderr (status 2).
 */
int opt_next(struct opt_parser *p, const char **value);

/*
 * For a command that takes no operands, once opt_next() returned c
 * (OPT_DONE or OPT_STOP): -1 to go on, else the exit status, OPT_STOP's
 * or 2 after saying which operand was not expected.
 */
int opt_no_operands(const struct opt_parser *p, int c);

/* The help of cmd: usage line, what it does, one line per option. */
void opt_help(const struct command *cmd, FILE *out);

/*
 * Report bad usage of cmd ("PROG: MESSAGE" and the usage line, on
 * stderr) and return the exit status for it, 2.
 */
int opt_bad(const struct command *cmd, const char *fmt, ...) CAUSAL_PRINTF(2, 3);

#endif
