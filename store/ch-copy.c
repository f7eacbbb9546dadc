/*
 * store.c - a ClickHouse store read into a temporary SQLite file
 * (store.h).
 *
 * Every table's rows of the finished loads come over in RowBinary into
 * staging tables of the file (s_<table>: load_id, then the columns), and
 * SQL makes the merged tables from them: the map of kept processes to
 * their new ids (pmap, in the order of their log names), of files (fmap)
 * and hosts (hmap), then each table with its ids mapped, in its key's
 * order.  The calls are joined in C, on their keys only: one list of
 * client sides, one of server sides, each in (new proc_id, call_id)
 * order, which is merge's (proc_id, seq) order within a load.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "array.h"
#include "ch-store.h"
#include "clickhouse.h"
#include "db-clickhouse.h"
#include "hashmap.h"
#include "rowbinary.h"
#include "store.h"
#include "tmp-cleanup.h"
#include "usage.h"

/* The one copy a process makes (a command reads one store). */
static struct copy {
	char url[4096];
	struct tmp_file file;
} made;

struct reader {
	struct ch_client *ch;
	sqlite3 *db;
	const char *shown; /* the URL, for messages */
	int64_t calls;	   /* rpc_calls rows made before: ids go on */
};

static int db_fail(struct reader *r, const char *what)
{
	return fail("%s: the copy of the store: %s: %s", r->shown, what,
		    sqlite3_errmsg(r->db));
}

static int exec(struct reader *r, const char *sql)
{
	char what[64];

	if (sqlite3_exec(r->db, sql, NULL, NULL, NULL) == SQLITE_OK)
		return 0;
	/* the statement's beginning says which */
	snprintf(what, sizeof(what), "%.60s", sql);
	for (char *p = what; *p; p++)
		if (*p == '\n')
			*p = ' ';
	return db_fail(r, what);
}

/* Close f, the memstream of *sql, and run *sql; frees it. */
static int exec_built(struct reader *r, FILE *f, char **sql)
{
	int ret;

	if (fclose(f)) {
		free(*sql);
		*sql = NULL;
		return fail("out of memory");
	}
	ret = exec(r, *sql);
	free(*sql);
	*sql = NULL;
	return ret;
}

/* ---- staging: the rows of finished loads as they are ------------------- */

struct fetch {
	struct reader *r;
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

/* s_<t>, made: load_id and t's columns, typeless; the rows of the
 * finished loads, those of where only (SQL after AND, or NULL: all). */
static int stage_table(struct reader *r, enum db_table t, const char *where)
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
	if (exec(r, create))
		goto out;
	if (sqlite3_prepare_v2(r->db, ins, -1, &f.ins, NULL) != SQLITE_OK) {
		db_fail(r, ins);
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
static int build_table(struct reader *r, enum db_table t)
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
	return exec_built(r, f, &sql);
}

static int build_files_hosts(struct reader *r)
{
	return exec(r, "INSERT INTO hosts SELECT new_id, name FROM hmap "
		       "ORDER BY new_id;"
		       "INSERT INTO files SELECT fm.new_id, f.name, f.bytes, "
		       "f.frames, f.records, f.status, f.error FROM fmap fm "
		       "JOIN s_files f ON f.load_id = fm.load_id AND "
		       "f.file_id = fm.file_id ORDER BY fm.new_id");
}

/* ---- the calls --------------------------------------------------------- */

/* Which side of a call a column of rpc_calls describes. */
enum side { SHARED, CLIENT, SERVER, OWN };

static enum side column_side(const char *name)
{
	static const char *const client[] = {
		"flags",      "one_way",       "site_symbol",
		"peer",	      "status",	       "status_name",
		"args_bytes", "results_bytes", "reply_tag",
	};
	static const char *const server[] = {
		"object_id",
		"caller_address",
		"reply",
		"tag",
	};

