/*
 * check-merge-rpc.c - unit tests of the Sun RPC tables of `tracedump
 * merge` (rpc_sites, rpc_objects, rpc_calls; the view rpc_probes) on three
 * processes written by log-fixture.h:
 *
 *   A (client, killed)  call 1 -> B, whose implementation calls C (nested)
 *                       call 2 -> an untraced server (missing = 'server')
 *                       call 3 -> B, A killed before its stub end
 *   B (server, client)  one call from an untraced client (missing =
 *                       'client'), whose implementation calls C
 *   C (server, killed)  killed inside that second call
 *
 * Event numbers follow one chain as the shim counts them: every probe is
 * one event, and the server's skeleton start is the client's stub start
 * plus one.
 */
#include <arpa/inet.h>
#include <check.h>
#include <ftw.h>
#include <netinet/in.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "log-fixture.h"
#include "test-sql.h"
#include "test-tmpdir.h"
#include "log-record.h"
#include "merge.h"

#define PROG 0x20000099u

static const uint8_t uuid_a[16] = { 0xaa, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 0xff };
static const uint8_t uuid_b[16] = { 0xbb, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 0xff };
static const uint8_t uuid_c[16] = { 0xcc, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 0xff };
static const char *const argv0[] = { "prog" };

static uint8_t chain_a[CAUSAL_CHAIN_ID_LEN], chain_b[CAUSAL_CHAIN_ID_LEN];
static struct sockaddr_in sin_b, sin_a, sin_any, sin_untraced_client;
static struct sockaddr_in6 sin6_untraced;
static struct sockaddr_un sun_c;

static void make_chain(uint8_t *chain, const uint8_t *uuid, uint32_t counter)
{
	memcpy(chain, uuid, CAUSAL_UUID_LEN);
	chain[16] = counter >> 24;
	chain[17] = counter >> 16;
	chain[18] = counter >> 8;
	chain[19] = counter;
}

static void make_sin(struct sockaddr_in *s, const char *ip, uint16_t port)
{
	memset(s, 0, sizeof(*s));
	s->sin_family = AF_INET;
	s->sin_port = htons(port);
	inet_pton(AF_INET, ip, &s->sin_addr);
}

static void setup(void)
{
	tmpdir_make("check-merge-rpc");
	make_chain(chain_a, uuid_a, 1);
	make_chain(chain_b, uuid_b, 1);
	make_sin(&sin_b, "127.0.0.1", 2049);
	make_sin(&sin_a, "127.0.0.1", 40000);
	make_sin(&sin_any, "0.0.0.0", 2049);
	make_sin(&sin_untraced_client, "10.0.0.9", 700);
	memset(&sin6_untraced, 0, sizeof(sin6_untraced));
	sin6_untraced.sin6_family = AF_INET6;
	sin6_untraced.sin6_port = htons(111);
	inet_pton(AF_INET6, "::1", &sin6_untraced.sin6_addr);
	memset(&sun_c, 0, sizeof(sun_c));
	sun_c.sun_family = AF_UNIX;
	strcpy(sun_c.sun_path, "/run/calc.sock");
}

static void teardown(void)
{
	tmpdir_remove();
}

/* Write each start and end with nothing between them as one PAIR of this
 * format; 0: apart, in the format of today. */
static int pairs;

static void open_log(struct fixture_log *fl, const char *name,
		     const uint8_t *uuid, int64_t pid)
{
	ck_assert_int_eq(fixture_log_open(fl, tmp_path(name),
					  pairs ? (uint32_t)pairs
						: CAUSAL_FORMAT_VERSION),
			 0);
	fixture_log_header(fl, 100, uuid, "host", pid, 1, "/bin/prog", 1, argv0,
			   1700000000000000000ull, NULL, 64, 100);
	fixture_log_thread_start(fl, 1, 101, 0, pid, CAUSAL_MARKER_USER, 0,
				 NULL, 0, 0);
}

/* A probe at time t of thread tid: exit 1 ns later, CPU = 10 * t. */
static struct fixture_rpc at(uint64_t tid, uint64_t t, const uint8_t *chain,
			     uint64_t event, uint64_t function)
{
	return (struct fixture_rpc){ tid, t, t + 1, 10 * t, chain, event, function };
}

