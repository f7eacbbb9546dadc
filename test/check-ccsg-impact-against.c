/*
 * check-ccsg-impact-against.c - `ccsg impact --against B`
 * (impact-against.h) on small traces with known answers: Figure 1 as A
 * (fx_figure1()) against B, the same trace with say_it's skeletons
 * burning exactly 20% less, where the prediction of that change is exact
 * and a 10% one is 12.5% off on say_it; against a trace of another
 * program (the outcomes fixture), which is said in one line, its nodes
 * and hosts listed as only in one trace; a missing B, and a format
 * --against does not write.
 */
#include <check.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ccsg-fixture.h"
#include "json-read.h"
#include "json-valid.h"
#include "tool-run.h"

#define SAY "0x20000001::say_it"

static struct tool_out against(const char *a, const char *b, const char *format,
			       const char *change)
{
	return tool_run((const char *[]){ tool_path("ccsg"), "impact", "--db",
					  a, "--change", change, "--against", b,
					  format, NULL });
}

/* Figure 1 with every say_it skeleton burning 20% less. */
static const char *figure1_say_it_less(void)
{
	const char *path = fx_figure1();
	sqlite3 *db;

	ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
	ck_assert_int_eq(
		sqlite3_exec(db,
			     "UPDATE rpc_calls SET skel_end_cpu_ns = "
			     "skel_start_cpu_ns + (skel_end_cpu_ns - "
			     "skel_start_cpu_ns) * 4 / 5 WHERE proc = 4",
			     NULL, NULL, NULL),
		SQLITE_OK);
	sqlite3_close(db);
	return path;
}

static struct jval *parse(const struct tool_out *r)
{
	struct jv v;
	const char *why = json_invalid(r->out, &v);

	ck_assert_msg(!why, "invalid JSON: %s", why);
	return json_parse(r->out, "impact --against");
}

/* The row of node name on host h. */
static const struct jval *row(const struct jval *doc, const char *name,
			      const char *h)
{
	const struct jval *nodes = json_need(doc, "nodes", J_ARR, "against");

	for (int i = 0; i < nodes->n; i++) {
		const struct jval *r = &nodes->item[i];

		if (!strcmp(json_need(r, "name", J_STR, "row")->str, name) &&
		    !strcmp(json_need(r, "host", J_STR, "row")->str, h))
			return r;
	}
	ck_abort_msg("no row %s on %s", name, h);
	return NULL;
}

static double num(const struct jval *o, const char *key)
{
	return json_need(o, key, J_NUM, key)->num;
}

START_TEST(test_exact)
{
	char a[4096], b[4096];
	struct tool_out r;
	struct jval *doc;
	const struct jval *s, *sum;
	struct e2e t;

	e2e_init(&t);
	snprintf(a, sizeof(a), "%s", fx_figure1());
	snprintf(b, sizeof(b), "%s", figure1_say_it_less());
	r = against(a, b, "--format=json",
		    "reduction on processor group { D } by 20% to function "
		    "{ say_it }");
	e2e_assert_exit(r.status, 0, "ccsg impact --against");
	ck_assert_str_eq(r.err, "");
	doc = parse(&r);
	ck_assert_str_eq(json_need(doc, "a", J_STR, "a")->str, a);
	ck_assert_str_eq(json_need(doc, "b", J_STR, "b")->str, b);
	ck_assert(json_need(json_need(doc, "programs", J_OBJ, "programs"),
			    "same", J_BOOL, "same")
			  ->num);
	s = row(doc, SAY, "D");
	ck_assert_double_eq(num(s, "self_cpu_us_a"), 7800);
	ck_assert_double_eq(num(s, "self_cpu_us_predicted"), 6240);
	ck_assert_double_eq(num(s, "self_cpu_us_b"), 6240);
	ck_assert_double_eq(num(s, "self_cpu_us_error"), 0);
	ck_assert_double_eq(num(s, "self_cpu_error_relative"), 0);
	ck_assert(json_need(s, "desc_cpu_error_relative", J_NULL, "desc"));
	ck_assert(json_need(s, "affected", J_BOOL, "affected")->num);
	ck_assert(json_need(s, "agrees", J_BOOL, "agrees")->num);
	/* the ancestors: foo's and main's descendants on D */
	ck_assert_double_eq(
		num(row(doc, "0x20000001::foo", "D"), "desc_cpu_us_predicted"),
		6240);
	ck_assert_double_eq(num(row(doc, "<main>", "D"), "desc_cpu_us_b"),
			    6240);
	sum = json_need(doc, "summary", J_OBJ, "summary");
	ck_assert_double_eq(num(sum, "compared"), num(sum, "agree"));
	ck_assert_double_eq(num(sum, "largest_error_us"), 0);
	ck_assert_int_eq(json_need(doc, "only_in_a", J_ARR, "only")->n, 0);
	ck_assert_int_eq(json_need(doc, "only_in_b", J_ARR, "only")->n, 0);
	json_free(doc);
	tool_out_release(&r);

	/* a 10% reduction predicts 7020 us: 780 off, within 5% + 1 ms */
	r = against(a, b, "--format=text",
		    "reduction on processor group { D } by 10% to function "
		    "{ say_it }");
	e2e_assert_exit(r.status, 0, "ccsg impact --against, text");
	ck_assert_msg(strstr(r.out, "* " SAY " on D\n"
				    "  self       7.800      7.020      6.240 "
				    "    +0.780    +12.5%\n"),
		      "%s", r.out);
	ck_assert(strstr(r.out, "largest relative error +12.5% (<main> desc "
				"on D)"));
	tool_out_release(&r);
	/* 50% is 2.34 ms off: outside */
	r = against(a, b, "--format=text",
		    "reduction on processor group { D } by 50% to function "
		    "{ say_it }");
	ck_assert(strstr(r.out, "* " SAY " on D  OFF\n"));
	ck_assert_msg(strstr(r.out, "summary: 9 of 12 node-host rows agree"),
		      "%s", r.out);
	tool_out_release(&r);
	e2e_release(&t);
	unlink(a);
	unlink(b);
}
END_TEST