	if (!strcmp(name, "call_id") || !strcmp(name, "missing"))
		return OWN;
	if (!strncmp(name, "client_", 7) || !strncmp(name, "stub_", 5))
		return CLIENT;
	if (!strncmp(name, "server_", 7) || !strncmp(name, "skel_", 5))
		return SERVER;
	for (size_t i = 0; i < sizeof(client) / sizeof(*client); i++)
		if (!strcmp(name, client[i]))
			return CLIENT;
	for (size_t i = 0; i < sizeof(server) / sizeof(*server); i++)
		if (!strcmp(name, server[i]))
			return SERVER;
	return SHARED; /* chain, prog, vers, proc, transport, xid */
}

struct side_key {
	int64_t proc, call_id; /* its order: new proc_id, then call_id */
	int64_t rowid;
	uint8_t chain[DB_CHAIN_LEN];
	int64_t event;
	bool has_event; /* a start probe: the side can join */
	bool used;	/* a server joined */
	uint32_t next;	/* the next server with its key, or NONE */
};

#define NONE UINT32_MAX

struct sides {
	struct side_key *v;
	size_t n, cap;
};

static int cmp_side(const void *a, const void *b)
{
	const struct side_key *x = a, *y = b;

	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	return (x->call_id > y->call_id) - (x->call_id < y->call_id);
}

/*
 * The sides of the kept processes, in (new proc id, call_id) order (a
 * sort here, on the keys alone, is much faster than SQL's ORDER BY).
 */
static int read_sides(struct reader *r, bool server, struct sides *s)
{
	char sql[512];
	sqlite3_stmt *st;
	int rc;

	snprintf(sql, sizeof(sql),
		 "SELECT x.rowid, x.chain, x.%s, %s, pm.new_id, x.call_id "
		 "FROM s_rpc_calls x JOIN pmap pm ON pm.load_id = x.load_id "
		 "AND pm.proc_id = x.%s",
		 server ? "skel_start_event" : "stub_start_event",
		 server ? "x.tag = 'ok'" : "1",
		 server ? "server_proc_id" : "client_proc_id");
	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
		return db_fail(r, sql);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct side_key *k;
		const void *chain = sqlite3_column_blob(st, 1);

		if (s->n == s->cap) {
			size_t cap = s->cap ? 2 * s->cap : 1024;
			struct side_key *v = realloc(s->v, cap * sizeof(*v));

			if (!v) {
				sqlite3_finalize(st);
				return fail("out of memory");
			}
			s->v = v;
			s->cap = cap;
		}
		k = &s->v[s->n++];
		memset(k, 0, sizeof(*k));
		k->rowid = sqlite3_column_int64(st, 0);
		if (chain && sqlite3_column_bytes(st, 1) == DB_CHAIN_LEN)
			memcpy(k->chain, chain, DB_CHAIN_LEN);
		k->has_event = sqlite3_column_type(st, 2) != SQLITE_NULL &&
			       sqlite3_column_int(st, 3);
		k->event = sqlite3_column_int64(st, 2);
		k->proc = sqlite3_column_int64(st, 4);
		k->call_id = sqlite3_column_int64(st, 5);
		k->next = NONE;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_fail(r, "reading the calls");
	if (s->n)
		qsort(s->v, s->n, sizeof(*s->v), cmp_side);
	return 0;
}

static uint64_t key_hash(const uint8_t *chain, int64_t event)
{
	uint64_t h = 1469598103934665603ull;

	for (int i = 0; i < DB_CHAIN_LEN; i++)
		h = (h ^ chain[i]) * 1099511628211ull;
	return (h ^ (uint64_t)event) * 1099511628211ull;
}

/* The first server with s's key, by linear probing from its hash. */
static int32_t find_server(const struct hashmap *map, const struct sides *sv,
			   const uint8_t *chain, int64_t event, uint64_t *h)
{
	int32_t j;

	for (*h = key_hash(chain, event);; (*h)++) {
		if ((j = hashmap_get(map, *h)) < 0)
			return -1;
		if (!memcmp(sv->v[j].chain, chain, DB_CHAIN_LEN) &&
		    sv->v[j].event == event)
			return j;
	}
}

/* One row of pairs: client c and server s, as rowids (-1: none). */
static int add_pair(struct reader *r, sqlite3_stmt *st, int64_t c, int64_t s)
{
	if (c < 0)
		sqlite3_bind_null(st, 1);
	else
		sqlite3_bind_int64(st, 1, c);
	if (s < 0)
		sqlite3_bind_null(st, 2);
	else
		sqlite3_bind_int64(st, 2, s);
	if (sqlite3_step(st) != SQLITE_DONE)
		return db_fail(r, "pairs");
	sqlite3_reset(st);
	return 0;
}

/*
 * pairs(seq, c, s): the rows of rpc_calls in order, as rowids of staged
 * rows: each client side with the first unused server side of its key
 * (or none), then the server sides left alone.
 */
static int join_sides(struct reader *r, struct sides *cl, struct sides *sv)
{
	struct hashmap map = { 0 };
	uint32_t *tail = NULL;
	sqlite3_stmt *st = NULL;
	int ret = -1;

	if (exec(r, "DROP TABLE IF EXISTS pairs; CREATE TABLE pairs(seq "
		    "INTEGER PRIMARY KEY, c, s)"))
		return -1;
	tail = calloc(sv->n ? sv->n : 1, sizeof(*tail));
	if (!tail) {
		fail("out of memory");
		goto out;
	}
	for (size_t i = 0; i < sv->n; i++) {
		struct side_key *s = &sv->v[i];
		uint64_t h;
		int32_t j;

		if (!s->has_event)
			continue;
		j = find_server(&map, sv, s->chain, s->event, &h);
		if (j < 0) {
			if (hashmap_put(&map, h, (int32_t)i) < 0) {
				fail("out of memory");
				goto out;
			}
			tail[i] = (uint32_t)i;
		} else {
			sv->v[tail[j]].next = (uint32_t)i;
			tail[j] = (uint32_t)i;
		}
	}
	if (sqlite3_prepare_v2(r->db, "INSERT INTO pairs(c, s) VALUES(?, ?)",
			       -1, &st, NULL) != SQLITE_OK) {
		db_fail(r, "pairs");
		goto out;
	}
	for (size_t i = 0; i < cl->n; i++) {
		const struct side_key *c = &cl->v[i];
		uint32_t k = NONE;
		uint64_t h;

		if (c->has_event) {
			int32_t j = find_server(&map, sv, c->chain,
						c->event + 1, &h);

			for (k = j < 0 ? NONE : (uint32_t)j;
			     k != NONE && sv->v[k].used; k = sv->v[k].next)
				;
		}
		if (k != NONE)
			sv->v[k].used = true;
		if (add_pair(r, st, c->rowid, k != NONE ? sv->v[k].rowid : -1))
			goto out;
	}
	for (size_t i = 0; i < sv->n; i++)
		if (!sv->v[i].used && add_pair(r, st, -1, sv->v[i].rowid))
			goto out;
	ret = 0;
out:
	sqlite3_finalize(st);
	hashmap_release(&map);
	free(tail);
	return ret;
}

/* A column both sides have: the client's unless only the server started. */
static void shared_column(FILE *f, const char *name)
{
	fprintf(f,
		"CASE WHEN c.stub_start_event IS NOT NULL "
		"OR s.rowid IS NULL THEN c.%s ELSE s.%s END",
		name, name);
}

/* The rows of rpc_calls from the pairs. */
static int build_calls(struct reader *r)
{
	const struct db_table_def *d = &db_tables[DB_RPC_CALLS];
	struct sides cl = { 0 }, sv = { 0 };
	char *sql = NULL;
	size_t n;
	FILE *f;
	int ret = -1;

	if (read_sides(r, false, &cl) || read_sides(r, true, &sv) ||
	    join_sides(r, &cl, &sv))
		goto out;
	f = open_memstream(&sql, &n);
	if (!f) {
		fail("out of memory");
		goto out;
	}
	fputs("INSERT INTO rpc_calls SELECT ", f);
	for (int i = 0; i < d->ncols; i++) {
		const char *name = d->cols[i].name;

		fputs(i ? ", " : "", f);
		if (!strcmp(name, "call_id")) {
			/* in chain order, as merge numbers them
			 * (DB_META_CALLS_ORDER), pairs' order for ties */
			fputs("row_number() OVER (ORDER BY ", f);
			shared_column(f, "chain");
			fprintf(f,
				", coalesce(c.stub_start_event, "
				"s.skel_start_event, "
				"s.skel_end_event, c.stub_end_event), pr.seq) "
				"+ %lld",
				(long long)r->calls);
		} else if (!strcmp(name, "missing"))
			fputs("CASE WHEN pr.c IS NULL THEN 'client' WHEN pr.s "
			      "IS NULL THEN 'server' END",
			      f);
		else if (!strcmp(name, "client_proc_id"))
			fputs("pc.new_id", f);
		else if (!strcmp(name, "server_proc_id"))
			fputs("ps.new_id", f);
		else if (!strcmp(name, "xid"))
			/* the stub learns the xid only while encoding */
			fputs("coalesce(nullif(c.xid, 0), s.xid, c.xid)", f);
		else if (column_side(name) == SHARED)
			shared_column(f, name);
		else
			fprintf(f, "%s.%s",
				column_side(name) == CLIENT ? "c" : "s", name);
	}
	fputs(" FROM pairs pr"
	      " LEFT JOIN s_rpc_calls c ON c.rowid = pr.c"
	      " LEFT JOIN s_rpc_calls s ON s.rowid = pr.s"
	      " LEFT JOIN pmap pc ON pc.load_id = c.load_id"
	      "  AND pc.proc_id = c.client_proc_id"
	      " LEFT JOIN pmap ps ON ps.load_id = s.load_id"
	      "  AND ps.proc_id = s.server_proc_id"
	      ";"
	      "INSERT OR REPLACE INTO meta VALUES('" DB_META_CALLS_ORDER
	      "', '" DB_CALLS_ORDER_CHAIN "')",
	      f);
	ret = exec_built(r, f, &sql);
	if (!ret) { /* the next range's ids follow this one's */
		sqlite3_stmt *st;

		if (sqlite3_prepare_v2(r->db, "SELECT count(*) FROM rpc_calls",
				       -1, &st, NULL) != SQLITE_OK ||
		    sqlite3_step(st) != SQLITE_ROW) {
			sqlite3_finalize(st);
			ret = db_fail(r, "count the calls");
		} else {
			r->calls += sqlite3_column_int64(st, 0);
			sqlite3_finalize(st);
		}
	}
out:
	free(sql);
	free(cl.v);
	free(sv.v);
	return ret;
}

/* ---- the whole copy ---------------------------------------------------- */

static int create_schema(struct reader *r, unsigned what)
{
	char *sql = NULL;
	size_t n;
	FILE *f = open_memstream(&sql, &n);

	if (!f)
		return fail("out of memory");
	db_schema_write(f, what);
	return exec_built(r, f, &sql);
}

/* The copy; without calls, rpc_calls stays empty and nothing is staged
 * for it (ccsg_store_stream_next() does, range by range). */
static int copy_store(struct reader *r, bool calls)
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
	if (exec(r, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; "
		    "PRAGMA cache_size=-65536; BEGIN") ||
	    create_schema(r, DB_SQL_TABLES | DB_SQL_NO_RECORDS))
		return -1;
	for (int t = 0; t < DB_NTABLES; t++)
		if (db_ch_has_table(t) && (calls || t != DB_RPC_CALLS) &&
		    stage_table(r, t, NULL))
			return -1;
	if (exec(r, maps_sql) || build_files_hosts(r))
		return -1;
	for (int t = 0; t < DB_NTABLES; t++) {
		if (!db_ch_has_table(t) || t == DB_META || t == DB_FILES ||
		    t == DB_HOSTS || t == DB_RPC_CALLS)
			continue;
		if (build_table(r, t))
			return -1;
	}
	if (calls && build_calls(r))
		return -1;
	/* the staging tables stay: the copy lives as long as the command,
	 * and dropping 600 MB of them (1M calls) only costs time */
	if (create_schema(r, DB_SQL_INDEXES) || exec(r, "COMMIT"))
		return -1;
	return 0;
}

