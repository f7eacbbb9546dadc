/*
 * check-serve-flame.c - GET /api/flame (ccsg/serve/api-flame.c), the
 * viewer's flame graph's tree (issue 39, item 2), from a real `ccsg serve`
 * on a private port: the Figure 1 CCSG and DSCG whole, with the figures
 * /api/node gives and each parent's index; a DSCG of 100,000 calls
 * answered with what is at least one pixel wide, the rest one entry per
 * parent that keeps its CPU; a compacted tree; bad requests.
 */
#include <check.h>
#include <signal.h>
#include <string.h>

#include "ccsg-fixture.h"
#include "json-read.h"
#include "serve-run.h"
#include "tool-run.h"

static double num(const struct jval *o, const char *key)
{
	return json_need(o, key, J_NUM, key)->num;
}

/* The entry of node id in a flame answer's nodes, or NULL. */
static const struct jval *entry(const struct jval *nodes, const char *id,
				int *index)
{
	for (int i = 0; i < nodes->n; i++) {
		const struct jval *n = json_get(&nodes->item[i], "node");

		if (n && !strcmp(json_need(n, "id", J_STR, "id")->str, id)) {
			*index = i;
			return n;
		}
	}
	return NULL;
}

/* Figure 1's CCSG: main > FOO > SAY_IT, TIMES..., each with /api/node's
 * total, named under its parent's index. */
START_TEST(test_figure1)
{
	struct server s;
	struct jval *doc, *node;
	const struct jval *nodes, *foo, *say = NULL, *root;
	int ifoo = -1, isay = -1, iroot = -1;
	struct e2e t;

	e2e_init(&t);
	serve_start(&s, fx_figure1(), NULL);
	doc = http_json(s.port, "GET", "/api/flame?tree=ccsg&id=n0&width=1000",
			200);
	nodes = json_need(doc, "nodes", J_ARR, "nodes");
	ck_assert_int_eq(num(doc, "width"), 1000);
	ck_assert_int_eq(num(doc, "hidden"), 0);
	root = entry(nodes, "n0", &iroot);
	ck_assert_ptr_nonnull(root);
	ck_assert_int_eq(iroot, 0);
	ck_assert_int_eq(num(&nodes->item[0], "parent"), -1);
	foo = entry(nodes, "n1", &ifoo);
	ck_assert_ptr_nonnull(foo);
	ck_assert_str_eq(json_need(foo, "name", J_STR, "name")->str,
			 "0x20000001::foo");
	ck_assert_int_eq(num(&nodes->item[ifoo], "parent"), 0);
	for (int i = 0; i < nodes->n; i++) {
		const struct jval *n = json_get(&nodes->item[i], "node");

		if (n && !strcmp(json_need(n, "name", J_STR, "n")->str,
				 "0x20000001::say_it"))
			say = n, isay = i;
	}
	ck_assert_ptr_nonnull(say);
	ck_assert_int_eq(num(&nodes->item[isay], "parent"), ifoo);
	{
		char target[128];

		snprintf(target, sizeof(target), "/api/node?tree=ccsg&id=%s",
			 json_need(say, "id", J_STR, "id")->str);
		node = http_json(s.port, "GET", target, 200);
		ck_assert(num(node, "total") == num(say, "total"));
		ck_assert(num(say, "total") == 7800 * US);
		json_free(node);
	}
	json_free(doc);

	/* the DSCG: the three invocations of say_it under foo's call */
	doc = http_json(s.port, "GET", "/api/flame?tree=dscg&id=c1", 200);
	nodes = json_need(doc, "nodes", J_ARR, "nodes");
	/* foo, times, what_to_say and its two threads, say_it three times */
	ck_assert_int_eq(nodes->n, 8);
	json_free(doc);

	/* a compacted tree, by name */
	doc = http_json(s.port, "GET",
			"/api/flame?tree=ccsg&compact=name&id=k:", 200);
	ck_assert_int_ge(json_need(doc, "nodes", J_ARR, "nodes")->n, 2);
	json_free(doc);

	json_free(http_json(s.port, "GET", "/api/flame?tree=ccsg&id=n0&width=0",
			    400));
	json_free(http_json(s.port, "GET", "/api/flame?tree=ccsg&id=n0&width=x",
			    400));
	json_free(
		http_json(s.port, "GET", "/api/flame?tree=ccsg&id=n999", 404));
	json_free(http_json(s.port, "GET", "/api/flame?tree=nope&id=n0", 404));
	json_free(http_json(s.port, "GET", "/api/flame?tree=ccsg", 400));
	e2e_assert_exit(serve_stop(&s, SIGTERM), 0, "ccsg serve");
	e2e_release(&t);
}
END_TEST

