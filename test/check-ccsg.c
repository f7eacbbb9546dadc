/*
 * check-ccsg.c - the CCSG engine on small traces: Figure 1 of the CPU
 * paper, recursion, processor groups, latency, bad databases.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ccsg-fixture.h"
#include "json-read.h"
#include "ccsg-export-compare.h"
#include "ccsg-stream-compare.h"
#include "ccsg.h"
#include "latency.h"
#include "names.h"
#include "output.h"

#define FOO 1
#define TIMES 2
#define WTS 3
#define SAY 4
#define CHAIN "00000000000000000000000000000000000000aa"

/*
 * Figure 1: main (client, host A) calls foo (A), which calls times (B),
 * what_to_say (C, which spawns two threads of 2.0 ms) and say_it (D) three
 * times.  Every stub costs 100 us on the client side.
 */
static const char *figure1(void)
{
	long long cpu = 0;

	fx_open();
	fx_host(1, "A");
	fx_host(2, "B");
	fx_host(3, "C");
	fx_host(4, "D");
	fx_proc(1, 1);		/* the client */
	fx_proc(2, 1);		/* foo */
	fx_proc(3, 2);		/* times */
	fx_proc(4, 3);		/* what_to_say */
	fx_proc(5, 4);		/* say_it */
	/* foo's skeleton: 3200 own + 5 child stubs of 100 */
	{
		long long ev[4] = { 0, 1, 22, 23 }, c[4] = { 0, 1000, 1000 + 3700, 100 };

		fx_call(CHAIN, 0x20000001, FOO, "foo_1", 1, 1, 2, 1, 11, ev, c);
	}
	{
		long long ev[4] = { 2, 3, 4, 5 }, c[4] = { 1000, 500, 500 + 2700, 1100 };

		fx_call(CHAIN, 0x20000001, TIMES, "times_1", 2, 1, 3, 1, 21, ev, c);
	}
	{
		long long ev[4] = { 6, 7, 8, 9 }, c[4] = { 1100, 0, 3000, 1200 };

		fx_call(CHAIN, 0x20000001, WTS, "what_to_say_1", 2, 1, 4, 1, 31, ev, c);
	}
	{
		static const long long self[3] = { 2600, 2500, 2700 };

		cpu = 1200;
		for (int i = 0; i < 3; i++) {
			long long ev[4] = { 10 + 4 * i, 11 + 4 * i, 12 + 4 * i, 13 + 4 * i };
			long long c[4] = { cpu, 10000 * i, 10000 * i + self[i], cpu + 100 };

			fx_call(CHAIN, 0x20000001, SAY, "say_it_1", 2, 1, 5, 1, 51 + i, ev, c);
			cpu += 100;
		}
	}
	/* what_to_say's two threads: function-spawn-thread */
	fx_thread(4, 2, 1, 2000, 31);
	fx_thread(4, 3, 1, 2000, 31);
	return fx_close();
}

struct loaded {
	struct ccsg_trace t;
	struct ccsg_dscg d;
	struct ccsg_dims dims;
	struct ccsg_graph g;
	struct idl_names nm;
};

static void load(struct loaded *l, const char *path, const char *groups, int by_object)
{
	ck_assert_int_eq(ccsg_trace_load(&l->t, path), 0);
	ck_assert_int_eq(ccsg_dscg_build(&l->d, &l->t), 0);
	if (groups) {
		FILE *f = fmemopen((void *)groups, strlen(groups), "r");

		ck_assert_int_eq(ccsg_dims_parse(&l->dims, &l->t, f, "groups"), 0);
		fclose(f);
	} else {
		ck_assert_int_eq(ccsg_dims_hosts(&l->dims, &l->t), 0);
	}
	ck_assert_int_eq(ccsg_graph_build(&l->g, &l->d, &l->dims, by_object), 0);
	idl_names_init(&l->nm);
	ck_assert_int_eq(ccsg_graph_name(&l->g, &l->nm), 0);
	/* `ccsg report` streams: the same graph, node by node */
	sc_compare(path, &l->g, groups);
	/* and `ccsg export`: the same bytes */
	if (!groups && !by_object)
		xc_compare(path, &l->g);
}

static void unload(struct loaded *l, const char *path)
{
	ccsg_graph_release(&l->g);
	ccsg_dims_release(&l->dims);
	ccsg_dscg_release(&l->d);
	ccsg_trace_release(&l->t);
	idl_names_release(&l->nm);
	unlink(path);
}

