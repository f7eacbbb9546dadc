/*
 * check-e2e-rpc-paths.c - end to end: every way libtirpc makes a client
 * handle or registers a service is traced; traced and untraced peers
 * interoperate; a program nobody here wrote (rpcbind, rpcinfo) is traced.
 *
 * The coverage test is a loop test over `modes`: one server registration
 * path each, called by the client creation paths that suit it.  Paths
 * that ask rpcbind get an untraced one in the test's own namespace
 * (e2e-rpc.h), so the calls to rpcbind are the client's only, and the
 * demo calls (prog DEMO_PROG) are asserted.
 */
#include "e2e-rpc.h"

#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})

struct mode {
	const char *server;    /* demo-server -m */
	int rpcbind;	       /* needs rpcbind */
	const char *proto;     /* demo-client -p */
	const char *port;      /* "tcp", "udp": -P that port; NULL: none */
	const char *paths[5];  /* demo-client -c, NULL-terminated */
	const char *transport; /* rpc_calls.transport expected */
};

static const struct mode modes[] = {
    {"svc_register", 0, "tcp", "tcp", {"clnttcp_create"}, "tcp"},
    {"svc_register", 0, "udp", "udp", {"clntudp_create"}, "udp"},
    {"svc_register_pmap", 1, "tcp", NULL, {"clnt_create"}, "tcp"},
    {"svc_register_pmap", 1, "udp", NULL, {"callrpc", "rpc_call"}, "udp"},
    {"svc_create", 1, "tcp", NULL, {"clnt_create_timed", "rpc_call"}, "tcp"},
    {"svc_create", 1, "udp", NULL, {"clnt_create"}, "udp"},
    {"svc_tp_create",
     1,
     "tcp",
     NULL,
     {"clnt_tp_create", "clnt_tp_create_timed", "clnt_create_vers"},
     "tcp"},
    {"svc_tli_create",
     1,
     "udp",
     NULL,
     {"clnt_create_vers_timed", "callrpc"},
     "udp"},
    {"svc_vc_create",
     0,
     "tcp",
     "tcp",
     {"clnt_vc_create", "clnt_tli_create", "clnttcp_create"},
     "tcp"},
    {"svc_dg_create",
     0,
     "udp",
     "udp",
     {"clnt_dg_create", "clnt_tli_create", "clntudp_bufcreate",
      "clntudp_create"},
     "udp"},
    {"unix", 0, "tcp", NULL, {"clntunix_create"}, "unix"},
};
#define NMODES ((int)(sizeof(modes) / sizeof(modes[0])))

START_TEST(test_paths)
{
	const struct mode *m = &modes[_i];
	pid_t rpcbind = 0, c[5];
	char sock[PATH_MAX];
	struct rpc_server s;
	struct e2e t;
	int n = 0;

	rpc_isolate();
	e2e_init(&t);
	e2e_fmt(sock, sizeof(sock), "%s/demo.sock", t.dir);
	if (m->rpcbind)
		rpcbind = rpc_rpcbind_start(&t, 0);
	rpc_server_start(&t, &s, "server", 1, NULL,
			 ARGS("-m", m->server, "-u", sock));
	for (; n < 5 && m->paths[n]; n++) {
		const char *argv[12] = {"-p",	     m->proto, "-c",
					m->paths[n], "-u",     sock};
		int k = 6;
		char *out;

		if (m->port) {
			argv[k++] = "-P";
			argv[k++] =
			    rpc_port(!strcmp(m->port, "tcp") ? s.tcp : s.udp);
		}
		argv[k++] = "say";
		argv[k++] = "41";
		c[n] = rpc_client(&t, m->paths[n], 1, argv, 0, &out);
		ck_assert_str_eq(rpc_head(out, "say"),
				 "say 41 = 42 status RPC_SUCCESS");
		free(out);
	}
	rpc_server_stop(&s);
	if (rpcbind)
		rpc_rpcbind_stop(rpcbind);
	e2e_merge(&t);
	rpc_server_proc(&t, &s);

	for (int i = 0; i < n; i++) {
		const char *how = m->paths[i];
		int stub = strcmp(how, "rpc_call") && strcmp(how, "callrpc");
		char where[256];

		/* clnt_create_vers* ping NULLPROC first: every demo call is
		 * linked, and the one SAY_IT is as expected */
		e2e_fmt(where, sizeof(where),
			"client_proc_id = %lld AND prog = %d",
			e2e_proc(&t, c[i]), DEMO_PROG);
		rpc_assert_calls(
		    &t, where,
		    rpc_q(RPC_LINKED " AND server_proc_id = %lld", s.proc), -1);
		e2e_fmt(where, sizeof(where),
			"client_proc_id = %lld AND prog = %d AND proc = %d",
			e2e_proc(&t, c[i]), DEMO_PROG, P_SAY_IT);
		rpc_assert_calls(&t, where,
				 rpc_q("transport = '%s' AND status_name = "
				       "'RPC_SUCCESS' AND (%d = 0 OR "
				       "site_symbol = 'say_it_1')",
				       m->transport, stub),
				 1);
	}
	/* what the server registered */
	ck_assert_int_ge(e2e_query_int(t.sql,
				       "SELECT count(*) FROM rpc_objects WHERE"
				       " proc_id = %lld AND prog = %d",
				       s.proc, DEMO_PROG),
			 1);
	e2e_release(&t);
}
END_TEST

