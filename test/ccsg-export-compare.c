/*
 * ccsg-export-compare.c - the streamed exports against the loaded ones,
 * and the loaded ones against the DSCG (ccsg-export-compare.h).
 */
#include "ccsg-export-compare.h"

/* Export k (chrome, otlp, folded of each weight) of x from src to m. */
static int xc_export(FILE *m, struct export_ctx *x,
		     const struct export_source *src, int k)
{
	const struct export_otlp_opts oo = { NULL, 0, 512, 0, 1000 };

	return k == 0	? export_chrome(m, x, src)
	       : k == 1 ? export_otlp(m, x, src, &oo)
			: export_folded(m, x, src, k - 2);
}

#define XC_EXPORTS 5

/* Export k of the trace at path as `ccsg export` makes it: the graph
 * folded by the first pass of the stream that then reads the calls
 * again. */
static char *xc_streamed(const char *path, int k)
{
	struct export_stream ss;
	struct export_ctx x;
	struct idl_names nm;
	char *p = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&p, &n);

	ck_assert_ptr_nonnull(m);
	idl_names_init(&nm);
	ck_assert_int_eq(export_stream_open(&ss, path, &nm), 0);
	ck_assert_int_eq(export_ctx_init(&x, &ss.t, &ss.g, &nm), 0);
	ck_assert_int_eq(xc_export(m, &x, &ss.src, k), 0);
	ck_assert_int_eq(fclose(m), 0);
	/* one chain at most in memory */
	ck_assert_uint_le(ss.t.nchains, 1);
	export_ctx_release(&x);
	export_stream_close(&ss);
	idl_names_release(&nm);
	return p;
}

/* ---- folded: the DSCG's walk ------------------------------------------ */

struct xc_stack {
	char *path; /* frames joined by ';' */
	char *ids;  /* what tells frames apart: their hosts and nodes (two
		     * nodes may have one name) */
	int64_t weight;
	int32_t dim;
};

/* The frame of DSCG node u (parent main when top), as the format says,
 * and what it is. */
static void xc_frame(const struct export_ctx *x, const struct ccsg_dscg *d,
		     int32_t u, int top, char *buf, size_t len, char *id,
		     size_t idlen)
{
	const struct ccsg_trace *t = x->t;
	char *q;

	if (ccsg_dscg_is_call(d, u)) {
		const struct ccsg_call *c = &t->calls[u];
		int32_t n = x->g->call_node[u],
			h = ccsg_trace_host(t, c->server_proc);

		snprintf(id, idlen, "/c%d.%d", h, n);
		snprintf(buf, len, "%s:%s",
			 !c->server_proc ? "<untraced>"
			 : h >= 0	 ? t->hosts[h]
					 : "?",
			 n >= 0 && x->g->nodes[n].name ? x->g->nodes[n].name
						       : CCSG_LOST_NAME);
	} else {
		const struct ccsg_thread *th =
			&t->threads[u - (int32_t)t->ncalls];
		int32_t h = ccsg_trace_host(t, th->proc);

		if (top)
			snprintf(id, idlen, "/p%d.%d", th->proc, th->tid == 1);
		else
			snprintf(id, idlen, "/h%d", h);
		if (top)
			snprintf(buf, len, "%s:%s:%s",
				 h >= 0 ? t->hosts[h] : "?",
				 export_exe(x, th->proc),
				 th->tid == 1 ? "main" : "<thread>");
		else
			snprintf(buf, len, "%s:<thread>",
				 h >= 0 ? t->hosts[h] : "?");
	}
	for (q = buf; *q; q++)
		if (*q == ';' || *q == '\n' || *q == '\r')
			*q = '?';
}

