/*
 * follow-window.c - the store --follow watches (follow.h): whether it
 * changed since it was last looked at (an SQLite file, or a ClickHouse
 * store's finished loads), and a copy of its SQLite file holding the
 * last minutes of the trace only.
 *
 * The time of a call side is its probe's CLOCK_MONOTONIC reading on its
 * host moved to the wall clock by its process's pair of readings taken
 * together (processes.start_realtime_ns - start_mono_ns), so that the
 * hosts' calls are on one clock; a process without that pair keeps its
 * monotonic time.  The window ends at the newest call event and covers
 * the MINUTES before; a chain is kept whole when its first call started
 * within it, dropped whole otherwise, so no chain is shown cut.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "db-read.h"
#include "follow-window.h"
#include "schema.h"
#include "store-url.h"
#include "store.h"

static int sig_same(const struct store_sig *a, const struct store_sig *b)
{
	return a->known && b->known && a->dev == b->dev && a->ino == b->ino &&
	       a->size == b->size && a->mtime_ns == b->mtime_ns &&
	       a->data_version == b->data_version && a->loads == b->loads &&
	       a->last_load == b->last_load;
}

/* A store's finished loads: how many and the newest, as a signature. */
static int url_check(struct store_watch *w, const char *url, char *err,
		     size_t len)
{
	struct store_sig now = { .known = 1 };

	if (store_finished_loads(url, &now.loads, &now.last_load, err, len))
		return STORE_UNREADABLE;
	if (!now.loads) {
		snprintf(err, len, "%s: no finished load yet", url);
		return STORE_ABSENT;
	}
	if (sig_same(&now, &w->sig))
		return STORE_SAME;
	w->sig = now;
	return STORE_CHANGED;
}

int store_watch_check(struct store_watch *w, const char *path, char *err,
		      size_t len)
{
	struct store_sig now = { 0 };
	sqlite3_stmt *st = NULL;
	struct stat sb;
	int rc;

	if (store_is_url(path))
		return url_check(w, path, err, len);
	if (stat(path, &sb)) {
		snprintf(err, len, "cannot read '%s': %s", path,
			 strerror(errno));
		return errno == ENOENT ? STORE_ABSENT : STORE_UNREADABLE;
	}
	now.dev = sb.st_dev;
	now.ino = sb.st_ino;
	now.size = sb.st_size;
	now.mtime_ns =
		(int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec;
	/* another file at the path (renamed into place): another
	 * connection, whose data_version is its own */
	if (w->db && (w->sig.dev != now.dev || w->sig.ino != now.ino)) {
		sqlite3_close(w->db);
		w->db = NULL;
	}
	if (!w->db && sqlite3_open_v2(path, &w->db, SQLITE_OPEN_READONLY,
				      NULL) != SQLITE_OK) {
		snprintf(err, len, "cannot open '%s': %s", path,
			 w->db ? sqlite3_errmsg(w->db) : "out of memory");
		sqlite3_close(w->db);
		w->db = NULL;
		return STORE_UNREADABLE;
	}
	rc = sqlite3_prepare_v2(w->db, "PRAGMA data_version", -1, &st, NULL);
	if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW)
		now.data_version = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW) {
		snprintf(err, len, "cannot read '%s': %s", path,
			 sqlite3_errmsg(w->db));
		sqlite3_close(w->db);
		w->db = NULL;
		return STORE_UNREADABLE;
	}
	now.known = 1;
	if (sig_same(&now, &w->sig))
		return STORE_SAME;
	w->sig = now;
	return STORE_CHANGED;
}

void store_watch_close(struct store_watch *w)
{
	sqlite3_close(w->db);
	memset(w, 0, sizeof(*w));
}

static int sql_fail(sqlite3 *db, const char *what, char *err, size_t len)
{
	snprintf(err, len, "cannot %s: %s", what,
		 db ? sqlite3_errmsg(db) : "out of memory");
	return -1;
}

#define CALLS(COL) db_col_name(DB_RPC_CALLS, DB_RPC_CALLS_##COL)

/* The first of cols (n of them, each a probe's time, of the client or
 * the server side) there, on the wall clock. */
static void first_time(FILE *f, const char *as, const int *cols,
		       const char *side, size_t n)
{
	fputs(", coalesce(", f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%sr.%s + ifnull(%c.d, 0)", i ? ", " : "",
			db_col_name(DB_RPC_CALLS, cols[i]), side[i]);
	fprintf(f, ") AS %s", as);
}

/* fw_off: each process's wall clock less its monotonic one; fw_row: each
 * call's chain, its first time (t0) and its last (t1). */
