/*
 * check-ccsg-e2e.c - ccsg on a real traced run with failed calls (the
 * demo programs of check-e2e-rpc.c): an unknown procedure (PROC_UNAVAIL),
 * a timeout while the server sleeps on (it runs 4 x the client's wait),
 * a one-way call.  dscg shows each call's outcome; report and latency
 * count the failures per function; every latency share stays within
 * 0-100% and the four add up to 100%.  No chain is broken by a reply
 * that carried no tag back.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "e2e-rpc.h"

#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})
#define SLEEP_NAME "0x20000c5a::sleep_ms"	/* from the stub symbol sleep_ms_1 */
#define NOPROC_NAME "0x20000c5a::proc99"	/* clnt_call of procedure 99 */

/* `ccsg CMD --format=json --db DB` (exit 0): its stdout. */
static char *ccsg_json(struct e2e *t, const char *cmd)
{
	char ccsg[PATH_MAX], out[PATH_MAX], err[PATH_MAX];
	const char *argv[] = { ccsg, cmd, "--format=json", "--db", t->db, NULL };
	int status;

	e2e_fmt(ccsg, sizeof(ccsg), "%s/ccsg", e2e_build());
	e2e_fmt(out, sizeof(out), "%s/ccsg-%s.json", t->dir, cmd);
	e2e_fmt(err, sizeof(err), "%s/ccsg-%s.err", t->dir, cmd);
	status = e2e_run_plain(argv, out, err);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "ccsg %s: status 0x%x: %s",
		      cmd, status, e2e_slurp(err, NULL));
	return e2e_slurp(out, NULL);
}

/* The JSON object of text whose "name" is name, up to its end or to its
 * "children" (in a static buffer). */
static const char *object_named(const char *text, const char *name)
{
	static char obj[4096];
	char key[256];
	const char *p, *b, *e;

	e2e_fmt(key, sizeof(key), "\"name\": \"%s\"", name);
	p = strstr(text, key);
	ck_assert_msg(p, "no %s in:\n%s", key, text);
	for (b = p; b > text && *b != '{'; b--)
		;
	e = strstr(p, "\"children\"");
	if (!e || e > strchr(p, '}'))
		e = strchr(p, '}');
	ck_assert(e);
	e2e_fmt(obj, sizeof(obj), "%.*s", (int)(e - b), b);
	return obj;
}

/* The number after "key": in obj. */
static double num(const char *obj, const char *key)
{
	char k[128];
	const char *p;

	e2e_fmt(k, sizeof(k), "\"%s\": ", key);
	p = strstr(obj, k);
	ck_assert_msg(p, "no %s in %s", k, obj);
	return strtod(p + strlen(k), NULL);
}

static void assert_has(const char *s, const char *what)
{
	ck_assert_msg(strstr(s, what), "no '%s' in '%s'", what, s);
}

START_TEST(test_failed_calls_in_ccsg)
{
	struct rpc_server a;
	struct e2e t;
	char *out;
	const char *o;
	int functions = 0;

	rpc_isolate();
	e2e_init(&t);
	rpc_server_start(&t, &a, "a", 1, NULL, NULL);
	rpc_client(&t, "noproc", 1, ARGS("-P", rpc_port(a.tcp), "noproc"), 0, &out);
	free(out);
	rpc_client(&t, "timeout", 1, ARGS("-P", rpc_port(a.tcp), "timeout", "400", "100"), 0,
		   &out);
	ck_assert_str_eq(rpc_head(out, "timeout"), "timeout status RPC_TIMEDOUT");
	free(out);
	rpc_client(&t, "oneway", 1, ARGS("-P", rpc_port(a.tcp), "oneway", "3"), 0, &out);
	free(out);
	rpc_server_stop(&a);
	e2e_merge(&t);

	/* dscg: the outcome of each call */
	out = ccsg_json(&t, "dscg");
	o = object_named(out, SLEEP_NAME);
	assert_has(o, "\"status\": \"RPC_TIMEDOUT\", \"reply\": \"success\", \"failed\": true");
	assert_has(o, "\"tag\": \"ok\"");
	ck_assert_msg(!strstr(o, "\"args_bytes\": null") &&
		      !strstr(o, "\"server_args_bytes\": null"), "%s", o);
	o = object_named(out, NOPROC_NAME);
	assert_has(o, "\"status\": \"RPC_PROCUNAVAIL\", \"reply\": \"proc_unavail\", "
		   "\"failed\": true");
	assert_has(out, "\"status\": \"RPC_TIMEDOUT\", \"reply\": \"success\", \"failed\": false");
	assert_has(out, "\"one_way\": true");
	assert_has(out, "\"failed_calls\": 2, \"failures\": {");
	/* no chain broken by a reply without a tag: the clients skipped the
	 * events the server numbered (the timeout's, the one-way calls') */
	assert_has(out, "\"broken_chains\": 0,");
	free(out);

	/* report: failures per function */
	out = ccsg_json(&t, "report");
	ck_assert_int_eq(num(object_named(out, SLEEP_NAME), "failed"), 1);
	ck_assert_int_eq(num(object_named(out, NOPROC_NAME), "failed"), 1);
	ck_assert_int_eq(num(object_named(out, "0x20000c5a::say_it"), "failed"), 0);
	free(out);

	/* latency: shares within 0-100%, adding up to 100% (4 decimals) */
	out = ccsg_json(&t, "latency");
	for (const char *p = strstr(out, "{\"id\": "); p; p = strstr(p + 1, "{\"id\": ")) {
		static const char *const share[] = { "network_share", "server_share",
						     "children_share", "unsplit_share" };
		char obj[2048];
		double sum = 0;

		e2e_fmt(obj, sizeof(obj), "%.*s", (int)(strchr(p, '}') - p), p);
		if (num(obj, "calls") == 0)
			continue;
		functions++;
		for (int k = 0; k < 4; k++) {
			double v = num(obj, share[k]);

			ck_assert_msg(v >= 0 && v <= 1, "%s: %s", share[k], obj);
			sum += v;
		}
		ck_assert_msg(sum > 0.999 && sum < 1.001, "shares add to %f: %s", sum, obj);
	}
	ck_assert_int_ge(functions, 3);
	o = object_named(out, SLEEP_NAME);
	/* the server slept on after the client gave up: all of its wait */
	ck_assert_msg(num(o, "server_share") == 1 && num(o, "split_bounded") == 1 &&
		      num(o, "failed") == 1, "%s", o);
	ck_assert_int_eq(num(object_named(out, NOPROC_NAME), "failed"), 1);
	ck_assert_int_eq(num(object_named(out, "0x20000c5a::say_it"), "failed"), 0);
	free(out);
	e2e_release(&t);
}
END_TEST

Suite *ccsg_e2e_suite(void)
{
	Suite *s = suite_create("ccsg-e2e");
	TCase *tc = tcase_create("rpc");

	tcase_set_timeout(tc, E2E_TIMEOUT);
	e2e_add_fixture(tc);
	tcase_add_test(tc, test_failed_calls_in_ccsg);
	suite_add_tcase(s, tc);
	return s;
}