/* An instance's own weight, before the ones under it take theirs. */
static int64_t xc_weight(const struct export_ctx *x, const struct ccsg_dscg *d,
			 int32_t u, int weight)
{
	const struct ccsg_trace *t = x->t;
	int64_t w = 0;

	if (ccsg_dscg_is_call(d, u)) {
		const struct ccsg_call *c = &t->calls[u];

		if (weight == EXPORT_CALLS)
			return 1;
		if (weight == EXPORT_CPU)
			return c->server_proc && ccsg_proc_dim(
							 x->g,
							 c->server_proc) >= 0
				       ? x->g->call_self[u]
				       : 0;
		if (c->stub_start_ns != CCSG_NONE &&
		    c->stub_end_exit_ns != CCSG_NONE)
			w = c->stub_end_exit_ns - c->stub_start_ns;
		else if (c->skel_start_exit_ns != CCSG_NONE &&
			 c->skel_end_ns != CCSG_NONE)
			w = c->skel_end_ns - c->skel_start_exit_ns;
		return w > 0 ? w : 0;
	} else {
		size_t j = (size_t)(u - (int32_t)t->ncalls);
		const struct ccsg_thread *th = &t->threads[j];
		int64_t end = th->end_mono_ns != CCSG_NONE
				      ? th->end_mono_ns
				      : x->proc_end[th->proc];

		if (weight == EXPORT_CALLS)
			return 0;
		if (weight == EXPORT_CPU)
			return ccsg_proc_dim(x->g, th->proc) >= 0
				       ? x->g->thread_self[j]
				       : 0;
		if (x->th_start[j] != CCSG_NONE && end != CCSG_NONE &&
		    end >= x->th_start[j])
			w = end - x->th_start[j];
		return w;
	}
}

/* The folded stacks of x's loaded trace, walking its DSCG d. */
static char *xc_folded_oracle(const struct export_ctx *x,
			      const struct ccsg_dscg *d, int weight)
{
	const struct ccsg_trace *t = x->t;
	struct xc_stack *st = calloc(d->nnodes + 1, sizeof(*st));
	int32_t *sid = malloc(d->nnodes * sizeof(int32_t));
	int64_t *w = calloc(d->nnodes, sizeof(int64_t));
	size_t nst = 0, k = x->g->dims->n + 1;
	int64_t *sum = calloc(k, sizeof(int64_t)),
		*shown = calloc(k, sizeof(int64_t));
	char *out = NULL, frame[1024], fid[64];
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);

	ck_assert(st && sid && w && sum && shown && m);
	/* own weights; a call's latency less that of the calls made in it
	 * (or those of its chains, for a thread) */
	for (int32_t u = 0; u < (int32_t)d->nnodes; u++)
		if (u != d->main)
			w[u] += xc_weight(x, d, u, weight);
	for (size_t i = 0; weight == EXPORT_LATENCY && i < t->ncalls; i++)
		if (d->parent[i] >= 0 && d->parent[i] != d->main)
			w[d->parent[i]] -= xc_weight(x, d, (int32_t)i, weight);
	for (int32_t u = d->first_child[d->main]; u >= 0;) {
		int32_t p = d->parent[u];
		int skip = ccsg_dscg_is_thread(d, u) &&
			   t->threads[u - (int32_t)t->ncalls].infra;
		char *path, *ids;
		size_t s;

		if (!skip) {
			xc_frame(x, d, u, p == d->main, frame, sizeof(frame),
				 fid, sizeof(fid));
			if (p == d->main) {
				path = strdup(frame);
				ids = strdup(fid);
			} else {
				path = malloc(strlen(st[sid[p]].path) +
					      strlen(frame) + 2);
				sprintf(path, "%s;%s", st[sid[p]].path, frame);
				ids = malloc(strlen(st[sid[p]].ids) +
					     strlen(fid) + 1);
				sprintf(ids, "%s%s", st[sid[p]].ids, fid);
			}
			for (s = 0; s < nst && strcmp(st[s].ids, ids); s++)
				;
			if (s == nst) {
				st[nst].path = path;
				st[nst].ids = ids;
				st[nst].dim = -1;
				nst++;
			} else {
				free(path);
				free(ids);
			}
			sid[u] = (int32_t)s;
			st[s].weight += w[u] > 0 ? w[u] : 0;
			if (st[s].dim < 0)
				st[s].dim =
					ccsg_dscg_is_call(d, u)
						? (t->calls[u].server_proc
							   ? ccsg_proc_dim(
								     x->g,
								     t->calls[u]
									     .server_proc)
							   : -1)
						: ccsg_proc_dim(
							  x->g,
							  t->threads
								  [u -
								   (int32_t)t
									   ->ncalls]
									  .proc);
		}
		if (!skip && d->first_child[u] >= 0) {
			u = d->first_child[u];
			continue;
		}
		while (u != d->main && d->next_sibling[u] < 0)
			u = d->parent[u];
		u = u == d->main ? -1 : d->next_sibling[u];
	}
	for (size_t s = 0; s < nst; s++) {
		size_t h = st[s].dim >= 0 ? (size_t)st[s].dim : k - 1;
		int64_t count = st[s].weight;

		if (st[s].weight && weight != EXPORT_CALLS) {
			sum[h] += st[s].weight;
			count = (sum[h] + 500) / 1000 - shown[h];
			shown[h] += count;
		}
		if (count)
			fprintf(m, "%s %lld\n", st[s].path, (long long)count);
		free(st[s].path);
		free(st[s].ids);
	}
	ck_assert_int_eq(fclose(m), 0);
	free(st);
	free(sid);
	free(w);
	free(sum);
	free(shown);
	return out;
}