static void pair_next(struct fixture_log *fl)
{
	if (pairs)
		fixture_log_pair_next(fl);
}

/* NEXT pairs write_logs() wrote (format 5) */
static unsigned nexts_written;

static void write_logs(void)
{
	struct fixture_log fl;
	struct fixture_rpc p;

	mkdir(tmp_path("logs"), 0777);
	nexts_written = 0;

	/* A: three calls, killed in the third (no stub end, no PROCESS_END). */
	open_log(&fl, "logs/a.clog", uuid_a, 10);
	fixture_log_rpc_site(&fl, 1, 200, 1, "calc_add_1", "/bin/a");
	p = at(1, 200, chain_a, 1, 1);
	pair_next(&fl);
	fixture_log_stub_start(&fl, &p, PROG, 1, 2, CAUSAL_TRANSPORT_TCP, &sin_b,
			       sizeof(sin_b), 1, 100, CAUSAL_RPC_TAG_SENT);
	p = at(1, 290, chain_a, 8, 1);
	fixture_log_stub_end(&fl, &p, 0, 16, 8, CAUSAL_TAG_OK);
	p = at(1, 300, chain_a, 9, 2);
	pair_next(&fl);
	fixture_log_stub_start(&fl, &p, PROG, 1, 3, CAUSAL_TRANSPORT_UDP,
			       &sin6_untraced, sizeof(sin6_untraced), 1, 101,
			       CAUSAL_RPC_ONE_WAY | CAUSAL_RPC_TAG_SENT);
	p = at(1, 310, chain_a, 10, 2);
	fixture_log_stub_end(&fl, &p, 5, 16, 0, CAUSAL_TAG_ABSENT);
	p = at(1, 400, chain_a, 11, 3);
	fixture_log_stub_start(&fl, &p, PROG, 1, 2, CAUSAL_TRANSPORT_TCP, &sin_b,
			       sizeof(sin_b), 1, 102, CAUSAL_RPC_TAG_SENT);
	nexts_written += fl.nexts; /* its second pair, from format 5 */
	ck_assert_int_eq(fixture_log_close(&fl), 0);

	/* B: serves A's calls 1 and 3 and one untraced client; calls C. */
	open_log(&fl, "logs/b.clog", uuid_b, 20);
	fixture_log_rpc_object(&fl, 1, 150, 1, PROG, 1, CAUSAL_TRANSPORT_TCP,
			       &sin_any, sizeof(sin_any), "tcp");
	fixture_log_rpc_site(&fl, 2, 210, 1, "calc_mul_1", "/bin/b");
	p = at(2, 210, chain_a, 2, 1);
	fixture_log_skel_start(&fl, &p, PROG, 1, 2, CAUSAL_TRANSPORT_TCP, &sin_a,
			       sizeof(sin_a), 1, 100, 16, CAUSAL_TAG_OK);
	p = at(2, 220, chain_a, 3, 2);	/* nested: B's implementation calls C */
	pair_next(&fl);
	fixture_log_stub_start(&fl, &p, PROG + 1, 1, 1, CAUSAL_TRANSPORT_UNIX,
			       &sun_c, sizeof(sun_c), 1, 500, CAUSAL_RPC_TAG_SENT);
	p = at(2, 260, chain_a, 6, 2);
	fixture_log_stub_end(&fl, &p, 0, 4, 4, CAUSAL_TAG_OK);
	p = at(2, 280, chain_a, 7, 1);
	fixture_log_skel_end(&fl, &p, CAUSAL_REPLY_SUCCESS, 8);
	p = at(2, 410, chain_a, 12, 3);
	pair_next(&fl);
	fixture_log_skel_start(&fl, &p, PROG, 1, 2, CAUSAL_TRANSPORT_TCP, &sin_a,
			       sizeof(sin_a), 1, 102, 16, CAUSAL_TAG_OK);
	p = at(2, 420, chain_a, 13, 3);
	fixture_log_skel_end(&fl, &p, CAUSAL_REPLY_SUCCESS, 8);
	/* An untraced client: no tag, the server starts a chain of its own. */
	p = at(3, 500, chain_b, 1, 4);
	fixture_log_skel_start(&fl, &p, PROG, 1, 4, CAUSAL_TRANSPORT_TCP,
			       &sin_untraced_client, sizeof(sin_untraced_client),
			       1, 900, 32, CAUSAL_TAG_ABSENT);
	p = at(3, 510, chain_b, 2, 5);
	pair_next(&fl);
	fixture_log_stub_start(&fl, &p, PROG + 1, 1, 1, CAUSAL_TRANSPORT_UNIX,
			       &sun_c, sizeof(sun_c), 1, 501, CAUSAL_RPC_TAG_SENT);
	p = at(3, 560, chain_b, 4, 5);
	fixture_log_stub_end(&fl, &p, 4, 4, 0, CAUSAL_TAG_ABSENT);
	p = at(3, 570, chain_b, 5, 4);
	fixture_log_skel_end(&fl, &p, CAUSAL_REPLY_SYSTEM_ERR, 0);
	fixture_log_process_end(&fl, 600, 1700000000000000600ull, CAUSAL_END_EXIT,
				0, 14, 0);
	ck_assert_int_eq(fixture_log_close(&fl), 0);

	/* C: serves B twice, killed inside the second call. */
	open_log(&fl, "logs/c.clog", uuid_c, 30);
	fixture_log_rpc_object(&fl, 1, 150, 7, PROG + 1, 1, CAUSAL_TRANSPORT_UNIX,
			       &sun_c, sizeof(sun_c), "unix");
	p = at(1, 230, chain_a, 4, 1);
	pair_next(&fl);
	fixture_log_skel_start(&fl, &p, PROG + 1, 1, 1, CAUSAL_TRANSPORT_UNIX,
			       NULL, 0, 7, 500, 4, CAUSAL_TAG_OK);
	p = at(1, 250, chain_a, 5, 1);
	fixture_log_skel_end(&fl, &p, CAUSAL_REPLY_SUCCESS, 4);
	p = at(1, 520, chain_b, 3, 2);
	fixture_log_skel_start(&fl, &p, PROG + 1, 1, 1, CAUSAL_TRANSPORT_UNIX,
			       NULL, 0, 7, 501, 4, CAUSAL_TAG_OK);
	ck_assert_int_eq(fixture_log_close(&fl), 0);
}