const char *ccsg_store_path(const char *db)
{
	struct reader r = { 0 };
	struct store_url u;
	char why[512];
	int failed;

	if (!store_is_url(db))
		return db;
	if (made.file.path[0] && !strcmp(made.url, db))
		return made.file.path;
	if (store_url_parse(db, &u, why, sizeof(why))) {
		fail("%s", why);
		return NULL;
	}
	tmp_file_remove(&made.file);
	/* removed at exit, and if the command is interrupted */
	if (tmp_file_make(&made.file, "causal-store", "trace.db"))
		return NULL;
	snprintf(made.url, sizeof(made.url), "%s", db);
	r.shown = u.shown;
	r.ch = ch_open(&u);
	if (!r.ch) {
		fail("out of memory");
		tmp_file_remove(&made.file);
		return NULL;
	}
	if (sqlite3_open(made.file.path, &r.db) != SQLITE_OK)
		failed = db_fail(&r, "open");
	else
		failed = copy_store(&r, true);
	sqlite3_close(r.db);
	ch_close(r.ch);
	if (failed) {
		tmp_file_remove(&made.file);
		return NULL;
	}
	return made.file.path;
}

/* ---- the calls, range of chains by range ------------------------------- */

/* Sides (rows of rpc_calls) staged at once: whole chains, or a range of
 * a longer chain.  A report of 100,000 calls from the store peaks at 23
 * MB one chain a range, 86 MB at 64 Ki sides, 129 MB all at once, in
 * about the same time: 16 Ki. */
