/*
 * cmd-spikes.c - `ccsg spikes`: sporadic bottlenecks, the breaches of
 * resource policies and the samples around them (spikes.h).
 */
#include <stdlib.h>

#include "cmds.h"
#include "spikes.h"
#include "usage.h"

static const struct opt spikes_opts[] = { CLI_OPT_DB,
					  CLI_OPT_FORMAT("text|json"),
					  OPT_END };

static int run_spikes(int argc, char **argv)
{
	struct spikes_report r;
	struct cli o;
	int ret;

	if (cli_parse(&o, &cmd_spikes, argc, argv,
		      1 << CCSG_TEXT | 1 << CCSG_JSON))
		return o.status;
	ret = spikes_load(&r, o.db);
	if (!ret && (o.format == CCSG_JSON ? spikes_print_json(stdout, &r)
					   : spikes_print_text(stdout, &r)))
		ret = fail("cannot write the report");
	spikes_release(&r);
	free(o.idl);
	return ret ? 1 : 0;
}

const struct command cmd_spikes = {
	"spikes",
	run_spikes,
	"[--db PATH] [--format=text|json]",
	"breaches of resource policies and the samples around them",
	spikes_opts,
};
