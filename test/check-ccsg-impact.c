/*
 * check-ccsg-impact.c - impact estimation and the CCDG (impact.h) on
 * small traces with known answers: Figure 1 of the CPU paper, a function
 * served on two hosts changed on one, recursion, threads spawned inside a
 * changed function (one joined, one not, one calling out), a function
 * that is never called; the CCDG holds exactly the affected nodes; a
 * change then its inverse gives back the CCSG exactly.
 *
 * Besides the known answers, every estimate is checked against a full
 * rebuild: the same trace with each changed call's skeleton (and its
 * thread) given the CPU the estimate says, built from scratch by
 * ccsg_graph_build(), must show the same vectors on every node.  And
 * every estimate is made again from the trace read chain by chain
 * (impact-stream.h, what `ccsg impact` does) and compared node by node
 * and edge by edge.  And
 * `ccsg impact` itself: its JSON is report's plus the fields impact.h
 * adds, bad changes are one line naming the token (exit 2), names the
 * trace lacks exit 1.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ccsg-fixture.h"
#include "ccsg.h"
#include "impact/impact-stream.h"
#include "json-read.h"
#include "json-valid.h"
#include "latency.h"
#include "names.h"
#include "output.h"
#include "tool-run.h"

#define PROG 0x20000001
#define CH_A "00000000000000000000000000000000000000c1"
#define CH_B "00000000000000000000000000000000000000c2"

/* ---- loading ----------------------------------------------------------- */

struct loaded {
	struct ccsg_trace t;
	struct ccsg_dscg d;
	struct ccsg_dims dims;
	struct ccsg_graph g;
	struct idl_names nm;
	struct ccsg_impact im;
	struct ccsg_changes cs;
	const char *path, *groups;
	size_t first; /* cs.v[first ..]: the changes since the last reset */
};

static void load(struct loaded *l, const char *path, const char *groups)
{
	memset(l, 0, sizeof(*l));
	ck_assert_int_eq(ccsg_trace_load(&l->t, path), 0);
	ck_assert_int_eq(ccsg_dscg_build(&l->d, &l->t), 0);
	if (groups) {
		FILE *f = fmemopen((void *)groups, strlen(groups), "r");

		ck_assert_int_eq(ccsg_dims_parse(&l->dims, &l->t, f, "groups"),
				 0);
		fclose(f);
	} else {
		ck_assert_int_eq(ccsg_dims_hosts(&l->dims, &l->t), 0);
	}
	ck_assert_int_eq(ccsg_graph_build(&l->g, &l->d, &l->dims, 0), 0);
	idl_names_init(&l->nm);
	ck_assert_int_eq(ccsg_graph_name(&l->g, &l->nm), 0);
	ck_assert_int_eq(ccsg_impact_init(&l->im, &l->g), 0);
	l->path = path;
	l->groups = groups;
}

/* Back to the traced CCSG, and the changes forgotten. */
static void reset(struct loaded *l)
{
	ccsg_impact_reset(&l->im);
	l->first = l->cs.n;
}

static void unload(struct loaded *l)
{
	ccsg_changes_release(&l->cs);
	ccsg_impact_release(&l->im);
	ccsg_graph_release(&l->g);
	ccsg_dims_release(&l->dims);
	ccsg_dscg_release(&l->d);
	ccsg_trace_release(&l->t);
	idl_names_release(&l->nm);
}

/* Parse, resolve and apply the statements of text; 0 or what failed. */
static int change(struct loaded *l, const char *text)
{
	size_t n0 = l->cs.n;
	int ret = ccsg_changes_parse(&l->cs, text, "test", 1);

	for (size_t i = n0; !ret && i < l->cs.n; i++) {
		ret = ccsg_impact_resolve(&l->im, &l->cs.v[i], &l->nm);
		if (!ret)
			ret = ccsg_impact_apply(&l->im, &l->cs.v[i]);
	}
	return ret;
}

/*
 * The same changes estimated from the trace read chain by chain, twice
 * (impact-stream.h, what `ccsg impact` does): the same CCDG, node by
 * node and edge by edge, and the same calls per change.
 */
static void assert_streamed_same(struct loaded *l)
{
	struct ccsg_trace t;
	struct ccsg_dscg d;
	struct ccsg_dims dims;
	struct ccsg_graph g;
	struct ccsg_graph *graphs[] = { &g };
	const int resource = CCSG_RES_CPU;
	struct ccsg_impact_counts counts;
	struct ccsg_impact im;
	const struct ccsg_impact *a = &l->im;
	size_t k = a->k;

	ck_assert_int_eq(ccsg_trace_open(&t, l->path), 0);
	if (l->groups) {
		FILE *f = fmemopen((void *)l->groups, strlen(l->groups), "r");

		ck_assert_int_eq(ccsg_dims_parse(&dims, &t, f, "groups"), 0);
		fclose(f);
	} else {
		ck_assert_int_eq(ccsg_dims_hosts(&dims, &t), 0);
	}
	ck_assert_int_eq(
		ccsg_stream_build(&d, &t, &dims, 0, graphs, &resource, 1,
				  ccsg_impact_counts_watch(&counts, NULL)),
		0);
	ck_assert_int_eq(ccsg_graph_name(&g, &l->nm), 0);
	ck_assert_int_eq(ccsg_impact_stream_init(&im, &g, &counts), 0);
	for (size_t i = l->first; i < l->cs.n; i++) {
		struct ccsg_change *c = &l->cs.v[i];
		int64_t calls = c->calls;

		ck_assert_int_eq(ccsg_impact_resolve(&im, c, &l->nm), 0);
		ck_assert_int_eq(c->calls, calls);
		ck_assert_int_eq(ccsg_impact_stream_add(&im, c), 0);
	}
	ck_assert_int_eq(ccsg_impact_stream_apply(&im, l->path, &dims), 0);
	ck_assert_uint_eq(g.nnodes, l->g.nnodes);
	for (size_t n = 0; n < g.nnodes; n++) {
		ck_assert_msg(a->affected[n] == im.affected[n] &&
				      a->sync_delta[n] == im.sync_delta[n],
			      "node %s: affected %d / %d, latency delta %lld / "
			      "%lld, loaded / streamed",
			      l->g.nodes[n].name, a->affected[n],
			      im.affected[n], (long long)a->sync_delta[n],
			      (long long)im.sync_delta[n]);
		for (size_t h = 0; h < k; h++)
			ck_assert_msg(
				a->self_delta[n * k + h] ==
						im.self_delta[n * k + h] &&
					a->desc_delta[n * k + h] ==
						im.desc_delta[n * k + h],
				"node %s [%zu]: self delta %lld / %lld, "
				"desc delta %lld / %lld",
				l->g.nodes[n].name, h,
				(long long)a->self_delta[n * k + h],
				(long long)im.self_delta[n * k + h],
				(long long)a->desc_delta[n * k + h],
				(long long)im.desc_delta[n * k + h]);
	}
	ck_assert_uint_eq(g.nedges, l->g.nedges);
	for (size_t e = 0; e < g.nedges; e++)
		ck_assert_msg(a->edge_affected[e] == im.edge_affected[e],
			      "edge %zu: affected %d loaded, %d streamed", e,
			      a->edge_affected[e], im.edge_affected[e]);
	for (size_t h = 0; h < k; h++)
		ck_assert_int_eq(a->total_delta[h], im.total_delta[h]);
	ccsg_impact_release(&im);
	ccsg_impact_counts_release(&counts);
	ccsg_graph_release(&g);
	ccsg_dims_release(&dims);
	ccsg_dscg_release(&d);
	ccsg_trace_release(&t);
}