/*
 * Traced client -> untraced server and untraced client -> traced server,
 * TCP and UDP: what the programs compute is what they compute untraced;
 * the traced side records its half, without a tag from the other.
 */
START_TEST(test_interop)
{
	static const char *const proto[] = {"tcp", "udp"};
	struct rpc_server plain, traced;
	struct e2e t;

	rpc_isolate();
	e2e_init(&t);
	rpc_server_start(&t, &plain, "plain", 0, NULL, NULL);
	rpc_server_start(&t, &traced, "traced", 1, NULL, NULL);
	for (int i = 0; i < 2; i++) {
		const char *const cmds[][3] = {
		    {"say", "41"}, {"siblings", "3"}, {"recurse", "1"}};

		for (int k = 0; k < 3; k++) {
			char *ref, *a, *b, name[64];
			int pp = i ? plain.udp : plain.tcp,
			    tp = i ? traced.udp : traced.tcp;

			/* untraced both: the reference */
			e2e_fmt(name, sizeof(name), "ref-%s-%s", proto[i],
				cmds[k][0]);
			rpc_client(&t, name, 0,
				   ARGS("-p", proto[i], "-P", rpc_port(pp),
					cmds[k][0], cmds[k][1]),
				   0, &ref);
			e2e_fmt(name, sizeof(name), "tc-%s-%s", proto[i],
				cmds[k][0]);
			rpc_client(&t, name, 1,
				   ARGS("-p", proto[i], "-P", rpc_port(pp),
					cmds[k][0], cmds[k][1]),
				   0, &a);
			e2e_fmt(name, sizeof(name), "ts-%s-%s", proto[i],
				cmds[k][0]);
			rpc_client(&t, name, 0,
				   ARGS("-p", proto[i], "-P", rpc_port(tp),
					cmds[k][0], cmds[k][1]),
				   0, &b);
			for (const char *pre = ref; pre && *pre;) {
				char head[64];
				size_t len = strcspn(pre, " ");

				e2e_fmt(head, sizeof(head), "%.*s", (int)len,
					pre);
				/* every line, up to its tid */
				ck_assert_str_eq(rpc_head(a, head),
						 rpc_head(ref, head));
				ck_assert_str_eq(rpc_head(b, head),
						 rpc_head(ref, head));
				pre = strchr(pre, '\n');
				pre = pre ? pre + 1 : NULL;
			}
			free(ref);
			free(a);
			free(b);
		}
	}
	rpc_server_stop(&plain);
	rpc_server_stop(&traced);
	e2e_merge(&t);
	rpc_server_proc(&t, &traced);
	/* traced clients, untraced server: client side only, no tag back */
	rpc_assert_calls(&t, "server_proc_id IS NULL",
			 "missing = 'server' AND reply_tag = 'absent' AND "
			 "status_name = 'RPC_SUCCESS' AND stub_end_event = "
			 "stub_start_event + 1",
			 2 * (1 + 3 + 1));
	/* untraced clients, traced server: server side only, tag absent;
	 * RECURSE's nested call is traced on both ends (1 per transport) */
	rpc_assert_calls(&t, "client_proc_id IS NULL",
			 rpc_q("missing = 'client' AND tag = 'absent' AND "
			       "reply = 'success' AND server_proc_id = %lld",
			       traced.proc),
			 2 * (1 + 3 + 1));
	rpc_assert_calls(&t,
			 "client_proc_id IS NOT NULL AND server_proc_id "
			 "IS NOT NULL",
			 RPC_LINKED " AND proc = 6", 2);
	e2e_release(&t);
}
END_TEST

