/*
 * follow-copy.c - a staging database of one segment into the followed
 * database (follow-copy.h).  The staging database is attached as "s";
 * its rows are read with the alias n, the followed database's with o.
 * Every column list is made from db-schema.def, so a column added there
 * is copied without a change here.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "causal/db-schema.h"
#include "follow-copy.h"
#include "side-ends.h"

/* What the SQL text below names (db-schema.h). */
DB_NAMED_TABLE(rpc_calls);
DB_NAMED(RPC_CALLS, missing);
DB_NAMED(RPC_CALLS, tag);
DB_NAMED(RPC_CALLS, chain);
DB_NAMED(RPC_CALLS, xid);
DB_NAMED(RPC_CALLS, client_proc_id);
DB_NAMED(RPC_CALLS, client_function_id);
DB_NAMED(RPC_CALLS, server_proc_id);
DB_NAMED(RPC_CALLS, server_function_id);
DB_NAMED(RPC_CALLS, reply_proc_id);
DB_NAMED(RPC_CALLS, stub_start_event);
DB_NAMED(RPC_CALLS, stub_end_event);
DB_NAMED(RPC_CALLS, skel_start_event);
DB_NAMED(RPC_CALLS, skel_end_event);
DB_NAMED_TABLE(processes);
DB_NAMED(PROCESSES, uuid);
DB_NAMED(PROCESSES, records);
DB_NAMED(PROCESSES, end_reason);
DB_NAMED(PROCESSES, dropped);
DB_NAMED(PROCESSES, complete);
DB_NAMED_TABLE(threads);
DB_NAMED(THREADS, dropped);
DB_NAMED_TABLE(hosts);
DB_NAMED(HOSTS, name);
DB_NAMED_TABLE(files);
DB_NAMED(FILES, status);
DB_NAMED_TABLE(loaded_segments);
DB_NAMED(LOADED_SEGMENTS, uuid);
DB_NAMED(LOADED_SEGMENTS, status);

/* Column col's value in the copy: an expression, or NULL to leave it out. */
struct col_expr {
	int col;
	const char *expr;
};

static const char *expr_of(const struct col_expr *ov, size_t n, int col,
			   const char *name, char *buf, size_t size)
{
	for (size_t i = 0; i < n; i++)
		if (ov[i].col == col)
			return ov[i].expr;
	snprintf(buf, size, "n.%s", name);
	return buf;
}

/* "VERB INTO main.T(cols) SELECT exprs FROM s.T AS n tail"; malloc'd. */
static char *copy_sql(enum db_table t, const char *verb,
		      const struct col_expr *ov, size_t n_ov, const char *tail)
{
	const struct db_table_def *d = &db_tables[t];
	char *sql = NULL, buf[128];
	size_t size = 0;
	FILE *f = open_memstream(&sql, &size);
	bool first = true;

	if (!f)
		return NULL;
	fprintf(f, "%s INTO main.%s(", verb, d->name);
	for (int c = 0; c < d->ncols; c++)
		if (expr_of(ov, n_ov, c, d->cols[c].name, buf, sizeof(buf))) {
			fprintf(f, "%s%s", first ? "" : ", ", d->cols[c].name);
			first = false;
		}
	fputs(") SELECT ", f);
	first = true;
	for (int c = 0; c < d->ncols; c++) {
		const char *e =
			expr_of(ov, n_ov, c, d->cols[c].name, buf, sizeof(buf));

		if (e) {
			fprintf(f, "%s%s", first ? "" : ", ", e);
			first = false;
		}
	}
	fprintf(f, " FROM s.%s AS n %s", d->name, tail);
	if (fclose(f)) {
		free(sql);
		return NULL;
	}
	return sql;
}

static int exec(sqlite3 *db, const char *sql)
{
	if (!sql)
		return -ENOMEM;
	return sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -EIO;
}

/* exec() of a malloc'd or sqlite3_mprintf'd statement, freed. */
static int exec_free(sqlite3 *db, char *sql, bool mprintf)
{
	int rc = exec(db, sql);

	if (mprintf)
		sqlite3_free(sql);
	else
		free(sql);
	return rc;
}

/* The first column of the first row of sql as an integer (0: none). */
static int query_int(sqlite3 *db, const char *sql, int64_t *v)
{
	sqlite3_stmt *st;
	int rc;

	*v = 0;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -EIO;
}

