/*
 * cmd-latency.c - `ccsg latency`: end-to-end latency per function.
 */
#include <stdlib.h>

#include "cmds.h"
#include "usage.h"

static const struct opt latency_opts[] = {
	CLI_OPT_DB,	  CLI_OPT_FORMAT("text|json"),
	CLI_OPT_BY,	  CLI_OPT_IDL,
	CLI_OPT_SWITCHES, OPT_END
};

static int run_latency(int argc, char **argv)
{
	struct ccsg_latency_acc acc = { 0 };
	const struct ccsg_stream_watch watch = { ccsg_latency_chain, &acc,
						 NULL };
	struct ccsg_latency *l = NULL;
	struct session s;
	struct cli o;
	size_t n = 0;
	int ret;

	if (cli_parse(&o, &cmd_latency, argc, argv, 1 << CCSG_TEXT | 1 << CCSG_JSON))
		return o.status;
	/* streamed: the latencies kept per node, not the calls */
	if (!(ret = session_stream(&s, &o, &watch))) {
		s.trace.mon.list = o.switches;
		if (ccsg_latency_finish(&acc, &s.graph, &l, &n))
			ret = fail("out of memory");
		else if (ccsg_latency_print(stdout, &s.graph, l, n, o.format))
			ret = fail("cannot write the latency table");
	}
	free(l);
	ccsg_latency_acc_release(&acc);
	session_close(&s);
	free(o.idl);
	return ret ? 1 : 0;
}

const struct command cmd_latency = {
	"latency",
	run_latency,
	"[--db PATH] [--format=text|json] [--by=function|object] [--idl "
	"FILE.x]... "
	"[--switches]",
	"end-to-end latency statistics per function",
	latency_opts,
};
