/*
 * cmd-report.c - `ccsg report`: the CPU consumption summarization graph.
 */
#include <stdlib.h>

#include "cmds.h"
#include "usage.h"

static const char report_usage[] =
	"usage: ccsg report [--db PATH] [--format=text|json|xml|dot] [--by=function|object]\n"
	"                   [--groups FILE] [--idl FILE.x]...\n";

int cmd_report(int argc, char **argv)
{
	struct session s;
	struct cli o;
	int ret;

	if ((ret = cli_parse(&o, argc, argv, 0xf, report_usage)))
		return ret;
	if (!(ret = session_open(&s, &o, 1)) && ccsg_report_print(stdout, &s.graph, o.format))
		ret = error("cannot write the report");
	session_close(&s);
	free(o.idl);
	return ret ? 1 : 0;
}