static sqlite3 *merged(struct merge_stats *s)
{
	struct merge_opts o;
	sqlite3 *db;

	write_logs();
	/* --raw: the probes are checked against their records */
	o = (struct merge_opts){ .dir = tmp_path("logs"),
				 .output = tmp_path("t.db"),
				 .raw = true };
	ck_assert_int_eq(merge_run(&o, s), 0);
	db = q_open(tmp_path("t.db"));
	return db;
}

START_TEST(test_rpc_calls_joined)
{
	struct merge_stats s;
	sqlite3 *db = merged(&s);

	ck_assert_uint_eq(s.processes, 3);
	ck_assert_uint_eq(s.bad_records, 0);
	ck_assert_uint_eq(s.rpc_calls, 6);
	ck_assert_uint_eq(s.rpc_no_server, 1);
	ck_assert_uint_eq(s.rpc_no_client, 1);

	/* Rows in chain order (meta.calls_order): by chain, first event, then
	 * client sides by (proc, seq) before server-only sides. */
	ck_assert_str_eq(
		q_list(db,
		       "SELECT call_id || ':' || ifnull(client_proc_id, '-')"
		       " || '>' || ifnull(server_proc_id, '-') || ':' ||"
		       " ifnull(missing, '') FROM rpc_calls ORDER BY call_id"),
		"1:1>2:,2:2>3:,3:1>-:server,4:1>2:,5:->2:client,6:2>3:");

	/* Call 1: A -> B, both sides complete. */
	ck_assert_str_eq(
		q_list(db, "SELECT typeof(chain) || ' ' || lower(hex(chain))"
			   " FROM rpc_calls WHERE call_id=1"),
		"blob aa0102030405060708090a0b0c0d0eff00000001");
	ck_assert_str_eq(q_list(db, "SELECT prog || '/' || vers || '/' || proc || ' ' ||"
				" transport || ' xid ' || xid || ' flags ' || flags ||"
				" ' one_way ' || one_way FROM rpc_calls WHERE call_id=1"),
			 "536871065/1/2 tcp xid 100 flags 2 one_way 0");
	ck_assert_str_eq(q_list(db, "SELECT site_symbol || ' ' || peer || ' ' ||"
				" caller_address FROM rpc_calls WHERE call_id=1"),
			 "calc_add_1 127.0.0.1:2049 127.0.0.1:40000");
	ck_assert_str_eq(q_list(db, "SELECT client_tid || ' ' || client_function_id ||"
				" ' ' || server_tid || ' ' || server_function_id ||"
				" ' ' || object_id FROM rpc_calls WHERE call_id=1"),
			 "1 1 2 1 1");
	ck_assert_str_eq(q_list(db, "SELECT stub_start_event || ' ' || stub_start_ns ||"
				" ' ' || stub_start_exit_ns || ' ' || stub_start_cpu_ns ||"
				" ' ' || stub_end_event || ' ' || stub_end_ns || ' ' ||"
				" stub_end_exit_ns || ' ' || stub_end_cpu_ns"
				" FROM rpc_calls WHERE call_id=1"),
			 "1 200 201 2000 8 290 291 2900");
	ck_assert_str_eq(q_list(db, "SELECT skel_start_event || ' ' || skel_start_ns ||"
				" ' ' || skel_start_exit_ns || ' ' || skel_start_cpu_ns ||"
				" ' ' || skel_end_event || ' ' || skel_end_ns || ' ' ||"
				" skel_end_exit_ns || ' ' || skel_end_cpu_ns"
				" FROM rpc_calls WHERE call_id=1"),
			 "2 210 211 2100 7 280 281 2800");
	ck_assert_str_eq(q_list(db, "SELECT status || ' ' || status_name || ' ' ||"
				" args_bytes || ' ' || results_bytes || ' ' || reply_tag ||"
				" ' ' || server_args_bytes || ' ' || server_results_bytes ||"
				" ' ' || reply || ' ' || tag FROM rpc_calls WHERE call_id=1"),
			 "0 RPC_SUCCESS 16 8 ok 16 8 success ok");

	/* Call 2: the server is not traced. */
	ck_assert_str_eq(
		q_list(db,
		       "SELECT transport || ' ' || peer || ' ' || one_way ||"
		       " ' ' || status_name || ' ' || reply_tag FROM rpc_calls"
		       " WHERE call_id=3"),
		"udp [::1]:111 1 RPC_TIMEDOUT absent");
	ck_assert_int_eq(
		q_int(db,
		      "SELECT count(*) FROM rpc_calls WHERE call_id=3 AND"
		      " server_proc_id IS NULL AND skel_start_ns IS NULL AND"
		      " reply IS NULL AND caller_address IS NULL"),
		1);

	/* Call 3: A killed before its stub end; the server side is whole. */
	ck_assert_int_eq(
		q_int(db, "SELECT count(*) FROM rpc_calls WHERE call_id=4 AND"
			  " stub_start_event=11 AND stub_end_ns IS NULL AND"
			  " status IS NULL AND status_name IS NULL AND"
			  " skel_start_event=12 AND skel_end_event=13 AND"
			  " missing IS NULL"),
		1);

	/* Call 4: nested in call 1, same chain, over a unix socket. */
	ck_assert_str_eq(
		q_list(db,
		       "SELECT lower(hex(chain)) || ' ' || stub_start_event"
		       " || ' ' || skel_start_event || ' ' || peer || ' ' ||"
		       " object_id || ' ' || site_symbol FROM rpc_calls"
		       " WHERE call_id=2"),
		"aa0102030405060708090a0b0c0d0eff00000001 3 4"
		" unix:/run/calc.sock 7 calc_mul_1");
	ck_assert_int_eq(q_int(db,
			       "SELECT count(*) FROM rpc_calls WHERE call_id=2"
			       " AND caller_address IS NULL"),
			 1);
	/* The nested call lies inside B's skeleton of call 1. */
	ck_assert_int_eq(
		q_int(db, "SELECT count(*) FROM rpc_calls o JOIN rpc_calls i"
			  " ON i.chain=o.chain AND i.stub_start_event"
			  " BETWEEN o.skel_start_event AND o.skel_end_event"
			  " AND i.client_proc_id=o.server_proc_id"
			  " WHERE o.call_id=1 AND i.call_id=2"),
		1);

	/* Call 5: C killed inside the skeleton. */
	ck_assert_int_eq(
		q_int(db,
		      "SELECT count(*) FROM rpc_calls WHERE call_id=6 AND"
		      " status_name='RPC_CANTRECV' AND skel_start_event=3 AND"
		      " skel_end_ns IS NULL AND reply IS NULL AND"
		      " server_results_bytes IS NULL AND missing IS NULL"),
		1);

	/* Call 6: an untraced client; B's own chain. */
	ck_assert_str_eq(q_list(db, "SELECT lower(hex(chain)) || ' ' ||"
				    " caller_address || ' ' || tag || ' ' ||"
				    " reply || ' ' || proc || ' ' || xid"
				    " FROM rpc_calls WHERE call_id=5"),
			 "bb0102030405060708090a0b0c0d0eff00000001 10.0.0.9:700"
			 " absent system_err 4 900");
	ck_assert_int_eq(
		q_int(db,
		      "SELECT count(*) FROM rpc_calls WHERE call_id=5 AND"
		      " client_proc_id IS NULL AND stub_start_ns IS NULL AND"
		      " flags IS NULL AND one_way IS NULL AND peer IS NULL"),
		1);
	sqlite3_close(db);
}
END_TEST

