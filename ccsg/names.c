/*
 * names.c - the names of the nodes, from the programs' names (util/idl.h)
 * and the stub symbols of the trace.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "names.h"
#include "rpc-known.h"
#include "usage.h"

/* --- names of nodes --------------------------------------------------------- */

int ccsg_symbol_ok(const struct ccsg_trace *t, int32_t sym, uint32_t vers)
{
	const char *s, *u;
	char suffix[16];
	size_t n;

	if (sym < 0 || (size_t)sym >= t->nstrings)
		return 0;
	s = t->strings[sym];
	n = (size_t)snprintf(suffix, sizeof(suffix), "_%u", vers);
	u = strrchr(s, '_');
	if (!u || u == s || strlen(u) != n || strcmp(u, suffix))
		return 0;
	for (size_t i = 0; i < t->nsites; i++)
		if (t->sites[i].symbol == sym && t->sites[i].tirpc)
			return 0;
	return 1;
}

static const struct idl_proc *idl_find(const struct idl_names *nm,
				       uint32_t prog, uint32_t vers,
				       uint32_t proc)
{
	for (size_t i = 0; i < nm->n; i++)
		if (nm->procs[i].prog == prog && nm->procs[i].vers == vers &&
		    nm->procs[i].proc == proc)
			return &nm->procs[i];
	return NULL;
}

static void interface_name(const struct idl_names *nm, uint32_t prog, char *buf,
			   size_t len)
{
	const char *known;

	for (size_t i = 0; i < nm->n; i++)
		if (nm->procs[i].prog == prog) {
			snprintf(buf, len, "%s", nm->procs[i].prog_name);
			return;
		}
	if ((known = rpc_known_program(prog))) {
		snprintf(buf, len, "%s", known);
		return;
	}
	for (size_t i = 0; i < nm->nrpc; i++)
		if (nm->rpc[i].prog == prog) {
			snprintf(buf, len, "%s", nm->rpc[i].name);
			return;
		}
	/* user-defined programs (0x20000000 and up) are written in hex */
	snprintf(buf, len, prog >= 0x20000000u ? "0x%x" : "%u", prog);
}

void ccsg_function_name(const struct idl_names *nm, const struct ccsg_trace *t,
			uint32_t prog, uint32_t vers, uint32_t proc,
			int32_t symbol, char *buf, size_t len)
{
	const struct idl_proc *p = idl_find(nm, prog, vers, proc);
	const char *known = rpc_known_procedure(prog, vers, proc);
	char iface[256];

	if (p) {
		snprintf(buf, len, "%s::%s", p->prog_name, p->proc_name);
		return;
	}
	interface_name(nm, prog, iface, sizeof(iface));
	if (symbol >= 0 && ccsg_symbol_ok(t, symbol, vers)) {
		const char *s = t->strings[symbol];

		snprintf(buf, len, "%s::%.*s", iface, (int)(strrchr(s, '_') - s), s);
	} else if (known) {
		/* libtirpc's own calls (rpcbind look-ups...): their site is
		 * no stub of the procedure, the protocol names it */
		snprintf(buf, len, "%s::%s", iface, known);
	} else {
		snprintf(buf, len, "%s::proc%u", iface, proc);
	}
}

void ccsg_call_name(const struct idl_names *nm, const struct ccsg_trace *t,
		    const struct ccsg_call *c, char *buf, size_t len)
{
	if (c->lost)
		snprintf(buf, len, "%s", CCSG_LOST_NAME);
	else
		ccsg_function_name(nm, t, c->prog, c->vers, c->proc, c->symbol, buf, len);
}

static void object_name(const struct ccsg_graph *g, const struct ccsg_node *n, char *buf,
			size_t len)
{
	const struct ccsg_trace *t = g->dscg->trace;
	int32_t h;

	if (n->server_proc < 0) {
		snprintf(buf, len, "%s (untraced)",
			 n->peer >= 0 ? t->strings[n->peer] : "unknown server");
		return;
	}
	h = ccsg_trace_host(t, n->server_proc);
	for (size_t i = 0; i < t->nobjects; i++)
		if (t->objects[i].proc == n->server_proc && t->objects[i].object_id == n->object_id &&
		    t->objects[i].address) {
			snprintf(buf, len, "%s:%s", h >= 0 ? t->hosts[h] : "?",
				 t->objects[i].address);
			return;
		}
	snprintf(buf, len, "%s:proc%d.object%d", h >= 0 ? t->hosts[h] : "?", n->server_proc,
		 n->object_id);
}

int ccsg_graph_name(struct ccsg_graph *g, const struct idl_names *nm)
{
	const struct ccsg_trace *t = g->dscg->trace;
	char buf[1024], obj[512];

	for (size_t i = 0; i < g->nnodes; i++) {
		struct ccsg_node *n = &g->nodes[i];

		if (n->kind != CCSG_FUNCTION)
			continue;
		ccsg_function_name(nm, t, n->prog, n->vers, n->proc, n->symbol, buf, sizeof(buf));
		if (g->by_object) {
			size_t l = strlen(buf);

			object_name(g, n, obj, sizeof(obj));
			snprintf(buf + l, sizeof(buf) - l, "@%s", obj);
		}
		if (!(n->name = strdup(buf)))
			return -ENOMEM;
	}
	/* thread nodes after, so their function node has its name */
	for (size_t i = 0; i < g->nnodes; i++) {
		struct ccsg_node *n = &g->nodes[i];

		if (n->kind == CCSG_MAIN)
			n->name = strdup("<main>");
		else if (n->kind == CCSG_THREAD && n->unmonitored)
			n->name = strdup("<unmonitored>");
		else if (n->kind == CCSG_THREAD && n->serving)
			n->name = strdup("<serving threads>");
		else if (n->kind == CCSG_THREAD && n->parent == 0)
			n->name = strdup("<threads of main>");
		else if (n->kind == CCSG_THREAD) {
			snprintf(buf, sizeof(buf), "<threads of %s>", g->nodes[n->parent].name);
			n->name = strdup(buf);
		}
		if (!n->name)
			return -ENOMEM;
	}
	return 0;
}
