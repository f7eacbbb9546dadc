/*
 * api.c - the viewer's JSON API over a trace in memory (api.h): its
 * endpoints (/api/info, node, children, path, search; link, flame and
 * compact have files of their own), the table that routes a request to one, and
 * the viewer's set-up, which indexes each tree once.  The trees are
 * api-idt.c, api-dscg.c, api-ccsg.c (with the CCDG) and api-compact.c;
 * api-tree.c hands a request over to the tree it names.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "json.h"
#include "usage.h"

#define LIMIT_DEFAULT 200
#define LIMIT_MAX 10000

/* , "monitoring": the types and selections in force per process and
 * when (as chrome's export's metadata has them), "monitoring_text":
 * `report --switches`'s lines of each process, for the page. */
static void put_monitoring(FILE *f, const struct ccsg_monitoring *m)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mf;

	fputs(", \"monitoring\": ", f);
	ccsg_monitoring_json_states(f, m);
	fputs(", \"monitoring_text\": ", f);
	if (!(mf = open_memstream(&text, &len)))
		fputs("null", f);
	else {
		ccsg_monitoring_processes(mf, m);
		if (fclose(mf))
			fputs("null", f);
		else
			json_cstr(f, text);
	}
	free(text);
}

static int get_info(struct ctx *x)
{
	const struct viewer *v = x->v;
	const struct ccsg_trace *t = v->trace;
	const struct ccsg_dims *dims = v->graph->dims;
	FILE *f = x->f;

	fputs("{\"db\": ", f);
	json_cstr(f, t->path);
	fputs(", \"hosts\": [", f);
	json_cstrs(f, t->hosts, t->nhosts);
	fputs("], \"dims\": [", f);
	json_cstrs(f, dims->names, dims->n);
	fprintf(f,
		"], \"calls\": %zu, \"threads\": %zu, \"chains\": %zu, "
		"\"processes\": %zu, \"dscg_nodes\": %zu, \"ccsg_nodes\": %zu, "
		"\"trees\": [\"idt\", \"dscg\", \"ccsg\", \"ccdg\"], "
		"\"roots\": {\"idt\": \"idt\", \"dscg\": \"m\", \"ccsg\": "
		"\"n0\", \"ccdg\": \"n0\", \"compacted\": \"k:\"}, "
		"\"change\": ",
		t->ncalls, t->nthreads, t->nchains, t->nproc_rows,
		v->dscg->nnodes, v->graph->nnodes);
	if (v->start_spec)
		json_cstr(f, v->start_spec);
	else
		fputs("null", f);
	api_put_vec(f, "total", v->graph->total, dims->n);
	api_diff_put_info(f, v);
	fprintf(f, ", \"follow\": %s", v->follow ? v->follow : "null");
	put_monitoring(f, &t->mon);
	fputs("}\n", f);
	return 0;
}

static int get_node(struct ctx *x)
{
	const char *id;
	struct any u;

	if (api_pick_tree(x, "tree") || !(id = api_need_param(x, "id")) ||
	    api_resolve(x, id, &u))
		return -1;
	api_put_any(x, &u, 1);
	fputc('\n', x->f);
	return 0;
}

static int get_children(struct ctx *x)
{
	struct vids l = { 0 };
	struct idt_id *ids = NULL;
	int64_t offset, limit;
	const char *id;
	size_t n;
	struct any u;
	int ret = -1;

	if (api_pick_tree(x, "tree") || !(id = api_need_param(x, "id")) ||
	    api_num_param(x, "offset", 0, INT32_MAX, 0, &offset) ||
	    api_num_param(x, "limit", 1, LIMIT_MAX, LIMIT_DEFAULT, &limit) ||
	    api_resolve(x, id, &u) || api_children_of(x, &u, &l, &ids, &n))
		goto out;
	fputs("{\"id\": ", x->f);
	json_cstr(x->f, id);
	fprintf(x->f, ", \"total\": %zu, \"offset\": %lld, \"children\": [", n,
		(long long)offset);
	for (size_t i = (size_t)offset; i < n && i < (size_t)(offset + limit);
	     i++) {
		struct any c;

		api_child_any(x, i, &l, ids, &c);
		fputs(i > (size_t)offset ? ",\n" : "\n", x->f);
		api_put_any(x, &c, 0);
	}
	fputs("]", x->f);
	if ((x->tree == T_CCSG || x->tree == T_CCDG) && !x->ct &&
	    api_query(x, "secondary")) {
		const struct ccsg_graph *g = x->v->graph;
		int first = 1;

		/* the cross links out of this node: calls the primary
		 * tree shows under another caller */
		fputs(", \"secondary\": [", x->f);
		for (size_t e = 0; e < g->nedges; e++) {
			const struct ccsg_edge *ed = &g->edges[e];

			if (ed->from != u.n || ed->primary || ed->to == 0)
				continue;
			fprintf(x->f,
				"%s{\"id\": \"n%d\", \"count\": %lld, "
				"\"name\": ",
				first ? "" : ", ", ed->to,
				(long long)ed->count);
			json_cstr(x->f, g->nodes[ed->to].name);
			fputc('}', x->f);
			first = 0;
		}
		fputc(']', x->f);
	}
	fputs("}\n", x->f);
	ret = 0;
out:
	free(l.v);
	free(ids);
	return ret;
}

