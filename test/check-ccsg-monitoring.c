/*
 * check-ccsg-monitoring.c - what a report says selective monitoring
 * covered (ccsg/monitoring.c): intervals per process, the types on
 * throughout and at times, and the chains a switch cut, from a database
 * made by hand with the tables and columns it reads.
 */
#include <check.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "monitoring.h"

static sqlite3 *db_with(const char *sql)
{
	static const char tables[] =
		"CREATE TABLE hosts(host_id INTEGER PRIMARY KEY, name TEXT);"
		"CREATE TABLE processes(proc_id INTEGER PRIMARY KEY, host_id "
		"INTEGER, pid INTEGER, start_mono_ns INTEGER, end_mono_ns "
		"INTEGER);"
		"CREATE TABLE rpc_calls(call_id INTEGER PRIMARY KEY, chain "
		"TEXT,"
		" prog INTEGER, proc INTEGER, client_proc_id INTEGER,"
		" server_proc_id INTEGER, stub_start_event INTEGER,"
		" skel_start_event INTEGER, client_mon TEXT, server_mon TEXT);"
		"INSERT INTO hosts VALUES(1, 'hA'), (2, 'hB');"
		"INSERT INTO processes VALUES(1, 1, 100, 1000, 9000),"
		" (2, 2, 200, 2000, NULL);";
	sqlite3 *db;

	ck_assert_int_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(db, tables, NULL, NULL, NULL), SQLITE_OK);
	ck_assert_msg(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK,
		      "%s", sqlite3_errmsg(db));
	return db;
}

#define SWITCHES                                                               \
	"CREATE TABLE monitor_switches(proc_id INTEGER, seq INTEGER, mono_ns " \
	"INTEGER, event INTEGER, kind TEXT, types TEXT, named TEXT, host "     \
	"TEXT, interface TEXT, function TEXT, state TEXT, selections "         \
	"INTEGER);"

/* Before selective monitoring: nothing to say, every type was on. */
START_TEST(test_old_trace)
{
	sqlite3 *db = db_with("SELECT 1");
	struct ccsg_monitoring m;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	ck_assert_int_eq(ccsg_monitoring_load(&m, db), 0);
	ck_assert_int_eq(m.present, 0);
	ccsg_monitoring_text(f, &m);
	ccsg_monitoring_json(f, &m);
	fclose(f);
	ck_assert_str_eq(text, "{\"recorded\": false, \"switches\": 0, "
			       "\"selections\": 0, \"throughout\": "
			       "[\"semantics\", \"latency\", "
			       "\"cpu\", \"memory\"], \"sometime\": "
			       "[\"semantics\", \"latency\", \"cpu\", "
			       "\"memory\"], \"intervals\": [], "
			       "\"cut_chains\": []}");
	free(text);
	ccsg_monitoring_release(&m);
	sqlite3_close(db);
}
END_TEST

/*
 * Intervals from switch to switch (a switch that changes nothing is no
 * new interval), the types throughout and at times; chain c1 whole, c2
 * cut where cpu came on (its third call), c3 cut inside a call whose
 * server took other types than its client (a caller without types in
 * its tag).
 */
