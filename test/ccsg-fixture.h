/*
 * ccsg-fixture.h - small merged trace databases for the ccsg suites, made
 * with tracedump's own schema (schema_create), so they have exactly the
 * merged schema.  CPU and time values are in microseconds here.
 */
#ifndef CCSG_FIXTURE_H
#define CCSG_FIXTURE_H

#include <check.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "schema.h"

#define US 1000LL
#define NUL (-1LL)	/* a NULL column */

static sqlite3 *fx_db;
static char fx_path[64];

static void fx_exec(const char *sql)
{
	char *err = NULL;

	ck_assert_msg(sqlite3_exec(fx_db, sql, NULL, NULL, &err) == SQLITE_OK, "%s: %s", sql, err);
}

static void fx_open(void)
{
	int fd;

	snprintf(fx_path, sizeof(fx_path), "/tmp/ccsg-test-XXXXXX");
	fd = mkstemp(fx_path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	unlink(fx_path);
	ck_assert_int_eq(sqlite3_open(fx_path, &fx_db), SQLITE_OK);
	ck_assert_int_eq(schema_create(fx_db), 0);
	ck_assert_int_eq(schema_create_indexes(fx_db), 0);
	fx_exec("BEGIN");
}

static const char *fx_close(void)
{
	fx_exec("COMMIT");
	sqlite3_close(fx_db);
	return fx_path;
}

static void fx_host(int id, const char *name)
{
	char sql[256];

	snprintf(sql, sizeof(sql), "INSERT INTO hosts VALUES(%d, '%s')", id, name);
	fx_exec(sql);
}

static void fx_proc(int id, int host)
{
	char sql[512];

	snprintf(sql, sizeof(sql),
		 "INSERT INTO processes(proc_id, uuid, host_id, pid, exe, records, dropped, "
		 "complete, file_id) VALUES(%d, '%032d', %d, %d, '/bin/p%d', 0, 0, 1, 1)",
		 id, id, host, 1000 + id, id);
	fx_exec(sql);
}

/* cpu in us, -1 for NULL; ctx_function -1 for NULL */
static void fx_thread(int proc, int tid, int parent, long long cpu, long long ctx_function)
{
	char sql[512], c[32] = "NULL", f[32] = "NULL";

	if (cpu >= 0)
		snprintf(c, sizeof(c), "%lld", cpu * US);
	if (ctx_function >= 0)
		snprintf(f, sizeof(f), "%lld", ctx_function);
	snprintf(sql, sizeof(sql),
		 "INSERT INTO threads(proc_id, tid, parent_tid, marker, cpu_ns, ctx_function) "
		 "VALUES(%d, %d, %d, 'user', %s, %s)", proc, tid, parent, c, f);
	fx_exec(sql);
}

static void fx_val(char *buf, size_t len, long long v, long long scale)
{
	if (v == NUL)
		snprintf(buf, len, "NULL");
	else
		snprintf(buf, len, "%lld", v * scale);
}

/*
 * One rpc_calls row.  ev[4] and cpu[4] (us) in probe order stub start,
 * skeleton start, skeleton end, stub end; NUL for absent.  The client side
 * is (cproc, ctid), the server side (sproc, stid, sfid); 0 for none.
 */
static void fx_call(const char *chain, unsigned prog, unsigned proc, const char *symbol,
		    int cproc, int ctid, int sproc, int stid, int sfid,
		    const long long ev[4], const long long cpu[4])
{
	char sql[2048], e[4][32], c[4][32], t[4][32];
	const char *missing = cproc && sproc ? "NULL" : cproc ? "'server'" : "'client'";

	for (int i = 0; i < 4; i++) {
		fx_val(e[i], sizeof(e[i]), ev[i], 1);
		fx_val(c[i], sizeof(c[i]), cpu[i], US);
		/* wall times: 10 us per event number, so latency is checkable */
		fx_val(t[i], sizeof(t[i]), ev[i], 10 * US);
	}
	snprintf(sql, sizeof(sql),
		 "INSERT INTO rpc_calls(chain, prog, vers, proc, client_proc_id, client_tid, "
		 "site_symbol, stub_start_event, stub_start_ns, stub_start_cpu_ns, "
		 "stub_end_event, stub_end_exit_ns, stub_end_cpu_ns, server_proc_id, server_tid, "
		 "server_function_id, object_id, skel_start_event, skel_start_exit_ns, "
		 "skel_start_cpu_ns, skel_end_event, skel_end_ns, skel_end_cpu_ns, missing) "
		 "VALUES('%s', %u, 1, %u, %s%d%s, %s%d%s, '%s', %s, %s, %s, %s, %s, %s, "
		 "%s%d%s, %s%d%s, %s%d%s, 1, %s, %s, %s, %s, %s, %s, %s)",
		 chain, prog, proc, cproc ? "" : "NULLIF(", cproc, cproc ? "" : ",0)",
		 cproc ? "" : "NULLIF(", ctid, cproc ? "" : ",0)", symbol ? symbol : "",
		 e[0], t[0], c[0], e[3], t[3], c[3],
		 sproc ? "" : "NULLIF(", sproc, sproc ? "" : ",0)",
		 sproc ? "" : "NULLIF(", stid, sproc ? "" : ",0)",
		 sproc ? "" : "NULLIF(", sfid, sproc ? "" : ",0)",
		 e[1], t[1], c[1], e[2], t[2], c[2], missing);
	fx_exec(sql);
}

/* Set columns of the last rpc_calls row: fx_set("status = 5, reply = NULL"). */
static __attribute__((unused)) void fx_set(const char *assignments)
{
	char sql[1024];

	snprintf(sql, sizeof(sql), "UPDATE rpc_calls SET %s WHERE call_id = "
		 "(SELECT max(call_id) FROM rpc_calls)", assignments);
	fx_exec(sql);
}

#endif
