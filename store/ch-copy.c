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
	/* a process from the last finished load that has it */
	"CREATE TABLE kept AS SELECT p.load_id, p.proc_id FROM s_processes p"
	"  WHERE p.load_id = (SELECT max(q.load_id) FROM s_processes q"
	"                     WHERE q.uuid = p.uuid);"
	"CREATE TABLE pmap(new_id INTEGER PRIMARY KEY, load_id, proc_id,"
	"  UNIQUE(load_id, proc_id));"
	"INSERT INTO pmap(load_id, proc_id)"
	"  SELECT k.load_id, k.proc_id FROM kept k"
	"  JOIN s_processes p ON p.load_id = k.load_id AND p.proc_id = "
	"k.proc_id"
	"  LEFT JOIN s_files f ON f.load_id = p.load_id AND f.file_id = "
	"p.file_id"
	"  ORDER BY f.name, p.uuid;"
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
	"  ORDER BY m.new_id;"
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

/* A table whose rows belong to a process (its first column proc_id). */
static int build_table(struct ch_copy *r, enum db_table t)
{
	const struct db_table_def *d = &db_tables[t];
	char *sql = NULL;
	size_t n;
	FILE *f = open_memstream(&sql, &n);

	if (!f)
		return fail("out of memory");
	fprintf(f, "INSERT INTO %s SELECT ", d->name);
	for (int i = 0; i < d->ncols; i++) {
		const char *m = mapped(t, i);

		fprintf(f, "%s", i ? ", " : "");
		if (m)
			fputs(m, f);
		else
			fprintf(f, "x.%s", d->cols[i].name);
	}
	fprintf(f,
		" FROM s_%s x JOIN pmap pm ON pm.load_id = x.load_id AND "
		"pm.proc_id = x.proc_id ORDER BY pm.new_id",
		d->name);
	key_rest(f, t);
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
		    t == DB_HOSTS || t == DB_RPC_CALLS)
			continue;
		if (build_table(r, t))
			return -1;
	}
	return 0;
}
