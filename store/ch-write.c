/*
 * ch-write.c - a merged SQLite database into a ClickHouse store as one
 * load (ch-write.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "ch-store.h"
#include "ch-write.h"
#include "clickhouse.h"
#include "db-clickhouse.h"
#include "db-read.h"
#include "hashmap.h"
#include "rowbinary.h"
#include "timespec.h"
#include "usage.h"

/* What the SQL text below names (db-schema.h): renamed in db-schema.def,
 * they stop the build here. */
DB_NAMED_TABLE(processes);
DB_NAMED(PROCESSES, uuid);
DB_NAMED(PROCESSES, records);
DB_NAMED(PROCESSES, complete);
DB_NAMED_TABLE(loaded_segments);

/* Rows go to the server in inserts of about this many bytes. */
#define INSERT_BYTES (8u << 20)

struct loader {
	struct ch_client *ch;
	sqlite3 *db;
	uint64_t load_id;
	/* the processes this load writes: proc_id -> 1 */
	struct hashmap procs;
	struct ch_load_stats *stats;
	bool segment; /* a follower's segment: ch_write_segment() */
};

static uint64_t new_load_id(void)
{
	uint16_t r = 0;

	if (getrandom(&r, sizeof(r), 0) != sizeof(r))
		r = (uint16_t)getpid();
	return clock_ns(CLOCK_REALTIME) / 1000 << DB_CH_LOAD_ID_SHIFT |
	       (r & ((1u << DB_CH_LOAD_ID_SHIFT) - 1));
}

/* Write one row of the loads table. */
static int put_load_row(struct loader *l, const char *state, const char *dir,
			uint64_t processes, uint64_t rows)
{
	static const char into[] =
		DB_CH_LOADS " (load_id, state, at_ns, loader_host, dir, "
			    "schema_version, processes, rows)";
	struct rb_buf b = { 0 };
	char host[256] = "";
	int ret;

	gethostname(host, sizeof(host) - 1);
	rb_put_u64(&b, l->load_id);
	rb_put_string(&b, state, strlen(state));
	rb_put_u64(&b, clock_ns(CLOCK_REALTIME));
	rb_put_string(&b, host, strlen(host));
	rb_put_string(&b, dir, strlen(dir));
	rb_put_u32(&b, DB_SCHEMA_VERSION);
	rb_put_u64(&b, processes);
	rb_put_u64(&b, rows);
	ret = b.oom ? ch_fail(l->ch, "out of memory")
		    : ch_insert(l->ch, into, b.p, b.len);
	rb_release(&b);
	return ret;
}

/*
 * The processes of the merged database that the store does not hold as
 * they are: into l->procs.  A process is held when a finished load that
 * is not a follower's (no loaded_segments row) has its uuid with the
 * same records and completeness: a follower's load holds one segment of
 * it, which a whole merge's rows do not repeat.  A segment's processes
 * are all taken: its follower asked for the segment by name first.
 */