static int get_path(struct ctx *x)
{
	struct any chain[4096], u;
	struct vids l = { 0 };
	struct idt_id *ids = NULL;
	const char *id;
	size_t depth = 0;
	int ret = -1;

	if (api_pick_tree(x, "tree") || !(id = api_need_param(x, "id")) ||
	    api_resolve(x, id, &u))
		return -1;
	chain[depth++] = u;
	while (depth < sizeof(chain) / sizeof(chain[0]) &&
	       !api_parent_of(x, &chain[depth - 1], &chain[depth]))
		depth++;
	fputs("{\"id\": ", x->f);
	json_cstr(x->f, id);
	fputs(", \"path\": [", x->f);
	for (size_t i = depth; i-- > 0;) {
		long long index = -1;

		if (i + 1 < depth) {
			size_t n;

			free(ids);
			ids = NULL;
			if (api_children_of(x, &chain[i + 1], &l, &ids, &n))
				goto out;
			for (size_t j = 0; j < n && index < 0; j++) {
				struct any c;

				api_child_any(x, j, &l, ids, &c);
				if (api_same(x, &c, &chain[i]))
					index = (long long)j;
			}
		}
		fprintf(x->f, "%s{\"index\": %lld, \"node\": ",
			i + 1 < depth ? ",\n" : "\n", index);
		api_put_any(x, &chain[i], 0);
		fputc('}', x->f);
	}
	fprintf(x->f, "], \"truncated\": %s}\n",
		depth == sizeof(chain) / sizeof(chain[0]) ? "true" : "false");
	ret = 0;
out:
	free(l.v);
	free(ids);
	return ret;
}

static int get_search(struct ctx *x)
{
	struct viewer *v = x->v;
	const char *q;
	int64_t limit;
	size_t total = 0, shown = 0;
	FILE *f = x->f;

	if (api_pick_tree(x, "tree") || !(q = api_need_param(x, "q")) ||
	    api_num_param(x, "limit", 1, LIMIT_MAX, 50, &limit))
		return -1;
	fputs("{\"q\": ", f);
	json_cstr(f, q);
	fputs(", \"results\": [", f);
#define EMIT(put)                                                              \
	do {                                                                   \
		if (shown < (size_t)limit) {                                   \
			fputs(shown ? ",\n" : "\n", f);                        \
			put;                                                   \
			shown++;                                               \
		}                                                              \
		total++;                                                       \
	} while (0)
	if (x->ct) {
		for (size_t c = 1; c < x->ct->nnodes; c++) {
			size_t n;
			char name[1024];

			if (!x->ct->nodes[c].members)
				continue;
			n = compact_tree_node_name(x->ct, (int32_t)c, name,
						   sizeof(name));
			if (n < sizeof(name) && strcasestr(name, q))
				EMIT(api_compact_put_node(f, x->ct,
							  (int32_t)c));
		}
	} else if (x->tree == T_DSCG) {
		const struct ccsg_graph *g = v->graph;
		uint8_t *hit = calloc(g->nnodes + 1, 1);

		if (!hit)
			return api_reply_error(x, 500, "out of memory");
		for (size_t n = 0; n < g->nnodes; n++)
			hit[n] = g->nodes[n].name &&
				 strcasestr(g->nodes[n].name, q);
		for (size_t c = 0; c < v->trace->ncalls; c++) {
			int32_t n = g->call_node[c];

			if (n >= 0 ? hit[n] : !!strcasestr(CCSG_LOST_NAME, q))
				EMIT(api_dscg_put_node(
					f, v,
					(struct vid){ 'c', (int32_t)c, 0 }, 0));
		}
		free(hit);
	} else if (x->tree == T_IDT) {
		for (size_t i = 0; i < v->nfns; i++) {
			const struct viewer_idt_fn *fn = &v->fns[i];
			struct idt_id u = { 'f', fn->prog, fn->vers, fn->proc };
			char b[1024];

			snprintf(b, sizeof(b), "%s::%s", fn->prog_name,
				 fn->proc_name);
			if (strcasestr(b, q))
				EMIT(api_idt_put_node(f, v, u, 0));
		}
	} else {
		for (size_t n = 0; n < v->graph->nnodes; n++)
			if (v->graph->nodes[n].name &&
			    strcasestr(v->graph->nodes[n].name, q))
				EMIT(api_ccsg_put_node(f, v, (int32_t)n,
						       x->tree == T_CCDG, 0));
	}
#undef EMIT
	fprintf(f, "], \"total\": %zu}\n", total);
	return 0;
}