/*
 * Without --raw: no records table, and every other table the same, row
 * for row, as with it (the probes reach the join without it).
 */
START_TEST(test_rpc_without_raw)
{
	struct merge_stats s, r;
	struct merge_opts o;
	sqlite3 *db = merged(&r);
	static const char *const tables[] = { "files",	   "hosts",
					      "processes", "threads",
					      "rpc_sites", "rpc_objects",
					      "rpc_calls", "monitor_switches",
					      "meta" };
	char sql[512];

	sqlite3_close(db);
	o = (struct merge_opts){ .dir = tmp_path("logs"),
				 .output = tmp_path("plain.db") };
	ck_assert_int_eq(merge_run(&o, &s), 0);
	ck_assert_uint_eq(s.records, r.records);
	ck_assert_uint_eq(s.rpc_calls, r.rpc_calls);
	ck_assert_uint_eq(s.rpc_no_server, r.rpc_no_server);
	ck_assert_uint_eq(s.rpc_no_client, r.rpc_no_client);
	db = q_open(tmp_path("plain.db"));
	ck_assert_int_eq(q_int(db, "SELECT count(*) FROM sqlite_schema"
				   " WHERE name='records'"),
			 0);
	snprintf(sql, sizeof(sql), "ATTACH '%s' AS raw", tmp_path("t.db"));
	ck_assert_int_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	ck_assert_int_eq(q_int(db, "SELECT count(*) FROM raw.records"),
			 (int)r.records);
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		const char *t = tables[i];

		snprintf(sql, sizeof(sql), "SELECT count(*) FROM main.%s", t);
		/* the fixture has no MONITOR record */
		if (strcmp(t, "monitor_switches"))
			ck_assert_msg(q_int(db, sql) > 0, "%s is empty", t);
		snprintf(sql, sizeof(sql),
			 "SELECT count(*) FROM (SELECT * FROM main.%s EXCEPT"
			 " SELECT * FROM raw.%s)",
			 t, t);
		ck_assert_msg(q_int(db, sql) == 0, "%s: rows not in --raw's",
			      t);
		snprintf(sql, sizeof(sql),
			 "SELECT count(*) FROM (SELECT * FROM raw.%s EXCEPT"
			 " SELECT * FROM main.%s)",
			 t, t);
		ck_assert_msg(q_int(db, sql) == 0, "%s: --raw's rows missing",
			      t);
	}
	sqlite3_close(db);
}
END_TEST