static void must_change(struct loaded *l, const char *text)
{
	ck_assert_msg(change(l, text) == 0, "'%s' was not applied", text);
	assert_streamed_same(l);
}

static int node_named(const struct ccsg_graph *g, const char *name)
{
	for (size_t i = 0; i < g->nnodes; i++)
		if (!strcmp(g->nodes[i].name, name))
			return (int)i;
	ck_abort_msg("no node '%s'", name);
	return -1;
}

/* after - before of node n, dimension h, self or desc */
static int64_t delta(const struct loaded *l, int n, int desc, size_t h)
{
	return (desc ? l->im.desc_delta : l->im.self_delta)[n * l->im.k + h];
}

/* A node's after vector (in us, 0.001 accuracy: exact ns) equals want. */
static void assert_after(const struct loaded *l, int n, int desc,
			 const double *want)
{
	int64_t self[8], dsc[8];

	ccsg_impact_after(&l->im, n, self, dsc);
	for (size_t h = 0; h < l->dims.n; h++)
		ck_assert_msg((desc ? dsc : self)[h] == llround(want[h] * 1000),
			      "node %s %s[%zu]: %lld ns, want %.3f us",
			      l->g.nodes[n].name, desc ? "desc" : "self", h,
			      (long long)(desc ? dsc : self)[h], want[h]);
}

/* The CCDG's node set is exactly these (-1 ended). */
static void assert_ccdg(const struct loaded *l, const int *want)
{
	size_t n = 0;

	for (; want[n] >= 0; n++)
		ck_assert_msg(l->im.affected[want[n]],
			      "node %s not in the CCDG",
			      l->g.nodes[want[n]].name);
	ck_assert_msg(l->im.nccdg_nodes == n, "%zu nodes in the CCDG, want %zu",
		      l->im.nccdg_nodes, n);
}

/* Is the edge from -> to in the CCDG? */
static int ccdg_edge(const struct loaded *l, int from, int to)
{
	int32_t e = ccsg_edge_find(&l->g, from, to);

	ck_assert_msg(e >= 0, "no edge %d -> %d", from, to);
	return l->im.edge_affected[e];
}

/* ---- the full rebuild to compare with ---------------------------------- */

/*
 * A copy of the trace at path in which each call whose self CPU the
 * estimate changed has its skeleton end CPU, and its serving thread's
 * CPU, moved by that change: what a run of the changed program would
 * have recorded.  Built from scratch into o.
 */
static void rebuild(const struct loaded *l, const char *path, struct loaded *o,
		    char *copy, size_t len)
{
	sqlite3 *db;
	char cmd[3 * PATH_MAX];

	snprintf(copy, len, "%s-rebuilt", path);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", path, copy);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_int_eq(sqlite3_open(copy, &db), SQLITE_OK);
	for (size_t i = 0; i < l->t.ncalls; i++) {
		const struct ccsg_call *c = &l->t.calls[i];
		int64_t d = ccsg_impact_call_self(&l->im, (int32_t)i) -
			    l->g.call_self[i];
		char sql[512];

		if (!d)
			continue;
		snprintf(sql, sizeof(sql),
			 "UPDATE rpc_calls SET skel_end_cpu_ns = "
			 "skel_end_cpu_ns "
			 "+ %lld WHERE call_id = %lld; UPDATE threads SET "
			 "cpu_ns "
			 "= cpu_ns + %lld WHERE proc_id = %d AND tid = %d",
			 (long long)d, (long long)c->call_id, (long long)d,
			 c->server_proc, c->server_tid);
		ck_assert_int_eq(sqlite3_exec(db, sql, NULL, NULL, NULL),
				 SQLITE_OK);
	}
	sqlite3_close(db);
	load(o, copy, NULL);
}

/*
 * The estimate equals the rebuild on every node and dimension, and the
 * CCDG holds exactly the nodes whose vectors changed (none of these
 * tests makes changes that cancel on a node).
 */
