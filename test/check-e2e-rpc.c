/*
 * check-e2e-rpc.c - end to end: Sun RPC calls between traced processes,
 * as merged into rpc_calls.
 *
 * demo-client calls demo-server through rpcgen's stubs; servers call
 * further servers, themselves, or back into their client.  Each test
 * compares what the programs printed (results, gettid() of the threads
 * that called or served) with the calls the database links: both sides
 * present, events in the order the causality tag promises (stub start e,
 * skeleton start e + 1, ..., skeleton end, stub end = skeleton end + 1),
 * nested calls inside their parent's skeleton in the same chain, sibling
 * calls of a thread continuing its chain.  See e2e-rpc.h for the set-up.
 */
#include "e2e-rpc.h"
#include "tool-run.h"

#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})

/* SAY_IT over TCP and over UDP, to a traced server. */
START_TEST(test_basic_tcp_udp)
{
	const char *const proto[] = {"tcp", "udp"};
	struct rpc_server a;
	struct e2e t;
	pid_t c[2];
	char *out[2];

	rpc_isolate();
	e2e_init(&t);
	rpc_server_start(&t, &a, "a", 1, NULL, NULL);
	c[0] = rpc_client(&t, "tcp", 1,
			  ARGS("-P", rpc_port(a.tcp), "say", "41"), 0, &out[0]);
	c[1] = rpc_client(&t, "udp", 1,
			  ARGS("-p", "udp", "-P", rpc_port(a.udp), "say", "5"),
			  0, &out[1]);
	rpc_server_stop(&a);
	e2e_merge(&t);
	rpc_server_proc(&t, &a);

	for (int i = 0; i < 2; i++) {
		long long p = e2e_proc(&t, c[i]), id;
		long long tid = e2e_tid(&t, p, rpc_fact(out[i], "say", "tid"));
		char where[128], cond[2048];

		ck_assert_str_eq(rpc_head(out[i], "say"),
				 i ? "say 5 = 6 status RPC_SUCCESS"
				   : "say 41 = 42 status RPC_SUCCESS");
		e2e_fmt(where, sizeof(where), "client_proc_id = %lld", p);
		e2e_fmt(cond, sizeof(cond),
			RPC_LINKED
			" AND prog = %d AND vers = 1 AND proc = %d"
			" AND transport = '%s' AND status = 0 AND "
			"status_name = 'RPC_SUCCESS' AND reply = "
			"'success' AND site_symbol = 'say_it_1' AND "
			"server_proc_id = %lld AND client_tid = %lld "
			"AND one_way = 0",
			DEMO_PROG, P_SAY_IT, proto[i], a.proc, tid);
		rpc_assert_calls(&t, where, cond, 1);
		id = rpc_call_id(&t, where);
		/* One chain across both processes: its four probes. */
		ck_assert_int_eq(e2e_query_int(t.sql,
					       "SELECT count(DISTINCT kind) * "
					       "10 + count(DISTINCT proc_id) "
					       "FROM rpc_probes WHERE chain = "
					       "(SELECT chain FROM rpc_calls "
					       "WHERE call_id = %lld)",
					       id),
				 42);
		ck_assert_int_eq(e2e_query_int(t.sql,
					       "SELECT count(*) FROM rpc_sites "
					       "WHERE proc_id = %lld AND "
					       "symbol = 'say_it_1'",
					       p),
				 1);
		free(out[i]);
	}
	/* The server declared what it serves. */
	ck_assert_int_ge(e2e_query_int(t.sql,
				       "SELECT count(*) FROM rpc_objects WHERE"
				       " proc_id = %lld AND prog = %d AND "
				       "vers = 1",
				       a.proc, DEMO_PROG),
			 1);
	e2e_release(&t);
}
END_TEST

/*
 * client -> A.burn -> B.burn -> C.burn, each burning 20 ms of CPU: one
 * chain across four processes, each call nested in its caller's skeleton,
 * each skeleton's CPU at least what its implementation burned.
 */