static int window_times(sqlite3 *db, char *err, size_t len)
{
	static const int t0[] = { DB_RPC_CALLS_STUB_START_NS,
				  DB_RPC_CALLS_STUB_START_EXIT_NS,
				  DB_RPC_CALLS_SKEL_START_NS,
				  DB_RPC_CALLS_SKEL_START_EXIT_NS };
	static const int t1[] = { DB_RPC_CALLS_STUB_END_EXIT_NS,
				  DB_RPC_CALLS_STUB_END_NS,
				  DB_RPC_CALLS_SKEL_END_EXIT_NS,
				  DB_RPC_CALLS_SKEL_END_NS,
				  DB_RPC_CALLS_SKEL_START_EXIT_NS,
				  DB_RPC_CALLS_STUB_START_EXIT_NS,
				  DB_RPC_CALLS_STUB_START_NS };
	char *sql = NULL;
	size_t n;
	FILE *f = open_memstream(&sql, &n);
	int rc;

	if (!f)
		return sql_fail(NULL, "read the calls' times", err, len);
	fprintf(f,
		"CREATE TEMP TABLE fw_off AS SELECT %s AS p, "
		"ifnull(%s - %s, 0) AS d FROM %s; "
		"CREATE TEMP TABLE fw_row AS SELECT r.%s AS k",
		db_col_name(DB_PROCESSES, DB_PROCESSES_PROC_ID),
		db_col_name(DB_PROCESSES, DB_PROCESSES_START_REALTIME_NS),
		db_col_name(DB_PROCESSES, DB_PROCESSES_START_MONO_NS),
		db_tables[DB_PROCESSES].name, CALLS(CHAIN));
	first_time(f, "t0", t0, "ccss", 4);
	first_time(f, "t1", t1, "ccssscc", 7);
	fprintf(f,
		" FROM %s r LEFT JOIN fw_off c ON c.p = r.%s "
		"LEFT JOIN fw_off s ON s.p = r.%s",
		db_tables[DB_RPC_CALLS].name, CALLS(CLIENT_PROC_ID),
		CALLS(SERVER_PROC_ID));
	if (fclose(f)) {
		free(sql);
		return sql_fail(NULL, "read the calls' times", err, len);
	}
	rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
	free(sql);
	return rc == SQLITE_OK
		       ? 0
		       : sql_fail(db, "read the calls' times", err, len);
}

/* The newest event's time into *end: 0, 1 when there is no call, -1. */
static int newest(sqlite3 *db, int64_t *end, char *err, size_t len)
{
	sqlite3_stmt *st = NULL;
	int rc = -1;

	if (sqlite3_prepare_v2(db, "SELECT max(t1) FROM fw_row", -1, &st,
			       NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW) {
		rc = sqlite3_column_type(st, 0) == SQLITE_NULL;
		*end = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	return rc < 0 ? sql_fail(db, "find the trace's end", err, len) : rc;
}

/* Drop the chains that started before start. */
static int keep_from(sqlite3 *db, int64_t start, char *err, size_t len)
{
	char sql[256];

	snprintf(sql, sizeof(sql),
		 "DELETE FROM %s WHERE %s IN (SELECT k FROM fw_row GROUP "
		 "BY k HAVING min(t0) < %lld)",
		 db_tables[DB_RPC_CALLS].name, CALLS(CHAIN), (long long)start);
	return sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK
		       ? 0
		       : sql_fail(db, "keep the window", err, len);
}

/* src's pages into dst, in one read transaction of src. */
static int backup(sqlite3 *dst, sqlite3 *src, int *busy, char *err, size_t len)
{
	sqlite3_backup *b = sqlite3_backup_init(dst, "main", src, "main");
	int rc;

	if (!b)
		return sql_fail(dst, "copy the store", err, len);
	rc = sqlite3_backup_step(b, -1);
	sqlite3_backup_finish(b);
	if (rc == SQLITE_DONE)
		return 0;
	*busy = rc == SQLITE_BUSY || rc == SQLITE_LOCKED;
	snprintf(err, len, "cannot copy the store: %s", sqlite3_errstr(rc));
	return -1;
}

int window_copy(const char *path, const char *copy, int64_t last_ns,
		struct window *win, int *busy, char *err, size_t len)
{
	sqlite3 *src = NULL, *dst = NULL;
	int ret = -1, has;

	memset(win, 0, sizeof(*win));
	*busy = 0;
	unlink(copy);
	if (sqlite3_open_v2(path, &src, SQLITE_OPEN_READONLY, NULL) !=
	    SQLITE_OK) {
		ret = sql_fail(src, "open the store", err, len);
		goto out;
	}
	sqlite3_busy_timeout(src, 2000);
	if (sqlite3_open(copy, &dst) != SQLITE_OK) {
		ret = sql_fail(dst, "make the window's copy", err, len);
		goto out;
	}
	if (backup(dst, src, busy, err, len))
		goto out;
	sqlite3_close(src);
	src = NULL;
	if ((has = db_has_table(dst, DB_RPC_CALLS)) < 0) {
		ret = sql_fail(dst, "read the store", err, len);
		goto out;
	}
	if (!has) { /* made, not yet written: no data yet */
		sqlite3_close(dst);
		return window_empty(copy, err, len);
	}
	if (sqlite3_exec(dst, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF",
			 NULL, NULL, NULL) != SQLITE_OK) {
		ret = sql_fail(dst, "write the window's copy", err, len);
		goto out;
	}
	if (window_times(dst, err, len))
		goto out;
	if ((has = newest(dst, &win->end_ns, err, len)) < 0)
		goto out;
	if (!has) { /* calls */
		win->has = 1;
		win->start_ns = win->end_ns - last_ns;
		if (keep_from(dst, win->start_ns, err, len))
			goto out;
	}
	ret = 0;
out:
	sqlite3_close(src);
	sqlite3_close(dst);
	return ret;
}

int window_empty(const char *copy, char *err, size_t len)
{
	sqlite3 *db = NULL;
	int ret = -1;

	unlink(copy);
	if (sqlite3_open(copy, &db) != SQLITE_OK)
		ret = sql_fail(db, "make an empty trace", err, len);
	else if (schema_create(db, false) || schema_create_indexes(db))
		snprintf(err, len, "cannot make an empty trace");
	else
		ret = 0;
	sqlite3_close(db);
	return ret;
}