static int node_named(const struct ccsg_graph *g, const char *name)
{
	for (size_t i = 0; i < g->nnodes; i++)
		if (!strcmp(g->nodes[i].name, name))
			return (int)i;
	ck_abort_msg("no node '%s'", name);
	return -1;
}

static void assert_vec(const int64_t *v, double a, double b, double c, double d)
{
	const double want[4] = { a, b, c, d };

	for (int i = 0; i < 4; i++)
		ck_assert_msg(llabs(v[i] - (int64_t)llround(want[i] * 1000)) == 0,
			      "entry %d: %lld ns, want %.1f us", i, (long long)v[i], want[i]);
}

static const struct ccsg_edge *edge(const struct ccsg_graph *g, int from, int to)
{
	for (size_t i = 0; i < g->nedges; i++)
		if (g->edges[i].from == from && g->edges[i].to == to)
			return &g->edges[i];
	ck_abort_msg("no edge %d -> %d", from, to);
	return NULL;
}

START_TEST(test_figure1)
{
	const char *path = figure1();
	struct loaded l;
	int foo, times, wts, say, thr;

	load(&l, path, NULL, 0);
	ck_assert_int_eq(l.d.stats.broken_chains, 0);
	ck_assert_int_eq(l.d.stats.max_depth, 2);
	foo = node_named(&l.g, "0x20000001::foo");
	times = node_named(&l.g, "0x20000001::times");
	wts = node_named(&l.g, "0x20000001::what_to_say");
	say = node_named(&l.g, "0x20000001::say_it");
	thr = node_named(&l.g, "<threads of 0x20000001::what_to_say>");
	assert_vec(l.g.nodes[foo].self, 3200, 0, 0, 0);
	assert_vec(l.g.nodes[foo].desc, 0, 2700, 7000, 7800);
	assert_vec(l.g.nodes[times].self, 0, 2700, 0, 0);
	assert_vec(l.g.nodes[wts].self, 0, 0, 3000, 0);
	assert_vec(l.g.nodes[wts].desc, 0, 0, 4000, 0);
	assert_vec(l.g.nodes[thr].self, 0, 0, 4000, 0);
	assert_vec(l.g.nodes[say].self, 0, 0, 0, 7800);
	assert_vec(l.g.nodes[0].desc, 3200, 2700, 7000, 7800);
	assert_vec(l.g.nodes[0].self, 0, 0, 0, 0);
	ck_assert_int_eq(l.g.nodes[say].calls, 3);
	ck_assert_int_eq(l.g.nodes[thr].threads, 2);
	ck_assert_int_eq(l.g.nodes[thr].parent, wts);
	ck_assert_int_eq(edge(&l.g, 0, foo)->count, 1);
	ck_assert_int_eq(edge(&l.g, foo, say)->count, 3);
	ck_assert_int_eq(edge(&l.g, foo, times)->count, 1);
	ck_assert_int_eq(edge(&l.g, wts, thr)->count, 2);
	for (size_t i = 0; i < l.g.nedges; i++)
		ck_assert(l.g.edges[i].primary);
	ck_assert_int_eq(l.g.nedges, 5);
	unload(&l, path);
}
END_TEST

START_TEST(test_groups)
{
	const char *path = figure1();
	struct loaded l;

	load(&l, path, "# two groups\nfast: A B\nslow: C\n", 0);
	ck_assert_int_eq(l.dims.n, 3);
	ck_assert_str_eq(l.dims.names[2], "D");
	{
		int foo = node_named(&l.g, "0x20000001::foo");

		ck_assert_int_eq(l.g.nodes[foo].desc[0], 2700 * US);
		ck_assert_int_eq(l.g.nodes[foo].desc[1], 7000 * US);
		ck_assert_int_eq(l.g.nodes[foo].desc[2], 7800 * US);
	}
	/* an unknown host, a host twice, no colon: errors */
	{
		static const char *const bad[] = { "g: A Z\n", "g: A\nh: A\n", "A B\n" };

		for (int i = 0; i < 3; i++) {
			struct ccsg_dims dims;
			FILE *f = fmemopen((void *)bad[i], strlen(bad[i]), "r");

			ck_assert_int_lt(ccsg_dims_parse(&dims, &l.t, f, "groups"), 0);
			fclose(f);
		}
	}
	unload(&l, path);
}
END_TEST

