/*
 * check-e2e-monitor-ctl.c - end to end: the monitoring coordinator
 * (`causalctl serve`) switching traced processes while they run: types
 * on and off, component selections, causal overriding across hosts and
 * into spawned threads, the coordinator restarted, unreachable, and fed
 * garbage.  Each asserts on the merged database what was and was not
 * recorded between the switches.
 */
#include "e2e-monitor.h"
#include "tool-run.h"

/* The calls of one client process, in the order it made them. */
#define CLIENT_CALLS(p) rpc_q("client_proc_id = %lld", (p))
#define NTH(p, n)                                                              \
	rpc_q("call_id = (SELECT call_id FROM rpc_calls WHERE "                \
	      "client_proc_id = %lld ORDER BY stub_start_event LIMIT 1 "       \
	      "OFFSET %d)",                                                    \
	      (p), (n))

/*
 * Types switched mid-run: a server on one host, a long-running client on
 * another; between the client's calls the coordinator switches both.
 * Then calls made from an untraced client, which the server's own state
 * decides for.
 */
START_TEST(test_types_switched_mid_run)
{
	struct rpc_server a;
	char path[PATH_MAX], *out;
	struct e2e t;
	pid_t coord, c;
	long long cp;

	rpc_isolate();
	e2e_init(&t);
	coord = mon_coord_start(&t, MON_PORT);
	mon_server_start(&t, &a, "a", "hostS", ENV(MON_COORD), NULL);
	c = mon_step_client(&t, "c", "hostC", a.tcp, ENV(MON_COORD), path,
			    sizeof(path));
	mon_wait_connected(&t, 2);

	mon_step(path, 1, "say 1", c); /* everything */
	mon_publish(&t, ARGS("off", "cpu", "latency"));
	mon_step(path, 2, "say 2", c); /* semantics */
	rpc_client(&t, "plain1", 0, ARGS("-P", rpc_port(a.tcp), "say", "20"), 0,
		   NULL);
	mon_publish(&t, ARGS("off", "semantics"));
	mon_step(path, 3, "say 3", c); /* memory alone */
	rpc_client(&t, "plain2", 0, ARGS("-P", rpc_port(a.tcp), "say", "30"), 0,
		   NULL);
	mon_publish(&t, ARGS("on", "cpu"));
	mon_step(path, 4, "say 4", c); /* cpu */
	mon_publish(&t, ARGS("on", "all"));
	mon_step(path, 5, "say 5", c); /* everything again */
	mon_step(path, 6, "stop", c);
	e2e_assert_exit(e2e_wait(c), 0, "client");
	out = e2e_slurp(rpc_q("%s/c.out", t.dir), NULL);
	ck_assert_msg(strstr(out, "say 3 = 4 status RPC_SUCCESS"), "%s", out);
	rpc_server_stop(&a);
	kill(coord, SIGTERM);
	e2e_assert_exit(e2e_wait(coord), 0, "causalctl serve");
	e2e_merge(&t);
	rpc_server_proc(&t, &a);
	cp = e2e_query_int(t.sql, "SELECT proc_id FROM processes WHERE exe "
				  "LIKE '%%demo-client'");

	/* the five calls recorded, each as it was monitored */
	rpc_assert_calls(&t, CLIENT_CALLS(cp), "missing IS NULL", 5);
	rpc_assert_calls(&t, NTH(cp, 0),
			 RPC_LINKED " AND client_mon = 'semantics|latency|cpu'"
				    " AND server_mon = client_mon",
			 1);
	rpc_assert_calls(&t, NTH(cp, 1),
			 "client_mon = 'semantics' AND server_mon = 'semantics'"
			 " AND stub_start_ns IS NULL AND skel_end_cpu_ns IS "
			 "NULL AND status_name = 'RPC_SUCCESS' AND args_bytes "
			 "= 4 AND skel_start_event = stub_start_event + 1",
			 1);
	/* memory alone: the causality and the heap counters, no clock */
	rpc_assert_calls(&t, NTH(cp, 2),
			 "client_mon = '' AND server_mon = '' AND status IS "
			 "NULL AND stub_start_ns IS NULL AND stub_end_cpu_ns "
			 "IS NULL AND skel_end_ns IS NULL AND stub_alloc_bytes "
			 ">= 0 AND skel_alloc_bytes >= 0 AND skel_start_event "
			 "= stub_start_event + 1",
			 1);
	rpc_assert_calls(&t, NTH(cp, 3),
			 "client_mon = 'cpu' AND server_mon = 'cpu' AND "
			 "status IS NULL AND stub_start_ns IS NULL AND "
			 "stub_end_cpu_ns >= stub_start_cpu_ns AND "
			 "skel_start_event = stub_start_event + 1",
			 1);
	rpc_assert_calls(&t, NTH(cp, 4),
			 RPC_LINKED " AND client_mon = 'semantics|latency|cpu'",
			 1);
	/* the untraced clients' calls: as the server was then */
	rpc_assert_calls(&t, rpc_q("missing = 'client'"), "1", 2);
	rpc_assert_calls(&t,
			 rpc_q("missing = 'client' AND server_mon = "
			       "'semantics'"),
			 "server_args_bytes = 4", 1);
	rpc_assert_calls(&t,
			 rpc_q("missing = 'client' AND server_mon = ''"),
			 "server_args_bytes IS NULL AND skel_alloc_bytes >= 0",
			 1);
	/* every switch in both logs, in order, with the state after it */
	for (int i = 0; i < 2; i++) {
		long long p = i ? a.proc : cp;

		ck_assert_str_eq(
			mon_text(&t, rpc_q("SELECT group_concat(event || ':' "
					   "|| kind || ':' || types, ' ') FROM "
					   "(SELECT * FROM monitor_switches "
					   "WHERE proc_id = %lld ORDER BY seq)",
					   p)),
			"0:initial:semantics|latency|cpu|memory "
			"1:off:semantics|memory 2:off:memory "
			"3:on:cpu|memory 4:on:semantics|latency|cpu|memory");
	}
	/* the switches fall between the calls, on the client's clock */
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT count(*) FROM monitor_switches "
				       "m, rpc_calls c WHERE m.proc_id = %lld "
				       "AND c.call_id = (SELECT call_id FROM "
				       "rpc_calls WHERE %s) AND m.event = 1 "
				       "AND m.mono_ns > c.stub_end_exit_ns",
				       cp, NTH(cp, 0)),
			 1);
	/*
	 * ccsg says what the report covers, and that the client's chain
	 * (its calls in turn) was cut at its second call: cpu and latency
	 * switched off there
	 */
	{
		struct tool_out r = tool_run(
			ARGS(tool_path("ccsg"), "report", "--db", t.db));
		long long second = e2e_query_int(
			t.sql, "SELECT call_id FROM rpc_calls WHERE %s",
			NTH(cp, 1));
		char want[256];

		e2e_assert_exit(r.status, 0, "ccsg report");
		ck_assert_msg(strstr(r.out, "monitoring: 8 switches; on "
					    "throughout: memory; on at times: "
					    "semantics, latency, cpu"),
			      "%s", r.out);
		ck_assert_msg(strstr(r.out, "chains cut by a switch: 1 "), "%s",
			      r.out);
		e2e_fmt(want, sizeof(want),
			"cut at call %lld (program 0x20000c5a procedure 1, "
			"event ",
			second);
		ck_assert_msg(strstr(r.out, want), "no '%s' in %s", want,
			      r.out);
		ck_assert_msg(strstr(r.out, "): latency, cpu not recorded "
					    "from there\n"),
			      "%s", r.out);
		tool_out_release(&r);
		r = tool_run(ARGS(tool_path("ccsg"), "report", "--db", t.db,
				  "--format=json"));
		e2e_assert_exit(r.status, 0, "ccsg report --format=json");
		e2e_fmt(want, sizeof(want),
			"\"cut_chains\": [{\"chain\": \"%s\", \"call_id\": "
			"%lld,",
			mon_text(&t, rpc_q("SELECT lower(hex(chain)) FROM "
					   "rpc_calls WHERE call_id = %lld",
					   second)),
			second);
		ck_assert_msg(strstr(r.out, want), "no '%s' in %s", want,
			      r.out);
		ck_assert_msg(strstr(r.out, "\"lost\": [\"latency\", \"cpu\"], "
					    "\"gained\": []}]}"),
			      "%s", r.out);
		tool_out_release(&r);
	}
	free(out);
	e2e_release(&t);
}
END_TEST

