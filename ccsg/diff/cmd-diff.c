/*
 * cmd-diff.c - `ccsg diff A B`: two traces compared per function and
 * host, with what stands out of the run-to-run noise (diff.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "diff.h"
#include "usage.h"

enum { DIFF_ALPHA = CLI_WORKERS + 1, DIFF_MIN_CHANGE };

static const struct opt diff_opts[] = {
	CLI_OPT_FORMAT("text|json"),
	CLI_OPT_IDL,
	{ "alpha", DIFF_ALPHA, "P",
	  "a change stands out when the test's p is below P (default 0.01)" },
	{ "min-change", DIFF_MIN_CHANGE, "PCT",
	  "... and the median moved by PCT% or more (default 5)" },
	OPT_END
};

/* One trace: folded once, for CPU with the watch and for heap bytes. */
struct diff_trace {
	struct session s;
	struct diff_acc acc;
	int open;
};

static int trace_load(struct diff_trace *t, struct cli *o, const char *path)
{
	const struct ccsg_stream_watch watch = { diff_chain, &t->acc, NULL };

	memset(t, 0, sizeof(*t));
	o->db = path;
	o->resource = CCSG_RES_CPU;
	o->with_heap = 1;
	t->open = 1;
	return session_stream(&t->s, o, &watch);
}

static void trace_release(struct diff_trace *t)
{
	if (t->open)
		session_close(&t->s);
	diff_acc_release(&t->acc);
}

/* A number from min to max of an option: 0, or 2 after a message. */
static int number(const char *name, const char *v, double min, double max,
		  double *out)
{
	char *end;
	double x = strtod(v, &end);

	if (!*v || *end || !isfinite(x) || x < min || x > max)
		return opt_bad(&cmd_diff,
			       "--%s takes a number from %g to %g, "
			       "not '%s'",
			       name, min, max, v);
	*out = x;
	return 0;
}

static int parse(struct cli *o, double *alpha, double *min_change,
		 const char **ab, int argc, char **argv)
{
	struct opt_parser p;
	const char *v;
	int c = 0, st = 0;

	memset(o, 0, sizeof(*o));
	o->workers = 1;
	opt_init(&p, &cmd_diff, argc, argv);
	while (!st && (c = opt_next(&p, &v)) > 0) {
		if (c == CLI_FORMAT) {
			o->format = ccsg_format_parse(v);
			if (o->format != CCSG_TEXT && o->format != CCSG_JSON)
				st = opt_bad(&cmd_diff, "unknown format '%s'",
					     v);
		} else if (c == CLI_IDL) {
			cli_idl_add(o, v);
		} else if (c == DIFF_ALPHA) {
			st = number("alpha", v, 0, 1, alpha);
		} else if (c == DIFF_MIN_CHANGE) {
			st = number("min-change", v, 0, 1000, min_change);
			*min_change /= 100;
		}
	}
	if (!st && c == OPT_STOP)
		st = p.status ? p.status : -1;
	else if (!st && p.nargs != 2)
		st = opt_bad(&cmd_diff, "two traces to compare, not %d",
			     p.nargs);
	if (st) {
		free(o->idl);
		o->idl = NULL;
		return st;
	}
	ab[0] = p.args[0];
	ab[1] = p.args[1];
	return 0;
}

int diff_compare(struct diff_report *r, struct cli *o, const char *a,
		 const char *b, double alpha, double min_change)
{
	struct diff_trace t[2];
	int ret;

	memset(t, 0, sizeof(t));
	ret = trace_load(&t[0], o, a) || trace_load(&t[1], o, b);
	if (!ret) {
		const struct diff_input in[2] = {
			{ a, &t[0].s.graph, &t[0].s.heap, &t[0].acc },
			{ b, &t[1].s.graph, &t[1].s.heap, &t[1].acc },
		};

		if (diff_build(r, &in[0], &in[1], alpha, min_change))
			ret = fail("out of memory comparing '%s' and '%s'", a,
				   b);
		else if (diff_differs(r))
			warning("'%s' and '%s' trace different "
				"programs, hosts or functions: "
				"what matches is compared",
				a, b);
	}
	trace_release(&t[0]);
	trace_release(&t[1]);
	return ret ? 1 : 0;
}

static int run_diff(int argc, char **argv)
{
	struct diff_report r;
	double alpha = 0.01, min_change = 0.05;
	const char *ab[2];
	struct cli o;
	int ret, st = parse(&o, &alpha, &min_change, ab, argc, argv);

	if (st)
		return st < 0 ? 0 : st; /* -1: --help */
	ret = diff_compare(&r, &o, ab[0], ab[1], alpha, min_change);
	if (!ret) {
		if (o.format == CCSG_JSON ? diff_print_json(stdout, &r)
					  : diff_print_text(stdout, &r))
			ret = fail("cannot write the diff");
		diff_release(&r);
	}
	free(o.idl);
	return ret ? 1 : 0;
}

const struct command cmd_diff = {
	"diff",
	run_diff,
	"A B [--format=text|json] [--idl FILE.x]... [--alpha P] "
	"[--min-change PCT]",
	"two traces compared per function and host, what stands out of "
	"the noise",
	diff_opts,
};