static int pick_processes(struct loader *l, uint64_t *nproc)
{
	static const int cols[] = { DB_PROCESSES_PROC_ID, DB_PROCESSES_UUID,
				    DB_PROCESSES_RECORDS,
				    DB_PROCESSES_COMPLETE };
	static const char head[] =
		"SELECT DISTINCT concat(uuid, ' ', toString(records), ' ', "
		"toString(complete)) FROM processes WHERE " CH_OF_FINISHED_LOADS
		" AND load_id GLOBAL NOT IN (SELECT load_id FROM "
		"loaded_segments) AND uuid IN (";
	struct rb_buf sql = { 0 };
	struct db_read r;
	char *held = NULL;
	int ret = -1;

	*nproc = 0;
	if (db_read_open(&r, l->db, NULL, DB_PROCESSES, cols, 4, "ORDER BY %s",
			 DB_NAME(PROCESSES, PROC_ID)))
		return ch_fail(l->ch, "the merged database: %s",
			       sqlite3_errmsg(l->db));
	rb_put(&sql, head, strlen(head));
	for (int n = 0; db_read_next(&r); n++) {
		const char *uuid = db_get_text(&r, DB_PROCESSES_UUID);

		rb_put(&sql, n ? ",'" : "'", n ? 2 : 1);
		rb_put(&sql, uuid, strlen(uuid)); /* 32 hex digits */
		rb_put(&sql, "'", 1);
	}
	rb_put(&sql, ") FORMAT TabSeparated",
	       strlen(") FORMAT TabSeparated") + 1);
	if (r.bad || sql.oom) {
		ch_fail(l->ch, "the merged database: %s",
			sql.oom ? "out of memory" : sqlite3_errmsg(l->db));
		goto out;
	}
	held = l->segment ? strdup("")
			  : ch_select_text(l->ch, (const char *)sql.p);
	if (!held)
		goto out;
	db_read_rewind(&r);
	while (db_read_next(&r)) {
		char line[128];
		int64_t id = db_get_int(&r, DB_PROCESSES_PROC_ID);
		size_t n;
		const char *at;

		n = (size_t)snprintf(
			line, sizeof(line), "%s %lld %lld",
			db_get_text(&r, DB_PROCESSES_UUID),
			(long long)db_get_int(&r, DB_PROCESSES_RECORDS),
			(long long)db_get_int(&r, DB_PROCESSES_COMPLETE));
		for (at = strstr(held, line); at; at = strstr(at + 1, line))
			if ((at == held || at[-1] == '\n') &&
			    (at[n] == '\n' || at[n] == '\0'))
				break;
		if (at) {
			l->stats->skipped++;
			continue;
		}
		if (hashmap_put(&l->procs, (uint64_t)id, 1) < 0) {
			ch_fail(l->ch, "out of memory");
			goto out;
		}
		(*nproc)++;
	}
	ret = 0;
out:
	free(held);
	rb_release(&sql);
	db_read_close(&r);
	return ret;
}

/* Whether a row of t belongs to this load (by its process). */
static bool row_wanted(struct loader *l, enum db_table t, sqlite3_stmt *st)
{
	int col;

	switch (t) {
	case DB_META:
	case DB_FILES:
	case DB_HOSTS:
	case DB_LOADED_SEGMENTS: /* a segment's own row */
		return true;
	case DB_RPC_CALLS:
		for (int i = 0; i < 2; i++) {
			col = i ? DB_RPC_CALLS_SERVER_PROC_ID
				: DB_RPC_CALLS_CLIENT_PROC_ID;
			if (sqlite3_column_type(st, col) != SQLITE_NULL &&
			    hashmap_get(&l->procs,
					(uint64_t)sqlite3_column_int64(
						st, col)) >= 0)
				return true;
		}
		return false;
	default:
		/* every other table's first column is proc_id */
		return hashmap_get(&l->procs,
				   (uint64_t)sqlite3_column_int64(st, 0)) >= 0;
	}
}

static int copy_table(struct loader *l, enum db_table t)
{
	const struct db_table_def *d = &db_tables[t];
	uint8_t kind[DB_CH_MAX_COLS];
	int cols[DB_CH_MAX_COLS];
	struct rb_buf b = { 0 };
	char *select = NULL, *into = NULL;
	sqlite3_stmt *st = NULL;
	int ret = -1, rc;

	if (db_ch_col_kinds(t, kind))
		return ch_fail(l->ch, "table %s has more than %d columns",
			       d->name, DB_CH_MAX_COLS);
	for (int i = 0; i < d->ncols; i++)
		cols[i] = i;
	select = db_sql_select(t, cols, (size_t)d->ncols, "");
	into = db_ch_into(t);
	if (!select || !into) {
		ch_fail(l->ch, "out of memory");
		goto out;
	}
	if (sqlite3_prepare_v2(l->db, select, -1, &st, NULL) != SQLITE_OK) {
		ch_fail(l->ch, "the merged database: %s",
			sqlite3_errmsg(l->db));
		goto out;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (!row_wanted(l, t, st))
			continue;
		rb_put_u64(&b, l->load_id);
		for (int i = 0; i < d->ncols; i++) {
			int null = sqlite3_column_type(st, i) == SQLITE_NULL;

			if (kind[i] & DB_CH_NULLABLE) {
				rb_put_u8(&b, (uint8_t)null);
				if (null)
					continue;
			}
			if (kind[i] & DB_CH_INTEGER) {
				rb_put_u64(&b, (uint64_t)sqlite3_column_int64(
						       st, i));
			} else {
				const void *p = sqlite3_column_blob(st, i);

				rb_put_string(
					&b, p ? p : "",
					(size_t)sqlite3_column_bytes(st, i));
			}
		}
		l->stats->rows++;
		if (b.oom) {
			ch_fail(l->ch, "out of memory");
			goto out;
		}
		if (b.len >= INSERT_BYTES) {
			if (ch_insert(l->ch, into, b.p, b.len))
				goto out;
			b.len = 0;
		}
	}
	if (rc != SQLITE_DONE) {
		ch_fail(l->ch, "the merged database: %s",
			sqlite3_errmsg(l->db));
		goto out;
	}
	if (b.len && ch_insert(l->ch, into, b.p, b.len))
		goto out;
	ret = 0;
out:
	rb_release(&b);
	sqlite3_finalize(st);
	free(select);
	free(into);
	return ret;
}