/* ---- OTLP: each span's parent and CPU, from the DSCG -------------------- */

/* The DSCG node and side of a span: call (2 * i + server) or thread
 * (2 * (ncalls + j)), from its attributes. */
static int64_t xc_span_node(const struct export_ctx *x, struct hashmap *ids,
			    const struct jval *span)
{
	const struct jval *attrs = json_need(span, "attributes", J_ARR, "span");
	int64_t call_id = -1, proc = -1, tid = -1;
	int server = 0;

	for (int a = 0; a < attrs->n; a++) {
		const char *k =
			json_need(&attrs->item[a], "key", J_STR, "attr")->str;
		const struct jval *v =
			json_need(&attrs->item[a], "value", J_OBJ, "attr");
		const struct jval *sv = json_get(v, "stringValue"),
				  *iv = json_get(v, "intValue");

		if (!strcmp(k, "causal.call_id"))
			call_id = atoll(iv->str);
		else if (!strcmp(k, "causal.proc_id"))
			proc = atoll(iv->str);
		else if (!strcmp(k, "causal.tid"))
			tid = atoll(iv->str);
		else if (!strcmp(k, "causal.side"))
			server = !strcmp(sv->str, "server");
	}
	if (call_id >= 0) {
		int32_t i = hashmap_get(ids, (uint64_t)call_id);

		ck_assert_msg(i >= 0, "a span of call %lld, not in the trace",
			      (long long)call_id);
		return 2 * (int64_t)i + server;
	}
	ck_assert_msg(proc >= 0, "a span of no call or thread: %d attributes",
		      attrs->n);
	return 2 * ((int64_t)x->t->ncalls +
		    ccsg_trace_thread(x->t, (int32_t)proc, (int32_t)tid));
}

static double xc_attr_num(const struct jval *span, const char *key)
{
	const struct jval *attrs = json_need(span, "attributes", J_ARR, "span");

	for (int a = 0; a < attrs->n; a++)
		if (!strcmp(json_need(&attrs->item[a], "key", J_STR, "attr")
				    ->str,
			    key))
			return json_need(json_need(&attrs->item[a], "value",
						   J_OBJ, "attr"),
					 "doubleValue", J_NUM, key)
				->num;
	return -1;
}

