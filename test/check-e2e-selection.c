/*
 * check-e2e-selection.c - end to end: the paper's Section 5 scenario,
 * only the middle of the call tree selected, on the example of Figure 1
 * of the CPU paper (examples/figure1/) on four simulated hosts.
 *
 * main (figure1-client, hostA) calls foo (hostA), foo calls times (B),
 * what_to_say (C, two threads) and say_it three times (D).  The servers
 * apply `causalctl select '*' FIG1_PROG FOO off` before the client runs;
 * the client monitors nothing (CAUSAL_MONITOR=none: a coordinator's
 * selection could reach it only after its first call), so its call of
 * foo is unmonitored too.  So foo is not recorded, and its callees are,
 * selected (times, what_to_say, say_it: their own CPU as burned), the
 * threads of what_to_say by causal overriding.  foo's CPU (burned on
 * hostA's serving thread) must be in <unmonitored>, never in
 * <serving threads> or <threads of main>; the report, the exports
 * (chrome's metadata, OTLP's resources, folded's note on standard error)
 * and the viewer's /api/info say which selections were in force, where
 * and when.
 */
#include <math.h>

#include "e2e-figure1.h"
#include "e2e-monitor.h"
#include "serve-run.h"

#define OFF_FOO "* 0x20000f01 1 off"

/* The node named name in c's JSON: its self vector into self[], or
 * 0 when there is none. */
static int node_self(const struct fig1_ccsg *c, const char *name,
		     double self[FIG1_MAX_HOSTS])
{
	const struct jval *nodes = json_need(c->json, "nodes", J_ARR, "report");

	for (int i = 0; i < nodes->n; i++) {
		const struct jval *nd = &nodes->item[i], *v;

		if (strcmp(json_need(nd, "name", J_STR, "node")->str, name))
			continue;
		v = json_need(nd, "self_cpu_us", J_ARR, name);
		ck_assert_int_eq(v->n, c->nhosts);
		for (int h = 0; h < v->n; h++)
			self[h] = v->item[h].num;
		return 1;
	}
	memset(self, 0, sizeof(double) * FIG1_MAX_HOSTS);
	return 0;
}

static void select_top_off(struct e2e *t, struct fig1_deploy *d)
{
	char idl[PATH_MAX];

	e2e_fmt(idl, sizeof(idl), "%s/examples/figure1/gen/figure1.x",
		e2e_build());
	mon_wait_connected(t, d->n);
	mon_publish(t, ARGS("select", "--idl", idl, "*", "FIG1_PROG", "FOO",
			    "off"));
}

/* What the programs' threads on host h used once traced, in us: their
 * CPU less what ran before the tracer read their clocks, less stubs. */
static double traced_cpu_us(struct e2e *t, const char *host)
{
	return e2e_query_int(t->sql,
			     "SELECT coalesce(sum(t.cpu_ns), 0) FROM threads t "
			     "JOIN processes p USING (proc_id) JOIN hosts h "
			     "USING (host_id) WHERE h.name = '%s' AND t.marker "
			     "= 'user'",
			     host) /
	       1000.0;
}

/* The report's intervals of process host pid: the first, *n of them. */
static const struct jval *intervals_of(const struct jval *ivs, const char *host,
				       double pid, int *n)
{
	const struct jval *first = NULL;

	*n = 0;
	for (int i = 0; i < ivs->n; i++)
		if (!strcmp(json_need(&ivs->item[i], "host", J_STR, "iv")->str,
			    host) &&
		    json_need(&ivs->item[i], "pid", J_NUM, "iv")->num == pid) {
			first = first ? first : &ivs->item[i];
			++*n;
		}
	return first;
}

/* "a|b" of a JSON array of strings; ", " between. */
static void joined(const struct jval *a, const char *sep, char *buf, size_t len)
{
	buf[0] = '\0';
	for (int i = 0; i < a->n; i++)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s",
			 i ? sep : "", a->item[i].str);
	if (!a->n && !strcmp(sep, "|"))
		snprintf(buf, len, "none");
}

/* text lists every interval of each process, each line after pre: the
 * servers' first from their start (+0.000 s, or a few ms on a loaded
 * machine), then the selection's. */
