/*
 * check-serve-follow.c - `ccsg serve --follow` (ccsg/serve/follow.c,
 * issue 37, item 5): a real server on a private port following an SQLite
 * trace that grows (rows appended in a transaction), is removed, is
 * replaced by another file renamed into place, or is not there yet; the
 * window of the last minutes; requests answered while a model is built;
 * bad options.  e2e-viewer-follow: the page in Chromium, the same traces.
 */
#include <check.h>
#include <signal.h>
#include <string.h>

#include "ccsg-fixture.h"
#include "json-read.h"
#include "serve-run.h"
#include "tool-run.h"

#define MIN_NS 60000000000LL
#define FILLERS 400 /* chains that make a rebuild last a while */

/* Move the last call to minute min (its times are 10 us per event). */
static void at_minute(double min)
{
	long long d = (long long)(min * MIN_NS);
	char set[512];

	snprintf(set, sizeof(set),
		 "stub_start_ns = stub_start_ns + %lld, stub_end_exit_ns = "
		 "stub_end_exit_ns + %lld, skel_start_exit_ns = "
		 "skel_start_exit_ns + %lld, skel_end_ns = skel_end_ns + %lld",
		 d, d, d, d);
	fx_set(set);
}

static void call_at(int chain, unsigned proc, double min)
{
	static const long long ev[4] = { 1, 2, 3, 4 };
	static const long long cpu[4] = { 0, 0, 5, 5 };
	char id[41];

	snprintf(id, sizeof(id), "%040d", chain);
	fx_call(id, 7, proc, "f", 1, 1, 2, 1, (int)proc, ev, cpu);
	at_minute(min);
}

/*
 * Trace A: chain 1 calls f_1 at minute 0.  Trace B: A, then chain 50
 * calls f_1 at minute 1.5, chain 3 f_2 and FILLERS chains f_3 at minute
 * 2 (in the window, chain 3 comes first: f_1's CCSG node is numbered
 * again).  Each is moved to dir/name.
 */
static void make_trace(const char *path, int grown)
{
	fx_open();
	fx_two_procs();
	call_at(1, 1, 0);
	if (grown) {
		call_at(50, 1, 1.5);
		call_at(3, 2, 2);
		for (int i = 0; i < FILLERS; i++)
			call_at(100 + i, 3, 2);
	}
	ck_assert_int_eq(rename(fx_close(), path), 0);
}

static const struct jval *follow_of(const struct jval *info)
{
	return json_need(info, "follow", J_OBJ, "follow");
}

static double num(const struct jval *o, const char *key)
{
	return json_need(o, key, J_NUM, key)->num;
}

/* The calls of procedure proc of program 7 in the IDT; 0: no node. */
static int calls_of(int port, unsigned proc)
{
	char target[64];
	struct reply r;
	struct jval *n;
	int calls;

	snprintf(target, sizeof(target), "/api/node?tree=idt&id=f7.1.%u", proc);
	r = http(port, "GET", target);
	free(r.body);
	if (r.status == 404)
		return 0;
	n = http_json(port, "GET", target, 200);
	calls = (int)num(n, "calls");
	json_free(n);
	return calls;
}

/*
 * Ask /api/info and a node until the generation is past gen, each answer
 * a 200 from one whole model (calls one of the two counts); the new
 * /api/info.  How many requests were answered meanwhile: *asked.
 */
static struct jval *wait_generation(int port, double gen, int calls_a,
				    int calls_b, int *asked)
{
	*asked = 0;
	for (int ms = 0; ms < TOOL_DEADLINE_S * 1000; ms += 10) {
		struct jval *info = http_json(port, "GET", "/api/info", 200);
		int calls = (int)num(info, "calls");
		struct jval *root = http_json(
			port, "GET", "/api/children?tree=ccsg&id=n0", 200);

		json_free(root);
		ck_assert_msg(calls == calls_a || calls == calls_b,
			      "%d calls: neither %d nor %d", calls, calls_a,
			      calls_b);
		(*asked)++;
		if (num(follow_of(info), "generation") > gen)
			return info;
		json_free(info);
		e2e_sleep_ms(10);
	}
	ck_abort_msg("generation %g never followed", gen);
	return NULL;
}