static void xc_otlp_oracle(const struct export_ctx *x,
			   const struct ccsg_dscg *d, const char *json)
{
	const struct ccsg_trace *t = x->t;
	struct jval *doc = json_parse(json, "ccsg export --format=otlp");
	const struct jval *rs = json_need(doc, "resourceSpans", J_ARR, "otlp");
	size_t nn = 2 * (t->ncalls + t->nthreads) + 2, nspans = 0;
	char **id = calloc(nn, sizeof(char *)); /* span id of each node side */
	int64_t *self = calloc(d->nnodes, sizeof(int64_t)),
		*desc = calloc(d->nnodes, sizeof(int64_t));
	int32_t *order = malloc(d->nnodes * sizeof(int32_t));
	size_t norder = 0;
	struct hashmap ids = { 0 }; /* call_id -> call */

	/* spans are told apart by their call's id: a trace without them
	 * (made so) is left to the comparison with the stream */
	for (size_t i = 0; i < t->ncalls; i++)
		if (t->calls[i].call_id < 0 ||
		    hashmap_put(&ids, (uint64_t)t->calls[i].call_id,
				(int32_t)i) < 0)
			goto out;

	/* the CCSG's CPU over each DSCG subtree */
	for (size_t i = 0; i < t->ncalls; i++)
		if (t->calls[i].server_proc &&
		    ccsg_proc_dim(x->g, t->calls[i].server_proc) >= 0)
			self[i] = x->g->call_self[i];
	for (size_t j = 0; j < t->nthreads; j++)
		if (ccsg_proc_dim(x->g, t->threads[j].proc) >= 0)
			self[t->ncalls + j] = x->g->thread_self[j];
	for (int32_t u = d->first_child[d->main]; u >= 0;) {
		order[norder++] = u;
		if (d->first_child[u] >= 0) {
			u = d->first_child[u];
			continue;
		}
		while (u != d->main && d->next_sibling[u] < 0)
			u = d->parent[u];
		u = u == d->main ? -1 : d->next_sibling[u];
	}
	for (size_t k = norder; k-- > 0;)
		if (d->parent[order[k]] >= 0 && d->parent[order[k]] != d->main)
			desc[d->parent[order[k]]] +=
				self[order[k]] + desc[order[k]];
	/* every span's id, then its parent and figures */
	for (int pass = 0; pass < 2; pass++)
		for (int r = 0; r < rs->n; r++) {
			const struct jval *ss = json_need(
				&rs->item[r], "scopeSpans", J_ARR, "otlp");
			const struct jval *spans =
				json_need(&ss->item[0], "spans", J_ARR, "otlp");

			for (int k = 0; k < spans->n; k++) {
				const struct jval *sp = &spans->item[k];
				int64_t v = xc_span_node(x, &ids, sp);
				int32_t u = (int32_t)(v / 2), want;
				const struct jval *pid =
					json_get(sp, "parentSpanId");
				const char *sid =
					json_need(sp, "spanId", J_STR, "span")
						->str;

				if (!pass) {
					id[v] = strdup(sid);
					nspans++;
					continue;
				}
				/* the parent it must have: its client side,
				 * else its DSCG parent's span (a call's server
				 * side when it has one) */
				if (v % 2 && id[v - 1])
					want = (int32_t)(v - 1);
				else if (d->parent[u] < 0 ||
					 d->parent[u] == d->main)
					want = -1;
				else if (ccsg_dscg_is_call(d, d->parent[u]))
					want = 2 * d->parent[u] +
					       (id[2 * d->parent[u] + 1] !=
						NULL);
				else
					want = id[2 * d->parent[u]]
						       ? 2 * d->parent[u]
						       : -1;
				if (want < 0)
					ck_assert_msg(!pid,
						      "span %s has a parent, "
						      "none wanted",
						      sid);
				else
					ck_assert_msg(
						pid && id[want] &&
							!strcmp(pid->str,
								id[want]),
						"span %s: parent %s, %s wanted",
						sid, pid ? pid->str : "none",
						id[want] ? id[want] : "?");
				if (v % 2 || u >= (int32_t)t->ncalls) {
					ck_assert_msg(
						fabs(xc_attr_num(sp,
								 "causal.cpu."
								 "self_us") -
						     self[u] / 1e3) < 1e-3,
						"span %s: self CPU", sid);
					ck_assert_msg(
						fabs(xc_attr_num(
							     sp,
							     "causal.cpu."
							     "descendant_us") -
						     desc[u] / 1e3) < 1e-3,
						"span %s: descendant CPU %.3f, "
						"%.3f wanted",
						sid,
						xc_attr_num(sp,
							    "causal.cpu."
							    "descendant_us"),
						desc[u] / 1e3);
				}
			}
		}
	ck_assert(nspans > 0 || !t->ncalls);
out:
	hashmap_release(&ids);
	for (size_t i = 0; i < nn; i++)
		free(id[i]);
	free(id);
	free(self);
	free(desc);
	free(order);
	json_free(doc);
}