int viewer_handle(struct viewer *v, const struct api_request *rq,
		  struct api_response *rs)
{
	static const struct {
		const char *path;
		int (*fn)(struct ctx *x);
		int post;
	} routes[] = {
		{ "/api/info", get_info, 0 },
		{ "/api/node", get_node, 0 },
		{ "/api/children", get_children, 0 },
		{ "/api/path", get_path, 0 },
		{ "/api/search", get_search, 0 },
		{ "/api/link", api_get_link, 0 },
		{ "/api/flame", api_get_flame, 0 },
		{ "/api/pes", api_get_pes, 0 },
		{ "/api/timeline", api_get_timeline, 0 },
		{ "/api/chains", api_get_chains, 0 },
		{ "/api/compact", api_post_compact, 1 },
	};
	struct ctx x = { .v = v, .rq = rq, .status = 200 };
	size_t i;

	x.f = open_memstream(&x.buf, &x.len);
	if (!x.f)
		goto oom;
	for (i = 0; i < sizeof(routes) / sizeof(routes[0]); i++)
		if (!strcmp(rq->path, routes[i].path))
			break;
	if (i == sizeof(routes) / sizeof(routes[0]))
		api_reply_error(&x, 404, "no such endpoint '%.200s'", rq->path);
	else if (routes[i].post ? strcmp(rq->method, "POST")
				: strcmp(rq->method, "GET") &&
					  strcmp(rq->method, "HEAD"))
		api_reply_error(&x, 405, "'%s' takes %s, not '%.16s'", rq->path,
				routes[i].post ? "POST" : "GET", rq->method);
	else
		routes[i].fn(&x);
	if (!x.f || fclose(x.f))
		goto oom;
	rs->status = x.status;
	rs->body = x.buf;
	rs->len = x.len;
	return 0;
oom:
	free(x.buf);
	rs->status = 500;
	rs->body = strdup("{\"error\": \"out of memory\"}\n");
	rs->len = rs->body ? strlen(rs->body) : 0;
	return -ENOMEM;
}

int viewer_init(struct viewer *v, struct ccsg_graph *g,
		const struct idl_names *nm, const char *spec)
{
	char err[1024];
	int ret;

	memset(v, 0, sizeof(*v));
	v->graph = g;
	v->dscg = g->dscg;
	v->trace = g->dscg->trace;
	v->names = nm;
	if (api_dscg_index(v) || api_ccsg_index(v) || api_idt_index(v))
		return fail("out of memory indexing the trace '%s'",
			    v->trace->path);
	if ((ret = ccsg_impact_init(&v->im, g)))
		return ret == -ENOMEM ? fail("out of memory") : -1;
	v->im_ready = 1;
	if (api_timeline_index(v))
		return -1;
	if (spec) {
		if (!(v->start_spec = strdup(spec)))
			return fail("out of memory");
		if (api_apply_spec(v, spec, err, sizeof(err)))
			return fail("%s", err);
	}
	return 0;
}

void viewer_release(struct viewer *v)
{
	api_compacted_release(v);
	api_timeline_release(v);
	api_diff_release(v);
	if (v->by_object_built)
		ccsg_graph_release(&v->by_object);
	if (v->im_ready)
		ccsg_impact_release(&v->im);
	for (size_t i = 0; i < v->nfns; i++) {
		free(v->fns[i].prog_name);
		free(v->fns[i].vers_name);
		free(v->fns[i].proc_name);
		free(v->fns[i].host);
	}
	free(v->fns);
	free(v->inst_self);
	free(v->inst_total);
	free(v->id_index);
	free(v->call_ids);
	free(v->call_by_id);
	free(v->pfirst);
	free(v->pnext);
	free(v->pparent);
	free(v->im_spec);
	free(v->start_spec);
	free(v->list);
	memset(v, 0, sizeof(*v));
}
