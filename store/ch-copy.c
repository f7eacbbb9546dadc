/*
 * ch-copy.c - a ClickHouse store read into a temporary SQLite file
 * (store.h), all but the calls (ch-calls.c); ch-read.c makes the copy.
 *
 * Every table's rows of the finished loads come over in RowBinary into
 * staging tables of the file (s_<table>: load_id, then the columns), and
 * SQL makes the merged tables from them: the map of kept processes to
 * their new ids (pmap, in the order of their log names), of files (fmap)
 * and hosts (hmap), then each table with its ids mapped, in its key's
 * order.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "ch-store.h"
#include "clickhouse.h"
#include "db-clickhouse.h"
#include "internal.h"
#include "rowbinary.h"
#include "usage.h"

/* What the SQL text below names (db-schema.h): renamed in db-schema.def,
 * they stop the build here. */
DB_NAMED_TABLE(meta);
DB_NAMED_TABLE(files);
DB_NAMED_TABLE(hosts);
DB_NAMED(META, key);
DB_NAMED(META, value);
DB_NAMED(FILES, file_id);
DB_NAMED(FILES, name);
DB_NAMED(FILES, bytes);
DB_NAMED(FILES, frames);
DB_NAMED(FILES, records);
DB_NAMED(FILES, status);
DB_NAMED(FILES, error);
DB_NAMED(HOSTS, host_id);
DB_NAMED(HOSTS, name);
DB_NAMED(PROCESSES, proc_id);
DB_NAMED(PROCESSES, uuid);
DB_NAMED(PROCESSES, host_id);
DB_NAMED(PROCESSES, file_id);
DB_NAMED(PROCESSES, records);
DB_NAMED(PROCESSES, segments);
DB_NAMED(PROCESSES, dropped);
DB_NAMED(PROCESSES, complete);
DB_NAMED(PROCESSES, end_mono_ns);
DB_NAMED(PROCESSES, end_realtime_ns);
DB_NAMED(PROCESSES, end_reason);
DB_NAMED(PROCESSES, end_detail);
DB_NAMED(PROCESSES, peak_heap_bytes);
DB_NAMED(PROCESSES, last_mono_ns);
DB_NAMED(PROCESSES, deleted_segments);
DB_NAMED(PROCESSES, deleted_records);
DB_NAMED(PROCESSES, deleted_bytes);
DB_NAMED(PROCESSES, keep_held);
DB_NAMED(PROCESSES, keep_written);
DB_NAMED(PROCESSES, keep_overflow);
DB_NAMED(PROCESSES, keep_chains);
DB_NAMED(PROCESSES, sample_rate_q32);
DB_NAMED_TABLE(threads);
/* the seq of every table keyed by (proc_id, seq) */
DB_NAMED(RPC_VALUES, seq);
DB_NAMED(THREADS, proc_id);
DB_NAMED(THREADS, tid);
DB_NAMED(THREADS, parent_tid);
DB_NAMED(THREADS, os_tid);
DB_NAMED(THREADS, marker);
DB_NAMED(THREADS, start_mono_ns);
DB_NAMED(THREADS, start_cpu_ns);
DB_NAMED(THREADS, spawn_mono_ns);
DB_NAMED(THREADS, end_mono_ns);
DB_NAMED(THREADS, end_cpu_ns);
DB_NAMED(THREADS, end_how);
DB_NAMED(THREADS, cpu_ns);
DB_NAMED(THREADS, ctx_chain);
DB_NAMED(THREADS, ctx_event);
DB_NAMED(THREADS, ctx_function);
DB_NAMED(THREADS, dropped);
DB_NAMED(THREADS, alloc_bytes);
DB_NAMED(THREADS, freed_bytes);
DB_NAMED(THREADS, allocs);
DB_NAMED(THREADS, frees);
DB_NAMED(THREADS, peak_heap_bytes);
DB_NAMED_TABLE(loaded_segments);
DB_NAMED(LOADED_SEGMENTS, segment);
DB_NAMED(LOADED_SEGMENTS, proc_id);
DB_NAMED(LOADED_SEGMENTS, uuid);
DB_NAMED(LOADED_SEGMENTS, status);

