/*
 * cmd-latency.c - `ccsg latency`: end-to-end latency per function.
 */
#include <stdlib.h>

#include "cmds.h"
#include "usage.h"

static const char latency_usage[] =
	"usage: ccsg latency [--db PATH] [--format=text|json] [--by=function|object]\n"
	"                    [--idl FILE.x]...\n";

int cmd_latency(int argc, char **argv)
{
	struct ccsg_latency *l = NULL;
	struct session s;
	struct cli o;
	size_t n = 0;
	int ret;

	if ((ret = cli_parse(&o, argc, argv, 1 << CCSG_TEXT | 1 << CCSG_JSON, latency_usage)))
		return ret;
	if (!(ret = session_open(&s, &o, 1))) {
		if (ccsg_latency_build(&s.graph, &l, &n))
			ret = error("out of memory");
		else if (ccsg_latency_print(stdout, &s.graph, l, n, o.format))
			ret = error("cannot write the latency table");
	}
	free(l);
	session_close(&s);
	free(o.idl);
	return ret ? 1 : 0;
}
