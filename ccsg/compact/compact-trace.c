/*
 * compact-trace.c - compaction trees from a trace (compact.h): the CCSG's
 * breadth-first primary tree, or the DSCG, with names by interface
 * (interface > version > function, the .x structure) or by location
 * (host > process > interface > function).
 *
 * Weights are CPU in microseconds, each the sum of the node's per-host
 * vector (the scalar the compaction merges): self by Equations 1 and 2,
 * total = self + descendant (Equations 3 and 4).  In the CCSG a node's
 * descendant CPU counts all its callees, also those the primary tree puts
 * under another caller; in the DSCG every node is one call or thread
 * instance and totals add up.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ccsg.h"
#include "compact.h"
#include "names.h"

#define MAX_ELEMS 4

/* Up to MAX_ELEMS elements of one name, each in its own buffer. */
struct name {
	char buf[MAX_ELEMS][512];
	size_t n;
};

static void add(struct name *nm, const char *s)
{
	char *b = nm->buf[nm->n++];

	snprintf(b, sizeof(nm->buf[0]), "%s", s);
	/* ';' separates path components and folded frames */
	for (char *p = b; *p; p++)
		if (*p == ';' || *p == '\n' || *p == '\r')
			*p = '?';
}

static int32_t intern(struct compact_tree *t, struct name *nm)
{
	const char *e[MAX_ELEMS];

	for (size_t i = 0; i < nm->n; i++)
		e[i] = nm->buf[i];
	return compact_tree_name(t, e, nm->n);
}

/* interface > version > function of (prog, vers, proc); by location
 * interface > function. */
static void function_elems(struct name *nm, int hierarchy,
			   const struct idl_names *names,
			   const struct ccsg_trace *t, uint32_t prog,
			   uint32_t vers, uint32_t proc, int32_t symbol)
{
	char full[1024], v[32];
	const char *vname = NULL;
	char *sep;

	ccsg_function_name(names, t, prog, vers, proc, symbol, full,
			   sizeof(full));
	for (size_t i = 0; i < names->n && !vname; i++)
		if (names->procs[i].prog == prog &&
		    names->procs[i].vers == vers)
			vname = names->procs[i].vers_name;
	snprintf(v, sizeof(v), "%u", vers);
	sep = strstr(full, "::");
	if (sep)
		*sep = '\0';
	add(nm, full);
	if (hierarchy == COMPACT_BY_NAME)
		add(nm, vname ? vname : v);
	add(nm, sep ? sep + 2 : "?");
}

/* host > process of a traced process (proc_id). */
static void process_elems(struct name *nm, const struct ccsg_trace *t,
			  int32_t proc)
{
	int32_t h = ccsg_trace_host(t, proc);
	const char *exe = proc > 0 && (size_t)proc < t->nprocs
				  ? t->procs[proc].exe
				  : NULL;
	const char *base =
		exe && strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
	char p[600];

	add(nm, h >= 0 ? t->hosts[h] : "?");
	if (proc > 0 && (size_t)proc < t->nprocs)
		snprintf(p, sizeof(p), "%s[%d]", base ? base : "",
			 t->procs[proc].pid);
	else
		snprintf(p, sizeof(p), "process %d", proc);
	add(nm, p);
}

static double us(int64_t ns)
{
	return (double)ns / 1000.0;
}

/* The order of a breadth-first walk from root: parents first. */
static int32_t *bfs(size_t n, int32_t root, const int32_t *first,
		    const int32_t *next, size_t *nout)
{
	int32_t *q = malloc((n + 1) * sizeof(*q));
	size_t head = 0, tail = 0;

	if (!q)
		return NULL;
	q[tail++] = root;
	while (head < tail) {
		int32_t u = q[head++];

		for (int32_t c = first[u]; c >= 0; c = next[c])
			q[tail++] = c;
	}
	*nout = tail;
	return q;
}