#define NCALLS 100000
#define NHEAVY 10

/* One thread calling 100,000 times, each call a chain of its own: ten
 * calls of 100 ms of server CPU, the others of 1 us. */
static const char *hundred_thousand(void)
{
	static const long long ev[4] = { 0, 1, 2, 3 }, cpu[4] = { 0, 0, 1, 1 };
	sqlite3_stmt *st;
	char sql[8192];
	const char *cols;

	fx_open();
	fx_two_procs();
	fx_call("0000000000000000000000000000000000000001", 7, 1, "f_1", 1, 1,
		2, 1, 1, ev, cpu);
	ck_assert_int_eq(
		sqlite3_prepare_v2(fx_db,
				   "SELECT group_concat(name) FROM "
				   "pragma_table_info('rpc_calls') WHERE name "
				   "NOT IN ('call_id', 'chain', "
				   "'skel_end_cpu_ns')",
				   -1, &st, NULL),
		SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	cols = (const char *)sqlite3_column_text(st, 0);
	snprintf(sql, sizeof(sql),
		 "WITH RECURSIVE k(i) AS (SELECT 2 UNION ALL SELECT i + 1 "
		 "FROM k WHERE i < %d) "
		 "INSERT INTO rpc_calls(%s, chain, skel_end_cpu_ns) "
		 "SELECT %s, CAST(printf('%%020d', i) AS BLOB), "
		 "skel_start_cpu_ns + CASE WHEN i <= %d THEN 100000000 "
		 "ELSE 1000 END FROM rpc_calls, k WHERE call_id = 1",
		 NCALLS, cols, cols, NHEAVY);
	sqlite3_finalize(st);
	fx_exec(sql);
	fx_exec("UPDATE rpc_calls SET skel_end_cpu_ns = skel_start_cpu_ns + "
		"100000000 WHERE call_id = 1");
	return fx_close();
}

/* 100,000 calls: what is under a pixel of 1000 is one entry per parent,
 * whose total is what its nodes had. */
START_TEST(test_hundred_thousand)
{
	struct server s;
	struct jval *doc, *info;
	const struct jval *nodes;
	double shown = 0, hidden = 0, thread_total = -1;
	int ithread = -1, heavy = 0, aggregates = 0;
	struct e2e t;

	e2e_init(&t);
	serve_start(&s, hundred_thousand(), NULL);
	info = http_json(s.port, "GET", "/api/info", 200);
	ck_assert_int_eq(num(info, "calls"), NCALLS);
	json_free(info);
	doc = http_json(s.port, "GET", "/api/flame?tree=dscg&id=m&width=1000",
			200);
	nodes = json_need(doc, "nodes", J_ARR, "nodes");
	/* m, the two threads, ten chains and their calls, the rest hidden */
	ck_assert_msg(nodes->n < 40, "%d entries for 100,000 calls", nodes->n);
	ck_assert_int_ge(num(doc, "hidden"), NCALLS - NHEAVY);
	ck_assert(!json_need(doc, "truncated", J_BOOL, "truncated")->num);
	ck_assert_ptr_nonnull(entry(nodes, "t1.1", &ithread));
	thread_total = num(json_get(&nodes->item[ithread], "node"), "total");
	for (int i = 0; i < nodes->n; i++) {
		const struct jval *e = &nodes->item[i],
				  *n = json_get(e, "node");

		if (num(e, "parent") != ithread)
			continue;
		if (n) {
			shown += num(n, "total");
			heavy++;
		} else {
			hidden += num(e, "total");
			ck_assert_int_eq(num(e, "hidden"), NCALLS - NHEAVY);
			aggregates++;
		}
	}
	ck_assert_int_eq(heavy, NHEAVY);
	ck_assert_int_eq(aggregates, 1);
	/* no CPU lost: the thread's own is what it has above its chains */
	ck_assert_msg(shown + hidden <= thread_total &&
			      thread_total - shown - hidden <= 1000 * US,
		      "shown %.0f + hidden %.0f vs thread %.0f", shown, hidden,
		      thread_total);
	ck_assert(hidden == (NCALLS - NHEAVY) * 1000.0);
	json_free(doc);
	e2e_assert_exit(serve_stop(&s, SIGTERM), 0, "ccsg serve");
	e2e_release(&t);
}
END_TEST

Suite *serve_flame_suite(void)
{
	Suite *s = suite_create("serve-flame");
	TCase *tc = tcase_create("flame");

	e2e_add_fixture(tc);
	tcase_set_timeout(tc, E2E_TIMEOUT);
	tcase_add_test(tc, test_figure1);
	tcase_add_test(tc, test_hundred_thousand);
	suite_add_tcase(s, tc);
	return s;
}
