/*
 * check-e2e-totals.c - end to end: exact totals under head sampling
 * (issue 37 item 2, and item 7's test of it).  The example of Figure 1
 * (e2e-figure1.h) on four simulated hosts, every process at
 * CAUSAL_SAMPLE=1/4, 200 root calls (a client process each): the totals
 * count every call, sampled or not, so calls per function and host are
 * exact, and self CPU (Equation 1) per function and host matches what the
 * programs measured themselves of every invocation; the chains head
 * sampling kept are whole on every host; `ccsg report` shows the exact
 * figures and says which are estimated.
 */
#include "e2e-figure1.h"

#define ROOTS 200
#define SCALE "0.05"

/* The CPU a server's invocations of name used, by their own clocks
 * (figure1-server's "NAME tid T us U cpu C" lines), us; and how many. */
static double program_cpu_us(struct e2e *t, const char *host, const char *name,
			     int *n)
{
	char path[PATH_MAX], *text, *line, *save = NULL, got[32];
	long long us, spent, sum = 0;
	int tid;

	e2e_fmt(path, sizeof(path), "%s/%s.out", t->dir, host);
	text = e2e_slurp(path, NULL);
	*n = 0;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, "%31s tid %d us %lld cpu %lld", got, &tid, &us,
			   &spent) == 4 &&
		    !strcmp(got, name)) {
			sum += spent;
			(*n)++;
		}
	free(text);
	return (double)sum;
}

/* A sum over the call_totals rows of a side, function and host. */
static long long totals_sum(struct e2e *t, const char *col, const char *side,
			    int proc, const char *host, const char *more)
{
	return e2e_query_int(
		t->sql,
		"SELECT coalesce(sum(c.%s), 0) FROM call_totals c JOIN "
		"processes p USING (proc_id) JOIN hosts h USING (host_id) "
		"WHERE c.side = '%s' AND c.prog = %d AND c.proc = %d AND "
		"h.name = '%s' %s",
		col, side, FIG1_PROG, proc, host, more ? more : "");
}

