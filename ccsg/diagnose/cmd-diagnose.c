/*
 * cmd-diagnose.c - `ccsg diagnose [--root FUNCTION] [--by latency|cpu]
 * [--format=text|json]`: the causes of each request type's latency and
 * CPU, ranked, with what each would leave 20% smaller (diagnose.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "diagnose.h"
#include "usage.h"

/* diagnose's own options: keys no shared option (cmds.h) takes */
enum { DIAG_ROOT = OPT_LONG + 200, DIAG_BY };

static const struct opt diagnose_opts[] = {
	{ "root", DIAG_ROOT, "FUNCTION",
	  "the request type: chains whose root call is FUNCTION "
	  "(INTERFACE::FUNCTION or FUNCTION; default every root)" },
	{ "by", DIAG_BY, "latency|cpu",
	  "rank by share of the latency (default) or by self CPU per host" },
	CLI_OPT_DB,
	CLI_OPT_FORMAT("text|json"),
	CLI_OPT_GROUPS,
	CLI_OPT_IDL,
	OPT_END
};

/* --root and --by (cli_parse() checked the rest): 0 or the exit status. */
static int parse_own(const char **root, int *by_cpu, int argc, char **argv)
{
	struct opt_parser p;
	const char *v;
	int c;

	opt_init(&p, &cmd_diagnose, argc, argv);
	while ((c = opt_next(&p, &v)) > 0) {
		if (c == DIAG_ROOT) {
			*root = v;
		} else if (c == DIAG_BY) {
			if (strcmp(v, "latency") && strcmp(v, "cpu"))
				return opt_bad(&cmd_diagnose,
					       "--by takes 'latency' or 'cpu', "
					       "not '%s'",
					       v);
			*by_cpu = !strcmp(v, "cpu");
		}
	}
	return c == OPT_STOP ? p.status : 0;
}

static int run_diagnose(int argc, char **argv)
{
	struct diag_locks locks = { 0 };
	struct diag d = { 0 };
	struct session s;
	const char *root = NULL;
	int by_cpu = 0, ret;
	struct cli o;

	if (cli_parse(&o, &cmd_diagnose, argc, argv,
		      1u << CCSG_TEXT | 1u << CCSG_JSON))
		return o.status;
	if ((ret = parse_own(&root, &by_cpu, argc, argv))) {
		free(o.idl);
		return ret;
	}
	ret = session_open(&s, &o, 1) || diag_locks_load(&locks, s.trace.file);
	if (!ret) {
		int r = diag_build(&d, &s.graph, &locks, root);

		if (r == -ENOENT)
			ret = root ? fail("no request of '%s' has root "
					  "function '%s'",
					  o.db, root)
				   : fail("'%s' has no request with a latency",
					  o.db);
		else if (r)
			ret = fail("out of memory diagnosing '%s'", o.db);
		else if (diag_cpu(&d, &s.names))
			ret = -1;
		else if (diag_print(stdout, &d, by_cpu, o.format))
			ret = fail("cannot write the diagnosis");
	}
	diag_release(&d);
	diag_locks_release(&locks);
	session_close(&s);
	free(o.idl);
	return ret ? 1 : 0;
}

const struct command cmd_diagnose = {
	"diagnose",
	run_diagnose,
	"[--db PATH] [--root FUNCTION] [--by latency|cpu] [--format=text|json] "
	"[--groups FILE] [--idl FILE.x]...",
	"rank the causes of each request type's latency and CPU, with what "
	"each would leave 20% smaller",
	diagnose_opts,
};