START_TEST(test_by_object_and_latency)
{
	const char *path = figure1();
	struct ccsg_latency *lat;
	struct loaded l;
	size_t n;

	load(&l, path, NULL, 1);
	ck_assert_int_eq(ccsg_latency_build(&l.g, &lat, &n), 0);
	ck_assert_int_eq(n, 4);
	/* foo: events 0 to 23, 10 us each: 230 us; say_it 30 us each */
	for (size_t i = 0; i < n; i++) {
		const struct ccsg_node *x = &l.g.nodes[lat[i].node];

		if (x->proc == FOO) {
			ck_assert_int_eq(lat[i].max, 230 * US);
			/* children: 5 calls of 30 us */
			ck_assert(fabs(lat[i].children_share - 150.0 / 230) < 1e-9);
		}
		if (x->proc == SAY) {
			ck_assert_int_eq(lat[i].calls, 3);
			ck_assert_int_eq(lat[i].median, 30 * US);
			ck_assert(lat[i].sd == 0);
		}
	}
	free(lat);
	unload(&l, path);
}
END_TEST

/* R on one server calls itself twice, nested: one node, R -> R secondary. */
START_TEST(test_recursion)
{
	struct loaded l;
	const char *path;
	int r;

	fx_open();
	fx_host(1, "A");
	fx_proc(1, 1);
	fx_proc(2, 1);
	{
		long long e1[4] = { 0, 1, 10, 11 }, c1[4] = { 0, 0, 1200, 100 };
		long long e2[4] = { 2, 3, 8, 9 }, c2[4] = { 500, 0, 1100, 600 };
		long long e3[4] = { 4, 5, 6, 7 }, c3[4] = { 300, 0, 1000, 400 };

		fx_call(CHAIN, 0x20000002, 6, "r_1", 1, 1, 2, 1, 1, e1, c1);
		fx_call(CHAIN, 0x20000002, 6, "r_1", 2, 1, 2, 2, 2, e2, c2);
		fx_call(CHAIN, 0x20000002, 6, "r_1", 2, 2, 2, 3, 3, e3, c3);
	}
	path = fx_close();
	load(&l, path, NULL, 0);
	ck_assert_int_eq(l.d.stats.max_depth, 3);
	ck_assert_int_eq(l.d.stats.broken_chains, 0);
	r = node_named(&l.g, "0x20000002::r");
	ck_assert_int_eq(l.g.nodes[r].calls, 3);
	/* self: 1100 + 1000 + 1000 us; desc: R1 2000 + R2 1000 */
	ck_assert_int_eq(l.g.nodes[r].self[0], 3100 * US);
	ck_assert_int_eq(l.g.nodes[r].desc[0], 3000 * US);
	ck_assert_int_eq(l.g.nodes[0].desc[0], 3100 * US);
	ck_assert_int_eq(edge(&l.g, r, r)->count, 2);
	ck_assert(!edge(&l.g, r, r)->primary);
	ck_assert(edge(&l.g, 0, r)->primary);
	unload(&l, path);
}
END_TEST

START_TEST(test_bad_databases)
{
	struct ccsg_trace t;
	char path[PATH_MAX];
	int fd = mkstemp(test_tmp_name(path, sizeof(path), "ccsg-bad-XXXXXX"));

	ck_assert_int_lt(ccsg_trace_load(&t, "/nonexistent/trace.db"), 0);
	ck_assert_int_eq(write(fd, "not a database at all, just text\n", 33), 33);
	close(fd);
	ck_assert_int_lt(ccsg_trace_load(&t, path), 0);
	unlink(path);
	/* the schema, but nothing traced */
	fx_open();
	ck_assert_int_lt(ccsg_trace_load(&t, fx_close()), 0);
	unlink(fx_path);
	/* an SQLite database of something else */
	ck_assert_int_eq(sqlite3_open(path, &fx_db), SQLITE_OK);
	fx_exec("CREATE TABLE t(x)");
	sqlite3_close(fx_db);
	ck_assert_int_lt(ccsg_trace_load(&t, path), 0);
	unlink(path);
}
END_TEST