START_TEST(test_figure1_sampled)
{
	static const struct {
		int proc, per_root;
		const char *host, *name;
	} fn[] = {
		{ N_FOO, 1, "hostA", "foo" },
		{ N_TIMES, 1, "hostB", "times" },
		{ N_WHAT, 1, "hostC", "what_to_say" },
		{ N_SAY, FIG1_SAY_TIMES, "hostD", "say_it" },
	};
	struct fig1_deploy d = fig1_four_hosts;
	const char *scale =
		"FIG1_SCALE=foo=" SCALE ",times=" SCALE ",what_to_say=" SCALE
		",say_it=" SCALE ",thread=" SCALE;
	long long chains, calls;
	int fails = 0;
	char msg[512];
	size_t len = 0;
	struct fig1_ccsg c;
	const struct jval *exact;
	struct e2e t;

	for (int i = 0; i < d.n; i++)
		d.s[i].env = scale;
	d.clients = ROOTS;
	ck_assert_int_eq(setenv("CAUSAL_SAMPLE", "1/4", 1), 0);
	rpc_isolate();
	e2e_init(&t);
	fig1_run(&t, &d);

	/* every process knows its rate */
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT count(*) FROM processes "
				       "WHERE sample_rate_q32 != %lld",
				       1LL << 30),
			 0);
	for (size_t i = 0; i < sizeof(fn) / sizeof(fn[0]); i++) {
		int n;
		double want = program_cpu_us(&t, fn[i].host, fn[i].name, &n);
		/* Equation 1: what the procedure measured of itself (foo
		 * leaves its calls out, as Equation 1 leaves their stubs),
		 * plus the skeleton's own work around it (decoding,
		 * replying; foo's code between its calls) */
		double got = (double)totals_sum(&t, "cpu_ns", "skeleton",
						fn[i].proc, fn[i].host, NULL) /
			     1000.0;

		ck_assert_int_eq(n, ROOTS * fn[i].per_root);
		ck_assert_int_eq(totals_sum(&t, "calls", "skeleton", fn[i].proc,
					    fn[i].host, NULL),
				 ROOTS * fn[i].per_root);
		ck_assert_int_eq(totals_sum(&t, "failures", "skeleton",
					    fn[i].proc, fn[i].host, NULL),
				 0);
		len += (size_t)snprintf(msg + len, sizeof(msg) - len,
					"%s%s: totals %.0f us, the program "
					"measured %.0f us",
					i ? "; " : "", fn[i].name, got, want);
		fails += !(got >= 0.97 * want - 10.0 * n &&
			   got <= 1.05 * want + 60.0 * n);
		ck_assert_msg(i < 3 || !fails, "%s", msg);
	}
	/* the arcs: main -> foo, foo -> its three callees, all on A */
	ck_assert_int_eq(totals_sum(&t, "calls", "stub", N_FOO, "hostA",
				    "AND c.caller_prog = 0"),
			 ROOTS);
	for (size_t i = 1; i < sizeof(fn) / sizeof(fn[0]); i++) {
		ck_assert_int_eq(totals_sum(&t, "calls", "stub", fn[i].proc,
					    "hostA", "AND c.caller_proc = 1"),
				 ROOTS * fn[i].per_root);
		/* every call's latency is in the histogram */
		ck_assert_int_eq(
			e2e_query_int(t.sql,
				      "SELECT sum(j.value ->> 1) FROM "
				      "call_totals c, json_each(c.latency) j "
				      "WHERE c.side = 'stub' AND c.proc = %d",
				      fn[i].proc),
			ROOTS * fn[i].per_root);
	}

	/* the sampled chains: whole on every host (both sides of each of
	 * their six calls), and about a quarter of them */
	chains = e2e_query_int(t.sql,
			       "SELECT count(DISTINCT chain) FROM "
			       "rpc_calls WHERE prog = %d",
			       FIG1_PROG);
	calls = e2e_query_int(t.sql,
			      "SELECT count(*) FROM rpc_calls WHERE "
			      "prog = %d AND client_proc_id IS NOT "
			      "NULL AND server_proc_id IS NOT NULL",
			      FIG1_PROG);
	printf("totals: %lld of %d chains sampled\n", chains, ROOTS);
	ck_assert_msg(chains >= 20 && chains <= 90, "%lld chains", chains);
	ck_assert_int_eq(calls, 6 * chains);
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT count(*) FROM rpc_calls "
				       "WHERE prog = %d",
				       FIG1_PROG),
			 6 * chains);

	/* ccsg report: the exact figures, and which are estimated */
	fig1_ccsg(&t, &c);
	ck_assert(json_need(json_need(c.json, "sampling", J_OBJ, "report"),
			    "rate", J_NUM, "sampling")
			  ->num == 0.25);
	exact = json_need(c.json, "exact_functions", J_ARR, "report");
	ck_assert_int_eq(exact->n, 4);
	for (int i = 0; i < exact->n; i++) {
		const struct jval *e = &exact->item[i];
		int k = fig1_kind_of(
			json_need(e, "name", J_STR, "exact_functions")->str);

		ck_assert_msg(k >= N_FOO && k <= N_SAY, "%s?",
			      json_need(e, "name", J_STR, "exact")->str);
		ck_assert(json_need(e, "exact", J_BOOL, "exact")->num == 1);
		ck_assert_int_eq(
			(int)json_need(e, "calls", J_NUM, "exact")->num,
			ROOTS * (k == N_SAY ? FIG1_SAY_TIMES : 1));
		ck_assert_str_eq(json_need(e, "host", J_STR, "exact")->str,
				 fn[k - N_FOO].host);
	}
	json_need(c.json, "exact_arcs", J_ARR, "report");
	json_free(c.json);
	e2e_release(&t);
}
END_TEST

Suite *e2e_totals_suite(void)
{
	Suite *s = suite_create("e2e-totals");
	TCase *tc = tcase_create("figure1");

	tcase_set_timeout(tc, 4 * E2E_TIMEOUT);
	e2e_add_fixture(tc);
	tcase_add_test(tc, test_figure1_sampled);
	suite_add_tcase(s, tc);
	return s;
}
