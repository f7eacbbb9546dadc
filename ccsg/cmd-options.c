/*
 * cmd-options.c - the options every ccsg command shares, and loading a
 * trace for a command.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "sampling.h"
#include "usage.h"

static char default_db[4096];

void cli_idl_add(struct cli *o, const char *path)
{
	const char **idl = realloc(o->idl, (o->nidl + 1) * sizeof(*idl));

	if (!idl)
		die("out of memory");
	o->idl = idl;
	o->idl[o->nidl++] = path;
}

int cli_parse(struct cli *o, const struct command *cmd, int argc, char **argv,
	      unsigned formats)
{
	const char *dir = getenv("CAUSAL_LOG_DIR");
	struct opt_parser p;
	const char *v;
	int c;

	memset(o, 0, sizeof(*o));
	snprintf(default_db, sizeof(default_db), "%s/trace.db", dir && *dir ? dir : "logs");
	o->db = default_db;
	o->workers = 1;
	opt_init(&p, cmd, argc, argv);
	while ((c = opt_next(&p, &v)) > 0) {
		switch (c) {
		case CLI_DB:
			o->db = v;
			break;
		case CLI_FORMAT:
			o->format = ccsg_format_parse(v);
			if (o->format < 0 || !(formats & 1u << o->format)) {
				o->status = opt_bad(cmd, "unknown format '%s'", v);
				goto stop;
			}
			break;
		case CLI_BY:
			if (strcmp(v, "function") && strcmp(v, "object")) {
				o->status = opt_bad(cmd, "--by takes 'function' or "
						    "'object', not '%s'", v);
				goto stop;
			}
			o->by_object = !strcmp(v, "object");
			break;
		case CLI_GROUPS:
			o->groups = v;
			break;
		case CLI_SWITCHES:
			o->switches = 1;
			break;
		case CLI_RESOURCE:
			if (strcmp(v, "cpu") && strcmp(v, "memory")) {
				o->status = opt_bad(cmd,
						    "--resource takes 'cpu' or "
						    "'memory', not '%s'",
						    v);
				goto stop;
			}
			o->resource = strcmp(v, "memory") ? CCSG_RES_CPU
							  : CCSG_RES_ALLOC;
			break;
		case CLI_WORKERS: {
			char *end;
			unsigned long n = strtoul(v, &end, 10);

			if (!*v || *end || *v == '-' || n < 1 ||
			    n > CCSG_WORKERS_MAX) {
				o->status = opt_bad(cmd,
						    "--workers takes a number "
						    "from 1 to %d, not '%s'",
						    CCSG_WORKERS_MAX, v);
				goto stop;
			}
			o->workers = (unsigned)n;
			break;
		}
		case CLI_IDL:
			cli_idl_add(o, v);
			break;
		}
	}
	if (c == OPT_STOP) {
		o->status = p.status;
		goto stop;
	}
	if (p.nargs) {
		o->status = opt_bad(cmd, "unexpected argument '%s'", p.args[0]);
		goto stop;
	}
	return 0;
stop:
	free(o->idl);
	o->idl = NULL;
	return -1;
}

/* The names of the --idl files and /etc/rpc: 0 or 1 after a message. */
static int load_names(struct session *s, const struct cli *o)
{
	memset(s, 0, sizeof(*s));
	idl_names_init(&s->names);
	for (size_t i = 0; i < o->nidl; i++)
		if (idl_names_load(&s->names, o->idl[i]))
			return 1;
	idl_names_load_rpc(&s->names, "/etc/rpc");
	return 0;
}

/* A sampled trace's exact totals, which the outputs then show. */
static int load_totals(struct session *s)
{
	if (ccsg_totals_load(&s->totals, &s->trace))
		return 1;
	s->trace.totals = s->totals.rate < 1 ? &s->totals : NULL;
	return 0;
}