#define BATCH_SIDES 16384
/* Chains asked for at once when choosing the ranges. */
#define PAGE_CHAINS 4096

/* The tests take smaller ranges and pages with CAUSAL_TEST_STORE_BATCH
 * (sides) and CAUSAL_TEST_STORE_PAGE (chains). */
static uint64_t test_size(const char *name, uint64_t size)
{
	const char *v = getenv(name);
	uint64_t n = v && *v ? strtoull(v, NULL, 10) : 0;

	return n && n <= size ? n : size;
}

/* The next chains and their sides: (chain, count) rows in RowBinary. */
struct chain_page {
	struct ch_client *ch;
	struct rb_buf buf;
	uint8_t (*id)[DB_CHAIN_LEN];
	uint64_t *sides;
	size_t n, next; /* chains in it, the first not read yet */
	size_t size;	/* chains asked for */
};

struct ccsg_store_stream {
	struct reader r;
	struct store_url u;
	struct chain_page pg;
	struct tmp_file file; /* its copy, removed when it closes */
	char share[96];	      /* " AND <the share's WHERE>", or "" */
	bool started;
	/* a chain of more sides than a range holds, read in ranges of
	 * ROW_KEY: the bounds between them, the next one's */
	bool splitting;
	int64_t *bound;
	size_t nbound, cap_bound, next_bound;
};