/*
 * The same logs with each start and end that nothing separates as one
 * PAIR record (six of the nine calls' sides), of format _i (3, 4, or 5,
 * where A's second pair is a NEXT pair): the same database, row for row,
 * the --raw records' bytes included; only the files are smaller.
 */
START_TEST(test_pairs_merge_the_same)
{
	static const char *const tables[] = { "hosts",	     "processes",
					      "threads",     "rpc_sites",
					      "rpc_objects", "rpc_calls",
					      "records",     "meta" };
	struct merge_stats s, r;
	struct merge_opts o;
	sqlite3 *db;
	char sql[512];

	pairs = 0;
	db = merged(&r);
	sqlite3_close(db);
	pairs = _i;
	write_logs();
	ck_assert_uint_eq(nexts_written, _i >= 5);
	o = (struct merge_opts){ .dir = tmp_path("logs"),
				 .output = tmp_path("pairs.db"),
				 .raw = true };
	ck_assert_int_eq(merge_run(&o, &s), 0);
	ck_assert_uint_eq(s.records, r.records);
	ck_assert_uint_eq(s.bad_records, 0);
	ck_assert_uint_eq(s.rpc_calls, r.rpc_calls);
	db = q_open(tmp_path("pairs.db"));
	snprintf(sql, sizeof(sql), "ATTACH '%s' AS plain", tmp_path("t.db"));
	ck_assert_int_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		const char *t = tables[i];

		snprintf(sql, sizeof(sql),
			 "SELECT (SELECT count(*) FROM (SELECT * FROM main.%s"
			 " EXCEPT SELECT * FROM plain.%s)) + (SELECT count(*)"
			 " FROM (SELECT * FROM plain.%s EXCEPT SELECT * FROM"
			 " main.%s))",
			 t, t, t, t);
		ck_assert_msg(q_int(db, sql) == 0, "%s: rows differ", t);
	}
	ck_assert_int_gt(q_int(db, "SELECT count(*) FROM main.rpc_calls"), 5);
	ck_assert_int_gt(q_int(db, "SELECT sum(bytes) FROM plain.files"),
			 q_int(db, "SELECT sum(bytes) FROM main.files"));
	sqlite3_close(db);
}
END_TEST

