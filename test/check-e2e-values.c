/*
 * check-e2e-values.c - the monitoring type values end to end: vals-demo
 * (test/rpc/vals-demo.c, vals.x) serves on hostB and calls from hostA
 * over TCP and UDP; what the client sent and received is found decoded
 * in `ccsg calls` and `ccsg dscg --format=json`, on both sides; with
 * values off nothing is recorded, and a component deselected at the
 * server records no values there.
 */
#include "e2e-monitor.h"
#include "serve-run.h"
#include "tool-run.h"

/* What vals-demo's client sends and receives (vals-demo.c). */
#define MEASURE_JSON                                                           \
	"\"args\":{\"name\":\"alpha\",\"pts\":[{\"x\":1,\"y\":2},{\"x\":3,"    \
	"\"y\":4}],\"big\":-5000000000,\"next\":{\"name\":\"beta\",\"pts\":[]" \
	","                                                                    \
	"\"big\":7,\"next\":null}},\"result\":{\"out\":{\"s\":\"LIGHT\","      \
	"\"note\":\"ok alpha\"},\"sum\":10,\"tag\":\"01020304\",\"seen\":[2,"  \
	"0]}"

static const char *idl(void)
{
	static char path[PATH_MAX];

	e2e_fmt(path, sizeof(path), "%s/test/rpc/gen/vals.x", e2e_build());
	return path;
}

/* vals-demo's client on host against port (-u: UDP), traced with the
 * test's environment; it must exit 0. */
static void client(struct e2e *t, const char *host, int port, int udp)
{
	static char script[PATH_MAX * 3 + 256];
	char p[16];
	const char *argv[] = { "/usr/bin/unshare",
			       "--uts",
			       "/bin/sh",
			       "-c",
			       script,
			       "vals-demo",
			       rpc_prog("vals-demo"),
			       "-P",
			       p,
			       udp ? "-u" : NULL,
			       NULL };

	snprintf(p, sizeof(p), "%d", port);
	e2e_fmt(script, sizeof(script),
		"hostname %s && exec env LD_PRELOAD=%s/libcausal.so "
		"CAUSAL_LOG_DIR=%s \"$@\"",
		host, e2e_build(), t->logs);
	e2e_assert_exit(e2e_wait(e2e_spawn(argv, NULL, NULL, NULL)), 0,
			"vals-demo client");
}

/* Serve on hostB, call over TCP and UDP from hostA, merge. */
static void run(struct e2e *t, struct rpc_server *s)
{
	rpc_server_start_prog(t, s, "vals-demo", "hostB", 1, "hostB", NULL);
	client(t, "hostA", s->tcp, 0);
	client(t, "hostA", s->udp, 1);
	rpc_server_stop(s);
	e2e_merge(t);
}

static struct tool_out ccsg(const char *const *args)
{
	const char *argv[16];
	struct tool_out r;
	int n = 0;

	argv[n++] = tool_path("ccsg");
	while (*args && n < 15)
		argv[n++] = *args++;
	argv[n] = NULL;
	r = tool_run(argv);
	e2e_assert_exit(r.status, 0, argv[1]);
	return r;
}