/*
 * Component selection by host, interface, function (number and name)
 * and wildcards; the most specific wins, then the latest.
 */
START_TEST(test_component_selection)
{
	struct rpc_server a;
	char path[2][PATH_MAX], idl[PATH_MAX];
	struct e2e t;
	pid_t coord, c[2];
	long long p[2];

	rpc_isolate();
	e2e_init(&t);
	coord = mon_coord_start(&t, MON_PORT);
	mon_server_start(&t, &a, "a", "hostS", ENV(MON_COORD), NULL);
	/* two clients, each on a host of its own */
	c[0] = mon_step_client(&t, "c0", "hostC", a.tcp, ENV(MON_COORD),
			       path[0], sizeof(path[0]));
	c[1] = mon_step_client(&t, "c1", "hostD", a.tcp, ENV(MON_COORD),
			       path[1], sizeof(path[1]));
	mon_wait_connected(&t, 3);

	/* nothing of DEMO_PROG but SAY_IT (1, its names from demo.x) and,
	 * by its stub's name, twice */
	e2e_fmt(idl, sizeof(idl), "%s/test/rpc/gen/demo.x", e2e_build());
	mon_publish(&t, ARGS("select", "*", "0x20000c5a", "*", "off"));
	mon_publish(&t, ARGS("select", "--idl", idl, "*", "demo_prog", "SAY_IT",
			     "on"));
	mon_publish(&t, ARGS("select", "*", "*", "twice", "on"));
	mon_step(path[0], 1, "siblings 3", c[0]);
	/* hostD: everything (as specific as the program's off, later) */
	mon_publish(&t, ARGS("select", "hostD", "*", "*", "on"));
	mon_step(path[1], 1, "siblings 4", c[1]);
	mon_step(path[0], 2, "siblings 5", c[0]);
	/* the program's off again: now the latest of equals */
	mon_publish(&t, ARGS("select", "*", "0x20000c5a", "*", "off"));
	mon_step(path[1], 2, "siblings 6", c[1]);
	for (int i = 0; i < 2; i++) {
		mon_step(path[i], 3, "stop", c[i]);
		e2e_assert_exit(e2e_wait(c[i]), 0, "client");
	}
	rpc_server_stop(&a);
	kill(coord, SIGTERM);
	e2e_wait(coord);
	e2e_merge(&t);
	for (int i = 0; i < 2; i++)
		p[i] = e2e_query_int(
			t.sql,
			"SELECT p.proc_id FROM processes p JOIN hosts h USING "
			"(host_id) WHERE p.exe LIKE '%%demo-client' AND h.name "
			"%s 'hostD'",
			i ? "=" : "<>");

	/* c0, twice: say_it and twice, never the null procedure */
	ck_assert_str_eq(mon_text(&t, rpc_q("SELECT group_concat(proc, ',') "
					    "FROM (SELECT proc FROM rpc_calls "
					    "WHERE client_proc_id = %lld ORDER "
					    "BY stub_start_event)",
					    p[0])),
			 "1,2,1,2");
	/* c1 on hostD: all three; then, the program's off the latest,
	 * say_it only (more specific) */
	ck_assert_str_eq(mon_text(&t, rpc_q("SELECT group_concat(proc, ',') "
					    "FROM (SELECT proc FROM rpc_calls "
					    "WHERE client_proc_id = %lld ORDER "
					    "BY stub_start_event)",
					    p[1])),
			 "1,2,0,1");
	rpc_assert_calls(
		&t, rpc_q("client_proc_id IN (%lld, %lld)", p[0], p[1]),
		RPC_LINKED " AND server_proc_id = (SELECT proc_id FROM "
			   "processes WHERE exe LIKE '%demo-server')",
		8);
	/* what each process was told */
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT count(*) FROM monitor_switches "
				       "WHERE kind = 'select'"),
			 3 * 5);
	ck_assert_str_eq(mon_text(&t, rpc_q("SELECT host || ' ' || interface "
					    "|| ' ' || function || ' ' || "
					    "state || ' ' || selections FROM "
					    "monitor_switches WHERE proc_id = "
					    "%lld AND event = 4",
					    p[1])),
			 "hostD * * on 4");
	/* the names became numbers before they were published */
	ck_assert_str_eq(mon_text(&t, rpc_q("SELECT interface || ' ' || "
					    "function FROM monitor_switches "
					    "WHERE proc_id = %lld AND event = "
					    "2",
					    p[1])),
			 "0x20000c5a 1");
	e2e_release(&t);
}
END_TEST