int copy_fail(struct ch_copy *r, const char *what)
{
	return fail("%s: the copy of the store: %s: %s", r->shown, what,
		    sqlite3_errmsg(r->db));
}

int copy_exec(struct ch_copy *r, const char *sql)
{
	char what[64];

	if (sqlite3_exec(r->db, sql, NULL, NULL, NULL) == SQLITE_OK)
		return 0;
	/* the statement's beginning says which */
	snprintf(what, sizeof(what), "%.60s", sql);
	for (char *p = what; *p; p++)
		if (*p == '\n')
			*p = ' ';
	return copy_fail(r, what);
}

int copy_exec_built(struct ch_copy *r, FILE *f, char **sql)
{
	int ret;

	if (fclose(f)) {
		free(*sql);
		*sql = NULL;
		return fail("out of memory");
	}
	ret = copy_exec(r, *sql);
	free(*sql);
	*sql = NULL;
	return ret;
}

/* ---- staging: the rows of finished loads as they are ------------------- */

struct fetch {
	struct ch_copy *r;
	enum db_table t;
	sqlite3_stmt *ins;
	struct rb_buf buf;	      /* what came and is not a whole row yet */
	uint8_t kind[DB_CH_MAX_COLS]; /* enum db_ch_kind of each column */
};

/* One row from [*p, end) into the INSERT: 1 done, 0 cut short, -1 bad. */
static int stage_row(struct fetch *f, struct rb_reader *rd)
{
	const struct db_table_def *d = &db_tables[f->t];
	sqlite3_stmt *st = f->ins;
	uint64_t v;

	if (rb_get_u64(rd, &v))
		return 0;
	sqlite3_bind_int64(st, 1, (int64_t)v);
	for (int i = 0; i < d->ncols; i++) {
		if (f->kind[i] & DB_CH_NULLABLE) {
			uint8_t null;

			if (rb_get_u8(rd, &null))
				return 0;
			if (null) {
				sqlite3_bind_null(st, i + 2);
				continue;
			}
		}
		if (f->kind[i] & DB_CH_INTEGER) {
			if (rb_get_u64(rd, &v))
				return 0;
			sqlite3_bind_int64(st, i + 2, (int64_t)v);
		} else {
			const unsigned char *s;
			size_t n;

			if (rb_get_string(rd, &s, &n))
				return 0;
			if (n > INT_MAX)
				return -1;
			if (f->kind[i] & DB_CH_BLOB)
				sqlite3_bind_blob(st, i + 2, s, (int)n,
						  SQLITE_STATIC);
			else
				sqlite3_bind_text(st, i + 2, (const char *)s,
						  (int)n, SQLITE_STATIC);
		}
	}
	if (sqlite3_step(st) != SQLITE_DONE)
		return -1;
	sqlite3_reset(st);
	return 1;
}

static int on_rows(const char *p, size_t n, void *arg)
{
	struct fetch *f = arg;
	struct rb_reader rd;
	int rc;

	rb_put(&f->buf, p, n);
	if (f->buf.oom)
		return ch_fail(f->r->ch, "out of memory");
	rd.p = f->buf.p;
	rd.end = f->buf.p + f->buf.len;
	for (;;) {
		const unsigned char *at = rd.p;

		rc = stage_row(f, &rd);
		if (rc <= 0) {
			rd.p = at;
			break;
		}
	}
	if (rc < 0)
		return ch_fail(f->r->ch, "table %s: a row the copy refused: %s",
			       db_tables[f->t].name, sqlite3_errmsg(f->r->db));
	f->buf.len = (size_t)(rd.end - rd.p);
	memmove(f->buf.p, rd.p, f->buf.len);
	return 0;
}