START_TEST(test_nested_chain)
{
	const int us = 20000;
	struct rpc_server s[3]; /* C, B, A */
	long long call[3], prev = 0;
	struct e2e t;
	char *out;
	pid_t c;

	rpc_isolate();
	e2e_init(&t);
	rpc_server_start(&t, &s[0], "c", 1, NULL, NULL);
	rpc_server_start(&t, &s[1], "b", 1, NULL,
			 ARGS("-n", rpc_port(s[0].tcp)));
	rpc_server_start(&t, &s[2], "a", 1, NULL,
			 ARGS("-n", rpc_port(s[1].tcp)));
	c = rpc_client(&t, "client", 1,
		       ARGS("-P", rpc_port(s[2].tcp), "burn", "20000"), 0,
		       &out);
	ck_assert_str_eq(rpc_head(out, "burn"),
			 "burn 20000 hops 3 status RPC_SUCCESS");
	for (int i = 0; i < 3; i++)
		rpc_server_stop(&s[i]);
	e2e_merge(&t);

	for (int i = 0; i < 3; i++)
		rpc_server_proc(&t, &s[i]);
	prev = e2e_proc(&t, c);
	for (int hop = 0; hop < 3; hop++) {
		struct rpc_server *to = &s[2 - hop];
		char where[160], cond[2048], *printed;
		long long cpu;

		e2e_fmt(where, sizeof(where),
			"client_proc_id = %lld AND server_proc_id = %lld", prev,
			to->proc);
		e2e_fmt(cond, sizeof(cond),
			RPC_LINKED " AND proc = %d AND site_symbol = 'burn_1' "
				   "AND status_name = 'RPC_SUCCESS' AND "
				   "transport = 'tcp'",
			P_BURN);
		rpc_assert_calls(&t, where, cond, 1);
		call[hop] = rpc_call_id(&t, where);
		/* the implementation ran in the thread that printed it */
		printed = e2e_slurp(to->out, NULL);
		ck_assert_int_eq(rpc_col(&t, call[hop], "server_tid"),
				 e2e_tid(&t, to->proc,
					 rpc_fact(printed, "burn", "tid")));
		free(printed);
		cpu = rpc_col(&t, call[hop],
			      "skel_end_cpu_ns - "
			      "skel_start_cpu_ns");
		ck_assert_msg(cpu >= us * 1000LL * 9 / 10,
			      "hop %d: skeleton CPU %lld ns < %d us burned",
			      hop, cpu, us);
		if (hop == 2) /* the leaf does nothing else */
			ck_assert_msg(cpu <= us * 1000LL * 3 / 2 + 10000000,
				      "leaf skeleton CPU %lld ns for %d us",
				      cpu, us);
		if (hop)
			rpc_assert_nested(&t, call[hop - 1], call[hop]);
		prev = to->proc;
	}
	/* The chain's probes: 4 per call, in the four processes. */
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT count(*) * 10 + count(DISTINCT "
				       "proc_id) FROM rpc_probes WHERE chain ="
				       " (SELECT chain FROM rpc_calls WHERE "
				       "call_id = %lld)",
				       call[0]),
			 124);
	free(out);
	e2e_release(&t);
}
END_TEST

