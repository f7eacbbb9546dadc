/*
 * ccsg-fixture.c - the helpers ccsg-fixture.h declares, whose comments there
 * are their contract: compiled once and linked into the runner.
 */
#include "ccsg-fixture.h"

sqlite3 *fx_db;
char fx_path[PATH_MAX];

void fx_exec(const char *sql)
{
	char *err = NULL;

	ck_assert_msg(sqlite3_exec(fx_db, sql, NULL, NULL, &err) == SQLITE_OK,
		      "%s: %s", sql, err);
}

void fx_open(void)
{
	int fd;

	test_tmp_name(fx_path, sizeof(fx_path), "ccsg-test-XXXXXX");
	fd = mkstemp(fx_path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	unlink(fx_path);
	ck_assert_int_eq(sqlite3_open(fx_path, &fx_db), SQLITE_OK);
	ck_assert_int_eq(schema_create(fx_db, true), 0);
	ck_assert_int_eq(schema_create_indexes(fx_db), 0);
	fx_exec("BEGIN");
}

const char *fx_close(void)
{
	fx_exec("COMMIT");
	sqlite3_close(fx_db);
	return fx_path;
}

void fx_host(int id, const char *name)
{
	char sql[256];

	snprintf(sql, sizeof(sql), "INSERT INTO hosts VALUES(%d, '%s')", id,
		 name);
	fx_exec(sql);
}

void fx_proc(int id, int host)
{
	char sql[512];

	snprintf(sql, sizeof(sql),
		 "INSERT INTO processes(proc_id, uuid, host_id, pid, exe, "
		 "records, dropped, "
		 "complete, file_id) VALUES(%d, '%032d', %d, %d, '/bin/p%d', "
		 "0, 0, 1, 1)",
		 id, id, host, 1000 + id, id);
	fx_exec(sql);
}

void fx_thread(int proc, int tid, int parent, long long cpu,
	       long long ctx_function)
{
	char sql[512], c[32] = "NULL", f[32] = "NULL";

	if (cpu >= 0)
		snprintf(c, sizeof(c), "%lld", cpu * US);
	if (ctx_function >= 0)
		snprintf(f, sizeof(f), "%lld", ctx_function);
	snprintf(sql, sizeof(sql),
		 "INSERT INTO threads(proc_id, tid, parent_tid, marker, "
		 "cpu_ns, ctx_function) "
		 "VALUES(%d, %d, %d, 'user', %s, %s)",
		 proc, tid, parent, c, f);
	fx_exec(sql);
}

static void fx_val(char *buf, size_t len, long long v, long long scale)
{
	if (v == NUL)
		snprintf(buf, len, "NULL");
	else
		snprintf(buf, len, "%lld", v * scale);
}

void fx_call(const char *chain, unsigned prog, unsigned proc,
	     const char *symbol, int cproc, int ctid, int sproc, int stid,
	     int sfid, const long long ev[4], const long long cpu[4])
{
	char sql[2048], e[4][32], c[4][32], t[4][32];
	const char *missing = cproc && sproc ? "NULL"
			      : cproc	     ? "'server'"
					     : "'client'";

	for (int i = 0; i < 4; i++) {
		fx_val(e[i], sizeof(e[i]), ev[i], 1);
		fx_val(c[i], sizeof(c[i]), cpu[i], US);
		/* wall times: 10 us per event number, so latency is checkable
		 */
		fx_val(t[i], sizeof(t[i]), ev[i], 10 * US);
	}
	snprintf(sql, sizeof(sql),
		 "INSERT INTO rpc_calls(chain, prog, vers, proc, "
		 "client_proc_id, client_tid, site_symbol, stub_start_event, "
		 "stub_start_ns, stub_start_cpu_ns, stub_end_event, "
		 "stub_end_exit_ns, stub_end_cpu_ns, server_proc_id, "
		 "server_tid, server_function_id, object_id, skel_start_event, "
		 "skel_start_exit_ns, skel_start_cpu_ns, skel_end_event, "
		 "skel_end_ns, skel_end_cpu_ns, missing) "
		 "VALUES(x'%s', %u, 1, %u, %s%d%s, %s%d%s, '%s', %s, %s, %s, "
		 "%s, %s, %s, %s%d%s, %s%d%s, %s%d%s, 1, %s, %s, %s, %s, %s, "
		 "%s, %s)",
		 chain, prog, proc, cproc ? "" : "NULLIF(", cproc,
		 cproc ? "" : ",0)", cproc ? "" : "NULLIF(", ctid,
		 cproc ? "" : ",0)", symbol ? symbol : "", e[0], t[0], c[0],
		 e[3], t[3], c[3], sproc ? "" : "NULLIF(", sproc,
		 sproc ? "" : ",0)", sproc ? "" : "NULLIF(", stid,
		 sproc ? "" : ",0)", sproc ? "" : "NULLIF(", sfid,
		 sproc ? "" : ",0)", e[1], t[1], c[1], e[2], t[2], c[2],
		 missing);
	fx_exec(sql);
}

void fx_two_procs(void)
{
	fx_host(1, "A");
	fx_host(2, "B");
	fx_proc(1, 1);
	fx_proc(2, 2);
	fx_thread(1, 1, 0, 100, -1);
	fx_thread(2, 1, 0, 100, -1);
}

void fx_set(const char *assignments)
{
	char sql[1024];

	snprintf(sql, sizeof(sql),
		 "UPDATE rpc_calls SET %s WHERE call_id = "
		 "(SELECT max(call_id) FROM rpc_calls)",
		 assignments);
	fx_exec(sql);
}

const char *fx_outcomes(void)
{
	static const long long n[4] = { NUL, NUL, NUL, NUL };
	static const long long whole[4] = { 0, 1, 2, 3 },
			       client[4] = { 0, NUL, NUL, 1 };
	static const long long server[4] = { NUL, 0, 1, NUL };
	char ch[41];
	int k = 0;

#define FX_CHAIN() (snprintf(ch, sizeof(ch), "%038d%02x", 0, 0xe0 + k++), ch)
	fx_open();
	fx_two_procs();
	fx_call(FX_CHAIN(), 7, FX_OK, "ok_1", 1, 1, 2, 1, FX_OK, whole, n);
	fx_set("status = 0, status_name = 'RPC_SUCCESS', reply = 'success', "
	       "tag = 'ok', "
	       "reply_tag = 'ok', args_bytes = 8, results_bytes = 4, "
	       "server_args_bytes = 8, "
	       "server_results_bytes = 4");
	{
		/* no reply tag: the stub end takes stub start + 1 */
		long long ev[4] = { 0, 1, 2, 1 };

		fx_call(FX_CHAIN(), 7, FX_TIMEDOUT, "timedout_1", 1, 1, 2, 1,
			FX_TIMEDOUT, ev, n);
	}
	fx_set("status = 5, status_name = 'RPC_TIMEDOUT', reply = 'success', "
	       "tag = 'ok', "
	       "reply_tag = 'absent', args_bytes = 8, results_bytes = 0, "
	       "server_args_bytes = 8, "
	       "server_results_bytes = 4, stub_start_ns = 1000000, "
	       "stub_end_exit_ns = 2000000, "
	       "skel_start_exit_ns = 5000000, skel_end_ns = 7980000");
	fx_call(FX_CHAIN(), 7, FX_NOPROC, "noproc_1", 1, 1, 2, 1, FX_NOPROC,
		whole, n);
	fx_set("status = 10, status_name = 'RPC_PROCUNAVAIL', reply = "
	       "'proc_unavail', "
	       "tag = 'ok', reply_tag = 'absent', args_bytes = 8, "
	       "results_bytes = 0, "
	       "server_args_bytes = 8, server_results_bytes = 0, stub_start_ns "
	       "= 1000000, "
	       "stub_end_exit_ns = 2000000, skel_start_exit_ns = 5000000, "
	       "skel_end_ns = 4990000");
	fx_call(FX_CHAIN(), 7, FX_NOSERVER, "noserver_1", 1, 1, 0, 0, 0, client,
		n);
	fx_set("status = 5, status_name = 'RPC_TIMEDOUT', reply_tag = "
	       "'absent', args_bytes = 8, "
	       "results_bytes = 0");
	fx_call(FX_CHAIN(), 7, FX_ONEWAY, "oneway_1", 1, 1, 0, 0, 0, client, n);
	fx_set("status = 5, status_name = 'RPC_TIMEDOUT', one_way = 1, "
	       "reply_tag = 'absent', "
	       "args_bytes = 8");
	fx_call(FX_CHAIN(), 7, FX_GARBAGE, NULL, 0, 0, 2, 1, FX_GARBAGE, server,
		n);
	fx_set("reply = 'garbage_args', tag = 'malformed', server_args_bytes = "
	       "3, "
	       "server_results_bytes = 0");
	fx_call(FX_CHAIN(), 7, FX_STALE, NULL, 0, 0, 2, 1, FX_STALE, server, n);
	fx_set("reply = 'success', tag = 'stale', server_args_bytes = 8, "
	       "server_results_bytes = 4");
	{
		long long p[4] = { 0, 1, 4, 5 }, c[4] = { 2, NUL, NUL, 3 };

		FX_CHAIN();
		fx_call(ch, 7, FX_PARENT, "parent_1", 1, 1, 2, 1, FX_PARENT, p,
			n);
		fx_set("status = 0, status_name = 'RPC_SUCCESS', reply = "
		       "'success', tag = 'ok', "
		       "stub_start_ns = 0, stub_end_exit_ns = 1000000, "
		       "skel_start_exit_ns = 200000, skel_end_ns = 700000");
		fx_call(ch, 7, FX_CHILD, "child_1", 2, 1, 0, 0, 0, c, n);
		fx_set("status = 0, status_name = 'RPC_SUCCESS', "
		       "stub_start_ns = 100000, stub_end_exit_ns = 900000");
	}
	{
		long long ev[4] = { 0, 1, NUL, 3 };

		fx_call(FX_CHAIN(), 7, FX_NOSKELEND, "noskelend_1", 1, 1, 2, 1,
			FX_NOSKELEND, ev, n);
		fx_set("status = 0, status_name = 'RPC_SUCCESS', tag = 'ok'");
	}
	{
		long long s[4] = { NUL, 1, 2, NUL },
			  c[4] = { NUL, NUL, NUL, 3 };

		FX_CHAIN();
		fx_call(ch, 7, FX_CLIENTLOST, NULL, 0, 0, 2, 1, FX_CLIENTLOST,
			s, n);
		fx_set("reply = 'success', tag = 'ok'");
		fx_call(ch, 7, 0, NULL, 1, 1, 0, 0, 0, c, n);
		fx_set("prog = NULL, vers = NULL, proc = NULL, site_symbol = "
		       "NULL, status = 0, "
		       "status_name = 'RPC_SUCCESS', reply_tag = 'ok', "
		       "args_bytes = 8, "
		       "results_bytes = 4");
	}
	{
		long long c[4] = { 0, NUL, NUL, 3 },
			  s[4] = { NUL, NUL, 2, NUL };

		FX_CHAIN();
		fx_call(ch, 7, FX_SERVERLOST, "serverlost_1", 1, 1, 0, 0, 0, c,
			n);
		fx_set("status = 0, status_name = 'RPC_SUCCESS'");
		fx_call(ch, 7, 0, NULL, 0, 0, 2, 1, 99, s, n);
		fx_set("prog = NULL, vers = NULL, proc = NULL, reply = "
		       "'system_err', "
		       "server_results_bytes = 0");
	}
	fx_call(FX_CHAIN(), 7, FX_INCOMPLETE, NULL, 0, 0, 2, 1, FX_INCOMPLETE,
		server, n);
	fx_set("reply = 'success', tag = 'incomplete'");
#undef FX_CHAIN
	return fx_close();
}

const char *fx_figure1(void)
{
	fx_open();
	fx_host(1, "A");
	fx_host(2, "B");
	fx_host(3, "C");
	fx_host(4, "D");
	fx_proc(1, 1);
	fx_proc(2, 1);
	fx_proc(3, 2);
	fx_proc(4, 3);
	fx_proc(5, 4);
	{
		long long ev[4] = { 0, 1, 22, 23 },
			  c[4] = { 0, 1000, 1000 + 3700, 100 };

		fx_call(FX_FIG1_CHAIN, 0x20000001, 1, "foo_1", 1, 1, 2, 1, 11,
			ev, c);
	}
	{
		long long ev[4] = { 2, 3, 4, 5 },
			  c[4] = { 1000, 500, 500 + 2700, 1100 };

		fx_call(FX_FIG1_CHAIN, 0x20000001, 2, "times_1", 2, 1, 3, 1, 21,
			ev, c);
	}
	{
		long long ev[4] = { 6, 7, 8, 9 },
			  c[4] = { 1100, 0, 3000, 1200 };

		fx_call(FX_FIG1_CHAIN, 0x20000001, 3, "what_to_say_1", 2, 1, 4,
			1, 31, ev, c);
	}
	{
		static const long long self[3] = { 2600, 2500, 2700 };
		long long cpu = 1200;

		for (int i = 0; i < 3; i++) {
			long long ev[4] = { 10 + 4 * i, 11 + 4 * i, 12 + 4 * i,
					    13 + 4 * i };
			long long c[4] = { cpu, 10000 * i, 10000 * i + self[i],
					   cpu + 100 };

			fx_call(FX_FIG1_CHAIN, 0x20000001, 4, "say_it_1", 2, 1,
				5, 1, 51 + i, ev, c);
			cpu += 100;
		}
	}
	fx_thread(4, 2, 1, 2000, 31);
	fx_thread(4, 3, 1, 2000, 31);
	return fx_close();
}
