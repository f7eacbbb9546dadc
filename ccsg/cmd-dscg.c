/*
 * cmd-dscg.c - `ccsg dscg`: the dynamic system call graph, as a tree.
 */
#include <stdlib.h>

#include "cmds.h"
#include "usage.h"

static const char dscg_usage[] =
	"usage: ccsg dscg [--db PATH] [--format=text|json] [--idl FILE.x]...\n";

int cmd_dscg(int argc, char **argv)
{
	struct session s;
	struct cli o;
	int ret;

	if ((ret = cli_parse(&o, argc, argv, 1 << CCSG_TEXT | 1 << CCSG_JSON, dscg_usage)))
		return ret;
	if (!(ret = session_open(&s, &o, 0)) &&
	    ccsg_dscg_print(stdout, &s.dscg, &s.names, o.format))
		ret = error("cannot write the call graph");
	session_close(&s);
	free(o.idl);
	return ret ? 1 : 0;
}