/* SAY_IT, TWICE, DEMO_NULL in turn from one thread: one cascading chain. */
START_TEST(test_siblings)
{
	static const char *const site[] = {"say_it_1", "twice_1",
					   "demo_null_1"};
	static const int procs[] = {P_SAY_IT, P_TWICE, P_NULL};
	struct rpc_server a;
	long long p, id[3];
	struct e2e t;
	char *out;
	pid_t c;

	rpc_isolate();
	e2e_init(&t);
	rpc_server_start(&t, &a, "a", 1, NULL, NULL);
	c = rpc_client(&t, "client", 1,
		       ARGS("-P", rpc_port(a.tcp), "siblings", "3"), 0, &out);
	rpc_server_stop(&a);
	e2e_merge(&t);
	rpc_server_proc(&t, &a);
	p = e2e_proc(&t, c);
	rpc_assert_calls(&t, "1", RPC_LINKED, 3);
	for (int i = 0; i < 3; i++) {
		char where[128];

		e2e_fmt(where, sizeof(where),
			"client_proc_id = %lld AND proc = %d", p, procs[i]);
		id[i] = rpc_call_id(&t, where);
		rpc_assert_text(&t, id[i], "site_symbol", site[i]);
		ck_assert_int_eq(rpc_col(&t, id[i], "server_proc_id"), a.proc);
		ck_assert_int_eq(
		    rpc_col(&t, id[i], "client_tid"),
		    e2e_tid(&t, p, rpc_fact(out, "sibling", "tid")));
		if (i) {
			ck_assert_int_eq(e2e_query_int(t.sql,
						       "SELECT a.chain = "
						       "b.chain FROM rpc_calls"
						       " a, rpc_calls b WHERE "
						       "a.call_id = %lld AND "
						       "b.call_id = %lld",
						       id[i - 1], id[i]),
					 1);
			ck_assert_int_eq(
			    rpc_col(&t, id[i], "stub_start_event"),
			    rpc_col(&t, id[i - 1], "stub_end_event") + 1);
		}
	}
	free(out);
	e2e_release(&t);
}
END_TEST

/*
 * SPAWN on A starts a thread that makes 4 calls to B: the thread's
 * context is A's skeleton (THREAD_START ctx_function), its calls are in a
 * chain of their own.
 */
START_TEST(test_spawned_thread)
{
	struct rpc_server a, b;
	long long spawn, th, p;
	char *out, *aout, *chain;
	struct e2e t;
	pid_t c;

	rpc_isolate();
	e2e_init(&t);
	rpc_server_start(&t, &b, "b", 1, NULL, NULL);
	rpc_server_start(&t, &a, "a", 1, NULL, ARGS("-n", rpc_port(b.tcp)));
	c = rpc_client(&t, "client", 1,
		       ARGS("-P", rpc_port(a.tcp), "spawn", "4"), 0, &out);
	ck_assert_str_eq(rpc_head(out, "spawn"),
			 "spawn 4 = 10 status RPC_SUCCESS");
	rpc_server_stop(&a);
	rpc_server_stop(&b);
	e2e_merge(&t);
	rpc_server_proc(&t, &a);
	rpc_server_proc(&t, &b);
	p = e2e_proc(&t, c);
	rpc_assert_calls(&t, "1", RPC_LINKED, 5);

	spawn = rpc_call_id(&t, "proc = 5");
	ck_assert_int_eq(rpc_col(&t, spawn, "client_proc_id"), p);
	ck_assert_int_eq(rpc_col(&t, spawn, "server_proc_id"), a.proc);
	aout = e2e_slurp(a.out, NULL);
	th = e2e_tid(&t, a.proc, rpc_fact(aout, "spawn", "tid"));
	/* The thread's context: the SPAWN skeleton that created it. */
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT ctx_function FROM threads WHERE"
				       " proc_id = %lld AND tid = %lld",
				       a.proc, th),
			 rpc_col(&t, spawn, "server_function_id"));
	chain = rpc_col_text(&t, spawn, "hex(chain)");
	ck_assert_int_eq(
		e2e_query_int(t.sql,
			      "SELECT hex(ctx_chain) = %Q AND ctx_event "
			      "BETWEEN %lld AND %lld FROM threads "
			      "WHERE proc_id = %lld AND tid = %lld",
			      chain, rpc_col(&t, spawn, "skel_start_event"),
			      rpc_col(&t, spawn, "skel_end_event"), a.proc, th),
		1);
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT parent_tid FROM threads WHERE "
				       "proc_id = %lld AND tid = %lld",
				       a.proc, th),
			 rpc_col(&t, spawn, "server_tid"));
	/* Its 4 calls: from it, to B, one chain that is not SPAWN's. */
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT count(*) * 10 + count(DISTINCT "
				       "chain) FROM rpc_calls WHERE "
				       "client_proc_id = %lld AND client_tid "
				       "= %lld AND server_proc_id = %lld AND "
				       "proc = %d AND hex(chain) != %Q AND "
				       "site_symbol = 'say_it_1'",
				       a.proc, th, b.proc, P_SAY_IT, chain),
			 41);
	free(chain);
	free(aout);
	free(out);
	e2e_release(&t);
}
END_TEST