int copy_stage(struct ch_copy *r, enum db_table t, const char *where)
{
	const struct db_table_def *d = &db_tables[t];
	struct fetch f = { .r = r, .t = t };
	char *create = NULL, *ins = NULL, *sel = NULL;
	size_t n_create, n_ins, n_sel;
	FILE *fc = open_memstream(&create, &n_create);
	FILE *fi = open_memstream(&ins, &n_ins);
	FILE *fs = open_memstream(&sel, &n_sel);
	int ret = -1;

	if (!fc || !fi || !fs) {
		if (fc)
			fclose(fc);
		if (fi)
			fclose(fi);
		if (fs)
			fclose(fs);
		free(create);
		free(ins);
		free(sel);
		return fail("out of memory");
	}
	if (db_ch_col_kinds(t, f.kind)) {
		fclose(fc);
		fclose(fi);
		fclose(fs);
		fail("table %s has more than %d columns", d->name,
		     DB_CH_MAX_COLS);
		goto out;
	}
	fprintf(fc, "CREATE TABLE s_%s(load_id", d->name);
	fprintf(fi, "INSERT INTO s_%s VALUES(?", d->name);
	fputs("SELECT load_id", fs);
	for (int i = 0; i < d->ncols; i++) {
		fprintf(fc, ", %s", d->cols[i].name);
		fputs(", ?", fi);
		fprintf(fs, ", %s", d->cols[i].name);
	}
	fputc(')', fc);
	fputc(')', fi);
	fprintf(fs,
		" FROM %s WHERE " CH_OF_FINISHED_LOADS "%s%s FORMAT RowBinary",
		d->name, where ? " AND " : "", where ? where : "");
	if (fclose(fc) | fclose(fi) | fclose(fs)) {
		fail("out of memory");
		goto out;
	}
	if (copy_exec(r, create))
		goto out;
	if (sqlite3_prepare_v2(r->db, ins, -1, &f.ins, NULL) != SQLITE_OK) {
		copy_fail(r, ins);
		goto out;
	}
	if (ch_select(r->ch, sel, on_rows, &f)) {
		fail("%s", ch_error(r->ch));
		goto out;
	}
	if (f.buf.len) {
		fail("%s: the answer for table %s ends in the middle of a row",
		     r->shown, d->name);
		goto out;
	}
	ret = 0;
out:
	sqlite3_finalize(f.ins);
	rb_release(&f.buf);
	free(create);
	free(ins);
	free(sel);
	return ret;
}

/* ---- the maps of ids --------------------------------------------------- */

