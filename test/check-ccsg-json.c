/*
 * check-ccsg-json.c - what a traced program names reaches ccsg's JSON as
 * valid JSON: host names, executables, stub symbols, tags and the trace's
 * own path with bytes that are not UTF-8 come out with U+FFFD in their
 * place, valid UTF-8 as it is, in every JSON output (report, dscg,
 * latency), checked by a strict parser.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ccsg-fixture.h"
#include "ccsg.h"
#include "json-valid.h"
#include "latency.h"
#include "names.h"
#include "output.h"
#include "utf8.h"

#define CHAIN "00000000000000000000000000000000000000bb"

static char bad_path[PATH_MAX + 16];

/*
 * Two hosts, one named with a byte that is no UTF-8 ("h\xffst"), one with
 * valid UTF-8 ("caf\xc3\xa9"); the server's executable has an overlong
 * '/' ("\xc0\xaf"); the call's stub symbol is cut in the middle of a
 * sequence; its tags and status name are not UTF-8 either.  The database
 * file's name has a stray byte too.
 */
static const char *bad_names(void)
{
	static const long long ev[4] = {0, 1, 2, 3}, cpu[4] = {0, 100, 400, 50};

	fx_open();
	fx_host(1, "h\xffst");
	fx_host(2, "caf\xc3\xa9");
	fx_proc(1, 1);
	fx_proc(2, 2);
	fx_exec(
	    "UPDATE processes SET exe = '/bin/srv\xc0\xafx' WHERE proc_id = 2");
	fx_thread(1, 1, 0, 1000, -1);
	fx_thread(2, 1, 0, 1000, -1);
	fx_call(CHAIN, 7, 1,
		"b\xe2\x28\xa1"
		"d_1",
		1, 1, 2, 1, 1, ev, cpu);
	fx_set("status = 99, status_name = 'RPC_\xfe', reply = 'success', "
	       "tag = 'o\xffk', reply_tag = 'ok\x80'");
	fx_close();
	snprintf(bad_path, sizeof(bad_path), "%s-\xff.db", fx_path);
	ck_assert_int_eq(rename(fx_path, bad_path), 0);
	return bad_path;
}

static char *print(int what, int format)
{
	struct ccsg_trace t;
	struct ccsg_dscg d;
	struct ccsg_dims dims;
	struct ccsg_graph g;
	struct idl_names nm;
	struct ccsg_latency *l = NULL;
	size_t nl = 0;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	idl_names_init(&nm);
	ck_assert_int_eq(ccsg_trace_load(&t, bad_path), 0);
	ck_assert_int_eq(ccsg_dscg_build(&d, &t), 0);
	ck_assert_int_eq(ccsg_dims_hosts(&dims, &t), 0);
	ck_assert_int_eq(ccsg_graph_build(&g, &d, &dims, 0), 0);
	ck_assert_int_eq(ccsg_graph_name(&g, &nm), 0);
	switch (what) {
	case 0:
		ck_assert_int_eq(ccsg_report_print(f, &g, format), 0);
		break;
	case 1:
		ck_assert_int_eq(ccsg_dscg_print(f, &d, &nm, format), 0);
		break;
	default:
		ck_assert_int_eq(ccsg_latency_build(&g, &l, &nl), 0);
		ck_assert_int_eq(ccsg_latency_print(f, &g, l, nl, format), 0);
		free(l);
		break;
	}
	fclose(f);
	ccsg_graph_release(&g);
	ccsg_dims_release(&dims);
	ccsg_dscg_release(&d);
	ccsg_trace_release(&t);
	idl_names_release(&nm);
	return buf;
}

static void assert_has(const char *s, const char *what)
{
	ck_assert_msg(strstr(s, what), "no '%s' in '%s'", what, s);
}

START_TEST(test_report_json_valid)
{
	struct jv v;
	const char *bad;
	char *out;

	bad_names();
	out = print(0, CCSG_JSON);
	bad = json_invalid(out, &v);
	ck_assert_msg(!bad, "%s:\n%s", bad, out);
	assert_has(out, "-\\ufffd.db\"");
	assert_has(out, "\"hosts\": [\"h\\ufffdst\", \"caf\xc3\xa9\"]");
	assert_has(out, "\"name\": \"7::b\\ufffd(\\ufffdd\"");
	assert_has(out, "\"failures\": {\"RPC_\\ufffd\": 1}");
	assert_has(
	    out,
	    "\"tags\": {\"o\\ufffdk\": 1}, \"reply_tags\": {\"ok\\ufffd\": 1}");
	free(out);
	unlink(bad_path);
}
END_TEST