/*
 * Causal overriding across three hosts and into spawned threads: SAY_IT
 * is off everywhere; SPAWN from the client on hostC to hostA is on, and
 * the thread SPAWN starts on hostA calls SAY_IT on hostB: recorded on
 * both sides, whatever the component says; the client's own SAY_IT is
 * not.
 */
START_TEST(test_causal_overriding_across_hosts)
{
	struct rpc_server a, b;
	char path[PATH_MAX], nextp[16];
	struct e2e t;
	pid_t coord, c;
	long long spawn, cp;

	rpc_isolate();
	e2e_init(&t);
	coord = mon_coord_start(&t, MON_PORT);
	mon_server_start(&t, &b, "b", "hostB", ENV(MON_COORD), NULL);
	e2e_fmt(nextp, sizeof(nextp), "%d", b.tcp);
	mon_server_start(&t, &a, "a", "hostA", ENV(MON_COORD),
			 ARGS("-n", nextp));
	c = mon_step_client(&t, "c", "hostC", a.tcp, ENV(MON_COORD), path,
			    sizeof(path));
	mon_wait_connected(&t, 3);
	mon_publish(&t, ARGS("select", "*", "*", "1", "off"));
	mon_step(path, 1, "spawn 3", c);
	mon_step(path, 2, "say 9", c);
	mon_step(path, 3, "stop", c);
	e2e_assert_exit(e2e_wait(c), 0, "client");
	rpc_server_stop(&a);
	rpc_server_stop(&b);
	kill(coord, SIGTERM);
	e2e_wait(coord);
	e2e_merge(&t);
	rpc_server_proc(&t, &a);
	rpc_server_proc(&t, &b);
	cp = e2e_query_int(t.sql, "SELECT proc_id FROM processes WHERE exe "
				  "LIKE '%%demo-client'");

	spawn = rpc_call_id(
		&t, rpc_q("client_proc_id = %lld AND proc = %d", cp, P_SPAWN));
	rpc_assert_calls(&t, rpc_q("call_id = %lld", spawn), RPC_LINKED, 1);
	/* the client's own SAY_IT: off */
	ck_assert_int_eq(e2e_query_int(t.sql,
				       "SELECT count(*) FROM rpc_calls WHERE "
				       "client_proc_id = %lld AND proc = %d",
				       cp, P_SAY_IT),
			 0);
	/* the spawned thread's three, hostA to hostB, recorded whole and
	 * linked to the thread SPAWN started */
	rpc_assert_calls(&t,
			 rpc_q("client_proc_id = %lld AND server_proc_id = "
			       "%lld AND proc = %d",
			       a.proc, b.proc, P_SAY_IT),
			 RPC_LINKED " AND client_mon = 'semantics|latency|cpu'"
				    " AND server_mon = client_mon",
			 3);
	ck_assert_int_eq(
		e2e_query_int(t.sql,
			      "SELECT count(DISTINCT c.client_tid) FROM "
			      "rpc_calls c JOIN threads t ON "
			      "t.proc_id = c.client_proc_id AND t.tid "
			      "= c.client_tid WHERE c.client_proc_id "
			      "= %lld AND c.proc = %d AND "
			      "t.ctx_function = (SELECT "
			      "server_function_id FROM rpc_calls WHERE "
			      "call_id = %lld) AND t.cpu_ns IS NOT NULL",
			      a.proc, P_SAY_IT, spawn),
		1);
	e2e_release(&t);
}
END_TEST