static const char maps_sql[] =
	/*
	 * The rows of a process read: its follower's loads, one segment
	 * each (their loaded_segments rows name it), all of them, in the
	 * order of its segments (ord); else the last finished load that has
	 * it, whole (ord 0).
	 */
	"CREATE INDEX s_ls_proc ON s_loaded_segments(load_id, proc_id);"
	"CREATE INDEX s_ls_uuid ON s_loaded_segments(uuid);"
	"CREATE INDEX s_p_key ON s_processes(load_id, proc_id);"
	"CREATE INDEX s_p_uuid ON s_processes(uuid, load_id);"
	"CREATE INDEX s_t_key ON s_threads(load_id, proc_id, tid);"
	"CREATE TABLE kept AS SELECT p.load_id, p.proc_id, p.uuid,"
	"  coalesce((SELECT max(g.segment) FROM s_loaded_segments g"
	"            WHERE g.load_id = p.load_id AND g.proc_id = p.proc_id),"
	"           0) AS ord"
	"  FROM s_processes p"
	"  WHERE EXISTS (SELECT 1 FROM s_loaded_segments g"
	"                WHERE g.load_id = p.load_id AND g.proc_id = "
	"p.proc_id)"
	"  OR (NOT EXISTS (SELECT 1 FROM s_loaded_segments g"
	"                  WHERE g.uuid = p.uuid AND g.proc_id IS NOT NULL)"
	"      AND p.load_id = (SELECT max(q.load_id) FROM s_processes q"
	"                       WHERE q.uuid = p.uuid));"
	/* the processes, numbered in the order of their (first) log names */
	"CREATE TABLE pnew(new_id INTEGER PRIMARY KEY, uuid UNIQUE);"
	"INSERT INTO pnew(uuid)"
	"  SELECT k.uuid FROM kept k"
	"  JOIN s_processes p ON p.load_id = k.load_id AND p.proc_id = "
	"k.proc_id"
	"  LEFT JOIN s_files f ON f.load_id = p.load_id AND f.file_id = "
	"p.file_id"
	"  GROUP BY k.uuid ORDER BY min(f.name), k.uuid;"
	/* each row read to its process; seq_off: the records of its
	   segments before it, which its seq numbers go on from */
	"CREATE TABLE pmap(load_id, proc_id, new_id, ord, seq_off,"
	"  UNIQUE(load_id, proc_id));"
	"INSERT INTO pmap SELECT k.load_id, k.proc_id, w.new_id, k.ord,"
	"  coalesce((SELECT sum(q.records) FROM kept e JOIN s_processes q"
	"            ON q.load_id = e.load_id AND q.proc_id = e.proc_id"
	"            WHERE e.uuid = k.uuid AND e.ord < k.ord), 0)"
	"  FROM kept k JOIN pnew w ON w.uuid = k.uuid;"
	"CREATE INDEX pmap_new ON pmap(new_id, ord);"
	/* files: the kept processes', and those without a process (logs
	   that could not be read) from the last load naming them */
	"CREATE TABLE fsel AS"
	"  SELECT p.load_id, p.file_id, f.name FROM pmap m"
	"  JOIN s_processes p ON p.load_id = m.load_id AND p.proc_id = "
	"m.proc_id"
	"  JOIN s_files f ON f.load_id = p.load_id AND f.file_id = p.file_id;"
	"INSERT INTO fsel SELECT f.load_id, f.file_id, f.name FROM s_files f"
	"  WHERE NOT EXISTS (SELECT 1 FROM s_processes p"
	"                    WHERE p.load_id = f.load_id AND p.file_id = "
	"f.file_id)"
	"  AND NOT EXISTS (SELECT 1 FROM fsel s WHERE s.name = f.name)"
	"  AND f.load_id = (SELECT max(g.load_id) FROM s_files g"
	"                   WHERE g.name = f.name);"
	"CREATE TABLE fmap(new_id INTEGER PRIMARY KEY, load_id, file_id,"
	"  UNIQUE(load_id, file_id));"
	"INSERT INTO fmap(load_id, file_id)"
	"  SELECT load_id, file_id FROM fsel ORDER BY name, load_id;"
	/* hosts in order of first appearance, as merge numbers them */
	"CREATE TABLE hmap(new_id INTEGER PRIMARY KEY, name UNIQUE);"
	"INSERT OR IGNORE INTO hmap(name)"
	"  SELECT h.name FROM pmap m"
	"  JOIN s_processes p ON p.load_id = m.load_id AND p.proc_id = "
	"m.proc_id"
	"  JOIN s_hosts h ON h.load_id = p.load_id AND h.host_id = p.host_id"
	"  ORDER BY m.new_id, m.ord;"
	"INSERT INTO meta SELECT key, value FROM s_meta"
	"  WHERE load_id = (SELECT max(load_id) FROM s_meta);";

/* ---- the tables from the staging ones ---------------------------------- */

/*
 * What column col of t becomes in the merged table: the staged row is x,
 * its process's map entry pm; NULL for "x.<col>".
 */
static const char *mapped(enum db_table t, int col)
{
	const char *name = db_tables[t].cols[col].name;

	if (!strcmp(name, "proc_id"))
		return "pm.new_id";
	if (!strcmp(name, "seq"))
		return "x.seq + pm.seq_off";
	if (t == DB_PROCESSES && !strcmp(name, "host_id"))
		return "(SELECT hm.new_id FROM s_hosts h JOIN hmap hm"
		       " ON hm.name = h.name WHERE h.load_id = x.load_id"
		       " AND h.host_id = x.host_id)";
	if (t == DB_PROCESSES && !strcmp(name, "file_id"))
		return "(SELECT fm.new_id FROM fmap fm WHERE fm.load_id ="
		       " x.load_id AND fm.file_id = x.file_id)";
	return NULL;
}

