/*
 * ccsg-stream-compare.c - the CCSG streamed, and folded by workers,
 * against the loaded one (ccsg-stream-compare.h).
 */
#include <stdio.h>
#include <stdlib.h>

#include "ccsg-stream-compare.h"

static const char *sc_str(const struct ccsg_trace *t, int32_t i)
{
	return i >= 0 ? t->strings[i] : "(none)";
}

static void sc_tally(const struct ccsg_trace *ta, const struct ccsg_tally *a,
		     const struct ccsg_trace *tb, const struct ccsg_tally *b,
		     const char *what)
{
	ck_assert_msg(a->n == b->n, "%s: %zu values loaded, %zu streamed", what,
		      a->n, b->n);
	for (size_t i = 0; i < a->n; i++) {
		ck_assert_str_eq(sc_str(ta, a->v[i].str),
				 sc_str(tb, b->v[i].str));
		ck_assert_msg(a->v[i].n == b->v[i].n,
			      "%s %s: %zu loaded, %zu streamed", what,
			      sc_str(ta, a->v[i].str), a->v[i].n, b->v[i].n);
	}
}

static void sc_stats(const struct ccsg_trace *ta,
		     const struct ccsg_dscg_stats *a,
		     const struct ccsg_trace *tb,
		     const struct ccsg_dscg_stats *b)
{
	const size_t va[] = { a->calls,
			      a->chains,
			      a->threads,
			      a->broken_chains,
			      a->segments,
			      a->breaks,
			      a->truncated_chains,
			      a->no_server,
			      a->no_client,
			      a->incomplete,
			      a->lost_starts,
			      a->failed,
			      a->spawned_threads,
			      a->thread_calls,
			      (size_t)a->max_depth };
	const size_t vb[] = { b->calls,
			      b->chains,
			      b->threads,
			      b->broken_chains,
			      b->segments,
			      b->breaks,
			      b->truncated_chains,
			      b->no_server,
			      b->no_client,
			      b->incomplete,
			      b->lost_starts,
			      b->failed,
			      b->spawned_threads,
			      b->thread_calls,
			      (size_t)b->max_depth };

	for (size_t i = 0; i < sizeof(va) / sizeof(va[0]); i++)
		ck_assert_msg(va[i] == vb[i],
			      "DSCG count %zu: %zu loaded, %zu streamed", i,
			      va[i], vb[i]);
	sc_tally(ta, &a->failures, tb, &b->failures, "failures");
	sc_tally(ta, &a->tags, tb, &b->tags, "tags");
	sc_tally(ta, &a->reply_tags, tb, &b->reply_tags, "reply tags");
}

static void sc_vec(const int64_t *a, const int64_t *b, size_t k,
		   const char *what, const char *node)
{
	for (size_t i = 0; i < k; i++)
		ck_assert_msg(a[i] == b[i],
			      "%s of %s [%zu]: %lld loaded, %lld streamed",
			      what, node, i, (long long)a[i], (long long)b[i]);
}

/* Graph a (loaded) against b (streamed); the calls that spawned threads
 * by ordinal (one stream's are the loaded trace's), else whether any. */