/*
 * RECURSE(1) over TCP: A's implementation calls A over UDP (served by
 * A's other thread); and the other way round.
 */
START_TEST(test_recursion)
{
	static const char *const proto[] = {"tcp", "udp"};
	struct rpc_server a;
	struct e2e t;
	pid_t c[2];
	char *out[2];

	rpc_isolate();
	e2e_init(&t);
	rpc_server_start(&t, &a, "a", 1, NULL, NULL);
	c[0] =
	    rpc_client(&t, "tcp", 1,
		       ARGS("-P", rpc_port(a.tcp), "recurse", "1"), 0, &out[0]);
	c[1] =
	    rpc_client(&t, "udp", 1,
		       ARGS("-p", "udp", "-P", rpc_port(a.udp), "recurse", "1"),
		       0, &out[1]);
	rpc_server_stop(&a);
	e2e_merge(&t);
	rpc_server_proc(&t, &a);
	rpc_assert_calls(&t, "1", RPC_LINKED " AND proc = 6", 4);
	for (int i = 0; i < 2; i++) {
		long long p = e2e_proc(&t, c[i]), outer, inner;
		char where[160];

		ck_assert_str_eq(rpc_head(out[i], "recurse"),
				 "recurse 1 = 1 status RPC_SUCCESS");
		e2e_fmt(where, sizeof(where),
			"client_proc_id = %lld AND transport = '%s'", p,
			proto[i]);
		outer = rpc_call_id(&t, where);
		e2e_fmt(where, sizeof(where),
			"client_proc_id = %lld AND server_proc_id = %lld AND "
			"transport = '%s' AND chain = (SELECT chain FROM "
			"rpc_calls WHERE call_id = %lld)",
			a.proc, a.proc, proto[!i], outer);
		inner = rpc_call_id(&t, where);
		rpc_assert_nested(&t, outer, inner);
		rpc_assert_text(&t, inner, "site_symbol", "recurse_1");
		ck_assert_msg(rpc_col(&t, inner, "server_tid") !=
				  rpc_col(&t, outer, "server_tid"),
			      "both transports served by one thread");
		free(out[i]);
	}
	e2e_release(&t);
}
END_TEST

/* CALLBACK: A's implementation calls NOTIFY on the client's own server. */
START_TEST(test_callback)
{
	struct rpc_server a;
	long long p, outer, inner;
	struct e2e t;
	char *out;
	pid_t c;

	rpc_isolate();
	e2e_init(&t);
	rpc_server_start(&t, &a, "a", 1, NULL, NULL);
	c = rpc_client(&t, "client", 1,
		       ARGS("-P", rpc_port(a.tcp), "callback", "9"), 0, &out);
	ck_assert_str_eq(rpc_head(out, "callback"),
			 "callback 9 = 1009 status RPC_SUCCESS");
	rpc_server_stop(&a);
	e2e_merge(&t);
	rpc_server_proc(&t, &a);
	p = e2e_proc(&t, c);
	rpc_assert_calls(&t, "1", RPC_LINKED, 2);
	outer = rpc_call_id(&t, "proc = 7");
	inner = rpc_call_id(&t, "proc = 1");
	ck_assert_int_eq(rpc_col(&t, inner, "prog"), DEMOCB_PROG);
	ck_assert_int_eq(rpc_col(&t, outer, "client_proc_id"), p);
	ck_assert_int_eq(rpc_col(&t, inner, "server_proc_id"), p);
	rpc_assert_nested(&t, outer, inner);
	rpc_assert_text(&t, inner, "site_symbol", "notify_1");
	ck_assert_int_eq(rpc_col(&t, inner, "server_tid"),
			 e2e_tid(&t, p, rpc_fact(out, "notify", "tid")));
	ck_assert_int_eq(rpc_col(&t, outer, "client_tid"),
			 e2e_tid(&t, p, rpc_fact(out, "callback", "tid")));
	free(out);
	e2e_release(&t);
}
END_TEST