START_TEST(test_rpc_probes_sites_objects)
{
	struct merge_stats s;
	sqlite3 *db = merged(&s);

	/* rpc_probes is a view of rpc_calls: a probe stored once */
	ck_assert_str_eq(q_text(db,
				"SELECT group_concat(type) FROM sqlite_schema"
				" WHERE name='rpc_probes'"),
			 "view");
	ck_assert_int_eq(q_int(db, "SELECT count(*) FROM rpc_probes"), 18);
	ck_assert_str_eq(q_list(db, "SELECT kind FROM rpc_probes WHERE "
				    "proc_id=1 ORDER BY mono_ns"),
			 "stub_start,stub_end,stub_start,stub_end,stub_start");
	/* Each is a probe record of its process, at its time, of its thread. */
	ck_assert_int_eq(
		q_int(db, "SELECT count(*) FROM rpc_probes p JOIN records r"
			  " ON r.proc_id=p.proc_id AND r.mono_ns=p.mono_ns"
			  " AND r.tid=p.tid WHERE r.type BETWEEN 16 AND 19"),
		18);
	ck_assert_str_eq(
		q_list(db,
		       "SELECT call_id || ' ' || lower(hex(chain)) || ' ' ||"
		       " event_no || ' ' || function_id || ' ' || mono_ns ||"
		       " ' ' || mono_exit_ns || ' ' || cpu_ns FROM rpc_probes"
		       " WHERE proc_id=3 AND kind='skel_start' AND tid=1"
		       " AND event_no=4"),
		"2 aa0102030405060708090a0b0c0d0eff00000001 4 1 230 231 2300");
	ck_assert_str_eq(q_list(db, "SELECT proc_id || ' ' || site_id || ' ' || symbol ||"
				" ' ' || module FROM rpc_sites ORDER BY proc_id"),
			 "1 1 calc_add_1 /bin/a,2 1 calc_mul_1 /bin/b");
	ck_assert_str_eq(q_list(db, "SELECT proc_id || ' ' || object_id || ' ' || prog ||"
				" ' ' || transport || ' ' || address || ' ' || netid"
				" FROM rpc_objects ORDER BY proc_id"),
			 "2 1 536871065 tcp 0.0.0.0:2049 tcp,"
			 "3 7 536871066 unix unix:/run/calc.sock unix");
	ck_assert_int_eq(
		q_int(db,
		      "SELECT count(*) FROM sqlite_schema WHERE type='index'"
		      " AND name LIKE 'rpc_%'"),
		0); /* none over rpc_calls: ccsg reads it by call_id */
	sqlite3_close(db);
}
END_TEST