/* B of another program: one line says so, what matches is compared */
START_TEST(test_other_program)
{
	char a[4096], b[4096];
	struct tool_out r;
	struct jval *doc;
	const struct jval *hosts;
	struct e2e t;

	e2e_init(&t);
	snprintf(a, sizeof(a), "%s", fx_figure1());
	snprintf(b, sizeof(b), "%s", fx_outcomes());
	r = against(a, b, "--format=text",
		    "reduction on all by 20% to function { say_it }");
	e2e_assert_exit(r.status, 0, "ccsg impact --against another program");
	ck_assert_msg(strstr(r.out, "note: A and B trace different programs "
				    "(A: 0x20000001; B: 0x7): comparing the "
				    "nodes they share\n"),
		      "%s", r.out);
	ck_assert(strstr(r.out, "nodes only in A: 0x20000001::foo"));
	ck_assert(strstr(r.out, "nodes only in B: "));
	ck_assert(strstr(r.out, "hosts only in A: C, D\n"));
	ck_assert(strstr(r.out, "\nsummary: "));
	tool_out_release(&r);
	r = against(a, b, "--format=json",
		    "reduction on all by 20% to function { say_it }");
	e2e_assert_exit(r.status, 0, "the same, json");
	ck_assert(strstr(r.err, "trace different programs"));
	doc = parse(&r);
	ck_assert(!json_need(json_need(doc, "programs", J_OBJ, "programs"),
			     "same", J_BOOL, "same")
			   ->num);
	hosts = json_need(doc, "hosts", J_OBJ, "hosts");
	ck_assert_int_eq(json_need(hosts, "only_in_a", J_ARR, "a")->n, 2);
	ck_assert_int_eq(json_need(hosts, "only_in_b", J_ARR, "b")->n, 0);
	ck_assert_int_eq(json_need(doc, "only_in_a", J_ARR, "only")->n, 5);
	ck_assert_int_gt(json_need(doc, "only_in_b", J_ARR, "only")->n, 5);
	json_free(doc);
	tool_out_release(&r);
	e2e_release(&t);
	unlink(a);
	unlink(b);
}
END_TEST

START_TEST(test_bad)
{
	char a[4096];
	struct tool_out r;
	struct e2e t;

	e2e_init(&t);
	snprintf(a, sizeof(a), "%s", fx_figure1());
	r = against(a, "/nonexistent/b.db", "--format=text",
		    "reduction on all by 20% to function { say_it }");
	e2e_assert_exit(r.status, 1, "missing B");
	ck_assert_str_eq(r.err, "ccsg: error: cannot open trace database "
				"'/nonexistent/b.db': No such file or "
				"directory\n");
	ck_assert_str_eq(r.out, "");
	tool_out_release(&r);
	r = against(a, a, "--format=xml",
		    "reduction on all by 20% to function { say_it }");
	e2e_assert_exit(r.status, 2, "--against --format=xml");
	ck_assert(strstr(r.err, "--against writes text or json"));
	tool_out_release(&r);
	/* a change A cannot resolve fails before B is read */
	r = against(a, "/nonexistent/b.db", "--format=text",
		    "reduction on all by 20% to function { nothing }");
	e2e_assert_exit(r.status, 1, "unknown function");
	ck_assert(!strstr(r.err, "b.db"));
	tool_out_release(&r);
	e2e_release(&t);
	unlink(a);
}
END_TEST

Suite *ccsg_impact_against_suite(void)
{
	Suite *s = suite_create("ccsg_impact_against");
	TCase *tc = tcase_create("against");

	e2e_add_fixture(tc);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_exact);
	tcase_add_test(tc, test_other_program);
	tcase_add_test(tc, test_bad);
	suite_add_tcase(s, tc);
	return s;
}