static void assert_rebuild(const struct loaded *l, const char *path)
{
	struct loaded o;
	char copy[PATH_MAX + 16];
	size_t k = l->dims.n, changed = 0;

	rebuild(l, path, &o, copy, sizeof(copy));
	ck_assert_int_eq(o.g.nnodes, l->g.nnodes);
	for (size_t n = 0; n < l->g.nnodes; n++) {
		int64_t self[8], desc[8];
		int differs = 0;

		ck_assert_str_eq(o.g.nodes[n].name, l->g.nodes[n].name);
		ccsg_impact_after(&l->im, (int32_t)n, self, desc);
		for (size_t h = 0; h < k; h++) {
			ck_assert_msg(self[h] == o.g.nodes[n].self[h] &&
					      desc[h] == o.g.nodes[n].desc[h],
				      "%s[%zu]: estimated self %lld desc %lld, "
				      "rebuilt %lld %lld",
				      l->g.nodes[n].name, h, (long long)self[h],
				      (long long)desc[h],
				      (long long)o.g.nodes[n].self[h],
				      (long long)o.g.nodes[n].desc[h]);
			differs |= self[h] != l->g.nodes[n].self[h] ||
				   desc[h] != l->g.nodes[n].desc[h];
		}
		ck_assert_msg(differs == l->im.affected[n],
			      "%s: %s, but %s the CCDG", l->g.nodes[n].name,
			      differs ? "changed" : "unchanged",
			      l->im.affected[n] ? "in" : "not in");
		changed += (size_t)differs;
	}
	ck_assert_int_eq(changed, l->im.nccdg_nodes);
	for (size_t h = 0; h < k; h++)
		ck_assert_int_eq(l->g.total[h] + l->im.total_delta[h],
				 o.g.total[h]);
	unload(&o);
	unlink(copy);
}

/* ---- the traces ---------------------------------------------------------- */

static void call4(const char *chain, unsigned proc, const char *sym, int cproc,
		  int ctid, int sproc, int stid, int sfid, long long e0,
		  long long c0, long long c1, long long c2, long long c3,
		  long long e2)
{
	/* events e0, e0 + 1, e2, e2 + 1 */
	long long ev[4] = { e0, e0 + 1, e2, e2 + 1 };
	long long cpu[4] = { c0, c1, c2, c3 };

	fx_call(chain, PROG, proc, sym, cproc, ctid, sproc, stid, sfid, ev,
		cpu);
}

/*
 * Figure 1: main (client, A) calls foo (A: 3200 us), which calls times
 * (B: 2700), what_to_say (C: 3000, spawning two threads of 2000, both
 * joined) and say_it three times (D: 2600, 2500, 2700).  Stubs cost 100.
 */
static const char *figure1(void)
{
	fx_open();
	fx_host(1, "A");
	fx_host(2, "B");
	fx_host(3, "C");
	fx_host(4, "D");
	fx_proc(1, 1);
	fx_proc(2, 1);
	fx_proc(3, 2);
	fx_proc(4, 3);
	fx_proc(5, 4);
	call4(CH_A, 1, "foo_1", 1, 1, 2, 1, 11, 0, 0, 1000, 1000 + 3700, 100,
	      22);
	call4(CH_A, 2, "times_1", 2, 1, 3, 1, 21, 2, 1000, 500, 500 + 2700,
	      1100, 4);
	call4(CH_A, 3, "what_to_say_1", 2, 1, 4, 1, 31, 6, 1100, 0, 3000, 1200,
	      8);
	for (int i = 0; i < 3; i++) {
		static const long long self[3] = { 2600, 2500, 2700 };

		call4(CH_A, 4, "say_it_1", 2, 1, 5, 1, 51 + i, 10 + 4 * i,
		      1200 + 100 * i, 10000 * i, 10000 * i + self[i],
		      1300 + 100 * i, 12 + 4 * i);
	}
	fx_thread(4, 2, 1, 2000, 31);
	fx_thread(4, 3, 1, 2000, 31);
	/* both end before what_to_say's skeleton (event 8: 80 us) */
	fx_exec("UPDATE threads SET end_mono_ns = 70000 WHERE proc_id = 4 AND "
		"tid > 1");
	return fx_close();
}

/*
 * S on two hosts: main (A) calls foo (A: 1000), which calls S twice on
 * B (2000, 2200) and twice on C (3000, 3300).
 */
static const char *two_hosts(void)
{
	static const long long self[4] = { 2000, 3000, 2200, 3300 };

	fx_open();
	fx_host(1, "A");
	fx_host(2, "B");
	fx_host(3, "C");
	fx_proc(1, 1);
	fx_proc(2, 1);
	fx_proc(3, 2);
	fx_proc(4, 3);
	call4(CH_A, 1, "foo_1", 1, 1, 2, 1, 11, 0, 0, 0, 1400, 100, 18);
	for (int i = 0; i < 4; i++)
		call4(CH_A, 5, "s_1", 2, 1, 3 + i % 2, 1, 21 + i, 2 + 4 * i,
		      100 * i, 0, self[i], 100 * i + 100, 4 + 4 * i);
	return fx_close();
}

/*
 * W (host C) spawns T1 and T2; T1 ends before W, T2 after; T1 calls S
 * (host D) in a chain of its own.  W 6000 us, S 2000, T1 3000 (100 of
 * it S's stub), T2 4000.  main (A) calls W.
 */
static void threads_rows(void)
{
	fx_host(1, "A");
	fx_host(2, "C");
	fx_host(3, "D");
	fx_proc(1, 1);
	fx_proc(2, 2);
	fx_proc(3, 3);
	fx_thread(1, 1, 0, 5000, -1);
	fx_thread(2, 1, 0, 20000, -1);
	fx_thread(2, 2, 1, 3000, 21);
	fx_thread(2, 3, 1, 4000, 21);
	fx_thread(3, 1, 0, 10000, -1);
	/* W's skeleton ends at event 2: 20 us */
	fx_exec("UPDATE threads SET end_mono_ns = 15000 WHERE proc_id = 2 AND "
		"tid = 2");
	fx_exec("UPDATE threads SET end_mono_ns = 50000 WHERE proc_id = 2 AND "
		"tid = 3");
	call4(CH_A, 1, "w_1", 1, 1, 2, 1, 21, 0, 0, 0, 6000, 100, 2);
	call4(CH_B, 2, "s_1", 2, 2, 3, 1, 31, 0, 500, 0, 2000, 600, 2);
}