START_TEST(test_rpc_names)
{
	char buf[RECORD_SOCKADDR_MAX];
	struct sockaddr_un abs = { .sun_family = AF_UNIX };
	uint8_t odd[6] = { 0 };
	sa_family_t fam = 99;

	setup();
	ck_assert_str_eq(record_sockaddr(buf, (void *)&sin_b, sizeof(sin_b)), "127.0.0.1:2049");
	ck_assert_str_eq(record_sockaddr(buf, (void *)&sin6_untraced, sizeof(sin6_untraced)),
			 "[::1]:111");
	ck_assert_str_eq(record_sockaddr(buf, (void *)&sun_c, sizeof(sun_c)),
			 "unix:/run/calc.sock");
	memcpy(abs.sun_path, "\0calc", 5);
	ck_assert_str_eq(record_sockaddr(buf, (void *)&abs,
					 offsetof(struct sockaddr_un, sun_path) + 5),
			 "unix:@calc");
	ck_assert_str_eq(record_sockaddr(buf, (void *)&sin_b, 4), "bad:02000801");
	memcpy(odd, &fam, sizeof(fam));
	odd[2] = 0xab;
	ck_assert_str_eq(record_sockaddr(buf, odd, sizeof(odd)), "af99:ab000000");
	teardown();

	ck_assert_str_eq(record_clnt_stat_name(0), "RPC_SUCCESS");
	ck_assert_str_eq(record_clnt_stat_name(5), "RPC_TIMEDOUT");
	ck_assert_str_eq(record_clnt_stat_name(10), "RPC_PROCUNAVAIL");
	ck_assert_str_eq(record_clnt_stat_name(18), "RPC_INTR");
	ck_assert_str_eq(record_clnt_stat_name(28), "RPC_CANTCREATESTREAM");
	ck_assert_ptr_null(record_clnt_stat_name(29));
	ck_assert_str_eq(record_transport_name(CAUSAL_TRANSPORT_RAW), "raw");
	ck_assert_ptr_null(record_transport_name(5));
	ck_assert_str_eq(record_tag_status_name(CAUSAL_TAG_STALE), "stale");
	ck_assert_str_eq(record_reply_name(CAUSAL_REPLY_DENIED), "denied");
	ck_assert_ptr_null(record_reply_name(8));
	ck_assert_str_eq(record_type_name(CAUSAL_REC_RPC_SKEL_END, false), "RPC_SKEL_END");
	ck_assert_str_eq(record_type_name(CAUSAL_REC_RPC_OBJECT, true), "rpc_object");
	record_rpc_flags(buf, sizeof(buf), CAUSAL_RPC_ONE_WAY | CAUSAL_RPC_BATCHED | 64, '|');
	ck_assert_str_eq(buf, "one_way|batched|0x40");
	record_rpc_flags(buf, sizeof(buf), 0, '|');
	ck_assert_str_eq(buf, "");
}
END_TEST

/*
 * A server P forks inside two skeletons and returns from each without a
 * reply ('handed'); its child Q sends the first call's reply ('child'),
 * and X, a process P did not make, one with the second call's chain and
 * function.  Q's reply ends the first call (reply_proc_id Q, its times
 * and reply, P's CPU at its return); X's stays a row alone; the second
 * call keeps P's end, reply 'none'.
 */
