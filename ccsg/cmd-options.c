/*
 * cmd-options.c - the options every ccsg command shares, and loading a
 * trace for a command.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "usage.h"

static char default_db[4096];

int cli_parse(struct cli *o, int argc, char **argv, unsigned formats, const char *usage)
{
	const char *dir = getenv("CAUSAL_LOG_DIR");

	memset(o, 0, sizeof(*o));
	snprintf(default_db, sizeof(default_db), "%s/trace.db", dir && *dir ? dir : "logs");
	o->db = default_db;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = NULL;

#define OPT(name) (!strcmp(a, name) && i + 1 < argc ? (v = argv[++i]) : \
		   !strncmp(a, name "=", strlen(name) + 1) ? (v = a + strlen(name) + 1) : NULL)
		if (OPT("--db")) {
			o->db = v;
		} else if (OPT("--format")) {
			o->format = ccsg_format_parse(v);
			if (o->format < 0 || !(formats & 1u << o->format)) {
				fprintf(stderr, "ccsg: unknown format '%s'\n%s", v, usage);
				return 2;
			}
		} else if (OPT("--by")) {
			if (strcmp(v, "function") && strcmp(v, "object")) {
				fprintf(stderr, "ccsg: --by takes 'function' or 'object', not '%s'\n%s",
					v, usage);
				return 2;
			}
			o->by_object = !strcmp(v, "object");
		} else if (OPT("--groups")) {
			o->groups = v;
		} else if (OPT("--idl")) {
			const char **p = realloc(o->idl, (o->nidl + 1) * sizeof(*p));

			if (!p)
				die("out of memory");
			o->idl = p;
			o->idl[o->nidl++] = v;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(usage, stdout);
			exit(0);
		} else {
			fprintf(stderr, "ccsg: unknown option '%s'\n%s", a, usage);
			return 2;
		}
#undef OPT
	}
	return 0;
}

int session_open(struct session *s, const struct cli *o, int graph)
{
	memset(s, 0, sizeof(*s));
	ccsg_names_init(&s->names);
	for (size_t i = 0; i < o->nidl; i++)
		if (ccsg_names_load_idl(&s->names, o->idl[i]))
			return 1;
	ccsg_names_load_rpc(&s->names, "/etc/rpc");
	if (ccsg_trace_load(&s->trace, o->db))
		return 1;
	if (ccsg_dscg_build(&s->dscg, &s->trace)) {
		error("out of memory building the call graph of '%s'", o->db);
		return 1;
	}
	if (!graph)
		return 0;
	if (o->groups ? ccsg_dims_groups(&s->dims, &s->trace, o->groups) :
			ccsg_dims_hosts(&s->dims, &s->trace))
		return 1;
	if (ccsg_graph_build(&s->graph, &s->dscg, &s->dims, o->by_object) ||
	    ccsg_graph_name(&s->graph, &s->names)) {
		error("out of memory building the CCSG of '%s'", o->db);
		return 1;
	}
	return 0;
}

void session_close(struct session *s)
{
	ccsg_graph_release(&s->graph);
	ccsg_dims_release(&s->dims);
	ccsg_dscg_release(&s->dscg);
	ccsg_trace_release(&s->trace);
	ccsg_names_release(&s->names);
}