/* 8 client threads x 200 calls, a handle each, one server. */
START_TEST(test_many_client_threads)
{
	struct rpc_server a;
	char *out, *line, *save;
	struct e2e t;
	long long p;
	int n = 0;
	pid_t c;

	rpc_isolate();
	e2e_init(&t);
	rpc_server_start(&t, &a, "a", 1, NULL, NULL);
	c = rpc_client(&t, "client", 1,
		       ARGS("-P", rpc_port(a.tcp), "threads", "8", "200"), 0,
		       &out);
	rpc_server_stop(&a);
	e2e_merge(&t);
	rpc_server_proc(&t, &a);
	p = e2e_proc(&t, c);
	ck_assert_int_eq(e2e_query_int(t.sql, "SELECT sum(dropped) FROM "
					      "processes"),
			 0);
	rpc_assert_calls(&t, "1",
			 RPC_LINKED " AND site_symbol = 'say_it_1' AND "
				    "status_name = 'RPC_SUCCESS'",
			 1600);
	for (line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		long long tid;
		int os, ok;

		ck_assert_msg(sscanf(line, "thread tid %d ok %d", &os, &ok) ==
				  2,
			      "unexpected output: %s", line);
		ck_assert_int_eq(ok, 200);
		tid = e2e_tid(&t, p, os);
		/* the thread's 200 calls: one chain, events back to back */
		ck_assert_int_eq(e2e_query_int(t.sql,
					       "SELECT count(*) * 10 + count("
					       "DISTINCT chain) FROM rpc_calls"
					       " WHERE client_proc_id = %lld "
					       "AND client_tid = %lld",
					       p, tid),
				 2001);
		ck_assert_int_eq(e2e_query_int(t.sql,
					       "SELECT max(stub_end_event) - "
					       "min(stub_start_event) FROM "
					       "rpc_calls WHERE client_proc_id"
					       " = %lld AND client_tid = %lld",
					       p, tid),
				 200 * 4 - 1);
		n++;
	}
	ck_assert_int_eq(n, 8);
	ck_assert_int_eq(e2e_query_int(t.sql, "SELECT count(DISTINCT chain)"
					      " FROM rpc_calls"),
			 8);
	free(out);
	e2e_release(&t);
}
END_TEST

/*
 * Calls that fail: an unknown procedure, a timeout, a one-way call (no
 * reply awaited); each recorded with its status, the next call of the
 * same handle linked as usual and continuing the chain.
 */