START_TEST(test_threads_only)
{
	struct loaded l;
	const char *path;

	fx_open();
	fx_host(1, "A");
	fx_proc(1, 1);
	fx_thread(1, 1, 0, 500, -1);
	fx_thread(1, 2, 1, 700, -1);
	path = fx_close();
	load(&l, path, NULL, 0);
	ck_assert_int_eq(l.g.nodes[0].desc[0], 1200 * US);
	ck_assert_int_eq(l.g.nnodes, 2);
	unload(&l, path);
}
END_TEST

/*
 * A server's main thread served a call: once its skeleton is taken out,
 * what is left (the dispatch loop) goes to <serving threads>, apart from
 * the client's main thread under <threads of main>; the total is kept.
 */
static void assert_vec2(const int64_t *v, double a, double b)
{
	ck_assert_int_eq(v[0], (int64_t)llround(a * 1000));
	ck_assert_int_eq(v[1], (int64_t)llround(b * 1000));
}

START_TEST(test_serving_threads)
{
	long long ev[4] = { 0, 1, 2, 3 }, c[4] = { 0, 500, 2500, 100 };
	struct loaded l;
	const char *path;
	int serving, mains, fn;

	fx_open();
	fx_host(1, "A");
	fx_host(2, "B");
	fx_proc(1, 1);			/* the client */
	fx_proc(2, 2);			/* the server */
	fx_thread(1, 1, 0, 900, -1);
	fx_thread(2, 1, 0, 3000, -1);
	fx_call(CHAIN, 0x20000001, 1, "f_1", 1, 1, 2, 1, 11, ev, c);
	path = fx_close();
	load(&l, path, NULL, 0);
	fn = node_named(&l.g, "0x20000001::f");
	serving = node_named(&l.g, "<serving threads>");
	mains = node_named(&l.g, "<threads of main>");
	assert_vec2(l.g.nodes[fn].self, 0, 2000);
	assert_vec2(l.g.nodes[serving].self, 0, 1000);
	ck_assert_int_eq(l.g.nodes[serving].threads, 1);
	ck_assert_int_eq(l.g.nodes[serving].parent, 0);
	/* the client's main: its CPU less the stub of the chain it started */
	assert_vec2(l.g.nodes[mains].self, 800, 0);
	ck_assert_int_eq(l.g.nodes[mains].threads, 1);
	assert_vec2(l.g.nodes[0].desc, 800, 3000);
	unload(&l, path);
}
END_TEST

/* The function node of procedure proc (program 7), or -1. */
static int fn_node(const struct ccsg_graph *g, uint32_t proc)
{
	for (size_t i = 0; i < g->nnodes; i++)
		if (g->nodes[i].kind == CCSG_FUNCTION && g->nodes[i].proc == proc)
			return (int)i;
	return -1;
}

/* A printer's output as a string (free it). */
static char *report_text_of(const struct ccsg_graph *g, int format)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_int_eq(ccsg_report_print(f, g, format), 0);
	fclose(f);
	return buf;
}

/*
 * Calls whose start probe was dropped are shown as lost, never as a
 * function of program 0 ("0::proc0"): every function node is one of the
 * fixture's, in every format.
 */
START_TEST(test_no_phantom_functions)
{
	const char *path = fx_outcomes();
	struct loaded l;
	int nfn = 0;

	load(&l, path, NULL, 0);
	for (size_t i = 0; i < l.g.nnodes; i++) {
		const struct ccsg_node *x = &l.g.nodes[i];

		if (x->kind != CCSG_FUNCTION)
			continue;
		nfn++;
		ck_assert_msg(x->prog == 7 && x->proc >= FX_OK && x->proc <= FX_INCOMPLETE,
			      "node %zu '%s': program %u procedure %u", i, x->name, x->prog, x->proc);
	}
	ck_assert_int_eq(nfn, FX_INCOMPLETE);
	ck_assert_int_eq(l.d.stats.lost_starts, 2);
	for (int fmt = CCSG_TEXT; fmt <= CCSG_DOT; fmt++) {
		char *out = report_text_of(&l.g, fmt);

		ck_assert_msg(!strstr(out, "0::proc0") && !strstr(out, "\"program\": 0,"),
			      "format %d: %s", fmt, out);
		free(out);
	}
	unload(&l, path);
}
END_TEST

/*
 * Failed calls per function: the client's status decides (a one-way
 * call's RPC_TIMEDOUT is no failure), else the server's reply; shown in
 * every format of the report, and the summary counts them and the tags.
 */
