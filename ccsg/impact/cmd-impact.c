/*
 * cmd-impact.c - `ccsg impact`: what the CCSG becomes when functions use
 * less or more CPU on some processors (CPU paper, Section 4), and the
 * CPU Consumption Delta Graph.  The changes come from --change and
 * --changes, applied in the order given.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "impact-against.h"
#include "impact-output.h"
#include "impact-stream.h"
#include "usage.h"

/* impact's own option: a key no shared option (cmds.h) takes */
enum { IMPACT_AGAINST = OPT_LONG + 100 };

static const struct opt impact_opts[] = {
	{ "change", CLI_CHANGE, "SPEC",
	  "a change: 'reduction on processor group { G } by 10% to function "
	  "{ I::F }' (repeatable)" },
	{ "changes", CLI_CHANGES, "FILE",
	  "the changes written in FILE ('-': standard input)" },
	{ "against", IMPACT_AGAINST, "PATH|URL",
	  "compare the estimate, node by node, with trace PATH|URL taken "
	  "with the change made (text or json)" },
	CLI_OPT_DB,
	CLI_OPT_FORMAT("text|json|xml|dot"),
	CLI_OPT_BY,
	CLI_OPT_GROUPS,
	CLI_OPT_IDL,
	OPT_END
};

/* The whole of a file, NUL-terminated (free it), or NULL after a fail(). */
static char *slurp(const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	size_t n = 0, cap = 0;
	char *buf = NULL;

	if (!f) {
		fail("cannot open '%s': %s", path, strerror(errno));
		return NULL;
	}
	for (;;) {
		char *nb;

		if (n + 4096 + 1 > cap) {
			cap = (cap ? cap * 2 : 8192);
			if (!(nb = realloc(buf, cap))) {
				fail("out of memory reading '%s'", path);
				break;
			}
			buf = nb;
		}
		n += fread(buf + n, 1, cap - n - 1, f);
		if (ferror(f)) {
			fail("cannot read '%s': %s", path, strerror(errno));
			break;
		}
		if (feof(f)) {
			buf[n] = 0;
			if (f != stdin)
				fclose(f);
			if (memchr(buf, 0, n)) {
				fail("'%s' is not text", path);
				free(buf);
				return NULL;
			}
			return buf;
		}
	}
	if (f != stdin)
		fclose(f);
	free(buf);
	return NULL;
}

/*
 * The --change and --changes options, in order, and --against's trace
 * (cli_parse() has checked the command line and skipped them).  0, or
 * the exit status.
 */
static int read_changes(struct ccsg_changes *cs, const char **against, int argc,
			char **argv)
{
	struct opt_parser p;
	const char *v;
	int c, n = 0;

	opt_init(&p, &cmd_impact, argc, argv);
	while ((c = opt_next(&p, &v)) > 0) {
		char source[64], *text;
		int ret;

		if (c == CLI_CHANGE) {
			snprintf(source, sizeof(source), "--change %d", ++n);
			ret = ccsg_changes_parse(cs, v, source, 1);
		} else if (c == IMPACT_AGAINST) {
			*against = v;
			continue;
		} else if (c == CLI_CHANGES) {
			if (!(text = slurp(v)))
				return 1;
			ret = ccsg_changes_parse(cs, text, v, 0);
			free(text);
		} else {
			continue;
		}
		if (ret) /* a malformed change is bad usage */
			return ret == -EINVAL ? 2 : 1;
	}
	if (c == OPT_STOP)
		return p.status;
	if (!cs->n)
		return opt_bad(&cmd_impact, "no change to estimate: give "
					    "--change SPEC or --changes FILE");
	return 0;
}

/*
 * Resolve and add every change, then read the trace again for their
 * effect (impact-stream.h); 0 or 1 after a message.
 */
static int estimate(struct session *s, const struct cli *o,
		    struct ccsg_impact *im, struct ccsg_changes *cs,
		    struct ccsg_impact_counts *counts)
{
	int ret = ccsg_impact_stream_init(im, &s->graph, counts);