START_TEST(test_dscg_json_valid)
{
	struct jv v;
	const char *bad;
	char *out;

	bad_names();
	out = print(1, CCSG_JSON);
	bad = json_invalid(out, &v);
	ck_assert_msg(!bad, "%s:\n%s", bad, out);
	assert_has(out, "\"host\": \"h\\ufffdst\", \"exe\": \"p1\"");
	assert_has(
	    out, "\"host\": \"caf\xc3\xa9\", \"exe\": \"srv\\ufffd\\ufffdx\"");
	assert_has(out, "\"name\": \"7::b\\ufffd(\\ufffdd\"");
	assert_has(out, "\"status\": \"RPC_\\ufffd\"");
	assert_has(out, "\"tag\": \"o\\ufffdk\", \"reply_tag\": \"ok\\ufffd\"");
	free(out);
	unlink(bad_path);
}
END_TEST

START_TEST(test_latency_json_valid)
{
	struct jv v;
	const char *bad;
	char *out;

	bad_names();
	out = print(2, CCSG_JSON);
	bad = json_invalid(out, &v);
	ck_assert_msg(!bad, "%s:\n%s", bad, out);
	assert_has(out, "\"name\": \"7::b\\ufffd(\\ufffdd\"");
	free(out);
	unlink(bad_path);
}
END_TEST

/* Every byte of out belongs to a well-formed UTF-8 sequence. */
static void assert_utf8(const char *out)
{
	const unsigned char *p = (const unsigned char *)out;
	size_t left = strlen(out), n;

	for (; left; p += n, left -= n) {
		n = utf8_seq_len(p, left);
		ck_assert_msg(n, "not UTF-8 at byte %zu: '%.20s'",
			      strlen(out) - left, (const char *)p);
	}
}

/* XML and dot are UTF-8 too: the same names, U+FFFD for what is not. */
START_TEST(test_report_xml_dot_utf8)
{
	char *out;

	for (int format = CCSG_XML; format <= CCSG_DOT; format++) {
		bad_names();
		out = print(0, format);
		assert_utf8(out);
		if (format == CCSG_XML) { /* dot names no hosts */
			assert_has(out, "h" UTF8_REPLACEMENT "st");
			assert_has(out, "caf\xc3\xa9");
		}
		assert_has(out, "b" UTF8_REPLACEMENT "(" UTF8_REPLACEMENT "d");
		free(out);
		unlink(bad_path);
	}
}
END_TEST

/* The checker itself: it must reject what the old escaper let through. */
START_TEST(test_checker_rejects)
{
	static const char *const bad[] = {
	    "{\"a\": \"\xff\"}",
	    "[\"\xc0\xaf\"]",
	    "\"\xed\xa0\x80\"",
	    "\"a\x01\"",
	    "{\"a\" 1}",
	    "[1,]",
	    "[01]",
	    "\"\\x\"",
	    "[1] 2",
	    "{\"a\": tru}",
	    "\"\\u12\"",
	    "",
	};
	static const char *const good[] = {
	    "{\"a\": [1, -2.5e+3, true, false, null, \"\\u00e9\\n\xc3\xa9\"]}",
	    " [] ",
	    "\"\xf4\x8f\xbf\xbf\"",
	    "0",
	};
	struct jv v;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(json_invalid(bad[i], &v), "accepted '%s'",
			      bad[i]);
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		ck_assert_msg(!json_invalid(good[i], &v), "rejected '%s': %s",
			      good[i], v.err);
}
END_TEST

Suite *ccsg_json_suite(void)
{
	Suite *s = suite_create("ccsg-json");
	TCase *tc = tcase_create("json");

	tcase_add_test(tc, test_checker_rejects);
	tcase_add_test(tc, test_report_xml_dot_utf8);
	tcase_add_test(tc, test_report_json_valid);
	tcase_add_test(tc, test_dscg_json_valid);
	tcase_add_test(tc, test_latency_json_valid);
	suite_add_tcase(s, tc);
	return s;
}
