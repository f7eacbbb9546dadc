/*
 * cmd-on.c - `causalctl on|off TYPE...`: publish a switch of monitoring
 * types to every process, through the coordinator.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "coordinator.h"
#include "usage.h"

static const struct opt switch_opts[] = {
	{ "coordinator", 'c', "WHERE",
	  "the coordinator: local, a socket path or HOST[:PORT] (default "
	  "$CAUSAL_COORDINATOR, else local)" },
	OPT_END
};

/* The coordinator to ask: the option, else the environment, else this
 * host's on its Unix socket. */
const char *ctl_coordinator(const char *given)
{
	const char *env = getenv("CAUSAL_COORDINATOR");

	if (given && *given)
		return given;
	if (env && *env)
		return env;
	return "local";
}

/* The exit status of a failed request: 2 for bad usage (a bad address,
 * no key), else 1. */
int ctl_failed(int r)
{
	return r == -EINVAL ? 2 : 1;
}

/* Send "PUBLISH what" and print the event number; exit status. */
int ctl_publish(const char *where, const char *what)
{
	char request[600], *reply;
	int r;

	snprintf(request, sizeof(request), "PUBLISH %s", what);
	if ((r = coord_request(where, request, &reply)))
		return ctl_failed(r);
	if (strncmp(reply, "OK ", 3)) {
		reply[strcspn(reply, "\n")] = '\0';
		fail("the coordinator refused '%s': %s", what,
		     strncmp(reply, "ERR ", 4) ? reply : reply + 4);
		free(reply);
		return 1;
	}
	printf("event %.*s: %s\n", (int)strcspn(reply + 3, "\n"), reply + 3,
	       what);
	free(reply);
	return 0;
}

static int run_switch(int argc, char **argv, const struct command *cmd)
{
	const char *where = NULL, *v;
	char types[64], what[80];
	struct opt_parser p;
	int c;

	opt_init(&p, cmd, argc, argv);
	while ((c = opt_next(&p, &v)) > 0)
		if (c == 'c')
			where = v;
	if (c == OPT_STOP)
		return p.status;
	if (coord_types(p.nargs, p.args, types, sizeof(types)))
		return 2;
	where = ctl_coordinator(where);
	snprintf(what, sizeof(what), "%s %s", cmd->name, types);
	return ctl_publish(where, what);
}

static int run_on(int argc, char **argv)
{
	return run_switch(argc, argv, &cmd_on);
}

static int run_off(int argc, char **argv)
{
	return run_switch(argc, argv, &cmd_off);
}

const struct command cmd_on = {
	"on", run_on, "TYPE... [--coordinator WHERE]",
	"turn monitoring types on everywhere (semantics, latency, cpu, "
	"memory, all)",
	switch_opts
};

const struct command cmd_off = {
	"off", run_off, "TYPE... [--coordinator WHERE]",
	"turn monitoring types off everywhere (semantics, latency, cpu, "
	"memory, all)",
	switch_opts
};