static void sc_graphs(const struct ccsg_graph *a, const struct ccsg_graph *b,
		      int ordinals)
{
	const struct ccsg_trace *ta = a->dscg->trace, *tb = b->dscg->trace;
	size_t k = a->dims->n ? a->dims->n : 1;

	ck_assert_msg(a->nnodes == b->nnodes, "%zu nodes loaded, %zu streamed",
		      a->nnodes, b->nnodes);
	for (size_t i = 0; i < a->nnodes; i++) {
		const struct ccsg_node *x = &a->nodes[i], *y = &b->nodes[i];

		ck_assert_str_eq(x->name, y->name);
		ck_assert_msg(x->kind == y->kind && x->prog == y->prog &&
				      x->vers == y->vers &&
				      x->proc == y->proc &&
				      x->server_proc == y->server_proc &&
				      x->object_id == y->object_id &&
				      x->parent == y->parent &&
				      x->thread_node == y->thread_node &&
				      x->serving == y->serving,
			      "node %zu (%s) differs", i, x->name);
		ck_assert_str_eq(sc_str(ta, x->peer), sc_str(tb, y->peer));
		ck_assert_str_eq(sc_str(ta, x->symbol), sc_str(tb, y->symbol));
		ck_assert_msg(x->calls == y->calls &&
				      x->threads == y->threads &&
				      x->failed == y->failed,
			      "counts of %s differ", x->name);
		sc_vec(x->self, y->self, k, "self", x->name);
		sc_vec(x->desc, y->desc, k, "descendants", x->name);
	}
	ck_assert_msg(a->nedges == b->nedges, "%zu edges loaded, %zu streamed",
		      a->nedges, b->nedges);
	for (size_t i = 0; i < a->nedges; i++) {
		ck_assert_msg(a->edges[i].from == b->edges[i].from &&
				      a->edges[i].to == b->edges[i].to &&
				      a->edges[i].count == b->edges[i].count &&
				      a->edges[i].primary ==
					      b->edges[i].primary,
			      "edge %zu differs", i);
		sc_vec(a->edges[i].self, b->edges[i].self, k, "self",
		       "an edge");
		sc_vec(a->edges[i].desc, b->edges[i].desc, k, "descendants",
		       "an edge");
	}
	sc_vec(a->total, b->total, k, "total", "main");
	ck_assert_int_eq(a->clamped, b->clamped);
	ck_assert_int_eq(a->unmeasured_threads, b->unmeasured_threads);
	ck_assert_int_eq(a->unmeasured_calls, b->unmeasured_calls);
	ck_assert_int_eq(ta->nthreads, tb->nthreads);
	for (size_t i = 0; i < ta->nthreads; i++)
		ck_assert_msg(
			a->thread_self[i] == b->thread_self[i] &&
				a->thread_node[i] == b->thread_node[i] &&
				a->root_thread[i] == b->root_thread[i] &&
				(ordinals ? ta->threads[i].spawn_call ==
						    tb->threads[i].spawn_call
					  : (ta->threads[i].spawn_call >=
					     0) == (tb->threads[i].spawn_call >=
						    0)) &&
				ta->threads[i].parent_thread ==
					tb->threads[i].parent_thread,
			"thread %zu differs", i);
	sc_stats(ta, &a->dscg->stats, tb, &b->dscg->stats);
}

/* The loaded graph's latency table against the streamed one's. */
static void sc_latency(const struct ccsg_graph *loaded,
		       const struct ccsg_graph *g, struct ccsg_latency_acc *acc)
{
	struct ccsg_latency *a, *b;
	size_t na, nb;

	ck_assert_int_eq(ccsg_latency_build(loaded, &a, &na), 0);
	ck_assert_int_eq(ccsg_latency_finish(acc, g, &b, &nb), 0);
	ck_assert_uint_eq(na, nb);
	for (size_t i = 0; i < na; i++)
		ck_assert_msg(
			a[i].node == b[i].node && a[i].calls == b[i].calls &&
				a[i].skipped == b[i].skipped &&
				a[i].failed == b[i].failed &&
				a[i].bounded == b[i].bounded &&
				a[i].mean == b[i].mean && a[i].sd == b[i].sd &&
				a[i].min == b[i].min &&
				a[i].median == b[i].median &&
				a[i].p95 == b[i].p95 && a[i].max == b[i].max &&
				a[i].uncomp_mean == b[i].uncomp_mean &&
				a[i].uncomp_sd == b[i].uncomp_sd &&
				a[i].subtracted == b[i].subtracted &&
				a[i].probes == b[i].probes &&
				a[i].network_share == b[i].network_share &&
				a[i].server_share == b[i].server_share &&
				a[i].children_share == b[i].children_share &&
				a[i].unknown_share == b[i].unknown_share,
			"latency entry %zu differs", i);
	free(a);
	free(b);
}