static const char *threads(void)
{
	fx_open();
	threads_rows();
	return fx_close();
}

/* ... and T3, made by T1 without a call, calling X on D. */
static const char *thread_of_thread(void)
{
	fx_open();
	threads_rows();
	fx_thread(2, 4, 2, 500, -1);
	fx_exec("UPDATE threads SET end_mono_ns = 12000 WHERE proc_id = 2 AND "
		"tid = 4");
	call4("00000000000000000000000000000000000000c3", 3, "x_1", 2, 4, 3, 1,
	      32, 0, 100, 0, 1500, 200, 2);
	return fx_close();
}

/* R on one server calls itself twice, nested: 1100, 1000, 1000 us. */
static const char *recursion(void)
{
	long long e1[4] = { 0, 1, 10, 11 }, c1[4] = { 0, 0, 1200, 100 };
	long long e2[4] = { 2, 3, 8, 9 }, c2[4] = { 500, 0, 1100, 600 };
	long long e3[4] = { 4, 5, 6, 7 }, c3[4] = { 300, 0, 1000, 400 };

	fx_open();
	fx_host(1, "A");
	fx_proc(1, 1);
	fx_proc(2, 1);
	fx_call(CH_A, PROG, 6, "r_1", 1, 1, 2, 1, 1, e1, c1);
	fx_call(CH_A, PROG, 6, "r_1", 2, 1, 2, 2, 2, e2, c2);
	fx_call(CH_A, PROG, 6, "r_1", 2, 2, 2, 3, 3, e3, c3);
	return fx_close();
}

/* ---- the tests ----------------------------------------------------------- */

START_TEST(test_figure1_say_it)
{
	const char *path = figure1();
	struct loaded l;
	int foo, say, wts, thr;
	static const int64_t D = 3;

	load(&l, path, NULL);
	foo = node_named(&l.g, "0x20000001::foo");
	say = node_named(&l.g, "0x20000001::say_it");
	wts = node_named(&l.g, "0x20000001::what_to_say");
	thr = node_named(&l.g, "<threads of 0x20000001::what_to_say>");
	must_change(&l, "reduction on processor group { D } by 20% to "
			"function { 0x20000001::say_it }");
	ck_assert_int_eq(l.cs.v[0].calls, 3);
	ck_assert_uint_eq(l.cs.v[0].num, 4);
	ck_assert_uint_eq(l.cs.v[0].den, 5);
	/* 7800 us of say_it on D: 1560 less */
	assert_after(&l, say, 0, (double[]){ 0, 0, 0, 6240 });
	assert_after(&l, foo, 1, (double[]){ 0, 2700, 7000, 6240 });
	assert_after(&l, 0, 1, (double[]){ 3200, 2700, 7000, 6240 });
	ck_assert_int_eq(delta(&l, wts, 1, 2), 0);
	assert_ccdg(&l, (int[]){ 0, foo, say, -1 });
	ck_assert(ccdg_edge(&l, 0, foo) && ccdg_edge(&l, foo, say));
	ck_assert(!ccdg_edge(&l, foo, wts) && !ccdg_edge(&l, wts, thr));
	ck_assert_int_eq(l.im.nccdg_edges, 2);
	ck_assert_int_eq(l.im.total_delta[D], -1560 * US);
	/* latency: foo waits for every say_it */
	ck_assert_int_eq(l.im.sync_delta[foo], -1560 * US);
	ck_assert_int_eq(l.im.sync_delta[say], -1560 * US);
	assert_rebuild(&l, path);
	unload(&l);
	unlink(path);
}
END_TEST

/* A function served on two hosts, changed on one: only its dimension. */
START_TEST(test_one_host_only)
{
	const char *path = two_hosts();
	struct loaded l;
	int foo, s;

	load(&l, path, NULL);
	foo = node_named(&l.g, "0x20000001::foo");
	s = node_named(&l.g, "0x20000001::s");
	must_change(&l, "reduction on processor { B } by 50% to function "
			"{ *::S }");
	ck_assert_int_eq(l.cs.v[0].calls, 2);
	assert_after(&l, s, 0, (double[]){ 0, 2100, 6300 });
	assert_after(&l, foo, 1, (double[]){ 0, 2100, 6300 });
	assert_after(&l, 0, 1, (double[]){ 1000, 2100, 6300 });
	assert_ccdg(&l, (int[]){ 0, foo, s, -1 });
	assert_rebuild(&l, path);
	/* the same through a group holding B alone, and then both hosts */
	ccsg_impact_reset(&l.im);
	unload(&l);

	load(&l, path, "slow: B\nfast: A C\n");
	must_change(&l, "reduction on processor group { slow } by 50% to "
			"function { s }");
	/* dimensions: slow (B), fast (A, C) */
	assert_after(&l, s, 0, (double[]){ 2100, 6300 });
	must_change(&l, "increase on processor group { fast } by 10% to "
			"function { s }");
	assert_after(&l, s, 0, (double[]){ 2100, 6930 });
	unload(&l);
	unlink(path);
}
END_TEST

