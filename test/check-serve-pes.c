/*
 * check-serve-pes.c - GET /api/pes (ccsg/serve/api-pes.c), the PES views
 * of a thread for the viewer (issue 39, item 5), from a real `ccsg serve`
 * on a private port: a thread serving five calls in its time, event and
 * frequency views, as `ccsg pes --db --thread` makes them
 * (ccsg/pes's engine and JSON); a clip; bad requests.
 */
#include <check.h>
#include <signal.h>
#include <string.h>

#include "ccsg-fixture.h"
#include "json-read.h"
#include "serve-run.h"
#include "tool-run.h"

/* Host B's thread 2:1 serving five calls of f from 1:1 (fx_two_procs:
 * both threads in the threads table, as a PES needs). */
static const char *five_calls(void)
{
	static const long long cpu[4] = { 0, 0, 1, 1 };

	fx_open();
	fx_two_procs();
	for (int i = 0; i < 5; i++) {
		long long ev[4] = { 10 * i + 1, 10 * i + 2, 10 * i + 6,
				    10 * i + 7 };
		char chain[41];

		snprintf(chain, sizeof(chain), "%040d", i + 1);
		fx_call(chain, 7, 1, "f_1", 1, 1, 2, 1, 1, ev, cpu);
	}
	return fx_close();
}

START_TEST(test_thread_views)
{
	struct server s;
	struct jval *call, *doc;
	const struct jval *tv, *ev, *states, *pw;
	char target[160];
	int proc, tid, serving = 0;
	struct e2e t;

	e2e_init(&t);
	serve_start(&s, five_calls(), NULL);
	/* the first call: its serving thread's sequence */
	call = http_json(s.port, "GET", "/api/node?tree=dscg&id=c1", 200);
	proc = (int)json_need(call, "proc_id", J_NUM, "proc_id")->num;
	tid = (int)json_need(call, "tid", J_NUM, "tid")->num;
	json_free(call);
	snprintf(target, sizeof(target), "/api/pes?thread=%d:%d", proc, tid);
	doc = http_json(s.port, "GET", target, 200);
	tv = json_need(doc, "time", J_OBJ, "time");
	ev = json_need(doc, "event", J_OBJ, "event");
	ck_assert_str_eq(json_need(tv, "view", J_STR, "view")->str, "time");
	states = json_need(tv, "states", J_ARR, "states");
	for (int i = 0; i < states->n; i++)
		serving |= !strncmp(states->item[i].str, "serving:", 8);
	ck_assert_msg(serving, "no state serving:F");
	/* serving, then running, five times */
	ck_assert_int_ge(json_need(tv, "points", J_ARR, "p")->n, 10);
	ck_assert_int_eq(json_need(ev, "points", J_ARR, "p")->n,
			 json_need(tv, "points", J_ARR, "p")->n);
	pw = json_need(json_need(doc, "frequency", J_OBJ, "f"), "power", J_ARR,
		       "power");
	ck_assert_int_ge(pw->n, 2);
	ck_assert(json_need(doc, "sample", J_NUM, "sample")->num >= 1);
	json_free(doc);

	/* clipped to its first two entries */
	snprintf(target, sizeof(target),
		 "/api/pes?thread=%d:%d&clip=event:0:1&sample=1000", proc, tid);
	doc = http_json(s.port, "GET", target, 200);
	ck_assert_int_eq(json_need(json_need(doc, "event", J_OBJ, "e"),
				   "points", J_ARR, "p")
				 ->n,
			 2);
	ck_assert(json_need(doc, "sample", J_NUM, "sample")->num == 1000);
	json_free(doc);

	json_free(http_json(s.port, "GET", "/api/pes", 400));
	json_free(http_json(s.port, "GET", "/api/pes?thread=x", 400));
	json_free(http_json(s.port, "GET", "/api/pes?thread=1:", 400));
	json_free(http_json(s.port, "GET", "/api/pes?thread=99:99", 404));
	snprintf(target, sizeof(target), "/api/pes?thread=%d:%d&clip=bogus",
		 proc, tid);
	json_free(http_json(s.port, "GET", target, 400));
	snprintf(target, sizeof(target),
		 "/api/pes?thread=%d:%d&clip=event:0:99999", proc, tid);
	json_free(http_json(s.port, "GET", target, 400));
	snprintf(target, sizeof(target), "/api/pes?thread=%d:%d&sample=0", proc,
		 tid);
	json_free(http_json(s.port, "GET", target, 400));
	e2e_assert_exit(serve_stop(&s, SIGTERM), 0, "ccsg serve");
	e2e_release(&t);
}
END_TEST

Suite *serve_pes_suite(void)
{
	Suite *s = suite_create("serve-pes");
	TCase *tc = tcase_create("pes");

	e2e_add_fixture(tc);
	tcase_set_timeout(tc, E2E_TIMEOUT);
	tcase_add_test(tc, test_thread_views);
	suite_add_tcase(s, tc);
	return s;
}
