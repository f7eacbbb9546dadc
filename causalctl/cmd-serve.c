/*
 * cmd-serve.c - `causalctl serve [--listen [HOST:]PORT] [--ready FILE]`:
 * the monitoring coordinator (coordinator.c does the work).
 */
#include <stdlib.h>
#include <string.h>

#include "causal/monitor-proto.h"
#include "cmds.h"
#include "coordinator.h"
#include "usage.h"

static const struct opt serve_opts[] = {
	{ "listen", 'l', "[HOST:]PORT",
	  "where to listen (default every address, port 7350; 0: any "
	  "port)" },
	{ "ready", 'r', "FILE", "write 'port N' to FILE once listening" },
	OPT_END
};

static int run_serve(int argc, char **argv)
{
	struct coord_opts o = { NULL, CAUSAL_MON_DEFAULT_PORT, NULL };
	static char host[256];
	struct opt_parser p;
	const char *v;
	int c;

	opt_init(&p, &cmd_serve, argc, argv);
	while ((c = opt_next(&p, &v)) > 0) {
		if (c == 'r') {
			o.ready = v;
		} else if (c == 'l') {
			char *end;
			unsigned long port = strtoul(v, &end, 10);

			if (*v && !*end && port <= 65535) {
				o.port = (uint16_t)port;
			} else if (coord_hostport(v, host, sizeof(host),
						  &o.port) == 0) {
				o.host = host;
			} else {
				fail("bad --listen '%s': expected "
				     "[HOST:]PORT",
				     v);
				return 2;
			}
		}
	}
	if ((c = opt_no_operands(&p, c)) >= 0)
		return c;
	return coord_serve(&o) ? 1 : 0;
}

const struct command cmd_serve = {
	"serve", run_serve, "[--listen [HOST:]PORT] [--ready FILE]",
	"run the monitoring coordinator: publish the switches in order, "
	"track what every process applied",
	serve_opts
};