/* R1 > R2 > R3, all changed: self and nested descendants. */
START_TEST(test_recursion)
{
	const char *path = recursion();
	struct loaded l;
	int r;

	load(&l, path, NULL);
	r = node_named(&l.g, "0x20000001::r");
	must_change(&l, "reduction on all by 30% to function { r }");
	ck_assert_int_eq(l.cs.v[0].calls, 3);
	/* self 770 + 700 + 700; desc: R1 (700 + 700) + R2 700 */
	assert_after(&l, r, 0, (double[]){ 2170 });
	assert_after(&l, r, 1, (double[]){ 2100 });
	assert_after(&l, 0, 1, (double[]){ 2170 });
	assert_ccdg(&l, (int[]){ 0, r, -1 });
	ck_assert(ccdg_edge(&l, 0, r) && ccdg_edge(&l, r, r));
	/* each call's path holds those below it: R1 930, R2 600, R3 300 */
	ck_assert_int_eq(l.im.sync_delta[r], -(930 + 600 + 300) * US);
	assert_rebuild(&l, path);
	unload(&l);
	unlink(path);
}
END_TEST

/*
 * Threads spawned inside a changed function are not changed with it;
 * a change below one of them reaches its thread node, and the latency
 * of the function only through the thread it joined.
 */
/*
 * A thread made by a spawned thread without a call (thread-spawn-thread):
 * T1, which W spawned, makes T3, which calls X on D and ends before T1,
 * which ends before W's skeleton.  X's change goes up T3, T1, W: on W's
 * synchronous path, and in the CCDG through T3's chain (the thread node
 * of W's threads) and W, not through T1's own chains.
 */
START_TEST(test_thread_of_thread)
{
	const char *path = thread_of_thread();
	struct loaded l;
	int w, x, thr;

	load(&l, path, NULL);
	w = node_named(&l.g, "0x20000001::w");
	x = node_named(&l.g, "0x20000001::x");
	thr = node_named(&l.g, "<threads of 0x20000001::w>");
	must_change(&l, "reduction on processor { D } by 50% to function "
			"{ x }");
	/* 750 us of X's 1500 saved, T3 joined by T1, T1 by W */
	ck_assert_int_eq(l.im.sync_delta[w], -750 * US);
	ck_assert_int_eq(l.im.sync_delta[x], -750 * US);
	assert_ccdg(&l, (int[]){ 0, w, thr, x, -1 });
	assert_rebuild(&l, path);
	unload(&l);
	unlink(path);
}
END_TEST

START_TEST(test_threads)
{
	const char *path = threads();
	struct loaded l;
	int w, s, thr;

	load(&l, path, NULL);
	w = node_named(&l.g, "0x20000001::w");
	s = node_named(&l.g, "0x20000001::s");
	thr = node_named(&l.g, "<threads of 0x20000001::w>");
	/* hosts A, C, D */
	assert_after(&l, thr, 0, (double[]){ 0, 6900, 0 });
	assert_after(&l, thr, 1, (double[]){ 0, 0, 2000 });
	must_change(&l, "reduction on all by 50% to function { w }");
	assert_after(&l, w, 0, (double[]){ 0, 3000, 0 });
	assert_after(&l, w, 1, (double[]){ 0, 6900, 2000 });
	assert_after(&l, thr, 0, (double[]){ 0, 6900, 0 });
	assert_ccdg(&l, (int[]){ 0, w, -1 });
	ck_assert(!ccdg_edge(&l, w, thr));
	ck_assert_int_eq(l.im.sync_delta[w], -3000 * US);
	assert_rebuild(&l, path);

	must_change(&l, "reduction on processor { D } by 50% to function "
			"{ s }");
	assert_after(&l, s, 0, (double[]){ 0, 0, 1000 });
	assert_after(&l, thr, 1, (double[]){ 0, 0, 1000 });
	assert_after(&l, w, 1, (double[]){ 0, 6900, 1000 });
	assert_ccdg(&l, (int[]){ 0, w, thr, s, -1 });
	ck_assert(ccdg_edge(&l, w, thr) && ccdg_edge(&l, thr, s));
	/* T1, which called S, ended before W: W waited for it */
	ck_assert_int_eq(l.im.sync_delta[w], -4000 * US);
	ck_assert_int_eq(l.im.sync_delta[s], -1000 * US);
	assert_rebuild(&l, path);
	unload(&l);

	/* T1 outlives W: S's change is not on W's path */
	{
		sqlite3 *db;

		ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
		ck_assert_int_eq(
			sqlite3_exec(db,
				     "UPDATE threads SET end_mono_ns = "
				     "90000 WHERE proc_id = 2 AND tid = 2",
				     NULL, NULL, NULL),
			SQLITE_OK);
		sqlite3_close(db);
	}
	load(&l, path, NULL);
	must_change(&l, "reduction on all by 50% to function { s }");
	ck_assert_int_eq(l.im.sync_delta[w], 0);
	ck_assert_int_eq(l.im.sync_delta[s], -1000 * US);
	unload(&l);
	unlink(path);
}
END_TEST

/*
 * A change then its inverse: the CCSG as traced, to the nanosecond, on
 * self CPU values whose rounding would drift if each step were rounded
 * on the last: 1000002 ns x 4/5 = 800001.6, and 800002 x 5/4 = 1000002.5
 * (so is any value 2 modulo 5).
 */