START_TEST(test_failed_per_function)
{
	static const struct {
		int proc, failed;
	} want[] = {
		{ FX_OK, 0 }, { FX_TIMEDOUT, 1 }, { FX_NOPROC, 1 }, { FX_NOSERVER, 1 },
		{ FX_ONEWAY, 0 }, { FX_GARBAGE, 1 }, { FX_STALE, 0 }, { FX_PARENT, 0 },
		{ FX_CHILD, 0 }, { FX_NOSKELEND, 0 }, { FX_CLIENTLOST, 0 }, { FX_SERVERLOST, 0 },
		{ FX_INCOMPLETE, 0 },
	};
	const char *path = fx_outcomes();
	struct loaded l;
	char *out;

	load(&l, path, NULL, 0);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		int n = fn_node(&l.g, want[i].proc);

		ck_assert_int_ge(n, 0);
		ck_assert_msg(l.g.nodes[n].failed == want[i].failed, "%s: %lld failed",
			      l.g.nodes[n].name, (long long)l.g.nodes[n].failed);
	}
	/* the lost server side's system_err is the fifth */
	ck_assert_int_eq(l.d.stats.failed, 5);
	out = report_text_of(&l.g, CCSG_JSON);
	ck_assert_msg(strstr(out, "\"name\": \"7::timedout\", \"self_cpu_us\": [0.000, 0.000], "
			      "\"desc_cpu_us\": [0.000, 0.000], \"program\": 7, \"version\": 1, "
			      "\"procedure\": 2, \"calls\": 1, \"failed\": 1}"), "%s", out);
	ck_assert_msg(strstr(out, "\"failed_calls\": 5, ") &&
		      strstr(out, "\"tags\": {\"ok\": 6, \"incomplete\": 1, \"malformed\": 1, "
			      "\"stale\": 1}, \"reply_tags\": {\"absent\": 4, \"ok\": 2}"), "%s", out);
	free(out);
	out = report_text_of(&l.g, CCSG_XML);
	ck_assert_msg(strstr(out, "name=\"7::noproc\"") &&
		      strstr(out, "procedure=\"3\" calls=\"1\" failed=\"1\""), "%s", out);
	free(out);
	out = report_text_of(&l.g, CCSG_DOT);
	ck_assert_msg(strstr(out, "7::noserver\\nself 0.000 ms\\ndesc 0.000 ms\\n1 calls, 1 failed"),
		      "%s", out);
	free(out);
	out = report_text_of(&l.g, CCSG_TEXT);
	ck_assert_msg(strstr(out, "calls  failed") && strstr(out, "failed calls: 5 (") &&
		      strstr(out, "tags at the skeleton start: ok 6, incomplete 1, malformed 1, "
			      "stale 1") && strstr(out, "tags in the replies: absent 4, ok 2"), "%s",
		      out);
	free(out);
	unload(&l, path);
}
END_TEST

/*
 * Latency shares stay within 0-100% and add up to 100% for failed and
 * partial calls: a timed-out call whose server ran on (2.98 x the
 * client's wait: -198% and 298% before), a PROC_UNAVAIL whose skeleton
 * end precedes its start's exit (-1%), children longer than their
 * parent's server time, a lost skeleton end.
 */
START_TEST(test_latency_shares_bounded)
{
	const char *path = fx_outcomes();
	struct ccsg_latency *lat;
	struct loaded l;
	size_t n;

	load(&l, path, NULL, 0);
	ck_assert_int_eq(ccsg_latency_build(&l.g, &lat, &n), 0);
	for (size_t i = 0; i < n; i++) {
		const struct ccsg_latency *L = &lat[i];
		const struct ccsg_node *x = &l.g.nodes[L->node];
		double sh[4] = { L->network_share, L->server_share, L->children_share,
				 L->unknown_share };

		if (!L->calls)
			continue;
		for (int k = 0; k < 4; k++)
			ck_assert_msg(sh[k] >= 0 && sh[k] <= 1, "%s: share %d is %.4f", x->name, k,
				      sh[k]);
		ck_assert_msg(fabs(sh[0] + sh[1] + sh[2] + sh[3] - 1) < 1e-9, "%s: shares add to %f",
			      x->name, sh[0] + sh[1] + sh[2] + sh[3]);
		ck_assert_int_eq(L->failed, x->failed);
		switch (x->proc) {
		case FX_TIMEDOUT:	/* the server ran all the time the client waited */
			ck_assert(fabs(L->server_share - 1) < 1e-9);
			ck_assert_int_eq(L->max, 1000 * US);
			ck_assert_int_eq(L->failed, 1);
			ck_assert_int_eq(L->bounded, 1);
			break;
		case FX_NOPROC:		/* no time in the server */
			ck_assert(fabs(L->network_share - 1) < 1e-9);
			ck_assert_int_eq(L->failed, 1);
			ck_assert_int_eq(L->bounded, 1);
			break;
		case FX_PARENT:		/* the child fills the server's 500 us */
			ck_assert(fabs(L->network_share - 0.5) < 1e-9);
			ck_assert(fabs(L->children_share - 0.5) < 1e-9);
			ck_assert_int_eq(L->bounded, 1);
			break;
		case FX_OK:
			ck_assert_int_eq(L->bounded, 0);
			ck_assert_int_eq(L->failed, 0);
			break;
		case FX_ONEWAY:
			ck_assert_int_eq(L->failed, 0);
			break;
		case FX_NOSKELEND:	/* the server side has no length: no split */
		case FX_NOSERVER:
			ck_assert(fabs(L->unknown_share - 1) < 1e-9);
			break;
		}
	}
	free(lat);
	unload(&l, path);
}
END_TEST