/*
 * No coordinator at first (unreachable): the programs run as always with
 * their start-up state, print nothing more; one started later is found.
 * Killed mid-run: the processes keep their last state; restarted: they
 * reconnect, and take its events.
 */
START_TEST(test_coordinator_unreachable_and_restarted)
{
	struct rpc_server a;
	char path[PATH_MAX], *err;
	struct e2e t;
	pid_t coord, c;
	long long cp;

	rpc_isolate();
	e2e_init(&t);
	mon_server_start(&t, &a, "a", "hostS", ENV(MON_COORD), NULL);
	c = mon_step_client(&t, "c", NULL, a.tcp,
			    ENV(MON_COORD, "CAUSAL_MONITOR=semantics"), path,
			    sizeof(path));
	mon_step(path, 1, "say 1", c); /* nobody to ask: semantics */
	coord = mon_coord_start(&t, MON_PORT);
	mon_wait_connected(&t, 2);
	mon_publish(&t, ARGS("on", "latency"));
	mon_step(path, 2, "say 2", c); /* semantics, latency */
	kill(coord, SIGKILL);
	e2e_wait(coord);
	mon_step(path, 3, "say 3", c); /* the last state stays */
	coord = mon_coord_start(&t, MON_PORT);
	mon_wait_connected(&t, 2);
	mon_publish(&t, ARGS("on", "cpu"));
	mon_step(path, 4, "say 4", c); /* the new coordinator's event */
	mon_step(path, 5, "stop", c);
	e2e_assert_exit(e2e_wait(c), 0, "client");
	rpc_server_stop(&a);
	kill(coord, SIGTERM);
	e2e_assert_exit(e2e_wait(coord), 0, "causalctl serve");
	/* never a word on the programs' stderr */
	err = e2e_slurp(rpc_q("%s/c.err", t.dir), NULL);
	ck_assert_str_eq(err, "");
	free(err);
	err = e2e_slurp(a.err, NULL);
	ck_assert_str_eq(err, "");
	free(err);
	e2e_merge(&t);
	cp = e2e_proc(&t, c);
	ck_assert_str_eq(mon_text(&t, rpc_q("SELECT group_concat(client_mon, "
					    "' ') FROM (SELECT client_mon FROM "
					    "rpc_calls WHERE client_proc_id = "
					    "%lld ORDER BY stub_start_event)",
					    cp)),
			 "semantics semantics|latency semantics|latency "
			 "semantics|latency|cpu");
	/* the new coordinator numbers from 1 again */
	ck_assert_str_eq(mon_text(&t, rpc_q("SELECT group_concat(event || ':' "
					    "|| kind, ' ') FROM (SELECT * FROM "
					    "monitor_switches WHERE proc_id = "
					    "%lld ORDER BY seq)",
					    cp)),
			 "0:initial 1:on 1:on");
	e2e_release(&t);
}
END_TEST