/* The columns of t's key after proc_id: ", seq" of PRIMARY KEY(proc_id, seq).
 */
static void key_rest(FILE *f, enum db_table t)
{
	const char *key = strstr(db_tables[t].key, "PRIMARY KEY(proc_id");

	if (key) {
		key += strlen("PRIMARY KEY(proc_id");
		fprintf(f, "%.*s", (int)strcspn(key, ")"), key);
	}
}

/* ---- a process's rows across its segments' loads ---------------------- */

/*
 * How a column of processes or threads is made from the rows of a
 * process's (or thread's) segments, first to last (follow-copy.h's rule,
 * read here): by default the first row's; a NULL one of the first takes
 * the first value there is, an end or a running figure the last one.
 */
enum across { FIRST, FIRST_SET, LAST_SET, LAST, SUM, MAX, SPECIAL };

struct across_col {
	const char *name;
	enum across how;
};

static const struct across_col proc_cols[] = {
	{ "records", SUM },
	{ "segments", SUM },
	{ "dropped", SPECIAL },
	{ "complete", SPECIAL },
	{ "end_mono_ns", LAST_SET },
	{ "end_realtime_ns", LAST_SET },
	{ "end_reason", LAST_SET },
	{ "end_detail", LAST_SET },
	{ "peak_heap_bytes", LAST_SET },
	{ "last_mono_ns", MAX },
	{ "deleted_segments", LAST },
	{ "deleted_records", LAST },
	{ "deleted_bytes", LAST },
	{ "keep_held", LAST_SET },
	{ "keep_written", LAST_SET },
	{ "keep_overflow", LAST_SET },
	{ "keep_chains", LAST_SET },
	{ "sample_rate_q32", LAST },
};

static const struct across_col thread_cols[] = {
	{ "parent_tid", SPECIAL },	 { "os_tid", FIRST_SET },
	{ "marker", FIRST_SET },	 { "start_mono_ns", FIRST_SET },
	{ "start_cpu_ns", FIRST_SET },	 { "spawn_mono_ns", FIRST_SET },
	{ "end_mono_ns", LAST_SET },	 { "end_cpu_ns", LAST_SET },
	{ "end_how", LAST_SET },	 { "cpu_ns", SPECIAL },
	{ "ctx_chain", LAST_SET },	 { "ctx_event", LAST_SET },
	{ "ctx_function", LAST_SET },	 { "dropped", SUM },
	{ "alloc_bytes", LAST_SET },	 { "freed_bytes", LAST_SET },
	{ "allocs", LAST_SET },		 { "frees", LAST_SET },
	{ "peak_heap_bytes", LAST_SET },
};

/* The rows of g's process (thread) as a, their segments' order q.ord,
 * then "AND " and the rest of the WHERE. */
static void rows_of(FILE *f, enum db_table t)
{
	fprintf(f,
		" FROM s_%s a JOIN pmap q ON q.load_id = a.load_id AND "
		"q.proc_id = a.proc_id WHERE q.new_id = g.new_id%s AND ",
		db_tables[t].name, t == DB_THREADS ? " AND a.tid = g.tid" : "");
}

/* The first (last) value of col that is set among g's rows. */
static void set_value(FILE *f, enum db_table t, const char *col, bool last,
		      const char *also)
{
	fprintf(f, "(SELECT a.%s", col);
	rows_of(f, t);
	fprintf(f, "a.%s IS NOT NULL%s ORDER BY q.ord%s LIMIT 1)", col, also,
		last ? " DESC" : "");
}