START_TEST(test_failed_calls)
{
	struct rpc_server a;
	long long p, id, after, noproc;
	char *out;
	struct e2e t;
	pid_t c, c3;

	rpc_isolate();
	e2e_init(&t);
	rpc_server_start(&t, &a, "a", 1, NULL, NULL);
	c = rpc_client(&t, "noproc", 1, ARGS("-P", rpc_port(a.tcp), "noproc"),
		       0, &out);
	ck_assert_str_eq(rpc_head(out, "noproc"),
			 "noproc status RPC_PROCUNAVAIL");
	free(out);
	p = c;
	c = rpc_client(&t, "timeout", 1,
		       ARGS("-P", rpc_port(a.tcp), "timeout", "1500", "300"), 0,
		       &out);
	ck_assert_str_eq(rpc_head(out, "timeout"),
			 "timeout status RPC_TIMEDOUT");
	ck_assert_str_eq(rpc_head(out, "after"),
			 "after = 8 status RPC_SUCCESS");
	free(out);
	c3 = rpc_client(&t, "oneway", 1,
			ARGS("-P", rpc_port(a.tcp), "oneway", "3"), 0, &out);
	ck_assert_str_eq(rpc_head(out, "oneway"), "oneway status RPC_TIMEDOUT");
	free(out);
	rpc_server_stop(&a);
	e2e_merge(&t);
	rpc_server_proc(&t, &a);

	/* unknown procedure: the client saw PROC_UNAVAIL, the server's
	 * dispatch answered it (linked: asserted last, below) */
	p = e2e_proc(&t, p);
	noproc = rpc_call_id(&t, rpc_q("client_proc_id = %lld", p));
	rpc_assert_calls(&t, rpc_q("call_id = %lld", noproc),
			 "proc = 99 AND status_name = 'RPC_PROCUNAVAIL' AND "
			 "stub_end_event > stub_start_event",
			 1);
	rpc_assert_calls(&t,
			 rpc_q("server_proc_id = %lld AND proc = 99", a.proc),
			 "reply = 'proc_unavail'", 1);

	/* timeout: the server ran SLEEP_MS to its end, the client gave up */
	p = e2e_proc(&t, c);
	id = rpc_call_id(&t, rpc_q("client_proc_id = %lld AND "
				   "proc = %d",
				   p, P_SLEEP_MS));
	rpc_assert_calls(&t, rpc_q("call_id = %lld", id),
			 "status_name = 'RPC_TIMEDOUT' AND one_way = 0 AND "
			 "missing IS NULL AND tag = 'ok' AND reply = 'success'"
			 " AND reply_tag != 'ok' AND skel_start_event = "
			 "stub_start_event + 1 AND stub_end_event > "
			 "stub_start_event AND skel_end_event > "
			 "skel_start_event",
			 1);
	after = rpc_call_id(&t, rpc_q("client_proc_id = %lld AND "
				      "proc = %d",
				      p, P_SAY_IT));
	rpc_assert_calls(&t, rpc_q("call_id = %lld", after),
			 RPC_LINKED " AND status_name = 'RPC_SUCCESS'", 1);
	ck_assert_int_eq(rpc_col(&t, after, "stub_start_event"),
			 rpc_col(&t, id, "stub_end_event") + 1);

	/* one-way: flagged, no reply awaited, served all the same */
	p = e2e_proc(&t, c3);
	rpc_assert_calls(&t, rpc_q("client_proc_id = %lld", p),
			 "missing IS NULL AND tag = 'ok' AND proc = 1", 2);
	id = rpc_call_id(&t, rpc_q("client_proc_id = %lld AND "
				   "one_way = 1",
				   p));
	rpc_assert_calls(&t, rpc_q("call_id = %lld", id),
			 "status_name = 'RPC_TIMEDOUT' AND (flags & 1) = 1 AND"
			 " skel_start_event = stub_start_event + 1",
			 1);
	after = rpc_call_id(&t, rpc_q("client_proc_id = %lld AND "
				      "one_way = 0",
				      p));
	rpc_assert_calls(&t, rpc_q("call_id = %lld", after),
			 RPC_LINKED " AND site_symbol = 'say_it_1'", 1);

	/* an error reply carries no results, so no tag back (reply_tag
	 * 'absent'); the request's tag must still reach the skeleton */
	rpc_assert_calls(&t, rpc_q("call_id = %lld", noproc),
			 "missing IS NULL AND tag = 'ok' AND reply = "
			 "'proc_unavail' AND server_proc_id IS NOT NULL AND "
			 "skel_start_event = stub_start_event + 1 AND "
			 "stub_end_event > skel_end_event",
			 1);
	e2e_release(&t);
}
END_TEST