/*
 * The channel is network input: garbage to the coordinator is rejected
 * and counted and hurts nothing; bad input of causalctl is an error line
 * and a non-zero exit.
 */
START_TEST(test_hostile_channel_and_bad_input)
{
	static const char *const garbage[] = { "HELLO 2 zz host 1 - 0 exe\n",
					       "EVENT 1 on cpu\n",
					       "ACK 5\n",
					       "\x01\x02\n",
					       "PUBLISH on bogus\n",
					       "PUBLISH select a b c d\n",
					       "HELLO 1\n" };
	struct rpc_server a;
	struct e2e t;
	char *text;
	pid_t coord;

	rpc_isolate();
	e2e_init(&t);
	coord = mon_coord_start(&t, MON_PORT);
	mon_server_start(&t, &a, "a", NULL, ENV(MON_COORD), NULL);
	mon_wait_connected(&t, 1);
	for (size_t i = 0; i < sizeof(garbage) / sizeof(garbage[0]); i++) {
		int fd = mon_socket();
		char buf[256];

		ck_assert(write(fd, garbage[i], strlen(garbage[i])) > 0);
		shutdown(fd, SHUT_WR);
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		close(fd);
	}
	/* a line too long, never ended */
	{
		int fd = mon_socket();
		char big[2000];

		memset(big, 'A', sizeof(big));
		ck_assert(write(fd, big, sizeof(big)) > 0);
		close(fd);
	}
	text = mon_ctl(&t, 0, ARGS("status"));
	ck_assert_msg(strstr(text, "0 events published, 7 malformed messages "
				   "rejected, 1 request denied"),
		      "%s", text);
	free(text);
	/* bad input of the commands */
	text = mon_ctl(&t, 2, ARGS("on", "cpu,bogus"));
	ck_assert_str_eq(text, "causalctl: error: unknown monitoring type "
			       "'bogus' (semantics, latency, cpu, memory, "
			       "all, locks, values)\n");
	free(text);
	text = mon_ctl(&t, 2, ARGS("off"));
	ck_assert_msg(strstr(text, "no monitoring type given"), "%s", text);
	free(text);
	text = mon_ctl(&t, 2, ARGS("select", "*", "DEMO", "*", "on"));
	ck_assert_msg(
		strstr(text, "causalctl: error: unknown interface 'DEMO'"),
		"%s", text);
	free(text);
	text = mon_ctl(
		&t, 2,
		ARGS("select", "--idl", "/nonexistent.x", "*", "*", "*", "on"));
	ck_assert_msg(
		strstr(text, "causalctl: error: cannot open '/nonexistent.x'"),
		"%s", text);
	free(text);
	text = mon_ctl(&t, 2, ARGS("select", "*", "0x1ffffffff", "*", "on"));
	ck_assert_msg(strstr(text, "causalctl: error: unknown interface"), "%s",
		      text);
	free(text);
	text = mon_ctl(&t, 2, ARGS("select", "*", "*", "*", "maybe"));
	ck_assert_msg(strstr(text, "expected 'on' or 'off', not 'maybe'"), "%s",
		      text);
	free(text);
	text = mon_ctl(&t, 2, ARGS("select", "*", "*", "*"));
	ck_assert_msg(strstr(text, "expected HOST INTERFACE FUNCTION on|off"),
		      "%s", text);
	free(text);
	/* the process is unharmed and still follows */
	mon_publish(&t, ARGS("off", "cpu"));
	rpc_client(&t, "c", 1, ARGS("-P", rpc_port(a.tcp), "say", "1"), 0,
		   NULL);
	rpc_server_stop(&a);
	kill(coord, SIGTERM);
	e2e_assert_exit(e2e_wait(coord), 0, "causalctl serve");
	e2e_merge(&t);
	rpc_server_proc(&t, &a);
	ck_assert_str_eq(mon_text(&t, rpc_q("SELECT types FROM "
					    "monitor_switches WHERE proc_id = "
					    "%lld AND event = 1",
					    a.proc)),
			 "semantics|latency|memory");
	e2e_release(&t);
}
END_TEST

