/*
 * api-link.c - linked navigation (GET /api/link, internal.h): the
 * candidate nodes of one tree that a node of another stands for, grouped
 * by host > process > thread, as the CPU paper's Figure 4 links its
 * trees.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "json.h"

#define LINK_LIMIT 500

struct cand {
	int32_t host, proc, tid;
	struct any u;
	int64_t order;
};

static int by_place(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->host != y->host)
		return x->host < y->host ? -1 : 1;
	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

struct cands {
	struct cand *v;
	size_t n, cap, count; /* count: all of them, n: those kept */
};

static int add_cand(struct cands *cs, struct cand c)
{
	cs->count++;
	if (cs->n >= LINK_LIMIT)
		return 0;
	if (cs->n == cs->cap) {
		size_t cap = cs->cap ? cs->cap * 2 : 16;
		struct cand *nv = realloc(cs->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		cs->v = nv;
		cs->cap = cap;
	}
	cs->v[cs->n++] = c;
	return 0;
}

/* The CCSG nodes (by function) that node u of tree `from` stands for,
 * as a mark per node; 0, or -1 (unanswerable) after the answer. */
static int link_nodes(struct ctx *x, int from, const struct any *u,
		      uint8_t *mark)
{
	struct viewer *v = x->v;
	const struct ccsg_graph *g = v->graph;

	if (from == T_CCSG || from == T_CCDG) {
		mark[u->n] = 1;
	} else if (from == T_DSCG) {
		struct vid d = u->d;

		if (d.k == 'g' || d.k == 's') {
			const struct ccsg_chain *ch = &v->trace->chains[d.a];

			/* a chain stands for its root calls' functions */
			for (int32_t j = ch->first; j < ch->first + ch->n; j++)
				if (v->trace->calls[j].parent < 0 &&
				    (d.k == 'g' ||
				     v->trace->calls[j].seg == d.b) &&
				    g->call_node[j] >= 0)
					mark[g->call_node[j]] = 1;
		} else if (d.k == 'm') {
			mark[0] = 1;
		} else {
			int32_t n = ccsg_instance_node(
				g, d.k == 'c'
					   ? d.a
					   : (int32_t)v->trace->ncalls + d.a);

			if (n >= 0)
				mark[n] = 1;
		}
	} else {
		for (size_t n = 0; n < g->nnodes; n++) {
			const struct ccsg_node *nd = &g->nodes[n];
			struct viewer_idt_fn fn = { .prog = nd->prog,
						    .vers = nd->vers,
						    .proc = nd->proc };

			if (nd->kind == CCSG_FUNCTION && api_idt_in(&fn, u->i))
				mark[n] = 1;
		}
	}
	return 0;
}

static void put_cand_list(struct ctx *x, int to, struct cands *cs)
{
	const struct ccsg_trace *t = x->v->trace;
	FILE *f = x->f;
	int saved = x->tree;
	size_t i = 0;

	x->tree = to;
	qsort(cs->v, cs->n, sizeof(*cs->v), by_place);
	/* host > process > thread, each level a list */
	fputs("[", f);
	while (i < cs->n) {
		int32_t h = cs->v[i].host;
		char p[600];

		fputs(i ? ",\n{\"host\": " : "\n{\"host\": ", f);
		json_cstr(f, h >= 0 ? t->hosts[h] : "");
		fputs(", \"processes\": [", f);
		for (int fp = 1; i < cs->n && cs->v[i].host == h; fp = 0) {
			int32_t proc = cs->v[i].proc;

			api_process_name(t, proc, p, sizeof(p));
			fputs(fp ? "{\"process\": " : ", {\"process\": ", f);
			json_cstr(f, p);
			fprintf(f, ", \"proc_id\": %d, \"threads\": [", proc);
			for (int ft = 1; i < cs->n && cs->v[i].host == h &&
					 cs->v[i].proc == proc;
			     ft = 0) {
				int32_t tid = cs->v[i].tid;

				fprintf(f, "%s{\"tid\": %d, \"nodes\": [",
					ft ? "" : ", ", tid);
				for (int fn = 1;
				     i < cs->n && cs->v[i].host == h &&
				     cs->v[i].proc == proc &&
				     cs->v[i].tid == tid;
				     fn = 0, i++) {
					fputs(fn ? "" : ", ", f);
					api_put_any(x, &cs->v[i].u, 0);
				}
				fputs("]}", f);
			}
			fputs("]}", f);
		}
		fputs("]}", f);
	}
	fputs("]", f);
	x->tree = saved;
}

int api_get_link(struct ctx *x)
{
	struct viewer *v = x->v;
	const struct ccsg_graph *g = v->graph;
	const struct ccsg_trace *t = v->trace;
	struct cands cs = { 0 };
	const char *id, *tos;
	uint8_t *mark = NULL;
	struct any u;
	int from, to, ret = -1;

	if (api_pick_tree(x, "from") || !(id = api_need_param(x, "id")) ||
	    api_resolve(x, id, &u))
		return -1;
	from = x->tree;
	if (x->ct)
		return api_reply_error(
			x, 400,
			"a compacted node links to no other tree: "
			"link from the tree itself");
	if (!(tos = api_need_param(x, "to")))
		return -1;
	for (to = 0; to < NTREES; to++)
		if (!strcmp(tos, api_tree_names[to]))
			break;
	if (to == NTREES)
		return api_reply_error(x, 404, "unknown tree '%.64s'", tos);
	if (to == T_CCDG && from != T_CCDG && api_ccdg_prepare(x))
		return -1;
	if (!(mark = calloc(g->nnodes + 1, 1)))
		return api_reply_error(x, 500, "out of memory");
	if (link_nodes(x, from, &u, mark))
		goto out;
	if (to == T_CCSG || to == T_CCDG) {
		for (size_t n = 0; n < g->nnodes; n++)
			if (mark[n] &&
			    add_cand(&cs, (struct cand){ -1,
							 0,
							 0,
							 { .n = (int32_t)n },
							 (int64_t)n }))
				goto oom;
	} else if (to == T_IDT) {
		for (size_t i = 0; i < v->nfns; i++) {
			const struct viewer_idt_fn *fn = &v->fns[i];
			int hit = 0;

			for (size_t n = 0; n < g->nnodes && !hit; n++)
				hit = mark[n] &&
				      g->nodes[n].kind == CCSG_FUNCTION &&
				      g->nodes[n].prog == fn->prog &&
				      g->nodes[n].vers == fn->vers &&
				      g->nodes[n].proc == fn->proc;
			if (hit &&
			    add_cand(&cs, (struct cand){ -1,
							 0,
							 0,
							 { .i = { 'f', fn->prog,
								  fn->vers,
								  fn->proc } },
							 (int64_t)i }))
				goto oom;
		}
	} else {
		/* the instances: calls and threads, where they ran */
		for (size_t c = 0; c < t->ncalls + t->nthreads; c++) {
			int32_t n = ccsg_instance_node(g, (int32_t)c);
			struct vid d;
			struct cand k;

			if (n < 0 || !mark[n] ||
			    (c >= t->ncalls && t->threads[c - t->ncalls].infra))
				continue;
			d = c < t->ncalls
				    ? (struct vid){ 'c', (int32_t)c, 0 }
				    : (struct vid){ 't',
						    (int32_t)(c - t->ncalls),
						    0 };
			api_dscg_where(v, d, &k.proc, &k.tid);
			k.host = k.proc > 0 ? ccsg_trace_host(t, k.proc) : -1;
			k.u.d = d;
			k.order = (int64_t)c;
			if (add_cand(&cs, k))
				goto oom;
		}
		if (mark[0] &&
		    add_cand(&cs,
			     (struct cand){
				     -1, 0, 0, { .d = { 'm', 0, 0 } }, -1 }))
			goto oom;
	}
	fprintf(x->f, "{\"from\": \"%s\", \"to\": \"%s\", \"id\": ",
		api_tree_names[from], api_tree_names[to]);
	json_cstr(x->f, id);
	fprintf(x->f,
		", \"count\": %zu, \"shown\": %zu, \"groups\": ", cs.count,
		cs.n);
	put_cand_list(x, to, &cs);
	fputs("}\n", x->f);
	ret = 0;
	goto out;
oom:
	api_reply_error(x, 500, "out of memory");
out:
	free(mark);
	free(cs.v);
	return ret;
}