/*
 * TOP (host A) calls MID (B) once, and LEAF (C) twice; MID calls LEAF
 * once, whose call spawns a thread.  LEAF's 7 ms of self CPU came 1 ms
 * by MID and 6 ms by TOP, and its thread's 0.5 ms by MID: each arc shows
 * its share (gprof's call graph does so), never LEAF's whole figure.
 */
static const char *mid_leaf(void)
{
	static const struct {
		int proc, cproc, sproc, sfid;
		long long ev[4], cpu[4];
	} calls[] = {
		/* TOP: 200 own + 3 child stubs of 100 */
		{ 1, 1, 2, 1, { 0, 1, 18, 19 }, { 0, 4000, 4500, 100 } },
		/* MID: 500 own + its child's stub */
		{ 2, 2, 3, 2, { 2, 3, 8, 9 }, { 5000, 1000, 1600, 5100 } },
		{ 3, 3, 4, 3, { 4, 5, 6, 7 }, { 1200, 0, 1000, 1300 } },
		{ 3, 2, 4, 4, { 10, 11, 12, 13 }, { 5200, 0, 3000, 5300 } },
		{ 3, 2, 4, 5, { 14, 15, 16, 17 }, { 5400, 0, 3000, 5500 } },
	};
	static const char *const sym[] = { NULL, "top_1", "mid_1", "leaf_1" };

	fx_open();
	fx_host(1, "A");
	fx_host(2, "B");
	fx_host(3, "C");
	fx_proc(1, 1); /* main */
	fx_proc(2, 1); /* TOP */
	fx_proc(3, 2); /* MID */
	fx_proc(4, 3); /* LEAF */
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		fx_call(CHAIN, 0x20000003, calls[i].proc, sym[calls[i].proc],
			calls[i].cproc, 1, calls[i].sproc, 1, calls[i].sfid,
			calls[i].ev, calls[i].cpu);
	fx_thread(4, 2, 1, 500, 3); /* spawned by the LEAF MID called */
	return fx_close();
}

/* The vector key of the edge from -> to in a report's JSON, in us. */
static void json_edge_vec(const struct jval *doc, int from, int to,
			  const char *key, double a, double b, double c)
{
	const struct jval *edges = json_need(doc, "edges", J_ARR, "report");
	const double want[3] = { a, b, c };

	for (int i = 0; i < edges->n; i++) {
		const struct jval *e = &edges->item[i], *v;

		if (json_need(e, "from", J_NUM, "edge")->num != from ||
		    json_need(e, "to", J_NUM, "edge")->num != to)
			continue;
		v = json_need(e, key, J_ARR, "edge");
		ck_assert_int_eq(v->n, 3);
		for (int j = 0; j < 3; j++)
			ck_assert_msg(fabs(v->item[j].num - want[j]) < 1e-9,
				      "edge %d -> %d %s[%d]: %.3f, want %.3f",
				      from, to, key, j, v->item[j].num,
				      want[j]);
		return;
	}
	ck_abort_msg("no edge %d -> %d in the JSON", from, to);
}