/* Wait until /api/info's follow.error is set (want) or null. */
static void wait_error(int port, int want)
{
	for (int ms = 0; ms < TOOL_DEADLINE_S * 1000; ms += 20) {
		struct jval *info = http_json(port, "GET", "/api/info", 200);
		const struct jval *e = json_get(follow_of(info), "error");
		int set = e && e->type == J_STR;

		json_free(info);
		if (set == want)
			return;
		e2e_sleep_ms(20);
	}
	ck_abort_msg("follow.error never %s", want ? "set" : "cleared");
}

static int count(const char *text, const char *what)
{
	int n = 0;

	for (const char *p = text; (p = strstr(p, what)); p++)
		n++;
	return n;
}

START_TEST(test_follow_grows)
{
	static const char *const opts[] = { "--follow", "--refresh", "0.2",
					    "--last",	"1",	     NULL };
	char db[PATH_MAX], grown[PATH_MAX], attach[PATH_MAX + 128];
	const struct jval *fo;
	struct jval *info;
	struct server s;
	struct e2e t;
	sqlite3 *sql;
	const char *at;
	double gen;
	int asked;
	char *err;

	e2e_init(&t);
	e2e_fmt(db, sizeof(db), "%s/trace.db", t.dir);
	e2e_fmt(grown, sizeof(grown), "%s/grown.db", t.dir);
	make_trace(db, 0);
	make_trace(grown, 1);
	serve_start_with(&s, db, opts);
	info = http_json(s.port, "GET", "/api/info", 200);
	fo = follow_of(info);
	ck_assert(num(fo, "generation") == 1);
	ck_assert(num(fo, "last_minutes") == 1);
	ck_assert(num(fo, "window_end_ns") - num(fo, "window_start_ns") ==
		  (double)MIN_NS);
	ck_assert_int_eq((int)num(info, "calls"), 1);
	at = json_need(fo, "refreshed_at", J_STR, "refreshed_at")->str;
	ck_assert_msg(strlen(at) == 20 && at[10] == 'T' && at[19] == 'Z', "%s",
		      at); /* 2026-11-28T23:45:00Z */
	json_free(info);
	ck_assert_int_eq(calls_of(s.port, 1), 1);

	/* the trace grows: B's rows appended in one transaction */
	ck_assert_int_eq(sqlite3_open(db, &sql), SQLITE_OK);
	e2e_fmt(attach, sizeof(attach),
		"ATTACH '%s' AS b; BEGIN; INSERT INTO rpc_calls SELECT * "
		"FROM b.rpc_calls WHERE call_id > 1; COMMIT",
		grown);
	ck_assert_msg(sqlite3_exec(sql, attach, NULL, NULL, NULL) == SQLITE_OK,
		      "%s", sqlite3_errmsg(sql));
	sqlite3_close(sql);
	/* the window's chains: 50, 3 and the fillers, not 1 (minute 0) */
	info = wait_generation(s.port, 1, 1, FILLERS + 2, &asked);
	fo = follow_of(info);
	ck_assert_int_eq((int)num(info, "calls"), FILLERS + 2);
	ck_assert(num(fo, "window_start_ns") ==
		  num(fo, "window_end_ns") - (double)MIN_NS);
	ck_assert(num(fo, "window_end_ns") >= 2 * (double)MIN_NS);
	gen = num(fo, "generation");
	json_free(info);
	ck_assert_int_eq(calls_of(s.port, 1), 1); /* chain 50's */
	ck_assert_int_eq(calls_of(s.port, 2), 1);
	ck_assert_int_eq(calls_of(s.port, 3), FILLERS);
	fprintf(stderr, "serve-follow: %d requests answered while following\n",
		asked);

	/* removed: the last good model served, said once */
	ck_assert_int_eq(unlink(db), 0);
	wait_error(s.port, 1);
	e2e_sleep_ms(600); /* three more looks */
	ck_assert_int_eq(calls_of(s.port, 3), FILLERS);
	err = e2e_slurp(s.err, NULL);
	ck_assert_int_eq(count(err, "cannot read"), 1);
	free(err);

	/* a one-shot merge renamed into place: another file */
	ck_assert_int_eq(rename(grown, db), 0);
	info = wait_generation(s.port, gen, FILLERS + 2, FILLERS + 2, &asked);
	ck_assert(json_get(follow_of(info), "error")->type == J_NULL);
	ck_assert_int_eq(calls_of(s.port, 1), 1);
	json_free(info);
	e2e_assert_exit(serve_stop(&s, SIGTERM), 0, "ccsg serve");
	e2e_release(&t);
}
END_TEST