/*
 * rpcbind traced, asked by a traced rpcinfo: every call rpcinfo made is
 * linked to rpcbind's skeleton.
 */
START_TEST(test_rpcbind_rpcinfo)
{
	struct e2e t;
	char *out;
	pid_t rb, ri[2];
	long long prb;

	rpc_isolate();
	e2e_init(&t);
	rb = rpc_rpcbind_start(&t, 1);
	{
		const char *argv1[] = {"/usr/sbin/rpcinfo", "-p", "127.0.0.1",
				       NULL};
		const char *argv2[] = {"/usr/sbin/rpcinfo", "-T",     "tcp",
				       "127.0.0.1",	    "100000", NULL};
		char o1[PATH_MAX], o2[PATH_MAX];

		e2e_fmt(o1, sizeof(o1), "%s/rpcinfo-p.out", t.dir);
		e2e_fmt(o2, sizeof(o2), "%s/rpcinfo-T.out", t.dir);
		ri[0] = e2e_spawn_traced(&t, argv1, NULL, o1, NULL);
		e2e_assert_exit(e2e_wait(ri[0]), 0, "rpcinfo -p");
		ri[1] = e2e_spawn_traced(&t, argv2, NULL, o2, NULL);
		e2e_assert_exit(e2e_wait(ri[1]), 0, "rpcinfo -T tcp");
		out = e2e_slurp(o1, NULL);
		ck_assert_msg(strstr(out, "portmapper"), "rpcinfo -p: %s", out);
		free(out);
		out = e2e_slurp(o2, NULL);
		ck_assert_msg(strstr(out, "program 100000 version 4 ready"),
			      "rpcinfo -T: %s", out);
		free(out);
	}
	rpc_rpcbind_stop(rb);
	e2e_merge(&t);
	prb = e2e_proc(&t, rb);
	ck_assert_int_ge(e2e_query_int(t.sql,
				       "SELECT count(*) FROM rpc_objects WHERE"
				       " proc_id = %lld AND prog = 100000",
				       prb),
			 1);
	/* the calls that succeeded: linked both ways */
	for (int i = 0; i < 2; i++)
		rpc_assert_calls(&t,
				 rpc_q("client_proc_id = %lld AND status_name"
				       " = 'RPC_SUCCESS'",
				       e2e_proc(&t, ri[i])),
				 rpc_q(RPC_LINKED " AND server_proc_id = %lld"
						  " AND prog = 100000",
				       prb),
				 -1);
	/* every call, failed ones too (rpcinfo -T probes version 0 first:
	 * RPC_PROGVERSMISMATCH), reached rpcbind's skeleton with its tag */
	for (int i = 0; i < 2; i++)
		rpc_assert_calls(
		    &t, rpc_q("client_proc_id = %lld", e2e_proc(&t, ri[i])),
		    rpc_q("server_proc_id = %lld AND prog = "
			  "100000 AND missing IS NULL AND tag = "
			  "'ok' AND skel_start_event = "
			  "stub_start_event + 1 AND "
			  "stub_end_event > skel_end_event",
			  prb),
		    -1);
	e2e_release(&t);
}
END_TEST

Suite *e2e_rpc_paths_suite(void)
{
	Suite *s = suite_create("e2e-rpc-paths");
	TCase *tc = tcase_create("paths");

	tcase_set_timeout(tc, E2E_TIMEOUT);
	e2e_add_fixture(tc);
	tcase_add_loop_test(tc, test_paths, 0, NMODES);
	tcase_add_test(tc, test_interop);
	tcase_add_test(tc, test_rpcbind_rpcinfo);
	suite_add_tcase(s, tc);
	return s;
}