int compact_from_ccsg(struct compact_tree *t, const struct ccsg_graph *g,
		      const struct idl_names *names, int hierarchy)
{
	const struct ccsg_trace *tr = g->dscg->trace;
	size_t n = g->nnodes, k = g->dims->n ? g->dims->n : 1, norder = 0;
	int32_t *first = malloc(n * sizeof(int32_t)),
		*next = malloc(n * sizeof(int32_t));
	int32_t *id = malloc(n * sizeof(int32_t)),
		*up = malloc(n * sizeof(int32_t));
	int32_t *order = NULL;
	int ret = -ENOMEM;

	if (hierarchy == COMPACT_BY_LOCATION && !g->by_object)
		ret = -EINVAL;
	if (!first || !next || !id || !up || ret == -EINVAL)
		goto out;
	for (size_t i = 0; i < n; i++)
		first[i] = next[i] = id[i] = up[i] = -1;
	/* the primary tree, children in edge order */
	for (size_t e = g->nedges; e-- > 0;) {
		const struct ccsg_edge *x = &g->edges[e];

		if (x->primary && x->to != 0) {
			next[x->to] = first[x->from];
			first[x->from] = x->to;
			up[x->to] = x->from;
		}
	}
	if (!(order = bfs(n, 0, first, next, &norder)))
		goto out;
	t->has_calls = 1;
	id[0] = COMPACT_ROOT;
	for (size_t i = 0; i < norder; i++) {
		int32_t u = order[i], name;
		const struct ccsg_node *x = &g->nodes[u];
		struct name nm = { .n = 0 };
		double self = us(ccsg_vec_sum(x->self, k));

		if (x->kind == CCSG_FUNCTION) {
			if (hierarchy == COMPACT_BY_LOCATION &&
			    x->server_proc >= 0) {
				process_elems(&nm, tr, x->server_proc);
			} else if (hierarchy == COMPACT_BY_LOCATION) {
				add(&nm, "<untraced>");
				add(&nm,
				    x->peer >= 0 ? tr->strings[x->peer] : "?");
			}
			function_elems(&nm, hierarchy, names, tr, x->prog,
				       x->vers, x->proc, x->symbol);
		} else {
			const struct ccsg_node *f =
				x->kind == CCSG_THREAD && x->parent > 0
					? &g->nodes[x->parent]
					: NULL;

			if (hierarchy == COMPACT_BY_LOCATION && f &&
			    f->server_proc >= 0)
				process_elems(&nm, tr, f->server_proc);
			add(&nm, x->name ? x->name : "?");
		}
		if ((name = intern(t, &nm)) < 0)
			goto out;
		id[u] = compact_tree_add(
			t, u ? id[up[u]] : COMPACT_ROOT, name, self,
			self + us(ccsg_vec_sum(x->desc, k)),
			x->kind == CCSG_FUNCTION ? (double)x->calls : 0);
		if (id[u] < 0)
			goto out;
	}
	ret = 0;
out:
	free(first);
	free(next);
	free(id);
	free(up);
	free(order);
	return ret;
}

int compact_from_dscg(struct compact_tree *t, const struct ccsg_graph *g,
		      const struct idl_names *names, int hierarchy)
{
	const struct ccsg_dscg *d = g->dscg;
	const struct ccsg_trace *tr = d->trace;
	size_t norder = 0;
	int32_t *id = malloc(d->nnodes * sizeof(int32_t));
	int32_t *order = bfs(d->nnodes, d->main, d->first_child,
			     d->next_sibling, &norder);
	int ret = -ENOMEM;

	if (!id || !order)
		goto out;
	t->has_calls = 1;
	for (size_t i = 0; i < norder; i++) {
		int32_t u = order[i], name, proc = 0;
		struct name nm = { .n = 0 };
		double self = 0, calls = 0;

		if (u == d->main) {
			add(&nm, "<main>");
		} else if (ccsg_dscg_is_call(d, u)) {
			const struct ccsg_call *c = &tr->calls[u];

			proc = c->server_proc;
			if (hierarchy == COMPACT_BY_LOCATION && proc) {
				process_elems(&nm, tr, proc);
			} else if (hierarchy == COMPACT_BY_LOCATION) {
				add(&nm, "<untraced>");
				add(&nm,
				    c->peer >= 0 ? tr->strings[c->peer] : "?");
			}
			if (c->lost)
				add(&nm, CCSG_LOST_NAME);
			else
				function_elems(&nm, hierarchy, names, tr,
					       c->prog, c->vers, c->proc,
					       c->symbol);
			/* as the CCSG counts it: on the server's host */
			if (proc && ccsg_trace_host(tr, proc) >= 0)
				self = us(g->call_self[u]);
			calls = 1;
		} else {
			size_t j = (size_t)u - tr->ncalls;
			const struct ccsg_thread *th = &tr->threads[j];
			char b[64];

			proc = th->proc;
			if (hierarchy == COMPACT_BY_LOCATION) {
				process_elems(&nm, tr, proc);
				snprintf(b, sizeof(b), "<thread %d>", th->tid);
				add(&nm, b);
			} else {
				add(&nm, "<thread>");
			}
			if (ccsg_trace_host(tr, proc) >= 0)
				self = us(g->thread_self[j]);
		}
		if ((name = intern(t, &nm)) < 0)
			goto out;
		id[u] = compact_tree_add(
			t, u == d->main ? COMPACT_ROOT : id[d->parent[u]], name,
			self, 0, calls);
		if (id[u] < 0)
			goto out;
	}
	compact_tree_sum_totals(t);
	ret = 0;
out:
	free(id);
	free(order);
	return ret;
}