/* No store yet: an empty view, filled in when the file comes. */
START_TEST(test_follow_empty_start)
{
	static const char *const opts[] = { "--follow", "--refresh", "0.2",
					    NULL };
	char db[PATH_MAX], later[PATH_MAX];
	struct jval *info;
	struct server s;
	struct e2e t;
	int asked;

	e2e_init(&t);
	e2e_fmt(db, sizeof(db), "%s/trace.db", t.dir);
	e2e_fmt(later, sizeof(later), "%s/later.db", t.dir);
	serve_start_with(&s, db, opts);
	info = http_json(s.port, "GET", "/api/info", 200);
	ck_assert_int_eq((int)num(info, "calls"), 0);
	ck_assert(json_get(follow_of(info), "window_start_ns")->type == J_NULL);
	ck_assert(json_get(follow_of(info), "error")->type == J_NULL);
	json_free(info);
	json_free(
		http_json(s.port, "GET", "/api/children?tree=dscg&id=m", 200));
	make_trace(later, 0);
	ck_assert_int_eq(rename(later, db), 0);
	info = wait_generation(s.port, 1, 0, 1, &asked);
	ck_assert_int_eq((int)num(info, "calls"), 1);
	json_free(info);
	e2e_assert_exit(serve_stop(&s, SIGTERM), 0, "ccsg serve");
	e2e_release(&t);
}
END_TEST

/* Without --follow, /api/info's follow is null; bad options exit 2. */
START_TEST(test_follow_options)
{
	static const char *const bad[][6] = {
		{ "--follow", NULL },
		{ "--db", "x.db", "--last", "5", NULL },
		{ "--db", "x.db", "--follow", "--last", "0", NULL },
		{ "--db", "x.db", "--follow", "--refresh", "soon", NULL },
		{ "--db", "x.db", "--follow", "--diff", "y.db", NULL },
	};
	char db[PATH_MAX];
	struct jval *info;
	struct server s;
	struct e2e t;

	e2e_init(&t);
	e2e_fmt(db, sizeof(db), "%s/trace.db", t.dir);
	make_trace(db, 0);
	serve_start(&s, db, NULL);
	info = http_json(s.port, "GET", "/api/info", 200);
	ck_assert(json_need(info, "follow", J_NULL, "follow"));
	json_free(info);
	e2e_assert_exit(serve_stop(&s, SIGTERM), 0, "ccsg serve");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *argv[10] = { tool_path("ccsg"), "serve" };
		struct tool_out r;
		size_t n = 2;

		for (size_t k = 0; bad[i][k]; k++)
			argv[n++] = bad[i][k];
		r = tool_run(argv);
		ck_assert_msg(WIFEXITED(r.status) &&
				      WEXITSTATUS(r.status) == 2 &&
				      !strncmp(r.err, "ccsg: ", 6),
			      "case %zu: status 0x%x: %s", i, r.status, r.err);
		tool_out_release(&r);
	}
	e2e_release(&t);
}
END_TEST

/* A ClickHouse store followed by its finished loads: empty (no load
 * yet), then the first load's calls; the server stopped: the last model
 * served, said.  An end-to-end suite: it runs a clickhouse-server. */
