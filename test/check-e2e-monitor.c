/*
 * check-e2e-monitor.c - end to end: run-time selective monitoring
 * (docs/tracing.md, "Selective monitoring"): the types a process starts with
 * (CAUSAL_MONITOR), what the merged database holds of a call monitored
 * with some of them, the tag carrying the caller's types to the callee
 * (causal overriding), the MONITOR records in monitor_switches.
 */
#include "e2e-monitor.h"

#define SAY_WHERE(pid)                                                         \
	rpc_q("client_proc_id = %lld AND proc = %d", e2e_proc(&t, pid),        \
	      P_SAY_IT)

/*
 * Each process starts with its own types; a call is monitored as its
 * caller's stub is, on both sides: the server's own types do not matter
 * for a traced caller's call.  What a type covers is NULL when it was off.
 */
START_TEST(test_types_from_environment)
{
	struct rpc_server a;
	struct e2e t;
	char *out;
	pid_t c;
	long long id, cp;

	rpc_isolate();
	e2e_init(&t);
	mon_server_start(&t, &a, "a", "hostS", ENV("CAUSAL_MONITOR=latency"),
			 NULL);
	c = mon_client(&t, "c", ENV("CAUSAL_MONITOR=cpu,semantics"),
		       ARGS("-P", rpc_port(a.tcp), "say", "5"), 0, &out);
	ck_assert_str_eq(rpc_head(out, "say"), "say 5 = 6 status RPC_SUCCESS");
	rpc_server_stop(&a);
	e2e_merge(&t);
	rpc_server_proc(&t, &a);
	cp = e2e_proc(&t, c);

	id = rpc_call_id(&t, SAY_WHERE(c));
	/* causality whole: the events the tag promises, both sides */
	rpc_assert_calls(&t, rpc_q("call_id = %lld", id),
			 "missing IS NULL AND tag = 'ok' AND "
			 "skel_start_event = stub_start_event + 1 AND "
			 "stub_end_event = skel_end_event + 1",
			 1);
	rpc_assert_text(&t, id, "client_mon", "semantics|cpu");
	rpc_assert_text(&t, id, "server_mon", "semantics|cpu");
	/* latency off: no timestamps; cpu and semantics on */
	rpc_assert_calls(
		&t, rpc_q("call_id = %lld", id),
		"stub_start_ns IS NULL AND stub_end_exit_ns IS NULL AND "
		"skel_start_ns IS NULL AND skel_end_exit_ns IS NULL AND "
		"stub_start_cpu_ns IS NOT NULL AND "
		"stub_end_cpu_ns >= stub_start_cpu_ns AND "
		"skel_end_cpu_ns >= skel_start_cpu_ns AND "
		"status_name = 'RPC_SUCCESS' AND reply = 'success' AND "
		"args_bytes = 4 AND server_results_bytes = 4 AND "
		"site_symbol = 'say_it_1'",
		1);
	/* the state each started with, as MONITOR records */
	ck_assert_str_eq(mon_text(&t, rpc_q("SELECT kind || ' ' || types || ' "
					    "' || event FROM monitor_switches "
					    "WHERE proc_id = %lld",
					    cp)),
			 "initial semantics|cpu 0");
	ck_assert_str_eq(mon_text(&t, rpc_q("SELECT kind || ' ' || types FROM "
					    "monitor_switches WHERE proc_id = "
					    "%lld",
					    a.proc)),
			 "initial latency");
	/* threads: CPU read where cpu is on only */
	ck_assert_int_eq(
		e2e_query_int(t.sql,
			      "SELECT count(*) FROM threads WHERE "
			      "proc_id = %lld AND marker = 'user' AND "
			      "(start_cpu_ns IS NULL OR cpu_ns IS NULL)",
			      cp),
		0);
	ck_assert_int_gt(e2e_query_int(t.sql,
				       "SELECT count(*) FROM threads WHERE "
				       "proc_id = %lld",
				       a.proc),
			 0);
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT count(*) FROM threads WHERE "
				       "proc_id = %lld AND (start_cpu_ns IS "
				       "NOT NULL OR end_cpu_ns IS NOT NULL "
				       "OR cpu_ns IS NOT NULL)",
				       a.proc),
			 0);
	free(out);
	e2e_release(&t);
}
END_TEST

/*
 * A client with every type off records no call, and its server, told so
 * by the tag, none either; the same server records the calls of a client
 * with every type on, and, deciding alone, those of an untraced client.
 */