/*
 * Where a row of rpc_calls stands in its chain, for cutting a long chain
 * into ranges: its first event, a server side's skeleton start less one,
 * so that the two sides of a call (loaded apart) share it and land in
 * one range to be joined; -1 without any event.
 */
#define ROW_KEY                                                                \
	"coalesce(stub_start_event, skel_start_event - 1, skel_end_event, "    \
	"stub_end_event, -1)"

static int on_page(const char *p, size_t n, void *arg)
{
	struct chain_page *pg = arg;
	struct rb_reader rd;

	rb_put(&pg->buf, p, n);
	if (pg->buf.oom)
		return ch_fail(pg->ch, "out of memory");
	rd.p = pg->buf.p;
	rd.end = pg->buf.p + pg->buf.len;
	for (;;) {
		const unsigned char *at = rd.p, *id;
		size_t len;
		uint64_t count;

		if (rb_get_string(&rd, &id, &len) || rb_get_u64(&rd, &count)) {
			rd.p = at;
			break;
		}
		if (len != DB_CHAIN_LEN || pg->n >= pg->size)
			return ch_fail(pg->ch, "a chain id of %zu bytes", len);
		memcpy(pg->id[pg->n], id, DB_CHAIN_LEN);
		pg->sides[pg->n++] = count;
	}
	pg->buf.len = (size_t)(rd.end - rd.p);
	memmove(pg->buf.p, rd.p, pg->buf.len);
	return 0;
}

