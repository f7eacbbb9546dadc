/*
 * schema.c - tables and indexes of the merged trace database.  Keep in
 * step with SCHEMA.md: the end-to-end tests and ccsg query these names.
 */
#include <stdio.h>

#include "causal/log-format.h"
#include "schema.h"
#include "usage.h"

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
	" complete INTEGER NOT NULL, file_id INTEGER NOT NULL REFERENCES files);\n"
	"CREATE TABLE threads(proc_id INTEGER NOT NULL REFERENCES processes,"
	" tid INTEGER NOT NULL, parent_tid INTEGER, os_tid INTEGER, marker TEXT,"
	" start_mono_ns INTEGER, start_cpu_ns INTEGER, spawn_mono_ns INTEGER,"
	" end_mono_ns INTEGER, end_cpu_ns INTEGER, end_how TEXT, cpu_ns INTEGER,"
	" ctx_chain TEXT, ctx_event INTEGER, ctx_function INTEGER,"
	" dropped INTEGER NOT NULL DEFAULT 0, PRIMARY KEY(proc_id, tid))"
	" WITHOUT ROWID;\n"
	"CREATE TABLE records(proc_id INTEGER NOT NULL, seq INTEGER NOT NULL,"
	" type INTEGER NOT NULL, tid INTEGER NOT NULL, mono_ns INTEGER NOT NULL,"
	" data BLOB NOT NULL, PRIMARY KEY(proc_id, seq)) WITHOUT ROWID;\n";

static const char indexes_sql[] =
	"CREATE INDEX records_type ON records(type, proc_id);\n"
	"CREATE INDEX records_thread ON records(proc_id, tid, mono_ns);\n"
	"CREATE INDEX threads_parent ON threads(proc_id, parent_tid);\n"
	"CREATE INDEX processes_host ON processes(host_id);\n"
	"CREATE INDEX processes_parent ON processes(parent_uuid);\n";

static int exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		error("database: %s", msg ? msg : sqlite3_errmsg(db));
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