/* The chains a monitoring switch cut, as a trace's readers found them. */
static void sc_cuts(const struct ccsg_monitoring *a,
		    const struct ccsg_monitoring *b)
{
	ck_assert_msg(a->ncuts == b->ncuts, "%zu cut chains loaded, %zu read",
		      a->ncuts, b->ncuts);
	for (size_t i = 0; i < a->ncuts; i++) {
		const struct ccsg_mon_cut *x = &a->cuts[i], *y = &b->cuts[i];

		ck_assert_str_eq(x->chain, y->chain);
		ck_assert_str_eq(x->client ? x->client : "-",
				 y->client ? y->client : "-");
		ck_assert_str_eq(x->server ? x->server : "-",
				 y->server ? y->server : "-");
		ck_assert_msg(
			x->call_id == y->call_id && x->prog == y->prog &&
				x->proc == y->proc && x->event == y->event &&
				x->lost == y->lost && x->gained == y->gained,
			"the cut of chain %s differs", x->chain);
	}
}

/* The graph of path read by workers (1: one stream, shown to acc's
 * watch), compared with loaded. */
static void sc_compare_workers(const char *path,
			       const struct ccsg_graph *loaded,
			       const char *groups, unsigned workers)
{
	struct ccsg_trace t;
	struct ccsg_dscg d;
	struct ccsg_dims dims;
	struct ccsg_graph g;
	struct ccsg_graph *graphs[] = { &g };
	int resource = loaded->resource;
	struct ccsg_latency_acc acc = { 0 };
	const struct ccsg_stream_watch watch = { ccsg_latency_chain, &acc,
						 NULL };
	struct idl_names nm;

	ck_assert_int_eq(ccsg_trace_open_share(&t, path, 0, workers), 0);
	ck_assert_ptr_eq(t.calls, NULL); /* nothing read yet */
	if (groups) {
		FILE *f = fmemopen((void *)groups, strlen(groups), "r");

		ck_assert_int_eq(ccsg_dims_parse(&dims, &t, f, "groups"), 0);
		fclose(f);
	} else {
		ck_assert_int_eq(ccsg_dims_hosts(&dims, &t), 0);
	}
	if (workers > 1)
		ck_assert_int_eq(ccsg_workers_build(&d, &t, workers, &dims,
						    loaded->by_object, graphs,
						    &resource, 1),
				 0);
	else
		ck_assert_int_eq(ccsg_stream_build(&d, &t, &dims,
						   loaded->by_object, graphs,
						   &resource, 1, &watch),
				 0);
	/* one chain at most in memory */
	ck_assert_uint_le(t.nchains, 1);
	idl_names_init(&nm);
	ck_assert_int_eq(ccsg_graph_name(&g, &nm), 0);
	sc_graphs(loaded, &g, workers == 1);
	sc_cuts(&loaded->dscg->trace->mon, &t.mon);
	if (workers == 1)
		sc_latency(loaded, &g, &acc);
	ccsg_latency_acc_release(&acc);
	ccsg_graph_release(&g);
	ccsg_dims_release(&dims);
	ccsg_dscg_release(&d);
	ccsg_trace_release(&t);
	idl_names_release(&nm);
}

void sc_arcs_add_up(const struct ccsg_graph *g)
{
	size_t k = g->dims->n ? g->dims->n : 1;

	for (size_t n = 1; n < g->nnodes; n++) {
		for (size_t i = 0; i < k; i++) {
			int64_t self = 0, desc = 0;

			for (size_t e = 0; e < g->nedges; e++) {
				if (g->edges[e].to != (int32_t)n)
					continue;
				self += g->edges[e].self[i];
				desc += g->edges[e].desc[i];
			}
			ck_assert_msg(self == g->nodes[n].self[i] &&
					      desc == g->nodes[n].desc[i],
				      "%s [%zu]: self %lld desc %lld, its arcs "
				      "%lld and %lld",
				      g->nodes[n].name, i,
				      (long long)g->nodes[n].self[i],
				      (long long)g->nodes[n].desc[i],
				      (long long)self, (long long)desc);
		}
	}
}

void sc_compare(const char *path, const struct ccsg_graph *loaded,
		const char *groups)
{
	sc_arcs_add_up(loaded);
	for (unsigned workers = 1; workers <= 3; workers++)
		sc_compare_workers(path, loaded, groups, workers);
}