static void lists_intervals(const char *text, const char *pre)
{
	char head[64], first[64], next[128];

	snprintf(head, sizeof(head), "%s  hostA pid ", pre);
	snprintf(first, sizeof(first), ":\n%s    from +", pre);
	snprintf(next, sizeof(next),
		 " s semantics|latency|cpu|memory\n%s    from +", pre);
	ck_assert_msg(strstr(text, head) && strstr(text, first) &&
			      strstr(text, next),
		      "%.1500s", text);
	ck_assert_msg(strstr(text,
			     " semantics|latency|cpu|memory selected: " OFF_FOO
			     "\n"),
		      "%.1500s", text);
}

/* The value of OTLP attribute key in attrs (NULL: none). */
static const struct jval *otlp_attr(const struct jval *attrs, const char *key)
{
	for (int i = 0; i < attrs->n; i++)
		if (!strcmp(json_need(&attrs->item[i], "key", J_STR, key)->str,
			    key))
			return json_need(&attrs->item[i], "value", J_OBJ, key);
	return NULL;
}

/* Item i of array attribute key of attrs, of type field. */
static const struct jval *otlp_item(const struct jval *attrs, const char *key,
				    int i, const char *field, int type)
{
	const struct jval *v = otlp_attr(attrs, key), *a;

	ck_assert_msg(v, "no resource attribute %s", key);
	a = json_need(json_need(v, "arrayValue", J_OBJ, key), "values", J_ARR,
		      key);
	ck_assert_msg(i < a->n, "%s: %d items", key, a->n);
	return json_need(&a->item[i], field, type, key);
}

/* Each resource of the OTLP export at path says its process's intervals
 * as the report does (ivs): the intervals where OFF_FOO was in force,
 * their number. */
static int otlp_monitoring(const char *path, const struct jval *ivs)
{
	char *text = e2e_slurp(path, NULL), a[256], b[256];
	struct jval *doc = json_parse(text, "ccsg export --format=otlp");
	const struct jval *rs = json_need(doc, "resourceSpans", J_ARR, "otlp");
	int selected = 0;

	for (int r = 0; r < rs->n; r++) {
		const struct jval *attrs = json_need(
			json_need(&rs->item[r], "resource", J_OBJ, "resource"),
			"attributes", J_ARR, "resource");
		const char *host = json_need(otlp_attr(attrs, "host.name"),
					     "stringValue", J_STR, "host")
					   ->str;
		double pid = atof(json_need(otlp_attr(attrs, "process.pid"),
					    "intValue", J_STR, "pid")
					  ->str);
		int n;
		const struct jval *iv = intervals_of(ivs, host, pid, &n);
		double from = 0;

		ck_assert_msg(n > 0, "%s pid %.0f: no intervals", host, pid);
		for (int i = 0; i < n; i++) {
			double f = atof(
				otlp_item(attrs,
					  "causal.monitoring.from_unix_nano", i,
					  "intValue", J_STR)
					->str);

			ck_assert_msg(f > from, "%s pid %.0f: interval %d",
				      host, pid, i);
			from = f;
			joined(json_need(&iv[i], "types", J_ARR, "types"), "|",
			       a, sizeof(a));
			ck_assert_str_eq(otlp_item(attrs,
						   "causal.monitoring.types", i,
						   "stringValue", J_STR)
						 ->str,
					 a);
			joined(json_need(&iv[i], "selections", J_ARR, "sel"),
			       ", ", b, sizeof(b));
			ck_assert_str_eq(
				otlp_item(attrs, "causal.monitoring.selections",
					  i, "stringValue", J_STR)
					->str,
				b);
			selected += !strcmp(b, OFF_FOO);
			ck_assert_int_eq(
				otlp_item(attrs, "causal.monitoring.deselects",
					  i, "boolValue", J_BOOL)
					->num,
				json_need(&iv[i], "deselects", J_BOOL, "d")
					->num);
		}
	}
	json_free(doc);
	free(text);
	return selected;
}

/* The viewer's /api/info says the intervals as the report (ivs), and
 * gives the page each process's lines. */