/*
 * The coordinator reaches a process on another host: a server in a
 * network (and UTS) namespace of its own, hostR, linked to the test's by
 * a veth pair (10.79.0.1 here, 10.79.0.2 there), over TCP with the key.
 * Its switches apply there; an untraced client here calls it across the
 * link.
 */
START_TEST(test_coordinator_across_network_namespaces)
{
	char script[PATH_MAX * 4], ready[PATH_MAX], go[PATH_MAX],
		started[PATH_MAX], pid_s[16], *text, *out;
	const char *argv[] = { "/usr/bin/unshare",
			       "--net",
			       "--uts",
			       "/bin/sh",
			       "-c",
			       script,
			       NULL };
	struct e2e t;
	pid_t coord, srv;
	int port = 0, spid = 0;
	long long sp;

	rpc_isolate();
	e2e_init(&t);
	coord = mon_coord_start(&t, ":" MON_PORT);
	e2e_fmt(ready, sizeof(ready), "%s/r.ready", t.dir);
	e2e_fmt(go, sizeof(go), "%s/r.go", t.dir);
	e2e_fmt(started, sizeof(started), "%s/r.started", t.dir);
	/* the shell runs in the new namespaces: say so, wait for the link */
	e2e_fmt(script, sizeof(script),
		": > %s && hostname hostR && "
		"while [ ! -e %s ]; do sleep 0.02; done && "
		"ip link set lo up && ip addr add 10.79.0.2/24 dev vr && "
		"ip link set vr up && exec env LD_PRELOAD=%s/libcausal.so "
		"CAUSAL_LOG_DIR=%s CAUSAL_COORDINATOR=10.79.0.1:" MON_PORT
		" %s %s -r %s",
		started, go, e2e_build(), t.logs, mon_key_env(&t),
		rpc_prog("demo-server"), ready);
	srv = e2e_spawn(argv, NULL, rpc_q("%s/r.out", t.dir),
			rpc_q("%s/r.err", t.dir));
	rpc_wait_file(started, srv);
	e2e_fmt(pid_s, sizeof(pid_s), "%d", (int)srv);
	{
		const char *const cmds[][12] = {
			{ "/usr/sbin/ip", "link", "add", "vp", "type", "veth",
			  "peer", "name", "vr", "netns", pid_s, NULL },
			{ "/usr/sbin/ip", "addr", "add", "10.79.0.1/24", "dev",
			  "vp", NULL },
			{ "/usr/sbin/ip", "link", "set", "vp", "up", NULL },
		};

		for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
			e2e_assert_exit(e2e_run_plain(cmds[i], NULL, NULL), 0,
					cmds[i][1]);
	}
	fclose(fopen(go, "w"));
	rpc_wait_file(ready, srv);
	text = e2e_slurp(ready, NULL);
	ck_assert(sscanf(text, "pid %d tcp %d", &spid, &port) == 2);
	free(text);
	mon_wait_connected(&t, 1);
	text = mon_ctl(&t, 0, ARGS("status"));
	ck_assert_msg(strstr(text, "hostR"), "%s", text);
	free(text);

	rpc_client(&t, "c1", 0,
		   ARGS("-H", "10.79.0.2", "-P", rpc_port(port), "say", "1"), 0,
		   &out);
	free(out);
	mon_publish(&t, ARGS("off", "cpu", "semantics"));
	rpc_client(&t, "c2", 0,
		   ARGS("-H", "10.79.0.2", "-P", rpc_port(port), "say", "2"), 0,
		   &out);
	ck_assert_str_eq(rpc_head(out, "say"), "say 2 = 3 status RPC_SUCCESS");
	free(out);
	kill(srv, SIGTERM);
	e2e_assert_exit(e2e_wait(srv), 0, "server on hostR");
	kill(coord, SIGTERM);
	e2e_wait(coord);
	e2e_merge(&t);
	sp = e2e_proc(&t, spid);
	ck_assert_str_eq(mon_text(&t, rpc_q("SELECT h.name FROM processes p "
					    "JOIN hosts h USING (host_id) "
					    "WHERE proc_id = %lld",
					    sp)),
			 "hostR");
	ck_assert_str_eq(mon_text(&t, rpc_q("SELECT group_concat(server_mon, "
					    "' ') FROM (SELECT server_mon FROM "
					    "rpc_calls WHERE server_proc_id = "
					    "%lld ORDER BY call_id)",
					    sp)),
			 "semantics|latency|cpu latency");
	e2e_release(&t);
}
END_TEST