static void aggregate(FILE *f, enum db_table t, const char *fn,
		      const char *expr)
{
	fprintf(f, "(SELECT %s(%s)", fn, expr);
	rows_of(f, t);
	fputs("1)", f);
}

static void special(FILE *f, enum db_table t, const char *name)
{
	if (!strcmp(name, "dropped")) {
		/* max(PROCESS_END's, the threads' sum): the end segment's
		 * total weighed against the drops of all */
		fputs("CASE WHEN l.end_reason IS NULL THEN ", f);
		aggregate(f, t, "sum", "a.dropped");
		fputs(" ELSE max(l.dropped, ", f);
		aggregate(f, t, "sum", "a.dropped");
		fputs(" - l.dropped + (SELECT total(h.dropped) FROM s_threads h"
		      " WHERE h.load_id = l.load_id AND h.proc_id = "
		      "l.proc_id)) END",
		      f);
	} else if (!strcmp(name, "complete")) {
		/* the end seen and every segment 'ok' */
		fputs("(l.complete AND NOT EXISTS (SELECT 1 FROM "
		      "s_loaded_segments s WHERE s.uuid = l.uuid AND s.status "
		      "<> 'ok'))",
		      f);
	} else if (!strcmp(name, "parent_tid")) {
		fputs("coalesce(", f);
		set_value(f, t, name, false, " AND a.parent_tid <> 0");
		fputs(", x.parent_tid)", f);
	} else { /* cpu_ns: from the first start to the last end */
		fputs("CASE WHEN g.nrows = 1 THEN x.cpu_ns ELSE ", f);
		set_value(f, t, "end_cpu_ns", true, "");
		fputs(" - ", f);
		set_value(f, t, "start_cpu_ns", false, "");
		fputs(" END", f);
	}
}

/* Column name of processes or threads (not mapped()): made from the rows
 * of the process's (thread's) segments' loads, x the first, l the last. */
static void across_column(FILE *f, enum db_table t, const char *name)
{
	const struct across_col *ac = t == DB_THREADS ? thread_cols : proc_cols;
	size_t nac = t == DB_THREADS
			     ? sizeof(thread_cols) / sizeof(*thread_cols)
			     : sizeof(proc_cols) / sizeof(*proc_cols);
	enum across how = FIRST;

	for (size_t k = 0; k < nac; k++)
		if (!strcmp(ac[k].name, name))
			how = ac[k].how;
	if (how == FIRST)
		fprintf(f, "x.%s", name);
	else if (how == LAST)
		fprintf(f, "l.%s", name);
	else if (how == FIRST_SET || how == LAST_SET)
		set_value(f, t, name, how == LAST_SET, "");
	else if (how == SUM || how == MAX) {
		char expr[64];

		snprintf(expr, sizeof(expr), "a.%s", name);
		aggregate(f, t, how == SUM ? "sum" : "max", expr);
	} else
		special(f, t, name);
}

/* The FROM of processes or threads: one row of each process (thread) of
 * pmap (g), its first segment's row x and its last one's l. */
static void across_from(FILE *f, enum db_table t)
{
	const char *name = db_tables[t].name;
	const char *tid = t == DB_THREADS ? ", x.tid" : "";

	fprintf(f,
		" FROM (SELECT pm.new_id%s, min(pm.ord) AS first, max(pm.ord) "
		"AS last, count(*) AS nrows FROM s_%s x JOIN pmap pm ON "
		"pm.load_id = x.load_id AND pm.proc_id = x.proc_id GROUP BY "
		"pm.new_id%s) g"
		" JOIN pmap pm ON pm.new_id = g.new_id AND pm.ord = g.first"
		" JOIN s_%s x ON x.load_id = pm.load_id AND x.proc_id = "
		"pm.proc_id",
		tid, name, tid, name);
	if (t == DB_THREADS)
		fputs(" AND x.tid = g.tid", f);
	fprintf(f,
		" JOIN pmap pl ON pl.new_id = g.new_id AND pl.ord = g.last"
		" JOIN s_%s l ON l.load_id = pl.load_id AND l.proc_id = "
		"pl.proc_id",
		name);
	if (t == DB_THREADS)
		fputs(" AND l.tid = g.tid", f);
	fprintf(f, " ORDER BY g.new_id%s", t == DB_THREADS ? ", g.tid" : "");
}