static void viewer_monitoring(struct e2e *t, const struct jval *ivs)
{
	struct server s;
	struct reply r;
	struct jval *doc;
	const struct jval *mon, *got;
	const char *text;

	serve_start(&s, t->db, NULL);
	r = http(s.port, "GET", "/api/info");
	ck_assert_int_eq(r.status, 200);
	doc = json_parse(r.body, "/api/info");
	mon = json_need(doc, "monitoring", J_OBJ, "/api/info");
	ck_assert_int_eq(json_need(mon, "selections", J_NUM, "sel")->num, 4);
	got = json_need(mon, "intervals", J_ARR, "/api/info");
	ck_assert_int_eq(got->n, ivs->n);
	for (int i = 0; i < ivs->n; i++) {
		char a[256], b[256];

		joined(json_need(&got->item[i], "selections", J_ARR, "s"), ", ",
		       a, sizeof(a));
		joined(json_need(&ivs->item[i], "selections", J_ARR, "s"), ", ",
		       b, sizeof(b));
		ck_assert_str_eq(a, b);
	}
	text = json_need(doc, "monitoring_text", J_STR, "/api/info")->str;
	lists_intervals(text, "");
	json_free(doc);
	free(r.body);
	ck_assert_int_eq(serve_stop(&s, SIGTERM), 0);
}

