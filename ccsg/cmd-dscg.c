/*
 * cmd-dscg.c - `ccsg dscg`: the dynamic system call graph, as a tree.
 */
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "values/values.h"
#include "usage.h"

static const struct opt dscg_opts[] = { CLI_OPT_DB, CLI_OPT_FORMAT("text|json"),
					CLI_OPT_IDL, CLI_OPT_SWITCHES,
					OPT_END };

static int run_dscg(int argc, char **argv)
{
	struct ccsg_values v = { 0 };
	struct session s;
	struct cli o;
	int ret;

	if (cli_parse(&o, &cmd_dscg, argc, argv, 1 << CCSG_TEXT | 1 << CCSG_JSON))
		return o.status;
	/* the types first: a .x that does not parse is named by line */
	ret = o.format == CCSG_JSON &&
	      ccsg_values_load(&v, o.db, o.idl, o.nidl);
	memset(&s, 0, sizeof(s));
	if (!ret && !(ret = session_open(&s, &o, 0))) {
		s.dscg.values = &v;
		s.trace.mon.list = o.switches;
		if (ccsg_dscg_print(stdout, &s.dscg, &s.names, o.format))
			ret = fail("cannot write the call graph");
		ccsg_values_note(&v);
	}
	session_close(&s);
	ccsg_values_release(&v);
	free(o.idl);
	return ret ? 1 : 0;
}

const struct command cmd_dscg = {
	"dscg",
	run_dscg,
	"[--db PATH] [--format=text|json] [--idl FILE.x]... [--switches]",
	"the dynamic system call graph, chain by chain",
	dscg_opts,
};
