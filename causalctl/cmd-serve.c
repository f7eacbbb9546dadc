/*
 * cmd-serve.c - `causalctl serve [--socket PATH] [--listen [HOST:]PORT]
 * [--ready FILE]`: the monitoring coordinator (coordinator.c does the
 * work).
 */
#include <stdlib.h>
#include <string.h>

#include "causal/monitor-proto.h"
#include "cmds.h"
#include "coordinator.h"
#include "usage.h"

enum { OPT_SOCKET = OPT_LONG };

static const struct opt serve_opts[] = {
	{ "socket", OPT_SOCKET, "PATH",
	  "the Unix socket (default: $CAUSAL_COORDINATOR if a path, else "
	  "/run/causal/coordinator.sock for root, "
	  "/run/user/UID/causal-coordinator.sock for another user)" },
	{ "listen", 'l', "[HOST:]PORT",
	  "listen on TCP too, peers proving the key of "
	  "$CAUSAL_COORDINATOR_KEY (HOST default 127.0.0.1; port 0: any)" },
	{ "ready", 'r', "FILE",
	  "write 'socket PATH' and 'port N' to FILE once listening" },
	OPT_END
};

/* --listen PORT | HOST:PORT | [V6]:PORT, port 0 taken: 0, or 2 (said). */
static int listen_spec(const char *v, struct coord_opts *o)
{
	static char host[256];
	char *end;
	unsigned long port = strtoul(v, &end, 10);

	o->tcp = 1;
	if (*v >= '0' && *v <= '9' && !*end && port <= 65535) {
		o->port = (uint16_t)port;
		return 0;
	}
	if (!strchr(v, ':') ||
	    coord_hostport(v, host, sizeof(host), &o->port, 1)) {
		fail("bad --listen '%s': expected [HOST:]PORT (a port from 0 "
		     "to 65535)",
		     v);
		return 2;
	}
	o->host = host;
	return 0;
}

static int run_serve(int argc, char **argv)
{
	struct coord_opts o = { .port = CAUSAL_MON_DEFAULT_PORT };
	const char *env = getenv("CAUSAL_COORDINATOR"), *v;
	struct opt_parser p;
	int c;

	if (env && env[0] == '/')
		o.socket = env;
	opt_init(&p, &cmd_serve, argc, argv);
	while ((c = opt_next(&p, &v)) > 0) {
		if (c == 'r')
			o.ready = v;
		else if (c == OPT_SOCKET)
			o.socket = v;
		else if (c == 'l' && listen_spec(v, &o))
			return 2;
	}
	if ((c = opt_no_operands(&p, c)) >= 0)
		return c;
	if (o.tcp) {
		o.key = getenv("CAUSAL_COORDINATOR_KEY");
		if (!o.key || !*o.key) {
			fail("--listen needs a key: set CAUSAL_COORDINATOR_KEY "
			     "to a file readable by its owner only");
			return 2;
		}
	}
	return coord_serve(&o) ? 1 : 0;
}

const struct command cmd_serve = {
	"serve", run_serve,
	"[--socket PATH] [--listen [HOST:]PORT] [--ready FILE]",
	"run the monitoring coordinator: publish the switches in order, "
	"track what every process applied",
	serve_opts
};