START_TEST(test_fork_child_reply)
{
	static const uint8_t uuid_p[16] = { 0xdd, 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	static const uint8_t uuid_q[16] = { 0xde, 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	static const uint8_t uuid_x[16] = { 0xdf, 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	uint8_t c1[CAUSAL_CHAIN_ID_LEN], c2[CAUSAL_CHAIN_ID_LEN];
	struct fixture_log fl;
	struct fixture_rpc p;
	struct merge_stats st;
	struct merge_opts o;
	sqlite3 *db;

	make_chain(c1, uuid_p, 1);
	make_chain(c2, uuid_p, 2);
	mkdir(tmp_path("forks"), 0777);
	open_log(&fl, "forks/p.clog", uuid_p, 40);
	for (int i = 0; i < 2; i++) {
		p = at(1, 200 + 100 * i, i ? c2 : c1, 0, 1 + i);
		fixture_log_skel_start(&fl, &p, PROG, 1, 1,
				       CAUSAL_TRANSPORT_TCP, NULL, 0, 1, 7 + i,
				       8, CAUSAL_TAG_ABSENT);
		p = at(1, 250 + 100 * i, i ? c2 : c1, 1, 1 + i);
		fl.skel_fork = CAUSAL_SKEL_FORK_HANDED;
		fixture_log_skel_end(&fl, &p, CAUSAL_REPLY_NONE, 0);
		fl.skel_fork = 0;
	}
	ck_assert_int_eq(fixture_log_close(&fl), 0);
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(fixture_log_open(&fl,
						  tmp_path(i ? "forks/x.clog"
							     : "forks/q.clog"),
						  CAUSAL_FORMAT_VERSION),
				 0);
		fixture_log_header(&fl, 260, i ? uuid_x : uuid_q, "host",
				   41 + i, 40, "/bin/prog", 1, argv0,
				   1700000000000000000ull, i ? NULL : uuid_p,
				   64, 100);
		fixture_log_thread_start(&fl, 1, 261, 0, 41 + i,
					 CAUSAL_MARKER_USER, 0, NULL, 0, 0);
		p = at(1, 270 + 100 * i, i ? c2 : c1, 1, 1 + i);
		fl.skel_fork = CAUSAL_SKEL_FORK_CHILD;
		fixture_log_skel_end(&fl, &p, CAUSAL_REPLY_SUCCESS, 500);
		ck_assert_int_eq(fixture_log_close(&fl), 0);
	}
	o = (struct merge_opts){ .dir = tmp_path("forks"),
				 .output = tmp_path("forks.db") };
	ck_assert_int_eq(merge_run(&o, &st), 0);
	db = q_open(tmp_path("forks.db"));
	ck_assert_str_eq(
		q_list(db,
		       "SELECT call_id || ' ' || ifnull(prog, '-') || ' ' ||"
		       " server_proc_id || ' ' || ifnull(reply_proc_id, '-')"
		       " || ' ' || reply || ' ' || ifnull(skel_start_event,"
		       " '-') || '-' ||"
		       " skel_end_event || ' ' || ifnull(skel_start_ns, '-')"
		       " || '-' || skel_end_ns || ' ' || skel_end_exit_ns ||"
		       " ' ' || ifnull(skel_start_cpu_ns, '-') || '-' ||"
		       " skel_end_cpu_ns || ' ' || server_results_bytes ||"
		       " ' ' || ifnull(missing, '') FROM rpc_calls ORDER BY"
		       " call_id"),
		"1 536871065 1 2 success 0-1 200-270 271 2000-2500 500 client,"
		"2 536871065 1 - none 0-1 300-350 351 3000-3500 0 client,"
		"3 - 3 - success --1 --370 371 --3700 500 client");
	sqlite3_close(db);
}
END_TEST

Suite *merge_rpc_suite(void)
{
	Suite *s = suite_create("merge_rpc");
	TCase *tc = tcase_create("merge_rpc");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_rpc_calls_joined);
	tcase_add_test(tc, test_rpc_probes_sites_objects);
	tcase_add_test(tc, test_rpc_without_raw);
	tcase_add_loop_test(tc, test_pairs_merge_the_same, 3,
			    CAUSAL_FORMAT_VERSION + 1);
	tcase_add_test(tc, test_fork_child_reply);
	suite_add_tcase(s, tc);
	tc = tcase_create("rpc_names");
	tcase_add_test(tc, test_rpc_names);
	suite_add_tcase(s, tc);
	return s;
}