static void hex(char *out, const uint8_t *id)
{
	for (int i = 0; i < DB_CHAIN_LEN; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
}

/* The chains after the page's last, up to PAGE_CHAINS, in its place.
 * 0 or -1. */
static int next_page(struct ccsg_store_stream *s)
{
	struct chain_page *pg = &s->pg;
	char sql[512], after[2 * DB_CHAIN_LEN + 1] = "";

	if (pg->n)
		hex(after, pg->id[pg->n - 1]);
	snprintf(sql, sizeof(sql),
		 "SELECT chain, count() FROM rpc_calls "
		 "WHERE " CH_OF_FINISHED_LOADS
		 "%s%s%s%s GROUP BY chain ORDER BY "
		 "chain LIMIT %zu FORMAT RowBinary",
		 pg->n ? " AND chain > unhex('" : "", after, pg->n ? "')" : "",
		 s->share, pg->size);
	pg->n = pg->next = 0;
	if (ch_select(s->r.ch, sql, on_page, pg))
		return fail("%s", ch_error(s->r.ch));
	if (pg->buf.len)
		return fail(
			"%s: the list of chains ends in the middle of a row",
			s->r.shown);
	return 0;
}

const char *ccsg_store_stream_open(const char *db, unsigned share,
				   unsigned shares,
				   struct ccsg_store_stream **out)
{
	struct ccsg_store_stream *s;
	char why[512];

	*out = NULL;
	if (!(s = calloc(1, sizeof(*s))) ||
	    !(s->pg.id = malloc(PAGE_CHAINS * sizeof(*s->pg.id))) ||
	    !(s->pg.sides = malloc(PAGE_CHAINS * sizeof(*s->pg.sides)))) {
		fail("out of memory");
		ccsg_store_stream_close(s);
		return NULL;
	}
	if (store_url_parse(db, &s->u, why, sizeof(why))) {
		fail("%s", why);
		ccsg_store_stream_close(s);
		return NULL;
	}
	if (tmp_file_make(&s->file, "causal-store", "trace.db")) {
		ccsg_store_stream_close(s);
		return NULL;
	}
	if (shares > 1)
		snprintf(s->share, sizeof(s->share),
			 " AND " DB_CH_CHAIN_SHARD " %% %u = %u", shares,
			 share);
	s->r.shown = s->u.shown;
	s->pg.size = test_size("CAUSAL_TEST_STORE_PAGE", PAGE_CHAINS);
	s->pg.ch = s->r.ch = ch_open(&s->u);
	if (!s->r.ch) {
		fail("out of memory");
	} else if (sqlite3_open(s->file.path, &s->r.db) != SQLITE_OK) {
		db_fail(&s->r, "open");
	} else if (!copy_store(&s->r, false)) {
		*out = s;
		return s->file.path;
	}
	ccsg_store_stream_close(s);
	return NULL;
}

/*
 * The keys that cut chain id (hex) in ranges of batch rows, in one query
 * (the chain's keys sorted on the server, every batch-th kept), strictly
 * increasing: rows of one key (a call run many times) stay together.
 * 0, or -1 after fail().
 */
static int chain_bounds(struct ccsg_store_stream *s, const char *id,
			uint64_t batch)
{
	char sql[1024], *text, *p;

	snprintf(sql, sizeof(sql),
		 "SELECT arrayJoin(arrayFilter((x, i) -> i > 1 AND (i - 1) %% "
		 "%llu = 0, k, arrayEnumerate(k))) FROM (SELECT "
		 "arraySort(groupArray(" ROW_KEY
		 ")) AS k FROM rpc_calls WHERE " CH_OF_FINISHED_LOADS
		 " AND chain = unhex('%s')%s) FORMAT "
		 "TabSeparated",
		 (unsigned long long)batch, id, s->share);
	if (!(text = ch_select_text(s->r.ch, sql)))
		return fail("%s", ch_error(s->r.ch));
	s->nbound = s->next_bound = 0;
	for (p = text; *p;) {
		char *end;
		int64_t v = strtoll(p, &end, 10);

		if (end == p || (*end && *end != '\n')) {
			fail("%s: an answer that is not a list of numbers: "
			     "'%.40s'",
			     s->r.shown, p);
			free(text);
			return -1;
		}
		p = *end ? end + 1 : end;
		if (s->nbound && v <= s->bound[s->nbound - 1])
			continue;
		if (GROW(s->bound, s->cap_bound, s->nbound + 1)) {
			free(text);
			return fail("out of memory");
		}
		s->bound[s->nbound++] = v;
	}
	free(text);
	return 0;
}

/*
 * The next range of the long chain id, batch sides or so: into where.
 * The last one moves the page on.  0, or -1 after fail().
 */
static int chain_range(struct ccsg_store_stream *s, const uint8_t *id,
		       uint64_t batch, char *where, size_t len)
{
	char hexid[2 * DB_CHAIN_LEN + 1], from[160] = "", to[160] = "";
	size_t b;

	hex(hexid, id);
	if (!s->splitting) {
		if (chain_bounds(s, hexid, batch))
			return -1;
		s->splitting = true;
	}
	b = s->next_bound++;
	if (b)
		snprintf(from, sizeof(from), " AND " ROW_KEY " >= %lld",
			 (long long)s->bound[b - 1]);
	if (b < s->nbound)
		snprintf(to, sizeof(to), " AND " ROW_KEY " < %lld",
			 (long long)s->bound[b]);
	else { /* its last range */
		s->splitting = false;
		s->pg.next++;
	}
	snprintf(where, len, "chain = unhex('%s')%s%s%s", hexid, s->share, from,
		 to);
	return 0;
}

int ccsg_store_stream_next(struct ccsg_store_stream *s)
{
	struct chain_page *pg = &s->pg;
	char where[512], lo[2 * DB_CHAIN_LEN + 1], hi[2 * DB_CHAIN_LEN + 1];
	uint64_t sides = 0,
		 batch = test_size("CAUSAL_TEST_STORE_BATCH", BATCH_SIDES);
	size_t k;

	/* a page read to its end: the next, unless it was the last */
	if (pg->next == pg->n) {
		if (s->started && pg->n < pg->size)
			return 0;
		if (next_page(s))
			return -1;
		s->started = true;
		if (!pg->n)
			return 0;
	}
	if (s->splitting || pg->sides[pg->next] > batch) {
		/* a chain longer than a range: a range of it */
		if (chain_range(s, pg->id[pg->next], batch, where,
				sizeof(where)))
			return -1;
	} else {
		/* whole chains, up to BATCH_SIDES sides */
		for (k = pg->next; k < pg->n && sides + pg->sides[k] <= batch;
		     k++)
			sides += pg->sides[k];
		hex(lo, pg->id[pg->next]);
		hex(hi, pg->id[k - 1]);
		pg->next = k;
		snprintf(where, sizeof(where),
			 "chain >= unhex('%s') AND chain <= unhex('%s')%s", lo,
			 hi, s->share);
	}
	if (exec(&s->r, "BEGIN; DROP TABLE IF EXISTS s_rpc_calls; DELETE FROM "
			"rpc_calls") ||
	    stage_table(&s->r, DB_RPC_CALLS, where) || build_calls(&s->r) ||
	    exec(&s->r, "COMMIT"))
		return -1;
	return 1;
}

int ccsg_store_stream_monitored(struct ccsg_store_stream *s)
{
	/* every share's: the ids are those of the whole trace */
	s->r.calls = 0;
	return exec(&s->r, "BEGIN; DROP TABLE IF EXISTS s_rpc_calls; DELETE "
			   "FROM rpc_calls") ||
			       stage_table(&s->r, DB_RPC_CALLS, NULL) ||
			       build_calls(&s->r) || exec(&s->r, "COMMIT")
		       ? -1
		       : 0;
}

void ccsg_store_stream_close(struct ccsg_store_stream *s)
{
	if (!s)
		return;
	sqlite3_close(s->r.db);
	tmp_file_remove(&s->file);
	ch_close(s->r.ch);
	free(s->bound);
	free(s->pg.id);
	free(s->pg.sides);
	rb_release(&s->pg.buf);
	free(s);
}
