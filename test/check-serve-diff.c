/*
 * check-serve-diff.c - `ccsg serve --db A --diff B` (issue 38, item 3:
 * ccsg/serve/api-diff.c), from a real `ccsg serve` on a private port:
 * two traces made with the fixture where one function's calls burn twice
 * the CPU in B; its CCSG node (in /api/node, /api/children, /api/flame)
 * carries the delta and stands out, its unchanged neighbour's does not;
 * /api/info names B; without --diff no node has a diff; a missing or bad
 * B is one error line and status 1 before anything is served.  The suite
 * e2e-viewer-diff drives the page on the same traces in headless Chromium
 * (test/browser/diff-test.py: the rows tinted; skipped with one line
 * without the browser packages).
 */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ccsg-fixture.h"
#include "json-read.h"
#include "serve-run.h"
#include "tool-run.h"

#define NCALLS 10

/*
 * A trace of NCALLS calls of procedures 1 and 2 of program 7 (client on
 * host A, server on host B), each on a chain of its own: call k of
 * procedure 1 burns slow + 10 k us on the server, of procedure 2 500 +
 * 10 k us (as check-ccsg-diff.c's).
 */
static const char *trace(long long slow)
{
	char ch[64];
	int chains = 0;

	fx_open();
	fx_two_procs();
	fx_exec("UPDATE threads SET cpu_ns = 100000000");
	for (int k = 0; k < NCALLS; k++)
		for (int p = 1; p <= 2; p++) {
			long long burn = p == 1 ? slow + 10 * k : 500 + 10 * k;
			const long long ev[4] = { 1, 2, 3, 4 + burn / 10 };
			const long long cpu[4] = { 0, 1000 * chains,
						   1000 * chains + burn, 1 };

			snprintf(ch, sizeof(ch), "%038d%02x", 0, chains++);
			fx_call(ch, 7, (unsigned)p,
				p == 1 ? "slow_1" : "same_1", 1, 1, 2, 1, p, ev,
				cpu);
		}
	return fx_close();
}

static double num(const struct jval *o, const char *key)
{
	return json_need(o, key, J_NUM, key)->num;
}

static int flag(const struct jval *o, const char *key)
{
	return json_need(o, key, J_BOOL, key)->num != 0;
}

/* The id of the one CCSG node whose name holds fn, into id. */
static void node_id(int port, const char *fn, char *id, size_t len)
{
	char target[128];
	struct jval *doc;
	const struct jval *res;

	snprintf(target, sizeof(target), "/api/search?tree=ccsg&q=%s", fn);
	doc = http_json(port, "GET", target, 200);
	res = json_need(doc, "results", J_ARR, "search");
	ck_assert_int_eq(res->n, 1);
	snprintf(id, len, "%s",
		 json_need(&res->item[0], "id", J_STR, "id")->str);
	json_free(doc);
}

/* A node's "diff" as it must be: the self CPU's delta (us, per call),
 * and whether it stands out. */
static void check_diff(const struct jval *node, double delta_us, int sig)
{
	const struct jval *d = json_need(node, "diff", J_OBJ, "diff"), *h;

	ck_assert_int_eq((int)num(d, "calls_a"), NCALLS);
	ck_assert_int_eq((int)num(d, "calls_b"), NCALLS);
	ck_assert(flag(d, "in_b"));
	ck_assert_msg(num(d, "self_cpu_delta_ns") == delta_us * 1000 * NCALLS,
		      "self_cpu_delta_ns %.0f", num(d, "self_cpu_delta_ns"));
	ck_assert(num(d, "self_cpu_delta_ns") ==
		  num(d, "self_cpu_b_ns") - num(d, "self_cpu_a_ns"));
	/* a leaf: its total moved as its self did */
	ck_assert(num(d, "total_cpu_delta_ns") == num(d, "self_cpu_delta_ns"));
	ck_assert_int_eq(flag(d, "significant"), sig);
	ck_assert_int_eq(flag(d, "latency_significant"), sig);
	h = json_need(d, "hosts", J_ARR, "hosts");
	ck_assert_int_eq(h->n, 1);
	ck_assert_str_eq(json_need(&h->item[0], "host", J_STR, "host")->str,
			 "B");
	ck_assert_int_eq((int)num(&h->item[0], "sign"), sig);
	ck_assert_int_eq(flag(&h->item[0], "significant"), sig);
	if (sig) {
		ck_assert(num(d, "p") < 0.01);
		/* 1045 us a call on average, then 2045 */
		ck_assert_msg(num(d, "change_pct") > 95 &&
				      num(d, "change_pct") < 96,
			      "change_pct %.1f", num(d, "change_pct"));
	} else {
		ck_assert(num(d, "change_pct") == 0);
	}
}