/*
 * A sampled trace's CCSG, of its sampled chains: the rate-1 hosts'
 * recorded calls completing their totals, then scaled to the whole run
 * (sampling.h).
 */
static int scale_graphs(struct session *s, const struct cli *o)
{
	if (!s->trace.totals)
		return 0;
	if (o->resource == CCSG_RES_CPU)
		ccsg_totals_combine(&s->totals, &s->graph);
	if (ccsg_graph_scale(&s->graph, s->totals.rate, &s->totals.est) ||
	    (o->resource == CCSG_RES_ALLOC &&
	     ccsg_graph_scale(&s->freed, s->totals.rate, NULL)))
		return fail("out of memory scaling the CCSG of '%s'", o->db);
	return 0;
}

static int load_dims(struct session *s, const struct cli *o)
{
	return o->groups ? ccsg_dims_groups(&s->dims, &s->trace, o->groups)
			 : ccsg_dims_hosts(&s->dims, &s->trace);
}

int session_stream(struct session *s, const struct cli *o,
		   const struct ccsg_stream_watch *watch)
{
	/* a second graph of the same pass: the bytes freed beside those
	 * allocated, or those allocated beside the CPU */
	struct ccsg_graph *graphs[] = { &s->graph,
					o->with_heap ? &s->heap : &s->freed };
	const int resources[] = { o->resource, o->with_heap ? CCSG_RES_ALLOC
							    : CCSG_RES_FREED };
	size_t n = o->resource == CCSG_RES_ALLOC || o->with_heap ? 2 : 1;
	unsigned workers = watch ? 1 : o->workers; /* a watch sees one stream */

	if (load_names(s, o) ||
	    ccsg_trace_open_share(&s->trace, o->db, 0, workers) ||
	    load_totals(s) || load_dims(s, o))
		return 1;
	if (workers > 1 ? ccsg_workers_build(&s->dscg, &s->trace, o->workers,
					     &s->dims, o->by_object, graphs,
					     resources, n)
			: ccsg_stream_build(&s->dscg, &s->trace, &s->dims,
					    o->by_object, graphs, resources, n,
					    watch))
		return 1;
	if (ccsg_graph_name(&s->graph, &s->names) ||
	    (n > 1 && ccsg_graph_name(graphs[1], &s->names)))
		return fail("out of memory naming the CCSG of '%s'", o->db);
	return scale_graphs(s, o) ? 1 : 0;
}

int session_open(struct session *s, const struct cli *o, int graph)
{
	if (load_names(s, o))
		return 1;
	if ((o->empty_ok ? ccsg_trace_load_empty_ok(&s->trace, o->db)
			 : ccsg_trace_load(&s->trace, o->db)) ||
	    load_totals(s))
		return 1;
	if (ccsg_dscg_build(&s->dscg, &s->trace)) {
		fail("out of memory building the call graph of '%s'", o->db);
		return 1;
	}
	if (!graph)
		return 0;
	if (load_dims(s, o))
		return 1;
	if (ccsg_graph_build_res(&s->graph, &s->dscg, &s->dims, o->by_object,
				 o->resource) ||
	    ccsg_graph_name(&s->graph, &s->names) ||
	    (o->resource == CCSG_RES_ALLOC &&
	     (ccsg_graph_build_res(&s->freed, &s->dscg, &s->dims, o->by_object,
				   CCSG_RES_FREED) ||
	      ccsg_graph_name(&s->freed, &s->names)))) {
		fail("out of memory building the CCSG of '%s'", o->db);
		return 1;
	}
	return scale_graphs(s, o) ? 1 : 0;
}

void session_close(struct session *s)
{
	ccsg_graph_release(&s->graph);
	ccsg_graph_release(&s->freed);
	ccsg_graph_release(&s->heap);
	ccsg_dims_release(&s->dims);
	ccsg_dscg_release(&s->dscg);
	ccsg_trace_release(&s->trace);
	ccsg_totals_release(&s->totals);
	idl_names_release(&s->names);
}
