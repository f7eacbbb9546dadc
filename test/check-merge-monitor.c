/*
 * check-merge-monitor.c - `tracedump merge` under selective monitoring:
 * what a record did not measure (its mon_off) is NULL in the database,
 * each side's types are in rpc_calls, MONITOR records become
 * monitor_switches; and logs written before mon_off existed (their
 * records one field shorter) are read as measuring everything.
 */
#include <check.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "log-fixture.h"
#include "log-record.h"
#include "merge.h"
#include "test-sql.h"
#include "test-tmpdir.h"

#define PROG 0x20000099u

static const uint8_t uuid_a[16] = { 0xa1, 1, 2,	 3,  4,	 5,  6,	 7,
				    8,	  9, 10, 11, 12, 13, 14, 15 };
static const uint8_t uuid_b[16] = { 0xb1, 1, 2,	 3,  4,	 5,  6,	 7,
				    8,	  9, 10, 11, 12, 13, 14, 15 };
static const char *const argv0[] = { "prog" };

static void setup(void)
{
	tmpdir_make("check-merge-monitor");
}

static void teardown(void)
{
	tmpdir_remove();
}

/* The stub start and end of a log written before mon_off: 8 and 5 own
 * fields, as that format had them. */
static void old_stub(struct fixture_log *fl, const struct fixture_rpc *p,
		     int end, uint32_t xid)
{
	if (!end) {
		fixture_log_rpc_begin(fl, CAUSAL_REC_RPC_STUB_START, p, 8);
		msgpack_pack_uint64(&fl->pk, PROG);
		msgpack_pack_uint64(&fl->pk, 1);
		msgpack_pack_uint64(&fl->pk, 2);
		msgpack_pack_uint64(&fl->pk, CAUSAL_TRANSPORT_TCP);
		msgpack_pack_nil(&fl->pk);
		msgpack_pack_uint64(&fl->pk, 0);
		msgpack_pack_uint64(&fl->pk, xid);
		msgpack_pack_uint64(&fl->pk, CAUSAL_RPC_TAG_SENT);
		return;
	}
	fixture_log_rpc_begin(fl, CAUSAL_REC_RPC_STUB_END, p, 5);
	msgpack_pack_uint64(&fl->pk, 0);
	msgpack_pack_uint64(&fl->pk, 4);
	msgpack_pack_uint64(&fl->pk, 4);
	msgpack_pack_uint64(&fl->pk, CAUSAL_TAG_OK);
	msgpack_pack_uint64(&fl->pk, 1);
}