START_TEST(test_arc_shares)
{
	const char *path = mid_leaf();
	struct loaded l;
	int top, mid, leaf, thr;
	struct jval *doc;
	char *out, line[256];

	load(&l, path, NULL, 0);
	top = node_named(&l.g, "0x20000003::top");
	mid = node_named(&l.g, "0x20000003::mid");
	leaf = node_named(&l.g, "0x20000003::leaf");
	thr = node_named(&l.g, "<threads of 0x20000003::leaf>");
	ck_assert_int_eq(l.g.nodes[leaf].self[2], 7000 * US);
	ck_assert_int_eq(l.g.nodes[mid].desc[2], 1500 * US);
	out = report_text_of(&l.g, CCSG_JSON);
	doc = json_parse(out, "report --format=json");
	json_edge_vec(doc, mid, leaf, "self_cpu_us", 0, 0, 1000);
	json_edge_vec(doc, mid, leaf, "desc_cpu_us", 0, 0, 500);
	json_edge_vec(doc, top, leaf, "self_cpu_us", 0, 0, 6000);
	json_edge_vec(doc, top, leaf, "desc_cpu_us", 0, 0, 0);
	json_edge_vec(doc, top, mid, "self_cpu_us", 0, 500, 0);
	json_edge_vec(doc, top, mid, "desc_cpu_us", 0, 0, 1500);
	json_edge_vec(doc, leaf, thr, "self_cpu_us", 0, 0, 500);
	json_edge_vec(doc, 0, top, "self_cpu_us", 200, 0, 0);
	json_edge_vec(doc, 0, top, "desc_cpu_us", 0, 500, 7500);
	json_free(doc);
	free(out);
	/* the text: LEAF under MID with MID's share, under TOP with TOP's */
	out = report_text_of(&l.g, CCSG_TEXT);
	snprintf(line, sizeof(line),
		 "     1.000      0.500      1/3               "
		 "0x20000003::leaf [%d]\n",
		 leaf);
	ck_assert_msg(strstr(out, line), "no '%s' in %s", line, out);
	snprintf(line, sizeof(line),
		 "     6.000      0.000      2/3           0x20000003::top "
		 "[%d]\n",
		 top);
	ck_assert_msg(strstr(out, line), "no '%s' in %s", line, out);
	free(out);
	/* XML: a node's primary arc, and each secondary link */
	out = report_text_of(&l.g, CCSG_XML);
	ck_assert_msg(strstr(out, "arc_self_cpu_us=\"0.000 0.000 1000.000\" "
				  "arc_desc_cpu_us=\"0.000 0.000 500.000\"") ||
			      strstr(out,
				     "self_cpu_us=\"0.000 0.000 1000.000\" "
				     "desc_cpu_us=\"0.000 0.000 500.000\"/>"),
		      "%s", out);
	ck_assert_msg(strstr(out, "self_cpu_us=\"0.000 0.000 6000.000\""), "%s",
		      out);
	free(out);
	unload(&l, path);
}
END_TEST

/*
 * The paper's Section 5 scenario, only MID selected: A's client calls
 * TOP (B), TOP calls MID (C), MID calls LEAF (D).  B and C had the
 * selections `* * * off` then `* 0x20000003 2 on`; D none.  TOP and its
 * call from A were not recorded: its 8600 us (B's serving thread less
 * MID's stub) and C's loop go to <unmonitored>, the thread TOP spawned
 * (and its own) under it, never to <serving threads> (D's loop only) or
 * <threads of main> (A's client only).
 */