START_TEST(test_intervals_and_cuts)
{
	sqlite3 *db = db_with(
		SWITCHES
		"INSERT INTO monitor_switches VALUES"
		" (1, 1, 1000, 0, 'initial', 'semantics|latency|memory', '',"
		"  NULL, NULL, NULL, NULL, 0),"
		" (1, 5, 2001000, 1, 'on', 'semantics|latency|cpu|memory', "
		"'cpu',"
		"  NULL, NULL, NULL, NULL, 0),"
		" (1, 9, 4000, 2, 'select', 'semantics|latency|cpu|memory', '',"
		"  'hX', '*', '*', 'off', 0),"
		" (2, 1, 2000, 0, 'initial', 'latency|cpu', '', NULL, NULL,"
		"  NULL, NULL, 0);"
		"INSERT INTO rpc_calls VALUES"
		" (1, 'c1', 7, 1, 1, 2, 0, 1, 'latency', 'latency'),"
		" (2, 'c1', 7, 2, 1, 2, 4, 5, 'latency', 'latency'),"
		" (3, 'c2', 7, 1, 1, 2, 0, 1, 'latency', 'latency'),"
		" (4, 'c2', 7, 1, 1, NULL, 3, NULL, 'latency', NULL),"
		" (5, 'c2', 7, 3, 1, 2, 6, 7, 'latency|cpu', 'latency|cpu'),"
		" (6, 'c2', 7, 1, 1, 2, 9, 10, 'latency', 'latency'),"
		" (7, 'c3', 9, 4, 1, 2, 0, 1, 'semantics|cpu', 'cpu');");
	struct ccsg_monitoring m;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	ck_assert_int_eq(ccsg_monitoring_load(&m, db), 0);
	ck_assert_int_eq(m.present, 1);
	ck_assert_uint_eq(m.switches, 2);
	ck_assert_uint_eq(m.throughout, 2); /* latency */
	ck_assert_uint_eq(m.sometime, 0xf);
	ck_assert_uint_eq(m.niv, 3);
	ck_assert_int_eq(m.iv[0].from_ns, 1000);
	ck_assert_int_eq(m.iv[0].to_ns, 2001000);
	ck_assert_int_eq(m.iv[1].to_ns, 9000); /* the process's end */
	ck_assert_int_eq(m.iv[2].to_ns, -1);   /* no end: the log's */
	ck_assert_uint_eq(m.ncuts, 2);
	ck_assert_str_eq(m.cuts[0].chain, "c2");
	ck_assert_int_eq(m.cuts[0].call_id, 5);
	ck_assert_uint_eq(m.cuts[0].lost, 0);
	ck_assert_uint_eq(m.cuts[0].gained, 4);
	ck_assert_str_eq(m.cuts[0].client, "hA 100");
	ck_assert_str_eq(m.cuts[0].server, "hB 200");
	ck_assert_str_eq(m.cuts[1].chain, "c3");
	ck_assert_int_eq(m.cuts[1].call_id, 7);
	ck_assert_uint_eq(m.cuts[1].lost, 1);
	ccsg_monitoring_text(f, &m);
	fclose(f);
	ck_assert_msg(strstr(text, "monitoring: 2 switches; on throughout: "
				   "latency; on at times: semantics, cpu, "
				   "memory"),
		      "%s", text);
	ck_assert_msg(strstr(text, "  hA pid 100: from +0.000 s "
				   "semantics|latency|memory; from +0.002 s "
				   "semantics|latency|cpu|memory;\n"),
		      "%s", text);
	ck_assert_msg(strstr(text, "chain c2 cut at call 5 (program 0x7 "
				   "procedure 3, event 6, hA 100 -> hB 200): "
				   "cpu recorded from there only\n"),
		      "%s", text);
	ck_assert_msg(strstr(text, "chain c3 cut at call 7 (program 0x9 "
				   "procedure 4, event 0, hA 100 -> hB 200): "
				   "semantics not recorded from there\n"),
		      "%s", text);
	free(text);
	ccsg_monitoring_release(&m);
	sqlite3_close(db);
}
END_TEST

/* The text of m as a report heads it (list: --switches). */
static char *text_of(struct ccsg_monitoring *m, int list)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	m->list = list;
	ccsg_monitoring_text(f, m);
	fclose(f);
	return text;
}

/*
 * Selections per process: one for the same fields replaces the one in
 * force, one for another host concerns not the process; a fork's child
 * inherits some it cannot name.  Five states of hA make a summary line
 * (its first and last), every one with --switches; JSON and XML give
 * each interval's selections.
 */