START_TEST(test_clickhouse)
{
	static const char *const opts[] = { "--follow", "--refresh", "0.2",
					    "--last",	"525600",    NULL };
	char script[PATH_MAX], dir[PATH_MAX], logs[PATH_MAX], url[96];
	char port[16], gen[PATH_MAX];
	struct jval *info;
	struct tool_out r;
	struct server s;
	struct e2e t;
	int asked;

	e2e_fmt(script, sizeof(script), "%s/test/clickhouse/server.sh",
		getenv("CAUSAL_SRC") ? getenv("CAUSAL_SRC") : ".");
	if (e2e_run_plain((const char *[]){ "/bin/bash", script, "have", NULL },
			  NULL, NULL)) {
		printf("e2e-serve-follow-clickhouse: skipped: "
		       "clickhouse-server "
		       "is not installed (bash scripts/setup.sh)\n");
		return;
	}
	e2e_init(&t);
	e2e_fmt(dir, sizeof(dir), "%s/clickhouse", t.dir);
	e2e_fmt(logs, sizeof(logs), "%s/logs", t.dir);
	e2e_fmt(port, sizeof(port), "%d", 20000 + getpid() % 20000);
	e2e_fmt(url, sizeof(url), "clickhouse://127.0.0.1:%s/follow", port);
	e2e_fmt(gen, sizeof(gen), "%s/bench/gen-rpc-logs", e2e_build());
	r = tool_run((const char *[]){ "/bin/bash", script, "start", dir, port,
				       NULL });
	ck_assert_msg(WIFEXITED(r.status) && !WEXITSTATUS(r.status),
		      "clickhouse-server: %s", r.err);
	tool_out_release(&r);
	serve_start_with(&s, url, opts);
	info = http_json(s.port, "GET", "/api/info", 200);
	ck_assert_int_eq((int)num(info, "calls"), 0);
	json_free(info);
	ck_assert_int_eq(
		e2e_run_plain((const char *[]){ gen, logs, "100", NULL }, NULL,
			      NULL),
		0);
	r = tool_run((const char *[]){ tool_path("tracedump"), "merge", logs,
				       "--db", url, NULL });
	ck_assert_msg(WIFEXITED(r.status) && !WEXITSTATUS(r.status), "%s",
		      r.err);
	tool_out_release(&r);
	info = wait_generation(s.port, 1, 0, 100, &asked);
	ck_assert_int_eq((int)num(info, "calls"), 100);
	json_free(info);
	r = tool_run(
		(const char *[]){ "/bin/bash", script, "stop", dir, NULL });
	tool_out_release(&r);
	wait_error(s.port, 1);
	json_free(
		http_json(s.port, "GET", "/api/children?tree=dscg&id=m", 200));
	e2e_assert_exit(serve_stop(&s, SIGTERM), 0, "ccsg serve");
	e2e_release(&t);
}
END_TEST

Suite *e2e_serve_follow_clickhouse_suite(void)
{
	Suite *s = suite_create("e2e-serve-follow-clickhouse");
	TCase *tc = tcase_create("clickhouse");

	e2e_add_fixture(tc);
	tcase_set_timeout(tc, 2 * E2E_TIMEOUT);
	tcase_add_test(tc, test_clickhouse);
	suite_add_tcase(s, tc);
	return s;
}

/* The page shows a new generation without a reload, the selection kept
 * (test/browser/follow-test.py): an end-to-end suite, as e2e-viewer. */
START_TEST(test_browser)
{
	static const char *const opts[] = { "--follow", "--refresh", "0.5",
					    "--last",	"1",	     NULL };
	const char *missing = browser_missing();
	char db[PATH_MAX], grown[PATH_MAX];
	struct server s;
	struct e2e t;

	if (missing) {
		printf("skipped the follow browser test: %s is not installed "
		       "(scripts/setup.sh installs it)\n",
		       missing);
		return;
	}
	e2e_init(&t);
	e2e_fmt(db, sizeof(db), "%s/trace.db", t.dir);
	e2e_fmt(grown, sizeof(grown), "%s/grown.db", t.dir);
	make_trace(db, 0);
	make_trace(grown, 1);
	serve_start_with(&s, db, opts);
	browser_run(&s, t.dir, "follow-test.py",
		    (const char *const[]){ db, grown, NULL });
	e2e_assert_exit(serve_stop(&s, SIGTERM), 0, "ccsg serve");
	e2e_release(&t);
}
END_TEST

Suite *e2e_viewer_follow_suite(void)
{
	Suite *s = suite_create("e2e-viewer-follow");
	TCase *tc = tcase_create("browser");

	e2e_add_fixture(tc);
	tcase_set_timeout(tc, 2 * E2E_TIMEOUT);
	tcase_add_test(tc, test_browser);
	suite_add_tcase(s, tc);
	return s;
}

Suite *serve_follow_suite(void)
{
	Suite *s = suite_create("serve-follow");
	TCase *tc = tcase_create("follow");

	e2e_add_fixture(tc);
	tcase_set_timeout(tc, E2E_TIMEOUT);
	tcase_add_test(tc, test_follow_grows);
	tcase_add_test(tc, test_follow_empty_start);
	tcase_add_test(tc, test_follow_options);
	suite_add_tcase(s, tc);
	return s;
}