int follow_copy_indexes(sqlite3 *db)
{
	return exec(db, "CREATE INDEX IF NOT EXISTS follow_client_open ON "
			"rpc_calls(client_proc_id, client_function_id) "
			"WHERE stub_end_event IS NULL;"
			"CREATE INDEX IF NOT EXISTS follow_server_open ON "
			"rpc_calls(server_proc_id, server_function_id) "
			"WHERE skel_end_event IS NULL;"
			"CREATE INDEX IF NOT EXISTS follow_no_server ON "
			"rpc_calls(chain, stub_start_event) "
			"WHERE missing = 'server';"
			"CREATE INDEX IF NOT EXISTS follow_no_client ON "
			"rpc_calls(chain, skel_start_event) "
			"WHERE missing = 'client';"
			"CREATE INDEX IF NOT EXISTS follow_loaded_uuid ON "
			"loaded_segments(uuid);");
}

/* The segment's files row; out->file_id. */
static int copy_file(sqlite3 *db, const char *name, struct follow_copied *out)
{
	char *name_sql = sqlite3_mprintf("%Q", name);
	const struct col_expr ov[] = {
		{ DB_FILES_FILE_ID, NULL },
		{ DB_FILES_NAME, name_sql },
	};
	sqlite3_stmt *st;
	int rc;

	if (!name_sql)
		return -ENOMEM;
	rc = exec_free(db, copy_sql(DB_FILES, "INSERT", ov, 2, ""), false);
	sqlite3_free(name_sql);
	if (rc)
		return rc;
	out->file_id = sqlite3_last_insert_rowid(db);
	if (sqlite3_prepare_v2(db, "SELECT status FROM s.files", -1, &st,
			       NULL) != SQLITE_OK)
		return -EIO;
	if (sqlite3_step(st) == SQLITE_ROW)
		snprintf(out->status, sizeof(out->status), "%s",
			 (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return 0;
}

/* The host as the followed database numbers it. */
#define HOST_EXPR                                                              \
	"(SELECT h.host_id FROM main.hosts AS h WHERE h.name = "               \
	"(SELECT name FROM s.hosts AS sh WHERE sh.host_id = n.host_id))"

/*
 * The process's row: made, or updated in place (follow-copy.h).  *seq_off:
 * the records loaded of it before this segment.
 */
static int copy_process(sqlite3 *db, struct follow_copied *out,
			int64_t *seq_off)
{
	char file_id[32], *sql;
	int64_t old, records;
	int rc;

	snprintf(file_id, sizeof(file_id), "%" PRId64, out->file_id);
	sql = sqlite3_mprintf("SELECT proc_id FROM main.processes WHERE "
			      "uuid = %Q",
			      out->uuid);
	rc = sql ? query_int(db, sql, &old) : -ENOMEM;
	sqlite3_free(sql);
	if (rc || (rc = exec(db, "INSERT OR IGNORE INTO main.hosts(name) "
				 "SELECT name FROM s.hosts")))
		return rc;
	if (!old) {
		const struct col_expr ov[] = {
			{ DB_PROCESSES_PROC_ID, NULL },
			{ DB_PROCESSES_HOST_ID, HOST_EXPR },
			{ DB_PROCESSES_FILE_ID, file_id },
		};

		*seq_off = 0;
		rc = exec_free(db, copy_sql(DB_PROCESSES, "INSERT", ov, 3, ""),
			       false);
		out->proc_id = sqlite3_last_insert_rowid(db);
		return rc;
	}
	out->proc_id = old;
	sql = sqlite3_mprintf("SELECT records FROM main.processes WHERE "
			      "proc_id = %lld",
			      (long long)old);
	rc = sql ? query_int(db, sql, &records) : -ENOMEM;
	sqlite3_free(sql);
	if (rc)
		return rc;
	*seq_off = records;
	/*
	 * dropped: max(PROCESS_END's, the threads' sum) (db-schema.def); a
	 * segment without the end adds its threads' drops, the last one's
	 * end total is weighed against them all.  complete: the end seen
	 * and every segment 'ok'.
	 */
	sql = sqlite3_mprintf(
		"UPDATE main.processes AS o SET "
		"records = o.records + n.records, "
		"segments = coalesce(o.segments, 0) + coalesce(n.segments, 0), "
		"dropped = CASE WHEN n.end_reason IS NULL "
		"THEN o.dropped + n.dropped ELSE max(n.dropped, o.dropped + "
		"(SELECT total(dropped) FROM s.threads)) END, "
		"complete = n.complete AND NOT EXISTS (SELECT 1 FROM "
		"main.loaded_segments AS l WHERE l.uuid = o.uuid AND "
		"l.status <> 'ok'), "
		"end_mono_ns = coalesce(n.end_mono_ns, o.end_mono_ns), "
		"end_realtime_ns = coalesce(n.end_realtime_ns, "
		"o.end_realtime_ns), "
		"end_reason = coalesce(n.end_reason, o.end_reason), "
		"end_detail = coalesce(n.end_detail, o.end_detail), "
		"peak_heap_bytes = coalesce(n.peak_heap_bytes, "
		"o.peak_heap_bytes), "
		"last_mono_ns = max(coalesce(o.last_mono_ns, 0), "
		"coalesce(n.last_mono_ns, 0)), "
		"deleted_segments = n.deleted_segments, "
		"deleted_records = n.deleted_records, "
		"deleted_bytes = n.deleted_bytes, "
		"keep_held = coalesce(n.keep_held, o.keep_held), "
		"keep_written = coalesce(n.keep_written, o.keep_written), "
		"keep_overflow = coalesce(n.keep_overflow, o.keep_overflow), "
		"keep_chains = coalesce(n.keep_chains, o.keep_chains), "
		"sample_rate_q32 = n.sample_rate_q32 "
		"FROM s.processes AS n WHERE o.proc_id = %lld",
		(long long)old);
	return sql ? exec_free(db, sql, true) : -ENOMEM;
}

/* The threads: new ones inserted, known ones continued. */
static int copy_threads(sqlite3 *db, const char *pid)
{
	const struct col_expr ov[] = { { DB_THREADS_PROC_ID, pid } };
	/*
	 * A thread's start is in its first segment, its end in its last:
	 * the first value seen of the one, the last of the other.  The heap
	 * columns need both samples in one segment (NULL otherwise).
	 */
	static const char upsert[] =
		"WHERE true ON CONFLICT(proc_id, tid) DO UPDATE SET "
		"parent_tid = CASE WHEN coalesce(parent_tid, 0) = 0 "
		"THEN excluded.parent_tid ELSE parent_tid END, "
		"os_tid = coalesce(os_tid, excluded.os_tid), "
		"marker = coalesce(marker, excluded.marker), "
		"start_mono_ns = coalesce(start_mono_ns, "
		"excluded.start_mono_ns), "
		"start_cpu_ns = coalesce(start_cpu_ns, excluded.start_cpu_ns), "
		"spawn_mono_ns = coalesce(spawn_mono_ns, "
		"excluded.spawn_mono_ns), "
		"end_mono_ns = coalesce(excluded.end_mono_ns, end_mono_ns), "
		"end_cpu_ns = coalesce(excluded.end_cpu_ns, end_cpu_ns), "
		"end_how = coalesce(excluded.end_how, end_how), "
		"cpu_ns = coalesce(excluded.end_cpu_ns, end_cpu_ns) - "
		"start_cpu_ns, "
		"ctx_chain = coalesce(excluded.ctx_chain, ctx_chain), "
		"ctx_event = coalesce(excluded.ctx_event, ctx_event), "
		"ctx_function = coalesce(excluded.ctx_function, ctx_function), "
		"dropped = dropped + excluded.dropped, "
		"alloc_bytes = coalesce(excluded.alloc_bytes, alloc_bytes), "
		"freed_bytes = coalesce(excluded.freed_bytes, freed_bytes), "
		"allocs = coalesce(excluded.allocs, allocs), "
		"frees = coalesce(excluded.frees, frees), "
		"peak_heap_bytes = coalesce(excluded.peak_heap_bytes, "
		"peak_heap_bytes)";

	return exec_free(db, copy_sql(DB_THREADS, "INSERT", ov, 1, upsert),
			 false);
}

/* The tables of records keyed by process (and seq): rows appended. */
static int copy_keyed(sqlite3 *db, const char *pid, int64_t seq_off)
{
	char seq[64];

	snprintf(seq, sizeof(seq), "n.seq + %" PRId64, seq_off);
	for (int t = 0; t < DB_NTABLES; t++) {
		const struct db_table_def *d = &db_tables[t];
		struct col_expr ov[2] = { { -1, NULL }, { -1, NULL } };
		int rc;

		if (t == DB_META || t == DB_FILES || t == DB_HOSTS ||
		    t == DB_PROCESSES || t == DB_THREADS || t == DB_RECORDS ||
		    t == DB_RPC_CALLS || t == DB_LOADED_SEGMENTS)
			continue;
		for (int c = 0; c < d->ncols; c++)
			if (!strcmp(d->cols[c].name, "proc_id"))
				ov[0] = (struct col_expr){ c, pid };
			else if (!strcmp(d->cols[c].name, "seq"))
				ov[1] = (struct col_expr){ c, seq };
		/* a site, an object or a running total named again: the
		 * latest */
		rc = exec_free(db, copy_sql(t, "INSERT OR REPLACE", ov, 2, ""),
			       false);
		if (rc)
			return rc;
	}
	return 0;
}

/* The server side's columns (side-ends.h: its end's). */
#define SERVER_COLS                                                            \
	"server_proc_id, server_tid, server_function_id, object_id, "          \
	"caller_address, server_args_bytes, tag, skel_start_event, "           \
	"skel_start_ns, skel_start_exit_ns, skel_start_cpu_ns, " SKEL_END_COLS \
	", server_mon, skel_alloc_bytes, skel_freed_bytes"

/*
 * Fold rows into others: pairs (the query fill, which reads first, the
 * first new call_id, and pid from temp.follow_now) says which row keeps (cid)
 * and which goes (sid); the kept row takes the columns cols of the other (with
 * set after them, "" or ", col = expr" over the row n that goes), and the other
 * is deleted.  The look-ups go by call_id: the pairs are few, the table is not.
 */
static int fold(sqlite3 *db, const char *fill, const char *cols,
		const char *set, int64_t pid, int64_t first)
{
	char *sql = sqlite3_mprintf(
		"CREATE TEMP TABLE IF NOT EXISTS follow_now("
		"k INTEGER PRIMARY KEY, first INTEGER, pid INTEGER);"
		"INSERT OR REPLACE INTO temp.follow_now VALUES(0, %lld, %lld);"
		"CREATE TEMP TABLE IF NOT EXISTS follow_pairs("
		"cid INTEGER PRIMARY KEY, sid INTEGER UNIQUE);"
		"DELETE FROM temp.follow_pairs;"
		"INSERT OR IGNORE INTO temp.follow_pairs %s;"
		"UPDATE main.rpc_calls SET (%s) = (SELECT %s FROM "
		"temp.follow_pairs AS p JOIN main.rpc_calls AS n ON "
		"n.call_id = p.sid WHERE p.cid = rpc_calls.call_id)%s "
		"WHERE call_id IN (SELECT cid FROM temp.follow_pairs);"
		"DELETE FROM main.rpc_calls WHERE call_id IN "
		"(SELECT sid FROM temp.follow_pairs)",
		(long long)first, (long long)pid, fill, cols, cols, set);
	return sql ? exec_free(db, sql, true) : -ENOMEM;
}

/* The fills' constants: the first new call_id, the process loaded. */
#define FIRST "(SELECT first FROM temp.follow_now)"
#define PID "(SELECT pid FROM temp.follow_now)"

/*
 * A side cut by the segment boundary: the new end-only row (its start
 * event NULL) of process pid and the open row of the same function id.
 */
static const char cut_client[] =
	"SELECT o.call_id, n.call_id FROM main.rpc_calls AS n "
	"JOIN main.rpc_calls AS o ON o.client_proc_id = n.client_proc_id AND "
	"o.client_function_id = n.client_function_id AND "
	"o.stub_end_event IS NULL AND o.stub_start_event IS NOT NULL "
	"WHERE n.client_proc_id = " PID " AND n.call_id >= " FIRST " AND "
	"o.call_id < " FIRST " AND n.stub_start_event IS NULL AND "
	"n.stub_end_event IS NOT NULL ORDER BY n.call_id";
static const char cut_server[] =
	"SELECT o.call_id, n.call_id FROM main.rpc_calls AS n "
	"JOIN main.rpc_calls AS o ON o.server_proc_id = n.server_proc_id AND "
	"o.server_function_id = n.server_function_id AND "
	"o.skel_end_event IS NULL AND o.skel_start_event IS NOT NULL "
	"WHERE n.server_proc_id = " PID " AND n.call_id >= " FIRST " AND "
	"o.call_id < " FIRST " AND n.skel_start_event IS NULL AND "
	"n.skel_end_event IS NOT NULL ORDER BY n.call_id";

/*
 * Sides waiting for each other, one of them new (call_id >= first): by
 * rpc-calls.h's rule, the first client row for a new server row, the
 * first server row for a new client row; each row in one pair at most.
 */
static const char waiting[] =
	"SELECT cid, sid FROM ("
	"SELECT (SELECT min(o.call_id) FROM main.rpc_calls AS o "
	"WHERE o.missing = 'server' AND o.chain = s.chain AND "
	"o.stub_start_event = s.skel_start_event - 1) AS cid, "
	"s.call_id AS sid FROM main.rpc_calls AS s "
	"WHERE s.call_id >= " FIRST
	" AND s.missing = 'client' AND s.tag = 'ok' "
	"UNION ALL SELECT o.call_id, (SELECT min(s.call_id) FROM "
	"main.rpc_calls AS s WHERE s.missing = 'client' AND "
	"s.chain = o.chain AND s.skel_start_event = o.stub_start_event + 1 "
	"AND s.tag = 'ok') FROM main.rpc_calls AS o "
	"WHERE o.call_id >= " FIRST " AND o.missing = 'server') "
	"WHERE cid IS NOT NULL AND sid IS NOT NULL ORDER BY cid, sid";

static int copy_calls(sqlite3 *db, int64_t pid)
{
	char procs[3][96];
	const struct col_expr ov[] = {
		{ DB_RPC_CALLS_CALL_ID, NULL },
		{ DB_RPC_CALLS_CLIENT_PROC_ID, procs[0] },
		{ DB_RPC_CALLS_SERVER_PROC_ID, procs[1] },
		/* a fork child's reply: that child is another log */
		{ DB_RPC_CALLS_REPLY_PROC_ID, procs[2] },
	};
	static const char *const cols[] = { "client_proc_id", "server_proc_id",
					    "reply_proc_id" };
	int64_t first;
	int rc;

	for (int i = 0; i < 3; i++)
		snprintf(procs[i], sizeof(procs[i]),
			 "CASE WHEN n.%s IS NULL THEN NULL ELSE %" PRId64
			 " END",
			 cols[i], pid);
	snprintf(procs[2], sizeof(procs[2]), "NULL");
	if ((rc = query_int(db,
			    "SELECT coalesce(max(call_id), 0) + 1 FROM "
			    "main.rpc_calls",
			    &first)) ||
	    (rc = exec_free(db,
			    copy_sql(DB_RPC_CALLS, "INSERT", ov, 4,
				     "ORDER BY n.call_id"),
			    false)) ||
	    (rc = fold(db, cut_client, STUB_END_COLS, "", pid, first)) ||
	    (rc = fold(db, cut_server, SKEL_END_COLS, "", pid, first)))
		return rc;
	/* the stub learns the xid only while encoding (rpc-calls.c) */
	return fold(db, waiting, SERVER_COLS,
		    ", xid = coalesce(nullif(xid, 0), (SELECT n.xid FROM "
		    "temp.follow_pairs AS p JOIN main.rpc_calls AS n ON "
		    "n.call_id = p.sid WHERE p.cid = rpc_calls.call_id)), "
		    "missing = NULL",
		    pid, first);
}

int follow_copy(sqlite3 *db, const char *name, struct follow_copied *out)
{
	sqlite3_stmt *st;
	char pid[32];
	int64_t seq_off = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = copy_file(db, name, out)))
		return rc;
	if (sqlite3_prepare_v2(db, "SELECT uuid, records FROM s.processes", -1,
			       &st, NULL) != SQLITE_OK)
		return -EIO;
	if (sqlite3_step(st) == SQLITE_ROW) {
		snprintf(out->uuid, sizeof(out->uuid), "%s",
			 (const char *)sqlite3_column_text(st, 0));
		out->records = (uint64_t)sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	if (!out->uuid[0])
		return 0; /* nothing readable: the files row says why */
	if ((rc = copy_process(db, out, &seq_off)))
		return rc;
	snprintf(pid, sizeof(pid), "%" PRId64, out->proc_id);
	if ((rc = copy_threads(db, pid)) || (rc = copy_keyed(db, pid, seq_off)))
		return rc;
	return copy_calls(db, out->proc_id);
}