START_TEST(test_none_records_nothing_but_causality)
{
	struct rpc_server a;
	struct e2e t;
	char *out[3];
	pid_t c[2];

	rpc_isolate();
	e2e_init(&t);
	mon_server_start(&t, &a, "a", "hostS", NULL, NULL);
	c[0] = mon_client(&t, "none", ENV("CAUSAL_MONITOR=none"),
			  ARGS("-P", rpc_port(a.tcp), "siblings", "3"), 0,
			  &out[0]);
	c[1] = mon_client(&t, "all", ENV("CAUSAL_MONITOR=all"),
			  ARGS("-P", rpc_port(a.tcp), "say", "7"), 0, &out[1]);
	rpc_client(&t, "plain", 0, ARGS("-P", rpc_port(a.tcp), "say", "9"), 0,
		   &out[2]);
	/* what the program computes does not change */
	ck_assert_str_eq(rpc_head(out[0], "sibling say_it_1"),
			 "sibling say_it_1 3 = 4 status RPC_SUCCESS");
	rpc_server_stop(&a);
	e2e_merge(&t);
	rpc_server_proc(&t, &a);

	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT count(*) FROM rpc_calls WHERE "
				       "client_proc_id = %lld",
				       e2e_proc(&t, c[0])),
			 0);
	/* no call reached the server unmonitored but the untraced one's */
	rpc_assert_calls(&t, rpc_q("server_proc_id = %lld", a.proc),
			 "server_mon = 'semantics|latency|cpu' AND "
			 "(client_proc_id IS NOT NULL OR missing = 'client')",
			 2);
	rpc_assert_calls(&t, rpc_q("client_proc_id = %lld", e2e_proc(&t, c[1])),
			 RPC_LINKED " AND client_mon = 'semantics|latency|cpu'",
			 1);
	/* the quiet client's threads: recorded, without CPU */
	ck_assert_int_eq(
		e2e_query_int(t.sql,
			      "SELECT count(*) FROM threads WHERE "
			      "proc_id = %lld AND start_cpu_ns IS NULL "
			      "AND end_mono_ns IS NOT NULL",
			      e2e_proc(&t, c[0])),
		1);
	for (int i = 0; i < 3; i++)
		free(out[i]);
	e2e_release(&t);
}
END_TEST

/* A bad CAUSAL_MONITOR: one line on stderr, the default (all) used. */
START_TEST(test_bad_monitor_value)
{
	struct rpc_server a;
	struct e2e t;
	char *out, *err, path[PATH_MAX];
	pid_t c;

	rpc_isolate();
	e2e_init(&t);
	mon_server_start(&t, &a, "a", NULL, NULL, NULL);
	c = mon_client(&t, "c", ENV("CAUSAL_MONITOR=cpu,bogus"),
		       ARGS("-P", rpc_port(a.tcp), "say", "1"), 0, &out);
	ck_assert_str_eq(rpc_head(out, "say"), "say 1 = 2 status RPC_SUCCESS");
	e2e_fmt(path, sizeof(path), "%s/c.err", t.dir);
	err = e2e_slurp(path, NULL);
	ck_assert_msg(!strcmp(err, "causal: ignoring CAUSAL_MONITOR='cpu,bogus'"
				   ": expected a comma-separated list of "
				   "semantics, latency, cpu, memory, or all or "
				   "none\n"),
		      "stderr: %s", err);
	rpc_server_stop(&a);
	e2e_merge(&t);
	ck_assert_str_eq(mon_text(&t, rpc_q("SELECT types FROM "
					    "monitor_switches WHERE proc_id = "
					    "%lld",
					    e2e_proc(&t, c))),
			 "semantics|latency|cpu|memory");
	rpc_assert_calls(&t, SAY_WHERE(c),
			 RPC_LINKED " AND client_mon = 'semantics|latency|cpu'",
			 1);
	free(out);
	free(err);
	e2e_release(&t);
}
END_TEST

/*
 * A fork child keeps its parent's state and says so in its own log (a
 * MONITOR record of kind initial), as every generation does; each
 * generation's threads obey it (latency off: their CPU read).
 */
START_TEST(test_fork_child_keeps_the_state)
{
	const char *argv[] = { e2e_prog("fork-chain"), "2", NULL };
	struct e2e t;

	e2e_init(&t);
	e2e_assert_exit(
		e2e_run_traced(&t, argv, ENV("CAUSAL_MONITOR=cpu"), NULL, NULL),
		0, "fork-chain");
	e2e_merge(&t);
	ck_assert_int_eq(e2e_query_int(t.sql, "SELECT count(*) FROM processes"),
			 3);
	ck_assert_int_eq(
		e2e_query_int(t.sql, "SELECT count(*) FROM processes p WHERE "
				     "(SELECT group_concat(kind || ' ' || "
				     "types) FROM monitor_switches m WHERE "
				     "m.proc_id = p.proc_id) = 'initial cpu'"),
		3);
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT count(*) FROM threads WHERE "
				       "marker = 'user' AND cpu_ns IS NULL AND "
				       "end_how <> 'at_exit'"),
			 0);
	e2e_release(&t);
}
END_TEST

Suite *e2e_monitor_suite(void)
{
	Suite *s = suite_create("e2e-monitor");
	TCase *tc = tcase_create("e2e-monitor");

	tcase_set_timeout(tc, E2E_TIMEOUT);
	e2e_add_fixture(tc);
	tcase_add_test(tc, test_types_from_environment);
	tcase_add_test(tc, test_none_records_nothing_but_causality);
	tcase_add_test(tc, test_bad_monitor_value);
	tcase_add_test(tc, test_fork_child_keeps_the_state);
	suite_add_tcase(s, tc);
	return s;
}