/* The loaded trace's exports against its DSCG. */
static void xc_oracles(struct export_ctx *x, const struct export_source *src,
		       const struct ccsg_dscg *d)
{
	const struct export_otlp_opts oo = { NULL, 0, 512, 0, 1000 };
	int64_t base, clamped;

	/* chrome's origin and clamped calls, from the alignment's pass
	 * when it can tell them: those of a pass over every call */
	ck_assert_int_eq(export_align(x, src, NULL, NULL), 0);
	ck_assert_int_eq(export_bounds(x, src), 0);
	base = x->base_ns;
	clamped = x->clamped;
	x->bounds_pass = 1;
	ck_assert_int_eq(export_bounds(x, src), 0);
	ck_assert_int_eq(x->base_ns, base);
	ck_assert_int_eq(x->clamped, clamped);

	for (int w = EXPORT_CPU; w <= EXPORT_CALLS; w++) {
		char *got = NULL, *want = xc_folded_oracle(x, d, w);
		size_t n = 0;
		FILE *m = open_memstream(&got, &n);

		ck_assert_int_eq(export_folded(m, x, src, w), 0);
		ck_assert_int_eq(fclose(m), 0);
		if (strcmp(got, want)) { /* say the first line that differs */
			size_t k = 0, line = 1;

			for (; got[k] && got[k] == want[k]; k++)
				line += got[k] == '\n';
			ck_abort_msg(
				"folded (weight %d), line %zu differs from the "
				"DSCG's walk: %.200s",
				w, line,
				got + k - (k && got[k - 1] != '\n' ? 1 : 0));
		}
		free(got);
		free(want);
	}
	{
		char *got = NULL;
		size_t n = 0;
		FILE *m = open_memstream(&got, &n);

		ck_assert_int_eq(export_otlp(m, x, src, &oo), 0);
		ck_assert_int_eq(fclose(m), 0);
		xc_otlp_oracle(x, d, got);
		free(got);
	}
}

void xc_compare(const char *path, const struct ccsg_graph *loaded)
{
	static const char *const names[XC_EXPORTS] = {
		"chrome", "otlp", "folded cpu", "folded latency", "folded calls"
	};
	size_t keep_batch = export_chrome_par_batch,
	       keep_min = export_chrome_par_min,
	       keep_budget = export_spill_budget;
	struct export_ctx xl;
	struct export_source src;

	export_source_loaded(&src, loaded);
	ck_assert_int_eq(
		export_ctx_init(&xl, loaded->dscg->trace, loaded, NULL), 0);
	xc_oracles(&xl, &src, loaded->dscg);
	for (int k = 0; k < XC_EXPORTS; k++) {
		char *a = NULL, *b;
		size_t n = 0;
		FILE *m = open_memstream(&a, &n);

		ck_assert_ptr_nonnull(m);
		ck_assert_int_eq(xc_export(m, &xl, &src, k), 0);
		ck_assert_int_eq(fclose(m), 0);
		/* parts gathered for the formatter threads, a few calls a
		 * batch; spans spilled to the file */
		export_chrome_par_batch = 2;
		export_chrome_par_min = 3;
		export_spill_budget = 300;
		b = xc_streamed(path, k);
		export_chrome_par_batch = keep_batch;
		export_chrome_par_min = keep_min;
		export_spill_budget = keep_budget;
		ck_assert_msg(!strcmp(a, b),
			      "%s: the streamed %s export differs from the "
			      "loaded one",
			      path, names[k]);
		free(a);
		free(b);
	}
	export_ctx_release(&xl);
}
