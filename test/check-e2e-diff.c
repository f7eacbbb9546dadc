/*
 * check-e2e-diff.c - `ccsg diff A B` on two real runs of the example of
 * Figure 1 (examples/figure1/, e2e-figure1.h) on four simulated hosts,
 * figure1-client run CLIENTS times in each so that every function has
 * several calls: run B is run A with say_it burning half as much on
 * hostD (FIG1_SCALE=say_it=0.5 in hostD's server).
 *
 * What must hold, on a loaded machine too: say_it on hostD stands out,
 * lower, on its per-call self CPU, and each side's self CPU agrees with
 * what hostD's server measured burning (10% + 1 ms); foo (hostA), times
 * (hostB) and what_to_say (hostC), whose work did not change, do not
 * stand out on their self CPU.  Latencies are wall time: printed, never
 * asserted.
 */
#include "e2e-figure1.h"
#include "tool-run.h"

#define CLIENTS 6

/* The JSON row of node kind k on host in the diff doc. */
static const struct jval *row_of(const struct jval *doc, int k,
				 const char *host)
{
	const struct jval *fns = json_need(doc, "functions", J_ARR, "diff");

	for (int i = 0; i < fns->n; i++) {
		const struct jval *r = &fns->item[i];

		if (fig1_kind_of(json_need(r, "name", J_STR, "row")->str) ==
			    k &&
		    !strcmp(json_need(r, "host", J_STR, "row")->str, host))
			return r;
	}
	ck_abort_msg("no row of %s on %s", fig1_node_label[k], host);
	return NULL;
}

static double side(const struct jval *r, const char *key, const char *s)
{
	return json_need(json_need(r, key, J_OBJ, "row"), s, J_NUM, key)->num;
}

/* -1, 0 or 1: whether the row's test stands out, and which way. */
static int stands(const struct jval *r, const char *test)
{
	const struct jval *t = json_need(r, test, J_OBJ, "row");

	return json_need(t, "stands_out", J_BOOL, test)->num
		       ? (int)json_need(t, "sign", J_NUM, test)->num
		       : 0;
}

START_TEST(test_halved_function_stands_out)
{
	struct fig1_deploy d1 = fig1_four_hosts, d2 = fig1_four_hosts;
	char ccsg[PATH_MAX], idl[PATH_MAX];
	struct e2e t1, t2;
	struct tool_out r;
	struct jval *doc;
	const struct jval *say;
	static const struct {
		int kind;
		const char *host;
	} same[] = { { N_FOO, "hostA" },
		     { N_TIMES, "hostB" },
		     { N_WHAT, "hostC" } };

	d1.clients = d2.clients = CLIENTS;
	fig1_serving(&d2, 'D')->env = "FIG1_SCALE=say_it=0.5";
	rpc_isolate();
	e2e_init(&t1);
	fig1_run(&t1, &d1);
	e2e_init(&t2);
	fig1_run(&t2, &d2);

	e2e_fmt(ccsg, sizeof(ccsg), "%s/ccsg", e2e_build());
	e2e_fmt(idl, sizeof(idl), "%s/examples/figure1/gen/figure1.x",
		e2e_build());
	r = tool_run((const char *[]){ ccsg, "diff", t1.db, t2.db,
				       "--format=text", "--idl", idl, NULL });
	e2e_assert_exit(r.status, 0, "ccsg diff --format=text");
	printf("ccsg diff, say_it halved on hostD:\n%s", r.out);
	tool_out_release(&r);
	r = tool_run((const char *[]){ ccsg, "diff", t1.db, t2.db,
				       "--format=json", "--idl", idl, NULL });
	e2e_assert_exit(r.status, 0, "ccsg diff --format=json");
	ck_assert_msg(!*r.err, "stderr: %s", r.err);
	doc = json_parse(r.out, "ccsg diff --format=json");
	ck_assert(!json_need(doc, "differs", J_BOOL, "diff")->num);

	say = row_of(doc, N_SAY, "hostD");
	ck_assert_int_eq((int)side(say, "calls", "a"), 3 * CLIENTS);
	ck_assert_int_eq((int)side(say, "calls", "b"), 3 * CLIENTS);
	fig1_near(side(say, "self_cpu_us", "a"),
		  fig1_serving(&d1, 'D')->burned_us, "say_it in run A");
	fig1_near(side(say, "self_cpu_us", "b"),
		  fig1_serving(&d2, 'D')->burned_us, "say_it in run B");
	ck_assert_msg(stands(say, "self_cpu_test") == -1,
		      "say_it on hostD does not stand out lower:\n%s", r.out);
	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		const struct jval *w = row_of(doc, same[i].kind, same[i].host);

		ck_assert_int_eq((int)side(w, "calls", "a"), CLIENTS);
		ck_assert_int_eq((int)side(w, "calls", "b"), CLIENTS);
		ck_assert_msg(!stands(w, "self_cpu_test"),
			      "%s on %s stands out, its work unchanged",
			      fig1_node_label[same[i].kind], same[i].host);
	}
	json_free(doc);
	tool_out_release(&r);
	e2e_release(&t1);
	e2e_release(&t2);
}
END_TEST

Suite *e2e_diff_suite(void)
{
	Suite *s = suite_create("e2e-diff");
	TCase *tc = tcase_create("diff");

	tcase_set_timeout(tc, 2 * E2E_TIMEOUT);
	e2e_add_fixture(tc);
	tcase_add_test(tc, test_halved_function_stands_out);
	suite_add_tcase(s, tc);
	return s;
}