/*
 * A table whose rows belong to a process (its first column proc_id): a
 * site, an object or a running total named again by a later segment of
 * the process, the latest; processes and threads one row each, made
 * from all their segments' rows.
 */
static int build_table(struct ch_copy *r, enum db_table t)
{
	const struct db_table_def *d = &db_tables[t];
	bool across = t == DB_PROCESSES || t == DB_THREADS;
	char *sql = NULL;
	size_t n;
	FILE *f = open_memstream(&sql, &n);

	if (!f)
		return fail("out of memory");
	fprintf(f, "INSERT %sINTO %s SELECT ", across ? "" : "OR REPLACE ",
		d->name);
	for (int i = 0; i < d->ncols; i++) {
		const char *m = mapped(t, i);

		fprintf(f, "%s", i ? ", " : "");
		if (m)
			fputs(m, f);
		else if (across)
			across_column(f, t, d->cols[i].name);
		else
			fprintf(f, "x.%s", d->cols[i].name);
	}
	if (across) {
		across_from(f, t);
	} else {
		fprintf(f,
			" FROM s_%s x JOIN pmap pm ON pm.load_id = x.load_id "
			"AND pm.proc_id = x.proc_id ORDER BY pm.new_id, pm.ord",
			d->name);
		key_rest(f, t);
	}
	return copy_exec_built(r, f, &sql);
}

static int build_files_hosts(struct ch_copy *r)
{
	return copy_exec(r,
			 "INSERT INTO hosts SELECT new_id, name FROM hmap "
			 "ORDER BY new_id;"
			 "INSERT INTO files SELECT fm.new_id, f.name, f.bytes, "
			 "f.frames, f.records, f.status, f.error FROM fmap fm "
			 "JOIN s_files f ON f.load_id = fm.load_id AND "
			 "f.file_id = fm.file_id ORDER BY fm.new_id");
}

/* ---- the copy but the calls ------------------------------------------- */

int copy_schema(struct ch_copy *r, unsigned what)
{
	char *sql = NULL;
	size_t n;
	FILE *f = open_memstream(&sql, &n);

	if (!f)
		return fail("out of memory");
	db_schema_write(f, what);
	return copy_exec_built(r, f, &sql);
}

int copy_tables(struct ch_copy *r, bool calls)
{
	char *loads;

	if (ch_store_check(r->ch, false))
		return fail("%s", ch_error(r->ch));
	loads = ch_select_text(r->ch, "SELECT count() FROM loads WHERE "
				      "state = 'finished' FORMAT TabSeparated");
	if (!loads)
		return fail("%s", ch_error(r->ch));
	if (!strcmp(loads, "0")) {
		free(loads);
		return fail("%s: the store holds no finished load (tracedump "
			    "merge DIR --db URL loads one)",
			    r->shown);
	}
	free(loads);
	if (copy_exec(r, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; "
			 "PRAGMA cache_size=-65536; BEGIN") ||
	    copy_schema(r, DB_SQL_TABLES | DB_SQL_NO_RECORDS))
		return -1;
	for (int t = 0; t < DB_NTABLES; t++)
		if (db_ch_has_table(t) && (calls || t != DB_RPC_CALLS) &&
		    copy_stage(r, t, NULL))
			return -1;
	if (copy_exec(r, maps_sql) || build_files_hosts(r))
		return -1;
	for (int t = 0; t < DB_NTABLES; t++) {
		if (!db_ch_has_table(t) || t == DB_META || t == DB_FILES ||
		    t == DB_HOSTS || t == DB_RPC_CALLS ||
		    t == DB_LOADED_SEGMENTS)
			continue;
		if (build_table(r, t))
			return -1;
	}
	return 0;
}