/*
 * Tests cut a load short here: with CAUSAL_TEST_LOAD_PAUSE=FILE, after
 * rpc_calls the loader makes FILE and waits (up to a minute) until it is
 * gone, so that a test can kill the server in the middle of a load.
 */
static void test_pause(void)
{
	const char *file = getenv("CAUSAL_TEST_LOAD_PAUSE");
	FILE *f;

	if (!file || !*file || !(f = fopen(file, "w")))
		return;
	fclose(f);
	for (int i = 0; i < 6000 && access(file, F_OK) == 0; i++)
		usleep(10000);
}

/* A cluster's store (its tables Distributed): inserts wait for the
 * shards.  0, or -1. */
static int sync_if_distributed(struct loader *l)
{
	char *n = ch_select_text(l->ch,
				 "SELECT count() FROM system.tables WHERE "
				 "database = currentDatabase() AND engine = "
				 "'Distributed' FORMAT TabSeparated");

	if (!n)
		return -1;
	if (strcmp(n, "0"))
		ch_insert_sync(l->ch);
	free(n);
	return 0;
}

static int load(struct loader *l, const char *dir)
{
	struct timespec t0, t1;
	uint64_t nproc;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (ch_store_check(l->ch, true) || sync_if_distributed(l) ||
	    pick_processes(l, &nproc))
		return -1;
	l->stats->processes = nproc;
	if (!nproc && !l->segment)
		return 0; /* all of it is in the store already */
	l->load_id = new_load_id();
	if (put_load_row(l, "started", dir, nproc, 0))
		return -1;
	for (int t = 0; t < DB_NTABLES; t++) {
		if (!db_ch_has_table(t))
			continue;
		if (copy_table(l, t))
			return -1;
		if (t == DB_RPC_CALLS)
			test_pause();
	}
	if (put_load_row(l, "finished", dir, nproc, l->stats->rows))
		return -1;
	l->stats->load_id = l->load_id;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	l->stats->seconds = (double)(t1.tv_sec - t0.tv_sec) +
			    (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	return 0;
}

/* The load of either kind: 0, or -1 with err saying why. */
static int write_load(const char *path, const char *dir,
		      const struct store_url *u, bool segment,
		      struct ch_load_stats *ls, char *err, size_t len)
{
	struct loader l = { .stats = ls, .segment = segment };
	int ret = -1;

	memset(ls, 0, sizeof(*ls));
	if (sqlite3_open_v2(path, &l.db, SQLITE_OPEN_READONLY, NULL) !=
	    SQLITE_OK) {
		snprintf(err, len, "cannot open the merged database '%s': %s",
			 path, sqlite3_errmsg(l.db));
		goto out;
	}
	l.ch = ch_open(u);
	if (!l.ch) {
		snprintf(err, len, "out of memory");
		goto out;
	}
	if (load(&l, dir))
		snprintf(err, len, "%s", ch_error(l.ch));
	else
		ret = 0;
out:
	ch_close(l.ch);
	sqlite3_close(l.db);
	hashmap_release(&l.procs);
	return ret;
}

int ch_write_load(const char *path, const char *dir, const struct store_url *u,
		  struct ch_load_stats *ls)
{
	char err[1024];

	if (write_load(path, dir, u, false, ls, err, sizeof(err)))
		return fail("%s", err);
	return 0;
}

int ch_write_segment(const char *path, const char *dir,
		     const struct store_url *u, struct ch_load_stats *ls,
		     char *err, size_t len)
{
	return write_load(path, dir, u, true, ls, err, len);
}