static int count(const char *text, const char *what)
{
	int n = 0;

	for (const char *p = text; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

START_TEST(test_values_decoded)
{
	struct rpc_server s;
	struct tool_out r;
	struct e2e t;

	rpc_isolate();
	setenv("CAUSAL_MONITOR", "all,values", 1);
	e2e_init(&t);
	run(&t, &s);
	/* 8 calls, their arguments and results, at the stub and skeleton */
	ck_assert_int_eq(e2e_query_int(t.sql, "SELECT count(*) FROM rpc_calls"),
			 8);
	ck_assert_int_eq(
		e2e_query_int(t.sql, "SELECT count(*) FROM rpc_values"), 32);
	/* both sides saw the same bytes */
	ck_assert_int_eq(
		e2e_query_int(
			t.sql,
			"SELECT count(*) FROM rpc_calls c "
			"JOIN rpc_values a ON a.proc_id = c.client_proc_id "
			"AND a.function_id = c.client_function_id "
			"JOIN rpc_values b ON b.proc_id = c.server_proc_id "
			"AND b.function_id = c.server_function_id "
			"AND substr(b.kind, 6) = substr(a.kind, 6) "
			"WHERE a.bytes = b.bytes AND a.length = b.length"),
		16);
	r = ccsg(ARGS("calls", "--db", t.db, "--idl", idl(), "--format=json",
		      "--function", "measure"));
	ck_assert_msg(count(r.out, MEASURE_JSON) == 2, "%s", r.out);
	ck_assert_int_eq(count(r.out, "\"call\":"), 2);
	ck_assert_str_eq(r.err, "");
	tool_out_release(&r);
	r = ccsg(ARGS("calls", "--db", t.db, "--idl", idl(), "--function",
		      "VALS_PROG::ADD", "--where",
		      "args.x >= 2 and result < 30"));
	ck_assert_int_eq(
		count(r.out, "VALS_PROG::ADD {\"x\":2,\"y\":20} -> 22\n"), 2);
	ck_assert_int_eq(count(r.out, "\n"), 2);
	tool_out_release(&r);
	r = ccsg(ARGS("dscg", "--db", t.db, "--idl", idl(), "--format=json"));
	ck_assert_int_eq(count(r.out, MEASURE_JSON), 2);
	ck_assert_int_eq(count(r.out, "\"args\":{\"x\":3,\"y\":30},"
				      "\"result\":33"),
			 2);
	tool_out_release(&r);
	/* the OTLP spans of both sides, and the viewer's node details */
	r = ccsg(ARGS("export", "--format=otlp", "--db", t.db, "--idl", idl()));
	ck_assert_int_eq(count(r.out, "{\"key\":\"causal.args\",\"value\":"
				      "{\"stringValue\":\"{\\\"x\\\":2,"
				      "\\\"y\\\":20}\"}}"),
			 4);
	tool_out_release(&r);
	{
		struct server srv;
		struct reply rep;

		serve_start(&srv, t.db, NULL);
		rep = http(srv.port, "GET", "/api/node?tree=dscg&id=c2");
		ck_assert_int_eq(rep.status, 200);
		ck_assert_msg(
			strstr(rep.body, "\"args_hex\":\"000000010000000a\""),
			"%s", rep.body);
		free(rep.body);
		ck_assert_int_eq(serve_stop(&srv, SIGTERM), 0);
	}
	/* without the types: hex, counted */
	r = ccsg(ARGS("calls", "--db", t.db));
	ck_assert_int_eq(count(r.out, "hex:0000000b"), 2);
	ck_assert_msg(strstr(r.err, "16 values not decoded"), "%s", r.err);
	tool_out_release(&r);
	e2e_release(&t);
}
END_TEST

/* CAUSAL_VALUES_MAX cuts the copies: decoded as far as they go. */
START_TEST(test_values_cut)
{
	struct rpc_server s;
	struct tool_out r;
	struct e2e t;

	rpc_isolate();
	setenv("CAUSAL_MONITOR", "all,values", 1);
	setenv("CAUSAL_VALUES_MAX", "12", 1);
	e2e_init(&t);
	run(&t, &s);
	ck_assert_int_eq(e2e_query_int(t.sql, "SELECT max(length(bytes)) "
					      "FROM rpc_values"),
			 12);
	ck_assert_int_eq(e2e_query_int(t.sql, "SELECT max(length) "
					      "FROM rpc_values"),
			 68);
	r = ccsg(ARGS("calls", "--db", t.db, "--idl", idl(), "--format=json",
		      "--function", "MEASURE"));
	/* the name whole, the points' count cut: null */
	ck_assert_msg(count(r.out, "\"args\":{\"name\":\"alpha\",\"pts\":null}"
				   ",\"args_cut\":true") == 2,
		      "%s", r.out);
	tool_out_release(&r);
	e2e_release(&t);
}
END_TEST

/* Off by default: no values, the calls all the same. */
START_TEST(test_values_off)
{
	struct rpc_server s;
	struct e2e t;

	rpc_isolate();
	unsetenv("CAUSAL_MONITOR");
	e2e_init(&t);
	run(&t, &s);
	ck_assert_int_eq(e2e_query_int(t.sql, "SELECT count(*) FROM rpc_calls"),
			 8);
	ck_assert_int_eq(
		e2e_query_int(t.sql, "SELECT count(*) FROM rpc_values"), 0);
	e2e_release(&t);
}
END_TEST

/* ADD deselected at the server: its skeletons (monitored as the caller's
 * stubs were: causal overriding) record no values there; MEASURE's do. */
START_TEST(test_values_deselected)
{
	struct rpc_server s;
	struct e2e t;
	pid_t coord;

	rpc_isolate();
	e2e_init(&t);
	coord = mon_coord_start(&t, NULL);
	setenv("CAUSAL_MONITOR", "all,values", 1);
	setenv("CAUSAL_COORDINATOR", "local", 1);
	rpc_server_start_prog(&t, &s, "vals-demo", "hostB", 1, "hostB", NULL);
	mon_wait_connected(&t, 1);
	mon_publish(&t, ARGS("select", "*", "0x20000c70", "2", "off"));
	unsetenv("CAUSAL_COORDINATOR");
	client(&t, "hostA", s.tcp, 0);
	rpc_server_stop(&s);
	kill(coord, SIGTERM);
	e2e_wait(coord);
	e2e_merge(&t);
	/* the server's side of each call is there */
	ck_assert_int_eq(e2e_query_int(t.sql, "SELECT count(*) FROM rpc_calls "
					      "WHERE server_function_id "
					      "IS NOT NULL"),
			 4);
	ck_assert_int_eq(e2e_query_int(t.sql, "SELECT count(*) FROM rpc_values "
					      "WHERE kind LIKE 'skel_%%'"),
			 2);
	ck_assert_int_eq(e2e_query_int(t.sql, "SELECT count(*) FROM rpc_values "
					      "WHERE kind LIKE 'stub_%%'"),
			 8);
	e2e_release(&t);
}
END_TEST

Suite *e2e_values_suite(void)
{
	Suite *s = suite_create("e2e-values");
	TCase *tc = tcase_create("core");

	e2e_add_fixture(tc);
	tcase_add_test(tc, test_values_decoded);
	tcase_add_test(tc, test_values_cut);
	tcase_add_test(tc, test_values_off);
	tcase_add_test(tc, test_values_deselected);
	suite_add_tcase(s, tc);
	return s;
}