START_TEST(test_inverse)
{
	const char *path = two_hosts();
	static const char *const pairs[][2] = {
		{ "reduction on processor { B } by 20% to function { s }",
		  "increase on processor { B } by 25% to function { s }" },
		{ "reduction on all by 30% to function { *::* }",
		  "increase on all by 300/7% to function { *::* }" },
		{ "increase on processor group { C } by 12.5% to function "
		  "{ 0x20000001::5 }",
		  "reduction on processor group { C } by 100/9% to function "
		  "{ 0x20000001::5 }" },
	};
	struct loaded l;
	sqlite3 *db;

	ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
	ck_assert_int_eq(
		sqlite3_exec(db,
			     "UPDATE rpc_calls SET skel_end_cpu_ns = "
			     "skel_start_cpu_ns + 1000002 + 5 * call_id",
			     NULL, NULL, NULL),
		SQLITE_OK);
	sqlite3_close(db);
	load(&l, path, NULL);
	for (size_t p = 0; p < sizeof(pairs) / sizeof(pairs[0]); p++) {
		int s = node_named(&l.g, "0x20000001::s");

		must_change(&l, pairs[p][0]);
		ck_assert(l.im.self_delta[s * l.im.k + 1] ||
			  l.im.self_delta[s * l.im.k + 2]);
		must_change(&l, pairs[p][1]);
		for (size_t n = 0; n < l.g.nnodes; n++)
			for (size_t h = 0; h < l.im.k; h++)
				ck_assert_msg(
					!l.im.self_delta[n * l.im.k + h] &&
						!l.im.desc_delta[n * l.im.k +
								 h],
					"%s, then %s: %s[%zu] off by "
					"%lld / %lld ns",
					pairs[p][0], pairs[p][1],
					l.g.nodes[n].name, h,
					(long long)
						l.im.self_delta[n * l.im.k + h],
					(long long)l.im
						.desc_delta[n * l.im.k + h]);
		for (size_t i = 0; i < l.t.ncalls; i++)
			ck_assert_int_eq(
				ccsg_impact_call_self(&l.im, (int32_t)i),
				l.g.call_self[i]);
		/* re-evaluated, though back where it was */
		ck_assert(l.im.affected[s]);
		reset(&l);
		ck_assert_int_eq(l.im.nccdg_nodes, 0);
	}
	/* factors compound, each call rounded once: two 20% reductions
	 * are 16/25; calls 2 and 4 on B, 3 and 5 on C */
	must_change(&l, "reduction on all by 20% to function { s }; "
			"reduction on all by 20% to function { s }");
	{
		int s = node_named(&l.g, "0x20000001::s");
		int64_t want[3] = { 0, 0, 0 };

		for (int id = 2; id <= 5; id++)
			want[id % 2 ? 2 : 1] +=
				((1000002 + 5 * id) * 16 * 2 + 25) / 50;
		for (int h = 0; h < 3; h++)
			ck_assert_int_eq(
				l.g.nodes[s].self[h] +
					l.im.self_delta[s * l.im.k + h],
				want[h]);
	}
	unload(&l);
	unlink(path);
}
END_TEST

/* stderr of f(arg) into msg; f's return value */
static int with_stderr(int (*f)(struct loaded *, const char *),
		       struct loaded *l, const char *arg, char *msg, size_t len)
{
	char tmpl[PATH_MAX];
	int fd = mkstemp(test_tmp_name(tmpl, sizeof(tmpl), "impact-XXXXXX"));
	int saved = dup(2), rc;
	ssize_t n;

	ck_assert(fd >= 0 && saved >= 0);
	fflush(stderr);
	dup2(fd, 2);
	rc = f(l, arg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = pread(fd, msg, len - 1, 0);
	msg[n > 0 ? n : 0] = 0;
	close(fd);
	unlink(tmpl);
	return rc;
}

/* Names the trace lacks: errors naming the token, nothing applied. */
START_TEST(test_unknown_names)
{
	static const struct {
		const char *change, *msg;
	} bad[] = {
		{ "reduction on all by 10% to function { FIG1_PROG::NEVER }",
		  "test: column 39: function 'FIG1_PROG::NEVER' is never "
		  "called "
		  "in the trace" },
		{ "reduction on all by 10% to function { foo, nope::x }",
		  "test: column 44: no function 'nope::x' in the trace" },
		{ "reduction on processor { A, Z } by 10% to function { foo }",
		  "test: column 29: no host 'Z' in the trace (its hosts: A, B, "
		  "C, D)" },
		{ "reduction on processor group { fast } by 10% to function "
		  "{ foo }",
		  "test: column 32: no processor group 'fast'" },
		{ "reduction on processor { B } by 10% to function { foo }",
		  "test: column 51: function 'foo' never runs on the "
		  "processors "
		  "named (it runs on A)" },
	};
	const char *path = figure1();
	static const char idl[] = "program FIG1_PROG { version FIG1_VERS {\n"
				  "  int FOO(void) = 1; int NEVER(void) = 9;\n"
				  "} = 1; } = 0x20000001;\n";
	struct loaded l;

	load(&l, path, NULL);
	ck_assert_int_eq(idl_names_parse(&l.nm, idl, "f.x"), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char msg[1024];

		ck_assert_int_eq(with_stderr(change, &l, bad[i].change, msg,
					     sizeof(msg)),
				 -EINVAL);
		ck_assert_msg(strstr(msg, bad[i].msg) && !strchr(msg, '\n')[1],
			      "'%s': got '%s', want '%s'", bad[i].change, msg,
			      bad[i].msg);
		ck_assert_int_eq(l.im.nccdg_nodes, 0);
	}
	unload(&l);
	unlink(path);
}
END_TEST

static int parse_only(struct loaded *l, const char *text)
{
	return ccsg_changes_parse(&l->cs, text, "test", 1);
}

/* Malformed statements: one line at the offending token. */
START_TEST(test_syntax)
{
	static const struct {
		const char *change, *msg;
	} bad[] = {
		{ "reduce on all by 10% to function { f }",
		  "test: column 1: expected 'reduction' or 'increase', found "
		  "'reduce'" },
		{ "reduction on processor group { G1 G2 } by 10% to function "
		  "{ f }",
		  "test: column 35: expected ',' or '}', found 'G2'" },
		{ "reduction on all by 10 to function { f }",
		  "test: column 24: expected '%', found 'to'" },
		{ "reduction on all by ten% to function { f }",
		  "test: column 21: expected a percentage (20, 12.5 or 300/7), "
		  "found 'ten'" },
		{ "reduction on all by 100.5% to function { f }",
		  "test: column 21: a reduction is by more than 0% and at most "
		  "100%, not '100.5%'" },
		{ "reduction on all by 0% to function { f }",
		  "test: column 21: a reduction is by more than 0%" },
		{ "increase on all by 10001% to function { f }",
		  "test: column 20: an increase is by more than 0% and at most "
		  "10000%, not '10001%'" },
		{ "reduction on all by 10% to function { f }; oops",
		  "test: column 44: expected 'reduction' or 'increase', found "
		  "'oops'" },
		{ "reduction on all by 10% to function { f } increase",
		  "test: column 43: expected ';', found 'increase'" },
		{ "reduction on all by 10% to function { f",
		  "test: column 40: expected ',' or '}', found the end" },
		{ "reduction on all by 10% to function { \"f }",
		  "test: column 39: expected a function (INTERFACE::FUNCTION), "
		  "found an unterminated" },
		{ "  # nothing", "test: column 12: no change" },
	};
	struct loaded l;

	memset(&l, 0, sizeof(l));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char msg[1024];

		ck_assert_int_eq(with_stderr(parse_only, &l, bad[i].change, msg,
					     sizeof(msg)),
				 -EINVAL);
		ck_assert_msg(strstr(msg, bad[i].msg) && !strchr(msg, '\n')[1],
			      "'%s': got '%s', want '%s'", bad[i].change, msg,
			      bad[i].msg);
		ck_assert_int_eq(l.cs.n, 0);
	}
	/* a file: lines and columns, comments, several statements */
	{
		static const char text[] = "# what if\n"
					   "reduction on processor group { \"G "
					   "1\", G2 } by 10% to\n"
					   "  function { M::I::f, *::g };\n"
					   "INCREASE ON ALL PROCESSORS BY "
					   "300/7% TO FUNCTIONS { 4 }\n";
		char msg[1024], out[512];

		ck_assert_int_eq(ccsg_changes_parse(&l.cs, text, "f", 0), 0);
		ck_assert_int_eq(l.cs.n, 2);
		ck_assert_int_eq(l.cs.v[0].scope, CCSG_ON_GROUPS);
		ck_assert_str_eq(l.cs.v[0].where[0], "G 1");
		ck_assert_str_eq(l.cs.v[0].functions[0], "M::I::f");
		ck_assert_int_eq(l.cs.v[0].function_pos[1].line, 3);
		ck_assert_int_eq(l.cs.v[0].function_pos[1].col, 23);
		ck_assert_uint_eq(l.cs.v[0].num, 9);
		ck_assert_uint_eq(l.cs.v[0].den, 10);
		ck_assert_int_eq(l.cs.v[1].kind, CCSG_INCREASE);
		ck_assert_int_eq(l.cs.v[1].scope, CCSG_ON_ALL);
		ck_assert_uint_eq(l.cs.v[1].num, 10);
		ck_assert_uint_eq(l.cs.v[1].den, 7);
		ccsg_change_format(&l.cs.v[0], out, sizeof(out));
		ck_assert_str_eq(out,
				 "reduction on processor group { \"G 1\", G2 } "
				 "by 10% to function { M::I::f, *::g };");
		/* and read back the same */
		ck_assert_int_eq(ccsg_changes_parse(&l.cs, out, "again", 1), 0);
		ck_assert_str_eq(l.cs.v[2].where[0], "G 1");
		ck_assert_int_eq(with_stderr(parse_only, &l,
					     "reduction on all by 10% to\n"
					     "function { f } by",
					     msg, sizeof(msg)),
				 -EINVAL);
		/* a command-line change on two lines says the line */
		ck_assert_str_eq(msg, "causal: error: test:2:16: expected ';', "
				      "found 'by'\n");
	}
	ccsg_changes_release(&l.cs);
}
END_TEST