START_TEST(test_mon_off_and_old_logs)
{
	uint8_t chain[CAUSAL_CHAIN_ID_LEN] = { 0xa1, 1 };
	struct merge_opts o;
	struct merge_stats s;
	struct fixture_log fl;
	struct fixture_rpc p;
	sqlite3 *db;

	mkdir(tmp_path("logs"), 0777);
	/* A, an old client: no mon_off anywhere (thread records too) */
	ck_assert_int_eq(fixture_log_open(&fl, tmp_path("logs/a.clog"),
					  CAUSAL_FORMAT_VERSION),
			 0);
	fixture_log_header(&fl, 100, uuid_a, "hostA", 10, 1, "/bin/a", 1, argv0,
			   1700000000000000000ull, NULL, 64, 100);
	fixture_log_begin(&fl, CAUSAL_REC_THREAD_START, 1, 101, 5);
	msgpack_pack_uint64(&fl.pk, 0);
	msgpack_pack_uint64(&fl.pk, 10);
	msgpack_pack_uint64(&fl.pk, CAUSAL_MARKER_USER);
	msgpack_pack_uint64(&fl.pk, 1000);
	msgpack_pack_nil(&fl.pk);
	p = (struct fixture_rpc){ 1, 200, 201, 2000, chain, 1, 1 };
	old_stub(&fl, &p, 0, 77);
	p = (struct fixture_rpc){ 1, 300, 301, 3000, chain, 4, 1 };
	old_stub(&fl, &p, 1, 77);
	fixture_log_begin(&fl, CAUSAL_REC_THREAD_END, 1, 400, 2);
	msgpack_pack_uint64(&fl.pk, 5000);
	msgpack_pack_uint64(&fl.pk, CAUSAL_THREAD_RETURNED);
	ck_assert_int_eq(fixture_log_close(&fl), 0);

	/* B, a server of this version, latency and cpu off */
	ck_assert_int_eq(fixture_log_open(&fl, tmp_path("logs/b.clog"),
					  CAUSAL_FORMAT_VERSION),
			 0);
	fixture_log_header(&fl, 100, uuid_b, "hostB", 20, 1, "/bin/b", 1, argv0,
			   1700000000000000000ull, NULL, 64, 100);
	fixture_log_monitor(&fl, 100, 0, CAUSAL_MONITOR_INITIAL, 1 | 8, 1 | 8,
			    0, 0, NULL, NULL, NULL);
	fl.thread_mon_off = CAUSAL_MONTYPE_CPU;
	fixture_log_thread_start(&fl, 1, 101, 0, 20, CAUSAL_MARKER_USER, 0,
				 NULL, 0, 0);
	fl.rpc_mon_off = CAUSAL_MONTYPE_LATENCY | CAUSAL_MONTYPE_CPU;
	p = (struct fixture_rpc){ 1, 0, 0, 0, chain, 2, 1 };
	fixture_log_skel_start(&fl, &p, PROG, 1, 2, CAUSAL_TRANSPORT_TCP, NULL,
			       0, 1, 77, 4, CAUSAL_TAG_OK);
	p = (struct fixture_rpc){ 1, 0, 0, 0, chain, 3, 1 };
	fixture_log_skel_end(&fl, &p, CAUSAL_REPLY_SUCCESS, 4);
	fixture_log_monitor(&fl, 250, 1, CAUSAL_MONITOR_SELECT, 1 | 8, 0, 1, 1,
			    "hostB", "*", "say_it");
	fixture_log_thread_end(&fl, 1, 400, 0, CAUSAL_THREAD_RETURNED);
	ck_assert_int_eq(fixture_log_close(&fl), 0);

	o = (struct merge_opts){ .dir = tmp_path("logs"),
				 .output = tmp_path("t.db") };
	ck_assert_int_eq(merge_run(&o, &s), 0);
	ck_assert_uint_eq(s.bad_records, 0);
	db = q_open(tmp_path("t.db"));

	/* one call, both sides; the old side measured everything */
	ck_assert_int_eq(q_int(db, "SELECT count(*) FROM rpc_calls"), 1);
	ck_assert_str_eq(q_text(db, "SELECT client_mon || ' / ' || server_mon "
				    "FROM rpc_calls"),
			 "semantics|latency|cpu / semantics");
	ck_assert_int_eq(q_int(db, "SELECT stub_start_ns + stub_start_cpu_ns "
				   "+ stub_end_cpu_ns FROM rpc_calls"),
			 200 + 2000 + 3000);
	ck_assert_int_eq(q_int(db,
			       "SELECT count(*) FROM rpc_calls WHERE "
			       "skel_start_ns IS NULL AND skel_end_exit_ns "
			       "IS NULL AND skel_start_cpu_ns IS NULL AND "
			       "skel_end_cpu_ns IS NULL AND "
			       "server_args_bytes = 4 AND reply = 'success' "
			       "AND skel_start_event = 2"),
			 1);
	/* threads: the old one with its CPU, the new one without */
	ck_assert_int_eq(q_int(db, "SELECT t.cpu_ns FROM threads t JOIN "
				   "processes p USING (proc_id) WHERE p.pid = "
				   "10"),
			 4000);
	ck_assert_int_eq(q_int(db, "SELECT count(*) FROM threads t JOIN "
				   "processes p USING (proc_id) WHERE p.pid = "
				   "20 AND t.start_cpu_ns IS NULL AND "
				   "t.end_cpu_ns IS NULL AND t.cpu_ns IS NULL "
				   "AND t.end_mono_ns = 400"),
			 1);
	/* the switches */
	ck_assert_str_eq(q_list(db, "SELECT event || ' ' || kind || ' ' || "
				    "types || ' ' || coalesce(host, '-') || "
				    "' ' || coalesce(function, '-') || ' ' "
				    "|| coalesce(state, '-') || ' ' || "
				    "selections FROM monitor_switches ORDER "
				    "BY seq"),
			 "0 initial semantics|memory - - - 0,"
			 "1 select semantics|memory hostB say_it on 1");
	sqlite3_close(db);
}
END_TEST

Suite *merge_monitor_suite(void)
{
	Suite *s = suite_create("merge-monitor");
	TCase *tc = tcase_create("merge-monitor");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_mon_off_and_old_logs);
	suite_add_tcase(s, tc);
	return s;
}