/* ---- a hostile coordinator: the test plays it ---------------------------- */

/*
 * A coordinator that sends garbage: a bad type, a bad selection, events
 * out of order, control bytes.  The consumer rejects each (BAD for an
 * event it skips in order, else it hangs up and reconnects, saying what
 * it applied), applies only what is well formed, and the program runs
 * and answers as always.
 */
START_TEST(test_hostile_coordinator)
{
	struct rpc_server a;
	struct e2e t;
	char hello[1024], *err;
	int lfd, fd;

	rpc_isolate();
	e2e_init(&t);
	/* root's socket, which the process trusts: root runs the test */
	lfd = mon_listen(NULL);
	mon_server_start(&t, &a, "a", NULL, ENV(MON_COORD), NULL);

	fd = mon_accept(lfd);
	e2e_fmt(hello, sizeof(hello), "%s", mon_line(fd));
	ck_assert_msg(!strncmp(hello, "HELLO 3 ", 8) &&
			      strstr(hello, rpc_q(" %d - 0 ", a.server_pid)),
		      "%s", hello);
	mon_send(fd, "WELCOME 2 abc\nEVENT 1 on bogus\n"
		     "EVENT 2 select * x * on\nEVENT 3 off cpu\n");
	ck_assert_str_eq(mon_line(fd), "BAD 1");
	ck_assert_str_eq(mon_line(fd), "BAD 2");
	ck_assert_str_eq(mon_line(fd), "ACK 3");
	/* a gap in the order: hung up on */
	mon_send(fd, "EVENT 9 on cpu\n");
	ck_assert_str_eq(mon_line(fd), "");
	close(fd);
	/* it comes back, saying what it applied of whom */
	fd = mon_accept(lfd);
	ck_assert_msg(strstr(mon_line(fd), rpc_q(" %d abc 3 ", a.server_pid)),
		      "bad second HELLO");
	mon_send(fd, "WELCOME 2 abc\nEVENT 4 \x01\x7f\n");
	ck_assert_str_eq(mon_line(fd), "");
	close(fd);
	fd = mon_accept(lfd);
	mon_line(fd);
	mon_send(fd, "EVENT 4 on cpu\n"); /* before WELCOME */
	ck_assert_str_eq(mon_line(fd), "");
	close(fd);
	close(lfd);

	rpc_client(&t, "c", 0, ARGS("-P", rpc_port(a.tcp), "say", "5"), 0,
		   NULL);
	rpc_server_stop(&a);
	err = e2e_slurp(a.err, NULL);
	ck_assert_str_eq(err, "");
	free(err);
	e2e_merge(&t);
	rpc_server_proc(&t, &a);
	ck_assert_str_eq(
		mon_text(&t, rpc_q("SELECT group_concat(event || ':' "
				   "|| kind || ':' || types, ' ') FROM "
				   "(SELECT * FROM monitor_switches "
				   "WHERE proc_id = %lld ORDER BY seq)",
				   a.proc)),
		"0:initial:semantics|latency|cpu|memory "
		"3:off:semantics|latency|memory");
	rpc_assert_calls(&t, rpc_q("server_proc_id = %lld", a.proc),
			 "server_mon = 'semantics|latency' AND missing = "
			 "'client' AND skel_start_cpu_ns IS NULL",
			 1);
	e2e_release(&t);
}
END_TEST

Suite *e2e_monitor_ctl_suite(void)
{
	Suite *s = suite_create("e2e-monitor-ctl");
	TCase *tc = tcase_create("e2e-monitor-ctl");

	tcase_set_timeout(tc, E2E_TIMEOUT);
	e2e_add_fixture(tc);
	tcase_add_test(tc, test_types_switched_mid_run);
	tcase_add_test(tc, test_component_selection);
	tcase_add_test(tc, test_causal_overriding_across_hosts);
	tcase_add_test(tc, test_coordinator_unreachable_and_restarted);
	tcase_add_test(tc, test_hostile_channel_and_bad_input);
	tcase_add_test(tc, test_coordinator_across_network_namespaces);
	tcase_add_test(tc, test_hostile_coordinator);
	suite_add_tcase(s, tc);
	return s;
}