/* ---- ccsg impact -----------------------------------------------------------
 */

static struct tool_out impact(const char *db, const char *format,
			      const char *change)
{
	return tool_run((const char *[]){ tool_path("ccsg"), "impact", "--db",
					  db, format, "--change", change,
					  NULL });
}

/*
 * impact's JSON is report's with fields added: every key report writes
 * has the same value, the nodes have the after, delta and affected
 * fields, and the CCDG lists the affected nodes.
 */
static void assert_same(const struct jval *a, const struct jval *b,
			const char *where)
{
	ck_assert_msg(a->type == b->type, "%s: type %d vs %d", where, a->type,
		      b->type);
	if (a->type == J_NUM || a->type == J_BOOL)
		ck_assert_msg(a->num == b->num, "%s: %g vs %g", where, a->num,
			      b->num);
	if (a->type == J_STR)
		ck_assert_str_eq(a->str, b->str);
	if (a->type == J_ARR) {
		ck_assert_int_eq(a->n, b->n);
		for (int i = 0; i < a->n; i++)
			assert_same(&a->item[i], &b->item[i], where);
	}
	if (a->type == J_OBJ)
		for (int i = 0; i < a->n; i++) {
			const struct jval *v = json_get(b, a->keys[i]);

			ck_assert_msg(v, "%s: no '%s'", where, a->keys[i]);
			assert_same(&a->item[i], v, a->keys[i]);
		}
}

