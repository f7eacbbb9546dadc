/*
 * schema.c - tables and indexes of the merged trace database.  Keep in
 * step with README.md ("The database"): the end-to-end tests and ccsg query these names.
 */
#include <stdio.h>

#include "causal/log-format.h"
#include "schema.h"
#include "usage.h"

/* one table a paragraph */
/* clang-format off */
static const char tables_sql[] =
	"CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);\n"
	"CREATE TABLE files(file_id INTEGER PRIMARY KEY, name TEXT NOT NULL,"
	" bytes INTEGER NOT NULL, frames INTEGER NOT NULL,"
	" records INTEGER NOT NULL, status TEXT NOT NULL, error TEXT);\n"
	"CREATE TABLE hosts(host_id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);\n"
	"CREATE TABLE processes(proc_id INTEGER PRIMARY KEY,"
	" uuid TEXT NOT NULL UNIQUE, host_id INTEGER NOT NULL REFERENCES hosts,"
	" pid INTEGER, ppid INTEGER, exe TEXT, argv TEXT,"
	" start_realtime_ns INTEGER, start_mono_ns INTEGER, parent_uuid TEXT,"
	" buffer_kb INTEGER, flush_ms INTEGER, end_mono_ns INTEGER,"
	" end_realtime_ns INTEGER, end_reason TEXT, end_detail INTEGER,"
	" records INTEGER NOT NULL, dropped INTEGER NOT NULL,"
	" complete INTEGER NOT NULL, file_id INTEGER NOT NULL REFERENCES files,"
	" cpu_clock TEXT, peak_heap_bytes INTEGER);\n"
	"CREATE TABLE threads(proc_id INTEGER NOT NULL REFERENCES processes,"
	" tid INTEGER NOT NULL, parent_tid INTEGER, os_tid INTEGER, marker TEXT,"
	" start_mono_ns INTEGER, start_cpu_ns INTEGER, spawn_mono_ns INTEGER,"
	" end_mono_ns INTEGER, end_cpu_ns INTEGER, end_how TEXT, cpu_ns INTEGER,"
	" ctx_chain TEXT, ctx_event INTEGER, ctx_function INTEGER,"
	" dropped INTEGER NOT NULL DEFAULT 0,"
	" alloc_bytes INTEGER, freed_bytes INTEGER, allocs INTEGER,"
	" frees INTEGER, peak_heap_bytes INTEGER, PRIMARY KEY(proc_id, tid))"
	" WITHOUT ROWID;\n"
	"CREATE TABLE records(proc_id INTEGER NOT NULL, seq INTEGER NOT NULL,"
	" type INTEGER NOT NULL, tid INTEGER NOT NULL, mono_ns INTEGER NOT NULL,"
	" data BLOB NOT NULL, PRIMARY KEY(proc_id, seq)) WITHOUT ROWID;\n"
	"CREATE TABLE rpc_probes(proc_id INTEGER NOT NULL, seq INTEGER NOT NULL,"
	" kind TEXT NOT NULL, tid INTEGER NOT NULL, chain TEXT NOT NULL,"
	" event_no INTEGER NOT NULL, function_id INTEGER NOT NULL,"
	" mono_ns INTEGER NOT NULL, mono_exit_ns INTEGER NOT NULL,"
	" cpu_ns INTEGER NOT NULL, PRIMARY KEY(proc_id, seq)) WITHOUT ROWID;\n"
	"CREATE TABLE rpc_sites(proc_id INTEGER NOT NULL, site_id INTEGER NOT NULL,"
	" symbol TEXT, module TEXT, PRIMARY KEY(proc_id, site_id));\n"
	"CREATE TABLE rpc_objects(proc_id INTEGER NOT NULL,"
	" object_id INTEGER NOT NULL, prog INTEGER, vers INTEGER,"
	" transport TEXT, address TEXT, netid TEXT,"
	" PRIMARY KEY(proc_id, object_id));\n"
	"CREATE TABLE rpc_calls(call_id INTEGER PRIMARY KEY, chain TEXT NOT NULL,"
	" prog INTEGER, vers INTEGER, proc INTEGER, transport TEXT, xid INTEGER,"
	" flags INTEGER, one_way INTEGER,"
	" client_proc_id INTEGER, client_tid INTEGER, client_function_id INTEGER,"
	" site_symbol TEXT, peer TEXT,"
	" stub_start_event INTEGER, stub_start_ns INTEGER,"
	" stub_start_exit_ns INTEGER, stub_start_cpu_ns INTEGER,"
	" stub_end_event INTEGER, stub_end_ns INTEGER,"
	" stub_end_exit_ns INTEGER, stub_end_cpu_ns INTEGER,"
	" status INTEGER, status_name TEXT, args_bytes INTEGER,"
	" results_bytes INTEGER, reply_tag TEXT,"
	" server_proc_id INTEGER, server_tid INTEGER, server_function_id INTEGER,"
	" object_id INTEGER, caller_address TEXT,"
	" skel_start_event INTEGER, skel_start_ns INTEGER,"
	" skel_start_exit_ns INTEGER, skel_start_cpu_ns INTEGER,"
	" skel_end_event INTEGER, skel_end_ns INTEGER,"
	" skel_end_exit_ns INTEGER, skel_end_cpu_ns INTEGER,"
	" server_args_bytes INTEGER, server_results_bytes INTEGER,"
	" reply TEXT, tag TEXT, missing TEXT,"
	" stub_alloc_bytes INTEGER, stub_freed_bytes INTEGER,"
	" skel_alloc_bytes INTEGER, skel_freed_bytes INTEGER);\n";
/* clang-format on */

static const char indexes_sql[] =
	"CREATE INDEX threads_parent ON threads(proc_id, parent_tid);\n"
	"CREATE INDEX processes_host ON processes(host_id);\n"
	"CREATE INDEX processes_parent ON processes(parent_uuid);\n"
	"CREATE INDEX rpc_probes_chain ON rpc_probes(chain, event_no);\n"
	"CREATE INDEX rpc_calls_chain ON rpc_calls(chain, stub_start_event);\n"
	"CREATE INDEX rpc_calls_client ON rpc_calls(client_proc_id, client_tid);\n"
	"CREATE INDEX rpc_calls_server ON rpc_calls(server_proc_id, server_tid);\n"
	"CREATE INDEX rpc_calls_proc ON rpc_calls(prog, vers, proc);\n";

static int exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		fail("database: %s", msg ? msg : sqlite3_errmsg(db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

int schema_create(sqlite3 *db)
{
	char meta[256];

	if (exec(db, tables_sql))
		return -1;
	snprintf(meta, sizeof(meta),
		 "INSERT INTO meta VALUES('format_version', '%d');"
		 "INSERT INTO meta VALUES('schema_version', '%d');",
		 CAUSAL_FORMAT_VERSION, CAUSAL_SCHEMA_VERSION);
	return exec(db, meta);
}

int schema_create_indexes(sqlite3 *db)
{
	return exec(db, indexes_sql);
}
