/*
 * cmd-dump.c - `tracedump dump FILE|DIR [--format=text|json]`.
 */
#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "dump.h"
#include "usage.h"

enum { OPT_FORMAT = OPT_LONG };

static const struct opt dump_opts[] = {
	{ "format", OPT_FORMAT, "text|json",
	  "output format: text (default) or json, one record per line" },
	OPT_END
};

static int run_dump(int argc, char **argv)
{
	enum dump_format fmt = DUMP_TEXT;
	struct dump_stats stats;
	struct opt_parser p;
	const char *v;
	int c;

	opt_init(&p, &cmd_dump, argc, argv);
	while ((c = opt_next(&p, &v)) > 0) {
		if (c != OPT_FORMAT)
			continue;
		if (!strcmp(v, "text"))
			fmt = DUMP_TEXT;
		else if (!strcmp(v, "json"))
			fmt = DUMP_JSON;
		else
			return opt_bad(&cmd_dump, "unknown format '%s'", v);
	}
	if (c == OPT_STOP)
		return p.status;
	if (p.nargs != 1)
		return opt_bad(&cmd_dump, p.nargs ? "too many arguments" :
				"a log file or directory is needed");
	return dump_path(stdout, p.args[0], fmt, &stats) ? 1 : 0;
}

const struct command cmd_dump = {
	"dump", run_dump, "FILE|DIR [--format=text|json]",
	"print the records of raw logs (a file, or every *.clog under DIR), "
	"one per line",
	dump_opts,
};
