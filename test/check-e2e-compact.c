/*
 * check-e2e-compact.c - end to end: `ccsg compact` on a real trace of
 * Figure 1 of the CPU paper (examples/figure1/ on four simulated hosts,
 * e2e-figure1.h), traced, merged, then compacted (issue 11).
 *
 *   by_host  the DSCG and the CCSG by location folded to one element (the
 *            host): main's host A calls B, C and D, each with the CPU its
 *            programs burned and the calls it served; then host D opened
 *            locally down to its function while B and C stay folded, and
 *            compacted back to the same tree
 *   by_name  the CCSG by name (the .x's names, --idl) folded to its
 *            interface, all six calls in one node; expanding it twice gives
 *            the uncompacted tree back
 *
 * Tolerance against what was burned: 10% + 1 ms (fig1_near).
 */
#include "e2e-figure1.h"
#include "tool-run.h"

/* `ccsg compact --db DB --idl figure1.x ARGS...`: exit 0, nothing on
 * stderr; stdout (the caller frees it). */
static char *compact_run(struct e2e *t, const char *const *args)
{
	char idl[PATH_MAX];
	const char *argv[32] = { tool_path("ccsg"), "compact", "--db", t->db,
				 "--idl",	    idl };
	struct tool_out r;
	int n = 6;

	e2e_fmt(idl, sizeof(idl), "%s/examples/figure1/gen/figure1.x",
		e2e_build());
	for (int i = 0; args[i] && n < 31; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	r = tool_run(argv);
	e2e_assert_exit(r.status, 0, "ccsg compact");
	ck_assert_msg(!r.err[0], "ccsg compact: %s", r.err);
	free(r.err);
	return r.out;
}

static struct jval *compact_json(struct e2e *t, const char *const *args)
{
	const char *a[32];
	char *out;
	struct jval *doc;
	int n = 0;

	a[n++] = "--format=json";
	for (int i = 0; args[i] && n < 31; i++)
		a[n++] = args[i];
	a[n] = NULL;
	out = compact_run(t, a);
	doc = json_parse(out, "ccsg compact --format=json");
	free(out);
	return doc;
}

/* The child of node called name, or NULL. */
static const struct jval *child(const struct jval *node, const char *name)
{
	const struct jval *c = json_need(node, "children", J_ARR, "node");

	for (int i = 0; i < c->n; i++)
		if (!strcmp(json_need(&c->item[i], "name", J_STR, "node")->str,
			    name))
			return &c->item[i];
	return NULL;
}

static const struct jval *need_child(const struct jval *node, const char *name)
{
	const struct jval *c = child(node, name);

	ck_assert_msg(c, "no node '%s' under '%s'", name,
		      json_get(node, "name") ? json_get(node, "name")->str
					     : "the top");
	return c;
}

static double num(const struct jval *node, const char *key)
{
	return json_need(node, key, J_NUM, key)->num;
}

static int nchildren(const struct jval *node)
{
	return json_need(node, "children", J_ARR, "node")->n;
}

/*
 * Host h (B, C or D) folded under host A: a leaf with all the CPU its
 * server burned (self = total), the calls it served, and its original
 * nodes (calls and what_to_say's threads).
 */
static void assert_host(const struct jval *a, struct fig1_deploy *d, char role,
			double calls, double nodes)
{
	const struct fig1_server *s = fig1_serving(d, role);
	const struct jval *h = need_child(a, s->host);
	char what[64];

	e2e_fmt(what, sizeof(what), "%s under hostA: total", s->host);
	fig1_near(num(h, "total"), s->burned_us, what);
	ck_assert_msg(num(h, "self") == num(h, "total"), "%s: self %f", what,
		      num(h, "self"));
	ck_assert_int_eq(nchildren(h), 0);
	ck_assert_int_eq(num(h, "calls"), calls);
	ck_assert_int_eq(num(h, "nodes"), nodes);
	ck_assert_int_eq(json_need(h, "elements", J_ARR, what)->n, 1);
}

/* Host A at level 1: it calls B, C and D and nothing else, and holds
 * foo's CPU besides what it calls.  Its original nodes: in the DSCG one a
 * call and one a thread, in the CCSG one a function (by object) and one
 * for what_to_say's threads. */
static const struct jval *assert_host_a(const struct jval *main_,
					struct fig1_deploy *d, int dscg)
{
	const struct jval *a = need_child(main_, "hostA");
	double below = 0;
	const struct jval *c = json_need(a, "children", J_ARR, "hostA");

	ck_assert_msg(nchildren(a) == 3, "hostA calls %d hosts, not 3",
		      nchildren(a));
	assert_host(a, d, 'B', 1, 1);
	assert_host(a, d, 'C', 1, dscg ? 1 + FIG1_THREADS : 2);
	assert_host(a, d, 'D', FIG1_SAY_TIMES, dscg ? FIG1_SAY_TIMES : 1);
	for (int i = 0; i < c->n; i++)
		below += num(&c->item[i], "total");
	ck_assert_int_eq(num(a, "calls"), 1); /* foo */
	/* foo's own CPU, and no more than host A's programs measured */
	ck_assert_msg(num(a, "self") >= 0.9 * FIG1_FOO_US - 1000 &&
			      num(a, "self") <=
				      1.1 * (fig1_serving(d, 'A')->cpu_us +
					     d->client_cpu_us) +
					      1000,
		      "hostA: self %.0f us (foo burned %d, host A's programs "
		      "used %.0f)",
		      num(a, "self"), FIG1_FOO_US,
		      fig1_serving(d, 'A')->cpu_us + d->client_cpu_us);
	ck_assert_msg(fabs(num(a, "total") - num(a, "self") - below) < 1,
		      "hostA: total %f, self %f, below %f", num(a, "total"),
		      num(a, "self"), below);
	return a;
}

START_TEST(test_by_host)
{
	static const char *const dscg1[] = { "--tree=dscg",
					     "--hierarchy=location", "--level",
					     "1", NULL };
	static const char *const ccsg1[] = { "--tree=ccsg",
					     "--hierarchy=location", "--level",
					     "1", NULL };
	struct fig1_deploy d = fig1_four_hosts;
	char proc[64], fn[96], p[3][160];
	const struct jval *m, *a, *x;
	struct jval *doc;
	char *folded, *again;
	struct e2e t;

	rpc_isolate();
	e2e_init(&t);
	fig1_run(&t, &d);

	/* the DSCG: main on A calls foo on A, which calls B, C and D; the
	 * servers' own threads (dispatch loops) are top-level nodes of their
	 * hosts, so the top holds the four hosts and nothing else */
	doc = compact_json(&t, dscg1);
	m = need_child(doc, "<main>");
	ck_assert_int_eq(nchildren(m), 4);
	for (int i = 0; i < d.n; i++)
		need_child(m, d.s[i].host);
	assert_host_a(m, &d, 1);
	fig1_near(num(m, "total"), FIG1_TOTAL_US + 0.0,
		  "<main> total against the burned CPU");
	json_free(doc);

	/* the CCSG: the same hosts, and the runtime nodes beside host A */
	doc = compact_json(&t, ccsg1);
	m = need_child(doc, "<main>");
	assert_host_a(m, &d, 0);
	ck_assert_int_eq(nchildren(m), 3);
	need_child(m, "<serving threads>");
	need_child(m, "<threads of main>");
	json_free(doc);

	/* host D opened locally, element by element, down to its function;
	 * B and C stay folded */
	e2e_fmt(proc, sizeof(proc), "hostD::figure1-server[%d]",
		(int)fig1_serving(&d, 'D')->pid);
	e2e_fmt(fn, sizeof(fn), "%s::FIG1_PROG::SAY_IT", proc);
	e2e_fmt(p[0], sizeof(p[0]), "expand <main>;hostA;hostD");
	e2e_fmt(p[1], sizeof(p[1]), "expand <main>;hostA;%s", proc);
	e2e_fmt(p[2], sizeof(p[2]), "expand <main>;hostA;%s::FIG1_PROG", proc);
	{
		const char *args[] = { "--tree=dscg", "--hierarchy=location",
				       "--level",     "1",
				       "--action",    p[0],
				       "--action",    p[1],
				       "--action",    p[2],
				       NULL };

		doc = compact_json(&t, args);
	}
	a = need_child(need_child(doc, "<main>"), "hostA");
	ck_assert_int_eq(nchildren(a), 3);
	need_child(a, "hostB");
	need_child(a, "hostC");
	x = need_child(a, fn);
	ck_assert_int_eq(num(x, "calls"), FIG1_SAY_TIMES);
	ck_assert_int_eq(json_need(x, "elements", J_ARR, fn)->n, 4);
	fig1_near(num(x, "total"), fig1_serving(&d, 'D')->burned_us, fn);
	json_free(doc);

	/* and compacted back, node by node: the tree folded by host again */
	folded = compact_run(&t, dscg1);
	e2e_fmt(p[0], sizeof(p[0]), "compact <main>;hostA;%s", fn);
	e2e_fmt(p[1], sizeof(p[1]), "compact <main>;hostA;%s::FIG1_PROG", proc);
	e2e_fmt(p[2], sizeof(p[2]), "compact <main>;hostA;%s", proc);
	{
		char e1[160], e2[160], e3[160];
		const char *args[] = { "--tree=dscg", "--hierarchy=location",
				       "--level",     "1",
				       "--action",    e1,
				       "--action",    e2,
				       "--action",    e3,
				       "--action",    p[0],
				       "--action",    p[1],
				       "--action",    p[2],
				       NULL };

		e2e_fmt(e1, sizeof(e1), "expand <main>;hostA;hostD");
		e2e_fmt(e2, sizeof(e2), "expand <main>;hostA;%s", proc);
		e2e_fmt(e3, sizeof(e3), "expand <main>;hostA;%s::FIG1_PROG",
			proc);
		again = compact_run(&t, args);
	}
	ck_assert_msg(!strcmp(again, folded),
		      "expanded and compacted back:\n%s\nwas:\n%s", again,
		      folded);
	free(again);
	free(folded);
	e2e_release(&t);
}
END_TEST

START_TEST(test_by_name)
{
	static const char *const whole[] = { "--tree=ccsg", NULL };
	static const char *const level1[] = { "--tree=ccsg", "--level", "1",
					      NULL };
	static const char *const opened[] = {
		"--tree=ccsg",
		"--level",
		"1",
		"--action",
		"expand <main>;FIG1_PROG",
		"--action",
		"expand <main>;FIG1_PROG::FIG1_VERS",
		NULL
	};
	struct fig1_deploy d = fig1_four_hosts;
	const struct jval *m, *x, *th;
	char *full, *again;
	struct jval *doc;
	struct e2e t;

	rpc_isolate();
	e2e_init(&t);
	fig1_run(&t, &d);

	/* the interface: every call of the run in one node, foo's callees
	 * merged into it; what_to_say's threads below it */
	doc = compact_json(&t, level1);
	m = need_child(doc, "<main>");
	x = need_child(m, "FIG1_PROG");
	ck_assert_int_eq(num(x, "calls"), 1 + 1 + 1 + FIG1_SAY_TIMES);
	ck_assert_int_eq(num(x, "nodes"), 4);
	ck_assert_int_eq(nchildren(x), 1);
	th = need_child(x, "<threads of FIG1_PROG::WHAT_TO_SAY>");
	fig1_near(num(th, "total"), FIG1_THREADS * FIG1_THREAD_US,
		  "what_to_say's threads");
	fig1_near(num(x, "total"), FIG1_TOTAL_US + 0.0, "FIG1_PROG total");
	fig1_near(num(x, "self"),
		  FIG1_TOTAL_US - FIG1_THREADS * FIG1_THREAD_US + 0.0,
		  "FIG1_PROG self");
	json_free(doc);

	/* opened again: the tree as it was */
	full = compact_run(&t, whole);
	ck_assert_ptr_nonnull(strstr(full, "\n  FIG1_PROG::FIG1_VERS::FOO [x"));
	again = compact_run(&t, opened);
	ck_assert_msg(!strcmp(again, full), "expanded:\n%s\nwhole:\n%s", again,
		      full);
	free(again);
	free(full);
	e2e_release(&t);
}
END_TEST

Suite *e2e_compact_suite(void)
{
	Suite *s = suite_create("e2e-compact");
	TCase *tc = tcase_create("compact");

	tcase_set_timeout(tc, E2E_TIMEOUT);
	e2e_add_fixture(tc);
	tcase_add_test(tc, test_by_host);
	tcase_add_test(tc, test_by_name);
	suite_add_tcase(s, tc);
	return s;
}