	if (ret)
		return fail("out of memory");
	for (size_t i = 0; i < cs->n; i++) {
		char text[1024];

		if ((ret = ccsg_impact_resolve(im, &cs->v[i], &s->names)))
			return ret == -ENOMEM ? fail("out of memory") : -1;
		ret = ccsg_impact_stream_add(im, &cs->v[i]);
		ccsg_change_format(&cs->v[i], text, sizeof(text));
		if (ret == -ERANGE)
			return fail("'%s': the factors applied to one call no "
				    "longer fit in 64 bits",
				    text);
	}
	return ccsg_impact_stream_apply(im, o->db, &s->dims) ? 1 : 0;
}

/*
 * The estimate im of o->db beside trace path (loaded with o's --idl,
 * --by and --groups), and the latencies of both: 0 or 1 after a message.
 */
static int against(const struct cli *o, const char *path,
		   const struct ccsg_impact *im, const struct ccsg_changes *cs,
		   const struct ccsg_latency *lat, size_t nlat)
{
	struct ccsg_latency_acc acc = { 0 };
	struct ccsg_stream_watch watch = { ccsg_latency_chain, &acc, NULL };
	struct ccsg_latency *lb = NULL;
	struct ccsg_against x;
	struct session s;
	struct cli ob = *o;
	size_t nb = 0;
	int ret;

	ob.db = path;
	if (!(ret = session_stream(&s, &ob, &watch))) {
		if (ccsg_latency_finish(&acc, &s.graph, &lb, &nb) ||
		    ccsg_against_build(&x, im, &s.graph, lat, nlat, lb, nb)) {
			ret = fail("out of memory");
		} else {
			if (!x.same_programs && o->format == CCSG_JSON)
				fprintf(stderr,
					"ccsg: note: '%s' and '%s' "
					"trace different programs: "
					"comparing the nodes they "
					"share\n",
					o->db, path);
			if (ccsg_against_print(stdout, &x, cs, o->db, path,
					       o->format))
				ret = fail("cannot write the comparison");
			ccsg_against_release(&x);
		}
	}
	free(lb);
	ccsg_latency_acc_release(&acc);
	session_close(&s);
	return ret ? 1 : 0;
}

static int run_impact(int argc, char **argv)
{
	struct ccsg_changes cs = { 0 };
	struct ccsg_impact im = { 0 };
	struct ccsg_impact_counts counts;
	struct ccsg_latency_acc acc = { 0 };
	struct ccsg_latency *l = NULL;
	struct session s;
	struct cli o;
	const char *against_db = NULL;
	size_t n = 0;
	int ret;

	if (cli_parse(&o, &cmd_impact, argc, argv, 0xf))
		return o.status;
	if (!(ret = read_changes(&cs, &against_db, argc, argv)) && against_db &&
	    o.format != CCSG_TEXT && o.format != CCSG_JSON)
		ret = opt_bad(&cmd_impact, "--against writes text or json, "
					   "not xml or dot");
	if (ret) {
		ccsg_changes_release(&cs);
		free(o.idl);
		return ret;
	}
	/* the CCSG, the latency table and the counts the changes resolve
	 * against, then the changes' effect: two readings of the trace */
	if (!(ret = session_stream(&s, &o,
				   ccsg_impact_counts_watch(&counts, &acc)))) {
		if (ccsg_latency_finish(&acc, &s.graph, &l, &n))
			ret = fail("out of memory");
		else if ((ret = estimate(&s, &o, &im, &cs, &counts)))
			;
		else if (against_db)
			ret = against(&o, against_db, &im, &cs, l, n);
		else if ((ret = ccsg_impact_print(stdout, &im, &cs, l, n,
						  o.format)))
			ret = fail(ret == -ENOMEM
					   ? "out of memory"
					   : "cannot write the estimate");
	}
	free(l);
	ccsg_latency_acc_release(&acc);
	ccsg_impact_counts_release(&counts);
	ccsg_impact_release(&im);
	session_close(&s);
	ccsg_changes_release(&cs);
	free(o.idl);
	return ret ? 1 : 0;
}

const struct command cmd_impact = {
	"impact",
	run_impact,
	"(--change SPEC | --changes FILE)... [--db PATH] [--against PATH] "
	"[--format=text|json|xml|dot] [--by=function|object] [--groups FILE] "
	"[--idl FILE.x]...",
	"estimate the CCSG after a change of CPU, and the CCDG (CPU "
	"Consumption "
	"Delta Graph)",
	impact_opts,
};