START_TEST(test_diff_nodes)
{
	struct e2e t;
	char a[PATH_MAX], b[PATH_MAX], slow[32], same[32], target[512];
	const char *extra[] = { "--diff", b, NULL };
	struct jval *doc;
	const struct jval *d, *kids;
	struct server s;
	int found = 0;

	e2e_init(&t);
	snprintf(a, sizeof(a), "%s", trace(1000));
	snprintf(b, sizeof(b), "%s", trace(2000));
	serve_start_with(&s, a, extra);
	doc = http_json(s.port, "GET", "/api/info", 200);
	d = json_need(doc, "diff", J_OBJ, "info");
	ck_assert_str_eq(json_need(d, "b", J_STR, "b")->str, b);
	ck_assert_str_eq(json_need(d, "test", J_STR, "test")->str,
			 "mann-whitney-u");
	ck_assert(!flag(d, "differs"));
	json_free(doc);

	node_id(s.port, "7::slow", slow, sizeof(slow));
	node_id(s.port, "7::same", same, sizeof(same));
	snprintf(target, sizeof(target), "/api/node?tree=ccsg&id=%s", slow);
	doc = http_json(s.port, "GET", target, 200);
	check_diff(doc, 1000, 1);
	json_free(doc);
	snprintf(target, sizeof(target), "/api/node?tree=ccsg&id=%s", same);
	doc = http_json(s.port, "GET", target, 200);
	check_diff(doc, 0, 0);
	json_free(doc);

	/* the rows the page lists, and the flame graph's, carry it too */
	snprintf(target, sizeof(target), "/api/flame?tree=ccsg&id=n0");
	doc = http_json(s.port, "GET", target, 200);
	kids = json_need(doc, "nodes", J_ARR, "nodes");
	for (int i = 0; i < kids->n; i++) {
		const struct jval *n = json_get(&kids->item[i], "node");

		if (n && !strcmp(json_need(n, "id", J_STR, "id")->str, slow)) {
			check_diff(n, 1000, 1);
			found++;
		}
	}
	ck_assert_int_eq(found, 1);
	json_free(doc);
	/* the CCDG shows the impact estimate, not the diff */
	snprintf(target, sizeof(target),
		 "/api/node?tree=ccdg&id=%s&spec=reduction%%20on%%20processor"
		 "%%20%%7B%%20B%%20%%7D%%20by%%2020%%25%%20to%%20function%%20"
		 "%%7B%%20*%%3A%%3Aslow%%20%%7D",
		 slow);
	doc = http_json(s.port, "GET", target, 200);
	ck_assert_ptr_null(json_get(doc, "diff"));
	json_free(doc);
	e2e_assert_exit(serve_stop(&s, SIGTERM), 0, "ccsg serve");

	/* without --diff: none (the first one's URL gone first) */
	unlink(s.out);
	serve_start(&s, a, NULL);
	doc = http_json(s.port, "GET", "/api/info", 200);
	ck_assert(json_need(doc, "diff", J_NULL, "info"));
	json_free(doc);
	snprintf(target, sizeof(target), "/api/node?tree=ccsg&id=%s", slow);
	doc = http_json(s.port, "GET", target, 200);
	ck_assert_ptr_null(json_get(doc, "diff"));
	json_free(doc);
	e2e_assert_exit(serve_stop(&s, SIGTERM), 0, "ccsg serve");
	unlink(a);
	unlink(b);
	e2e_release(&t);
}
END_TEST

/* ccsg serve --db a --diff b: exits 1 with one error line naming what. */
static void bad_diff(const char *a, const char *b, const char *what)
{
	struct tool_out r = tool_run((const char *[]){
		tool_path("ccsg"), "serve", "--db", a, "--diff", b, "--listen",
		"127.0.0.1:0", NULL });

	ck_assert_msg(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 1,
		      "status 0x%x: %s", r.status, r.err);
	ck_assert_msg(!strstr(r.out, "http://"), "served: %s", r.out);
	ck_assert_msg(!strncmp(r.err, "ccsg: error: ", 13) &&
			      strchr(r.err, '\n') ==
				      r.err + strlen(r.err) - 1 &&
			      strstr(r.err, what),
		      "stderr: '%s'", r.err);
	tool_out_release(&r);
}

START_TEST(test_bad_diff)
{
	struct e2e t;
	char a[PATH_MAX];

	e2e_init(&t); /* tool_run() runs in its directory */
	snprintf(a, sizeof(a), "%s", trace(1000));
	bad_diff(a, "/nonexistent/trace.db", "/nonexistent/trace.db");
	bad_diff(a, "/etc/hostname", "/etc/hostname");
	unlink(a);
	e2e_release(&t);
}
END_TEST

START_TEST(test_browser)
{
	const char *missing = browser_missing();
	char a[PATH_MAX], b[PATH_MAX];
	const char *extra[] = { "--diff", b, NULL };
	struct server s;
	struct e2e t;

	if (missing) {
		printf("skipped the diff browser test: %s is not installed "
		       "(scripts/setup.sh installs it)\n",
		       missing);
		return;
	}
	e2e_init(&t);
	snprintf(a, sizeof(a), "%s", trace(1000));
	snprintf(b, sizeof(b), "%s", trace(2000));
	serve_start_with(&s, a, extra);
	browser_run(&s, t.dir, "diff-test.py", NULL);
	e2e_assert_exit(serve_stop(&s, SIGTERM), 0, "ccsg serve");
	unlink(a);
	unlink(b);
	e2e_release(&t);
}
END_TEST

/* The page in a browser: an end-to-end suite (make e2e), as e2e-viewer. */
Suite *e2e_viewer_diff_suite(void)
{
	Suite *s = suite_create("e2e-viewer-diff");
	TCase *tc = tcase_create("browser");

	e2e_add_fixture(tc);
	tcase_set_timeout(tc, 2 * E2E_TIMEOUT);
	tcase_add_test(tc, test_browser);
	suite_add_tcase(s, tc);
	return s;
}

Suite *serve_diff_suite(void)
{
	Suite *s = suite_create("serve-diff");
	TCase *tc = tcase_create("diff");

	e2e_add_fixture(tc);
	tcase_set_timeout(tc, E2E_TIMEOUT);
	tcase_add_test(tc, test_diff_nodes);
	tcase_add_test(tc, test_bad_diff);
	suite_add_tcase(s, tc);
	return s;
}
