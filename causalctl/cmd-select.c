/*
 * cmd-select.c - `causalctl select HOST INTERFACE FUNCTION on|off`:
 * publish a component selection to every process, through the
 * coordinator.
 */
#include <stdio.h>

#include "cmds.h"
#include "coordinator.h"
#include "usage.h"

const char *ctl_coordinator(const char *given);
int ctl_publish(const char *where, const char *what);

static const struct opt select_opts[] = {
	{ "coordinator", 'c', "HOST[:PORT]",
	  "the coordinator (default $CAUSAL_COORDINATOR)" },
	OPT_END
};

static int run_select(int argc, char **argv)
{
	const char *where = NULL, *v;
	struct opt_parser p;
	char what[400];
	int c;

	opt_init(&p, &cmd_select, argc, argv);
	while ((c = opt_next(&p, &v)) > 0)
		if (c == 'c')
			where = v;
	if (c == OPT_STOP)
		return p.status;
	if (p.nargs != 4) {
		fail("expected HOST INTERFACE FUNCTION on|off, got %d "
		     "argument%s",
		     p.nargs, p.nargs == 1 ? "" : "s");
		return 2;
	}
	if (coord_selection(p.args[0], p.args[1], p.args[2], p.args[3]))
		return 2;
	where = ctl_coordinator(where);
	if (!where)
		return 2;
	snprintf(what, sizeof(what), "select %s %s %s %s", p.args[0], p.args[1],
		 p.args[2], p.args[3]);
	return ctl_publish(where, what);
}

const struct command cmd_select = {
	"select", run_select,
	"HOST INTERFACE FUNCTION on|off [--coordinator HOST[:PORT]]",
	"monitor the calls of a component or not: the host calls are made "
	"from, the program and procedure (numbers, a function name, or *)",
	select_opts
};