/*
 * The merge summary and ccsg report (text and JSON) name the server k,
 * killed: no end record, its last record's time, the one chain it left
 * open; and nothing else (the client exited).
 */
static void assert_named_unclean(struct e2e *t, const struct rpc_server *k)
{
	char path[PATH_MAX], line[512], *merged, *p;
	char *host = e2e_query_text(t->sql,
				    "SELECT name FROM hosts JOIN "
				    "processes USING (host_id) WHERE "
				    "proc_id = %lld",
				    k->proc);
	struct tool_out r;

	e2e_fmt(line, sizeof(line),
		"  %s pid %d %s: no end record (killed by "
		"SIGKILL, or its log cut short); last record ",
		host, k->server_pid, rpc_prog("demo-server"));
	free(host);
	e2e_fmt(path, sizeof(path), "%s/merge.out", t->dir);
	merged = e2e_slurp(path, NULL);
	ck_assert_msg(strstr(merged, "\nended uncleanly: 1\n"), "merge:\n%s",
		      merged);
	ck_assert_msg(
		(p = strstr(merged, line)) &&
			strstr(p, " s after its start; 1 chain left open\n"),
		"merge names the killed server '%s':\n%s", line, merged);
	free(merged);

	r = tool_run(ARGS(tool_path("ccsg"), "report", "--db", t->db));
	e2e_assert_exit(r.status, 0, "ccsg report");
	ck_assert_msg(
		strstr(r.out, "processes that did not end cleanly: 1 ") &&
			(p = strstr(r.out, line)) &&
			strstr(p, " s after its start; 1 chain left open\n"),
		"the report names the killed server '%s':\n%s", line, r.out);
	tool_out_release(&r);
	r = tool_run(ARGS(tool_path("ccsg"), "report", "--db", t->db,
			  "--format=json"));
	e2e_assert_exit(r.status, 0, "ccsg report --format=json");
	e2e_fmt(line, sizeof(line), "\"unclean_processes\": [{\"host\": ");
	ck_assert_msg((p = strstr(r.out, line)) &&
			      strstr(p, "\"open_chains\": 1}]"),
		      "JSON: %s", r.out);
	e2e_fmt(line, sizeof(line), "\"pid\": %d, ", k->server_pid);
	ck_assert_msg(strstr(p, line), "JSON: %s", p);
	tool_out_release(&r);
}

/*
 * The server is SIGKILLed while the client waits in SLEEP_MS: the call is
 * recorded by the client with its error, and the server's skeleton start
 * (flushed before the kill) is linked to it.
 */
START_TEST(test_server_killed)
{
	struct rpc_server k;
	char outp[PATH_MAX], errp[PATH_MAX], *out, *kout;
	const char *argv[8] = {NULL};
	long long id, p;
	struct e2e t;
	pid_t c;

	rpc_isolate();
	e2e_init(&t);
	rpc_server_start(&t, &k, "k", 1, NULL, NULL);
	argv[0] = rpc_prog("demo-client");
	argv[1] = "-P";
	argv[2] = rpc_port(k.tcp);
	argv[3] = "sleep";
	argv[4] = "20000";
	e2e_fmt(outp, sizeof(outp), "%s/client.out", t.dir);
	e2e_fmt(errp, sizeof(errp), "%s/client.err", t.dir);
	c = e2e_spawn_traced(&t, argv, NULL, outp, errp);
	for (int i = 0;; i++) {
		kout = e2e_slurp(k.out, NULL);
		if (strstr(kout, "sleeping"))
			break;
		free(kout);
		ck_assert_msg(i < 3000, "the server never slept");
		e2e_sleep_ms(10);
	}
	free(kout);
	e2e_sleep_ms(500); /* five flush periods: the skeleton start is out */
	rpc_server_kill(&k);
	e2e_assert_exit(e2e_wait(c), 0, "demo-client sleep");
	out = e2e_slurp(outp, NULL);
	e2e_merge(&t);
	rpc_server_proc(&t, &k);
	p = e2e_proc(&t, c);
	id = rpc_call_id(&t, rpc_q("client_proc_id = %lld", p));
	ck_assert_str_eq(rpc_head(out, "sleep"), "sleep status RPC_CANTRECV");
	rpc_assert_calls(&t, rpc_q("call_id = %lld", id),
			 "status_name = 'RPC_CANTRECV' AND proc = 4 AND "
			 "server_proc_id IS NOT NULL AND skel_start_event = "
			 "stub_start_event + 1 AND skel_end_event IS NULL AND "
			 "stub_end_event > stub_start_event",
			 1);
	ck_assert_int_eq(rpc_col(&t, id, "server_proc_id"), k.proc);
	free(out);
	assert_named_unclean(&t, &k);
	e2e_release(&t);
}
END_TEST

