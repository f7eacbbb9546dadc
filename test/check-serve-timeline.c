/*
 * check-serve-timeline.c - GET /api/timeline and /api/chains
 * (ccsg/serve/api-timeline.c), the viewer's chain timeline (issue 39,
 * item 3), from a real `ccsg serve` on a private port: the Figure 1
 * chain by its id and as the slowest request of FOO, its lanes (host >
 * process > thread), FOO's server slice on host A enclosing SAY_IT's
 * three on host D, a call and a reply arrow per call; the chain list;
 * bad requests (400 with one line, 404).
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

static const char *str(const struct jval *o, const char *key)
{
	return json_need(o, key, J_STR, key)->str;
}

/* The host of a slice's lane. */
static const char *host_of(const struct jval *doc, const struct jval *s)
{
	const struct jval *lanes = json_need(doc, "lanes", J_ARR, "lanes");
	int l = (int)num(s, "lane");

	ck_assert_int_lt(l, lanes->n);
	return str(&lanes->item[l], "host");
}

/* The Figure 1 timeline in doc: FOO's server slice on A holds SAY_IT's
 * three on D; every call with both sides has its two arrows. */
static void check_figure1(const struct jval *doc)
{
	const struct jval *slices = json_need(doc, "slices", J_ARR, "slices"),
			  *arrows = json_need(doc, "arrows", J_ARR, "arrows"),
			  *foo = NULL;
	int say = 0, calls = 0, replies = 0;

	ck_assert_int_eq(json_need(doc, "lanes", J_ARR, "lanes")->n, 5);
	for (int i = 0; i < slices->n; i++) {
		const struct jval *s = &slices->item[i];

		if (!strcmp(str(s, "name"), "0x20000001::foo") &&
		    !strcmp(str(s, "kind"), "server"))
			foo = s;
	}
	ck_assert_ptr_nonnull(foo);
	ck_assert_str_eq(host_of(doc, foo), "A");
	ck_assert_str_eq(str(foo, "id"), "c1");
	ck_assert(num(foo, "cpu_ns") == 3700 * US);
	for (int i = 0; i < slices->n; i++) {
		const struct jval *s = &slices->item[i];

		if (strcmp(str(s, "name"), "0x20000001::say_it") ||
		    strcmp(str(s, "kind"), "server"))
			continue;
		say++;
		ck_assert_str_eq(host_of(doc, s), "D");
		ck_assert_msg(num(s, "start_ns") >= num(foo, "start_ns") &&
				      num(s, "end_ns") <= num(foo, "end_ns"),
			      "say_it [%.0f, %.0f] outside foo [%.0f, %.0f]",
			      num(s, "start_ns"), num(s, "end_ns"),
			      num(foo, "start_ns"), num(foo, "end_ns"));
	}
	ck_assert_int_eq(say, 3);
	for (int i = 0; i < arrows->n; i++) {
		const struct jval *a = &arrows->item[i];
		const struct jval *from = &slices->item[(int)num(a, "from")],
				  *to = &slices->item[(int)num(a, "to")];

		if (!strcmp(str(a, "kind"), "call")) {
			calls++;
			ck_assert_str_eq(str(from, "kind"), "client");
			ck_assert_str_eq(str(to, "kind"), "server");
			ck_assert(num(a, "from_ns") == num(from, "start_ns"));
			ck_assert(num(a, "to_ns") == num(to, "start_ns"));
		} else if (!strcmp(str(a, "kind"), "reply")) {
			replies++;
			ck_assert(num(a, "from_ns") == num(from, "end_ns"));
			ck_assert(num(a, "to_ns") == num(to, "end_ns"));
		}
		ck_assert_str_eq(str(from, "id"), str(to, "id"));
	}
	/* foo, times, what_to_say, say_it x 3 */
	ck_assert_int_eq(calls, 6);
	ck_assert_int_eq(replies, 6);
	ck_assert(!json_need(doc, "truncated", J_BOOL, "truncated")->num);
}

START_TEST(test_figure1)
{
	struct server s;
	struct jval *doc;
	const struct jval *chains;
	struct e2e t;

	e2e_init(&t);
	serve_start(&s, fx_figure1(), NULL);
	doc = http_json(s.port, "GET", "/api/timeline?chain=" FX_FIG1_CHAIN,
			200);
	ck_assert_str_eq(str(doc, "chain"), FX_FIG1_CHAIN);
	check_figure1(doc);
	json_free(doc);

	/* the slowest request of foo: the same calls, its root named */
	doc = http_json(s.port, "GET",
			"/api/timeline?root=0x20000001::foo&pick=slowest", 200);
	ck_assert(num(doc, "call") == 1);
	check_figure1(doc);
	json_free(doc);

	doc = http_json(s.port, "GET", "/api/chains", 200);
	chains = json_need(doc, "chains", J_ARR, "chains");
	ck_assert_int_eq(num(doc, "total"), 1);
	ck_assert_str_eq(str(&chains->item[0], "chain"), FX_FIG1_CHAIN);
	ck_assert_str_eq(str(&chains->item[0], "root"), "0x20000001::foo");
	ck_assert_int_eq(num(&chains->item[0], "calls"), 6);
	ck_assert(num(&chains->item[0], "span_ns") == 230 * US);
	json_free(doc);
	doc = http_json(s.port, "GET", "/api/chains?root=nothing", 200);
	ck_assert_int_eq(num(doc, "total"), 0);
	json_free(doc);

	json_free(http_json(s.port, "GET", "/api/timeline", 400));
	json_free(http_json(s.port, "GET", "/api/timeline?chain=12", 400));
	json_free(http_json(s.port, "GET",
			    "/api/timeline?chain="
			    "zz000000000000000000000000000000000000ab",
			    400));
	json_free(http_json(s.port, "GET",
			    "/api/timeline?chain="
			    "00000000000000000000000000000000000000ac",
			    404));
	json_free(http_json(s.port, "GET", "/api/timeline?root=nothing", 404));
	json_free(http_json(s.port, "GET",
			    "/api/timeline?root=0x20000001::foo&pick=x", 400));
	json_free(http_json(s.port, "GET", "/api/chains?limit=0", 400));
	e2e_assert_exit(serve_stop(&s, SIGTERM), 0, "ccsg serve");
	e2e_release(&t);
}
END_TEST

Suite *serve_timeline_suite(void)
{
	Suite *s = suite_create("serve-timeline");
	TCase *tc = tcase_create("timeline");

	e2e_add_fixture(tc);
	tcase_set_timeout(tc, E2E_TIMEOUT);
	tcase_add_test(tc, test_figure1);
	suite_add_tcase(s, tc);
	return s;
}