START_TEST(test_cli_json)
{
	const char *path = figure1();
	struct tool_out r, i;
	struct jval *rep, *imp;
	const struct jval *nodes, *ccdg;
	struct e2e t;

	e2e_init(&t);
	r = tool_run((const char *[]){ tool_path("ccsg"), "report", "--db",
				       path, "--format=json", NULL });
	e2e_assert_exit(r.status, 0, "ccsg report");
	i = impact(path, "--format=json",
		   "reduction on processor group { D } by 20% to function "
		   "{ say_it }");
	e2e_assert_exit(i.status, 0, "ccsg impact");
	{
		struct jv v;
		const char *why = json_invalid(i.out, &v);

		ck_assert_msg(!why, "invalid JSON: %s", why);
	}
	rep = json_parse(r.out, "report");
	imp = json_parse(i.out, "impact");
	assert_same(rep, imp, "impact vs report");
	nodes = json_need(imp, "nodes", J_ARR, "impact");
	for (int n = 0; n < nodes->n; n++) {
		const struct jval *x = &nodes->item[n];
		const char *name = json_need(x, "name", J_STR, "node")->str;
		const struct jval *d =
			json_need(x, "self_cpu_us_delta", J_ARR, name);
		int say = !strcmp(name, "0x20000001::say_it");

		json_need(x, "self_cpu_us_after", J_ARR, name);
		json_need(x, "desc_cpu_us_after", J_ARR, name);
		json_need(x, "desc_cpu_us_delta", J_ARR, name);
		ck_assert_int_eq(d->n, 4);
		ck_assert_msg(d->item[3].num == (say ? -1560.0 : 0.0), "%s: %g",
			      name, d->item[3].num);
		ck_assert_int_eq(json_need(x, "affected", J_BOOL, name)->num,
				 say || !strcmp(name, "0x20000001::foo") ||
					 !strcmp(name, "<main>"));
	}
	ccdg = json_need(imp, "ccdg", J_OBJ, "impact");
	ck_assert_int_eq(json_need(ccdg, "nodes", J_ARR, "ccdg")->n, 3);
	ck_assert_int_eq(json_need(ccdg, "edges", J_ARR, "ccdg")->n, 2);
	{
		const struct jval *c =
			&json_need(imp, "changes", J_ARR, "impact")->item[0];

		ck_assert_str_eq(json_need(c, "kind", J_STR, "change")->str,
				 "reduction");
		ck_assert_str_eq(json_need(c, "factor", J_STR, "change")->str,
				 "4/5");
		ck_assert_int_eq(json_need(c, "calls", J_NUM, "change")->num,
				 3);
	}
	ck_assert(strstr(json_need(json_need(imp, "latency", J_OBJ, "impact"),
				   "estimate", J_STR, "latency")
				 ->str,
			 "critical path"));
	json_free(rep);
	json_free(imp);
	tool_out_release(&r);
	tool_out_release(&i);
	e2e_release(&t);
	unlink(path);
}
END_TEST

/* text, xml and dot say what changed, and that latency is an estimate */
START_TEST(test_cli_formats)
{
	const char *path = figure1();
	const char *spec = "increase on processor group { B } by 50% to "
			   "function { times }";
	struct tool_out r;
	struct e2e t;

	e2e_init(&t);
	r = impact(path, "--format=text", spec);
	e2e_assert_exit(r.status, 0, "ccsg impact");
	ck_assert(strstr(r.out, "increase on processor group { B } by 50% to "
				"function { times };"));
	ck_assert(strstr(r.out, "*      2.700 ->      4.050     +1.350"));
	ck_assert(strstr(r.out, "CPU Consumption Delta Graph"));
	ck_assert(strstr(r.out, "This is an estimate: it assumes"));
	ck_assert(strstr(r.out, "host is not saturated"));
	tool_out_release(&r);
	r = impact(path, "--format=xml", spec);
	e2e_assert_exit(r.status, 0, "ccsg impact --format=xml");
	ck_assert(strstr(r.out, "<ccdg>") &&
		  strstr(r.out, "affected=\"true\"") &&
		  strstr(r.out,
			 "self_cpu_us_delta=\"0.000 1350.000 0.000 0.000\""));
	tool_out_release(&r);
	r = impact(path, "--format=dot", spec);
	e2e_assert_exit(r.status, 0, "ccsg impact --format=dot");
	ck_assert(strstr(r.out, "fillcolor=\"lightpink\"") &&
		  strstr(r.out, "fillcolor=\"grey92\"") &&
		  !strstr(r.out, "palegreen"));
	tool_out_release(&r);
	r = impact(path, "--format=dot",
		   "reduction on all by 50% to function { times }");
	ck_assert(strstr(r.out, "fillcolor=\"palegreen\""));
	tool_out_release(&r);
	e2e_release(&t);
	unlink(path);
}
END_TEST

/* exit 2 for a malformed change, 1 for a name the trace lacks */
START_TEST(test_cli_errors)
{
	const char *path = figure1();
	struct tool_out r;
	struct e2e t;

	e2e_init(&t);
	r = impact(path, "--format=text",
		   "reduction on all by 150% to function { times }");
	e2e_assert_exit(r.status, 2, "150%");
	ck_assert_str_eq(r.err,
			 "ccsg: error: --change 1: column 21: a reduction "
			 "is by more than 0% and at most 100%, not "
			 "'150%' (an increase can be up to 10000%)\n");
	tool_out_release(&r);
	r = impact(path, "--format=text",
		   "reduction on processor { Q } by 10% to function { times }");
	e2e_assert_exit(r.status, 1, "unknown host");
	ck_assert(strstr(r.err, "no host 'Q'") && !*r.out);
	tool_out_release(&r);
	r = tool_run((const char *[]){ tool_path("ccsg"), "impact", "--db",
				       path, NULL });
	e2e_assert_exit(r.status, 2, "no change");
	tool_out_release(&r);
	r = tool_run((const char *[]){ tool_path("ccsg"), "impact", "--db",
				       path, "--changes", "/nonexistent",
				       NULL });
	e2e_assert_exit(r.status, 1, "missing --changes file");
	tool_out_release(&r);
	e2e_release(&t);
	unlink(path);
}
END_TEST

Suite *ccsg_impact_suite(void)
{
	Suite *s = suite_create("ccsg_impact");
	TCase *tc = tcase_create("impact");

	e2e_add_fixture(tc);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_figure1_say_it);
	tcase_add_test(tc, test_one_host_only);
	tcase_add_test(tc, test_recursion);
	tcase_add_test(tc, test_threads);
	tcase_add_test(tc, test_thread_of_thread);
	tcase_add_test(tc, test_inverse);
	tcase_add_test(tc, test_unknown_names);
	tcase_add_test(tc, test_syntax);
	tcase_add_test(tc, test_cli_json);
	tcase_add_test(tc, test_cli_formats);
	tcase_add_test(tc, test_cli_errors);
	suite_add_tcase(s, tc);
	return s;
}