/* Servers in UTS namespaces of their own: hosts differ, the chain holds. */
START_TEST(test_hosts)
{
	static const char *const host[] = {"hostC", "hostB", "hostA"};
	struct rpc_server s[3];
	struct e2e t;
	char *out, name[64];
	pid_t c;

	rpc_isolate();
	e2e_init(&t);
	gethostname(name, sizeof(name));
	rpc_server_start(&t, &s[0], "c", 1, host[0], NULL);
	rpc_server_start(&t, &s[1], "b", 1, host[1],
			 ARGS("-n", rpc_port(s[0].tcp)));
	rpc_server_start(&t, &s[2], "a", 1, host[2],
			 ARGS("-n", rpc_port(s[1].tcp)));
	c = rpc_client(&t, "client", 1,
		       ARGS("-P", rpc_port(s[2].tcp), "burn", "1000"), 0, &out);
	ck_assert_str_eq(rpc_head(out, "burn"),
			 "burn 1000 hops 3 status RPC_SUCCESS");
	for (int i = 0; i < 3; i++)
		rpc_server_stop(&s[i]);
	e2e_merge(&t);
	for (int i = 0; i < 3; i++) {
		char *h;

		rpc_server_proc(&t, &s[i]);
		h = e2e_query_text(t.sql,
				   "SELECT h.name FROM processes p JOIN hosts "
				   "h USING (host_id) WHERE proc_id = %lld",
				   s[i].proc);
		ck_assert_str_eq(h, host[i]);
		free(h);
	}
	ck_assert_int_eq(e2e_query_int(t.sql, "SELECT count(*) FROM hosts"), 4);
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT h.name = %Q FROM processes p "
				       "JOIN hosts h USING (host_id) WHERE "
				       "pid = %d",
				       name, (int)c),
			 1);
	rpc_assert_calls(&t, "1", RPC_LINKED " AND proc = 3", 3);
	ck_assert_int_eq(e2e_query_int(t.sql, "SELECT count(DISTINCT chain) "
					      "FROM rpc_calls"),
			 1);
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT count(DISTINCT server_proc_id)"
				       " FROM rpc_calls"),
			 3);
	free(out);
	e2e_release(&t);
}
END_TEST

Suite *e2e_rpc_suite(void)
{
	Suite *s = suite_create("e2e-rpc");
	TCase *tc = tcase_create("rpc");

	tcase_set_timeout(tc, E2E_TIMEOUT);
	e2e_add_fixture(tc);
	tcase_add_test(tc, test_basic_tcp_udp);
	tcase_add_test(tc, test_nested_chain);
	tcase_add_test(tc, test_siblings);
	tcase_add_test(tc, test_spawned_thread);
	tcase_add_test(tc, test_recursion);
	tcase_add_test(tc, test_callback);
	tcase_add_test(tc, test_many_client_threads);
	tcase_add_test(tc, test_failed_calls);
	tcase_add_test(tc, test_server_killed);
	tcase_add_test(tc, test_hosts);
	suite_add_tcase(s, tc);
	return s;
}