START_TEST(test_only_the_middle_selected)
{
	struct fig1_deploy d = fig1_four_hosts;
	double un[FIG1_MAX_HOSTS], serving[FIG1_MAX_HOSTS],
		main_th[FIG1_MAX_HOSTS];
	int say = fig1_say_it_us[0] + fig1_say_it_us[1] + fig1_say_it_us[2];
	const char *report[8];
	char ccsg[PATH_MAX], out[PATH_MAX], err[PATH_MAX], *text;
	struct fig1_ccsg c;
	const struct jval *ivs;
	struct e2e t;
	pid_t coord;
	int a, b, cc, dd;

	rpc_isolate();
	e2e_init(&t);
	coord = mon_coord_start(&t, MON_PORT);
	for (int i = 0; i < d.n; i++)
		d.s[i].env = MON_COORD;
	d.client_env = "CAUSAL_MONITOR=none";
	d.before_client = select_top_off;
	fig1_run(&t, &d);
	kill(coord, SIGTERM);
	e2e_wait(coord);

	fig1_ccsg(&t, &c);
	fig1_print(&c, "only the middle selected");
	a = fig1_host_index(&c, "hostA");
	b = fig1_host_index(&c, "hostB");
	cc = fig1_host_index(&c, "hostC");
	dd = fig1_host_index(&c, "hostD");
	/* foo unrecorded; its callees as burned, where they burned */
	ck_assert_int_eq(c.node[N_FOO].found, 0);
	fig1_near(c.node[N_TIMES].self[b], FIG1_TIMES_US, "times on hostB");
	fig1_near(c.node[N_WHAT].self[cc], FIG1_WHAT_TO_SAY_US,
		  "what_to_say on hostC");
	fig1_near(c.node[N_SAY].self[dd], say, "say_it on hostD");
	fig1_near(c.node[N_THREAD].self[cc], FIG1_THREADS * FIG1_THREAD_US,
		  "what_to_say's threads on hostC");
	ck_assert_int_eq(c.node[N_THREAD].threads, FIG1_THREADS);
	ck_assert_int_eq(c.node[N_SAY].calls, FIG1_SAY_TIMES);

	/* foo's CPU is <unmonitored>'s, not a runtime node's */
	ck_assert_msg(node_self(&c, "<unmonitored>", un), "no <unmonitored>");
	ck_assert_msg(!node_self(&c, "<serving threads>", serving),
		      "<serving threads> on hostA: %.0f us", serving[a]);
	node_self(&c, "<threads of main>", main_th);
	for (int h = 0; h < c.nhosts; h++) {
		double burned = 0, cpu = traced_cpu_us(&t, c.host[h]);

		for (int i = 0; i < d.n; i++)
			if (!strcmp(d.s[i].host, c.host[h]))
				burned += d.s[i].burned_us;
		printf("  %s: <unmonitored> %.2f ms, <threads of main> %.2f "
		       "ms; the threads %.2f ms, burned %.2f ms\n",
		       c.host[h], un[h] / 1000, main_th[h] / 1000, cpu / 1000,
		       burned / 1000);
		fflush(stdout);
		/* every server ran selected: what is left is its loop, and
		 * on hostA foo, which it burned */
		ck_assert_msg(un[h] <= cpu - (h == a ? 0 : burned) + 1000,
			      "<unmonitored> on %s: %.0f us, more than its "
			      "threads used outside the selected calls",
			      c.host[h], un[h]);
		/* and nothing burned in <threads of main>: foo not there */
		ck_assert_msg(main_th[h] <= cpu - burned + 1000,
			      "<threads of main> on %s: %.0f us, more than "
			      "its threads used outside the components",
			      c.host[h], main_th[h]);
	}
	ck_assert_msg(un[a] >= 0.9 * FIG1_FOO_US - 1000,
		      "<unmonitored> on hostA: %.0f us, foo burned %d us",
		      un[a], FIG1_FOO_US);

	/* the report says what was selected, and where */
	e2e_fmt(ccsg, sizeof(ccsg), "%s/ccsg", e2e_build());
	e2e_fmt(out, sizeof(out), "%s/report.txt", t.dir);
	e2e_fmt(err, sizeof(err), "%s/report.err", t.dir);
	report[0] = ccsg;
	report[1] = "report";
	report[2] = "--db";
	report[3] = t.db;
	report[4] = NULL;
	e2e_assert_exit(e2e_run_plain(report, out, err), 0, "ccsg report");
	text = e2e_slurp(out, NULL);
	ck_assert_msg(strstr(text, "monitoring: 4 switches (4 selections); "),
		      "%.1500s", text);
	ck_assert_msg(strstr(text, "  hostA pid "), "%.1500s", text);
	ck_assert_msg(strstr(text, " selected: * 0x20000f01 1 off;\n"),
		      "%.1500s", text);
	ck_assert_msg(strstr(text, "<unmonitored>"), "%.1500s", text);
	free(text);
	/* --switches: one interval a line */
	report[4] = "--switches";
	report[5] = NULL;
	e2e_assert_exit(e2e_run_plain(report, out, err), 0,
			"ccsg report --switches");
	text = e2e_slurp(out, NULL);
	lists_intervals(text, "");
	free(text);
	/* and so does the export's metadata */
	e2e_fmt(out, sizeof(out), "%s/trace.json", t.dir);
	report[1] = "export";
	report[4] = "--format=chrome";
	report[5] = "-o";
	report[6] = out;
	report[7] = NULL;
	e2e_assert_exit(e2e_run_plain(report, NULL, err), 0, "ccsg export");
	text = e2e_slurp(out, NULL);
	ck_assert_msg(strstr(text, "\"selections\": [\"* 0x20000f01 1 off\"], "
				   "\"deselects\": true}"),
		      "%.2000s", text);
	free(text);
	/* the OTLP export's resources: each process's intervals */
	report[4] = "--format=otlp";
	e2e_assert_exit(e2e_run_plain(report, NULL, err), 0, "ccsg export");
	ivs = json_need(json_need(json_need(c.json, "summary", J_OBJ, "json"),
				  "monitoring", J_OBJ, "summary"),
			"intervals", J_ARR, "monitoring");
	ck_assert_int_eq(otlp_monitoring(out, ivs), 4);
	/* the folded export's note on standard error */
	report[4] = "--format=folded";
	e2e_assert_exit(e2e_run_plain(report, NULL, err), 0, "ccsg export");
	text = e2e_slurp(err, NULL);
	ck_assert_msg(strstr(text, "ccsg: monitoring: 4 switches (4 "
				   "selections); "),
		      "%.1500s", text);
	lists_intervals(text, "ccsg: ");
	free(text);
	text = e2e_slurp(out, NULL);
	ck_assert_msg(!strstr(text, "monitoring"), "%.1500s", text);
	free(text);
	/* and the viewer */
	viewer_monitoring(&t, ivs);
	json_free(c.json);
	e2e_release(&t);
}
END_TEST

Suite *e2e_selection_suite(void)
{
	Suite *s = suite_create("e2e-selection");
	TCase *tc = tcase_create("e2e-selection");

	tcase_set_timeout(tc, E2E_TIMEOUT);
	e2e_add_fixture(tc);
	tcase_add_test(tc, test_only_the_middle_selected);
	suite_add_tcase(s, tc);
	return s;
}