static const char *section5(void)
{
	static const char *const sel =
		"INSERT INTO monitor_switches VALUES"
		" (%d, 1, 0, 0, 'initial', 'semantics|latency|cpu|memory',"
		"  'semantics|latency|cpu|memory', NULL, NULL, NULL, NULL, 0),"
		" (%d, 2, 10, 1, 'select', 'semantics|latency|cpu|memory', '',"
		"  '*', '*', '*', 'off', 1),"
		" (%d, 3, 20, 2, 'select', 'semantics|latency|cpu|memory', '',"
		"  '*', '536870915', '2', 'on', 2);";
	/* MID (events 3-10, 2500 own) calls LEAF (5-8, 400 own) */
	static const long long mid_ev[4] = { 3, 4, 9, 10 },
			       mid_cpu[4] = { 5000, 1000, 4000, 5400 },
			       leaf_ev[4] = { 5, 6, 7, 8 },
			       leaf_cpu[4] = { 1500, 700, 1100, 2000 };
	char sql[1024];

	fx_open();
	fx_host(1, "A");
	fx_host(2, "B");
	fx_host(3, "C");
	fx_host(4, "D");
	for (int p = 1; p <= 4; p++)
		fx_proc(p, p);
	fx_thread(1, 1, 0, 1000, -1); /* the client's main */
	fx_thread(2, 1, 0, 9000, -1); /* TOP's server */
	fx_thread(2, 2, 1, 700, 77);  /* spawned by TOP (fid 77) */
	fx_thread(2, 3, 2, 300, 77);  /* ... and by that thread */
	fx_thread(3, 1, 0, 3500, -1); /* MID's server */
	fx_thread(4, 1, 0, 600, -1);  /* LEAF's server */
	fx_call(CHAIN, 0x20000003, 2, "mid_1", 2, 1, 3, 1, 1, mid_ev, mid_cpu);
	fx_call(CHAIN, 0x20000003, 3, "leaf_1", 3, 1, 4, 1, 2, leaf_ev,
		leaf_cpu);
	for (int p = 2; p <= 3; p++) {
		snprintf(sql, sizeof(sql), sel, p, p, p);
		fx_exec(sql);
	}
	return fx_close();
}

START_TEST(test_unmonitored_charged)
{
	const char *path = section5();
	struct loaded l;
	int un, unth, serving, main_th, mid, leaf;
	char *out;

	load(&l, path, NULL, 0);
	sc_arcs_add_up(&l.g);
	un = node_named(&l.g, "<unmonitored>");
	unth = node_named(&l.g, "<threads of <unmonitored>>");
	serving = node_named(&l.g, "<serving threads>");
	main_th = node_named(&l.g, "<threads of main>");
	mid = node_named(&l.g, "0x20000003::mid");
	leaf = node_named(&l.g, "0x20000003::leaf");
	/* TOP: B's thread less MID's stub; C's loop: its thread less MID */
	assert_vec(l.g.nodes[un].self, 0, 8600, 500, 0);
	assert_vec(l.g.nodes[un].desc, 0, 1000, 0, 0);
	assert_vec(l.g.nodes[unth].self, 0, 1000, 0, 0);
	ck_assert_int_eq(l.g.nodes[unth].threads, 2);
	ck_assert_int_eq(l.g.nodes[unth].parent, un);
	ck_assert_int_eq(l.g.nodes[un].parent, 0);
	assert_vec(l.g.nodes[serving].self, 0, 0, 0, 200);
	assert_vec(l.g.nodes[main_th].self, 1000, 0, 0, 0);
	ck_assert_int_eq(l.g.nodes[main_th].threads, 1);
	assert_vec(l.g.nodes[mid].self, 0, 0, 2500, 0);
	assert_vec(l.g.nodes[leaf].self, 0, 0, 0, 400);
	/* every figure somewhere: the threads' CPU less the stubs' */
	assert_vec(l.g.total, 1000, 9600, 3000, 600);
	/* the report says which selections were in force, and where */
	out = report_text_of(&l.g, CCSG_TEXT);
	ck_assert_msg(strstr(out, "  B pid 1002: from +0.000 s "
				  "semantics|latency|cpu|memory; from +0.000 s "
				  "semantics|latency|cpu|memory selected: "
				  "* * * off; from +0.000 s "
				  "semantics|latency|cpu|memory selected: "
				  "* * * off, * 536870915 2 on;\n"),
		      "%s", out);
	ck_assert_msg(!strstr(out, "  D pid"), "%s", out);
	free(out);
	unload(&l, path);
}
END_TEST

Suite *ccsg_suite(void)
{
	Suite *s = suite_create("ccsg");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_figure1);
	tcase_add_test(tc, test_groups);
	tcase_add_test(tc, test_by_object_and_latency);
	tcase_add_test(tc, test_recursion);
	tcase_add_test(tc, test_bad_databases);
	tcase_add_test(tc, test_threads_only);
	tcase_add_test(tc, test_serving_threads);
	tcase_add_test(tc, test_no_phantom_functions);
	tcase_add_test(tc, test_latency_shares_bounded);
	tcase_add_test(tc, test_failed_per_function);
	tcase_add_test(tc, test_arc_shares);
	tcase_add_test(tc, test_unmonitored_charged);
	suite_add_tcase(s, tc);
	return s;
}