START_TEST(test_selections)
{
	sqlite3 *db = db_with(
		SWITCHES
		"INSERT INTO monitor_switches VALUES"
		" (1, 1, 1000, 0, 'initial', 'semantics|latency|cpu|memory',"
		"  '', NULL, NULL, NULL, NULL, 0),"
		" (1, 2, 1001000, 1, 'select', 'semantics|latency|cpu|memory', "
		"'',"
		"  '*', '*', '*', 'off', 1),"
		" (1, 3, 2001000, 2, 'select', 'semantics|latency|cpu|memory', "
		"'',"
		"  'hA', '0x7', '2', 'on', 2),"
		" (1, 4, 3001000, 3, 'select', 'semantics|latency|cpu|memory', "
		"'',"
		"  'hB', '0x7', '*', 'on', 2),"
		" (1, 5, 4001000, 4, 'select', 'semantics|latency|cpu|memory', "
		"'',"
		"  '*', '*', '*', 'on', 2),"
		" (1, 6, 5001000, 5, 'off', 'semantics|latency|memory', 'cpu',"
		"  NULL, NULL, NULL, NULL, 2),"
		" (2, 1, 2000, 0, 'initial', 'semantics|latency|cpu|memory', "
		"'',"
		"  NULL, NULL, NULL, NULL, 3);");
	struct ccsg_monitoring m;
	char *text, *json = NULL;
	size_t len = 0;
	FILE *f;

	ck_assert_int_eq(ccsg_monitoring_load(&m, db), 0);
	ck_assert_uint_eq(m.switches, 5);
	ck_assert_uint_eq(m.selects, 3); /* hB's is not hA's */
	ck_assert_uint_eq(m.niv, 6);
	ck_assert_ptr_null(m.iv[0].selections);
	ck_assert_int_eq(m.iv[0].deselects, 0);
	ck_assert_str_eq(m.iv[1].selections, "* * * off");
	ck_assert_int_eq(m.iv[1].deselects, 1);
	ck_assert_str_eq(m.iv[2].selections, "* * * off, hA 0x7 2 on");
	/* the same fields: replaced, and now the latest */
	ck_assert_str_eq(m.iv[3].selections, "hA 0x7 2 on, * * * on");
	ck_assert_int_eq(m.iv[3].deselects, 0);
	ck_assert_int_eq(m.iv[4].deselects, 1); /* cpu off */
	ck_assert_str_eq(m.iv[5].selections, "3 inherited");
	ck_assert_int_eq(m.iv[5].deselects, 1);
	ck_assert_int_eq(ccsg_monitoring_deselected(&m, 1), 1);
	ck_assert_int_eq(ccsg_monitoring_deselected(&m, 2), 1);
	/* a process's intervals, found by its proc_id */
	{
		size_t n;
		char buf[64];

		ck_assert_ptr_eq(ccsg_monitoring_of(&m, 1, &n), &m.iv[0]);
		ck_assert_uint_eq(n, 5);
		ck_assert_ptr_eq(ccsg_monitoring_of(&m, 2, &n), &m.iv[5]);
		ck_assert_uint_eq(n, 1);
		ck_assert_ptr_null(ccsg_monitoring_of(&m, 3, &n));
		ck_assert_uint_eq(n, 0);
		ck_assert_str_eq(ccsg_monitoring_types(buf, sizeof(buf),
						       m.iv[4].types, "|"),
				 "semantics|latency|memory");
		ck_assert_str_eq(
			ccsg_monitoring_types(buf, sizeof(buf), 0, "|"),
			"none");
	}

	text = text_of(&m, 0);
	ck_assert_msg(strstr(text, "monitoring: 5 switches (3 selections); "),
		      "%s", text);
	ck_assert_msg(strstr(text,
			     "  hA pid 100: from +0.000 s "
			     "semantics|latency|cpu|memory; ... 3 more "
			     "...; from +0.005 s semantics|latency|memory "
			     "selected: hA 0x7 2 on, * * * on;\n"),
		      "%s", text);
	ck_assert_msg(strstr(text, "  hB pid 200: from +0.000 s "
				   "semantics|latency|cpu|memory selected: 3 "
				   "inherited;\n"),
		      "%s", text);
	ck_assert_msg(strstr(text, "(--switches lists every "
				   "interval)\n"),
		      "%s", text);
	free(text);
	text = text_of(&m, 1);
	ck_assert_msg(strstr(text,
			     "  hA pid 100:\n"
			     "    from +0.000 s semantics|latency|cpu|memory\n"
			     "    from +0.001 s semantics|latency|cpu|memory "
			     "selected: * * * off\n"
			     "    from +0.002 s semantics|latency|cpu|memory "
			     "selected: * * * off, hA 0x7 2 on\n"),
		      "%s", text);
	ck_assert_msg(!strstr(text, "more"), "%s", text);
	free(text);

	f = open_memstream(&json, &len);
	ccsg_monitoring_json(f, &m);
	ccsg_monitoring_xml(f, &m);
	fclose(f);
	ck_assert_msg(strstr(json, "\"from_ns\": 2001000, \"to_ns\": 4001000, "
				   "\"types\": [\"semantics\", \"latency\", "
				   "\"cpu\", \"memory\"], \"selections\": "
				   "[\"* * * off\", \"hA 0x7 2 on\"], "
				   "\"deselects\": true}"),
		      "%s", json);
	ck_assert_msg(strstr(json, "\"selections\": [], \"deselects\": false}"),
		      "%s", json);
	ck_assert_msg(strstr(json, " selected=\"* * * off, hA 0x7 2 on\"/>"),
		      "%s", json);
	free(json);
	ccsg_monitoring_release(&m);
	sqlite3_close(db);
}
END_TEST

Suite *ccsg_monitoring_suite(void)
{
	Suite *s = suite_create("ccsg-monitoring");
	TCase *tc = tcase_create("ccsg-monitoring");

	tcase_add_test(tc, test_old_trace);
	tcase_add_test(tc, test_intervals_and_cuts);
	tcase_add_test(tc, test_selections);
	suite_add_tcase(s, tc);
	return s;
}
