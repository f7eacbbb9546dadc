/*
 * cmd-report.c - `ccsg report`: the CPU consumption summarization graph.
 */
#include <stdlib.h>

#include "cmds.h"
#include "usage.h"

static const struct opt report_opts[] = {
	CLI_OPT_DB,	 CLI_OPT_FORMAT("text|json|xml|dot"),
	CLI_OPT_BY,	 CLI_OPT_RESOURCE,
	CLI_OPT_GROUPS,	 CLI_OPT_IDL,
	CLI_OPT_WORKERS, CLI_OPT_SWITCHES,
	OPT_END
};

static int run_report(int argc, char **argv)
{
	struct session s;
	struct cli o;
	int ret;

	if (cli_parse(&o, &cmd_report, argc, argv, 0xf))
		return o.status;
	ret = session_stream(&s, &o, NULL);
	s.trace.mon.list = o.switches;
	if (!ret &&
	    (o.resource == CCSG_RES_ALLOC
		     ? ccsg_memory_print(stdout, &s.graph, &s.freed, o.format)
		     : ccsg_report_print(stdout, &s.graph, o.format)))
		ret = fail("cannot write the report");
	session_close(&s);
	free(o.idl);
	return ret ? 1 : 0;
}

const struct command cmd_report = {
	"report",
	run_report,
	"[--db PATH] [--format=text|json|xml|dot] [--by=function|object] "
	"[--resource=cpu|memory] [--groups FILE] [--idl FILE.x]... "
	"[--workers N] [--switches]",
	"the CPU (or heap memory) consumption summarization graph (CCSG)",
	report_opts,
};
