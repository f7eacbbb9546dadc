/*
 * trace.c - load a merged trace database into the arrays of trace.h.
 *
 * One query per table, its columns named by db-schema.h; rpc_calls is
 * read once, in call_id order, and sorted here by chain and by the first
 * event of each call, so that the DSCG scan (dscg.c) finds each chain's
 * calls together.  No per-call query: a million calls load in about a
 * second.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "array.h"
#include "causal/db-schema.h"
#include "causal/log-format.h"
#include "store-url.h"
#include "store.h"
#include "trace.h"
#include "usage.h"

/* The names the database stores for the log format's enums (enums.def). */
#define NAME_OF(constant, value, name) [value] = name,

const char *const ccsg_reply_names[CCSG_NREPLY] = { CAUSAL_VALUES_reply(
	NAME_OF) };
_Static_assert((int)CCSG_REPLY_SUCCESS == (int)CAUSAL_REPLY_SUCCESS &&
		       (int)CCSG_REPLY_DENIED == (int)CAUSAL_REPLY_DENIED &&
		       (int)CCSG_NREPLY == (int)CAUSAL_REPLY_DENIED + 1,
	       "enum ccsg_reply is enum causal_rpc_reply");

static const char *const marker_names[] = { CAUSAL_VALUES_marker(NAME_OF) };

/* Bounds of what the columns may hold: times and CPU in ns (146 years),
 * event numbers; process and host ids index dense arrays (tracedump
 * numbers them 1.. by file: 4 million is far more than a merge makes,
 * and keeps a crafted id from costing gigabytes). */
#define MAX_NS (INT64_C(1) << 62)
#define MAX_EVENT (INT64_C(1) << 62)
#define MAX_PROC (1 << 22)
#define MAX_HOST (1 << 22)
#define MAX_BYTES (INT64_C(1) << 62)

/*
 * Reading one table, row by row, with every value checked as it is read
 * (sqlite3_column_type: SQLite keeps whatever a column is given).  The
 * first bad value is reported, naming table, row and column; the caller
 * sees r->bad after the row and stops.  The rd_*() functions take a
 * column of the table (enum db_<table>_col), which at[] turns into a
 * column of the query.
 */
#define MAX_COLS 64

struct reader {
	sqlite3_stmt *st;
	const char *path, *table;
	char row[96];	 /* "call_id 17", or "" for "#3" (n) */
	int64_t call_id; /* rpc_calls: the row's, made text only */
	int has_call_id; /* for a message (2 snprintf a row: 9%) */
	/* rd_intern(): the last short string of each column and its index
	 * (a million calls name few strings, mostly the row before's) */
	struct {
		uint8_t ok, len;
		int32_t k;
		char s[40];
	} last[MAX_COLS];
	size_t n;			/* rows read */
	int bad;
	signed char at[MAX_COLS]; /* table column -> query column, -1 */
};

/* A value for a message: text quoted, cut and made printable. */
static const char *describe(struct reader *r, int col, char *buf, size_t len)
{
	int i = r->at[col];

	switch (sqlite3_column_type(r->st, i)) {
	case SQLITE_INTEGER:
		snprintf(buf, len, "%lld", (long long)sqlite3_column_int64(r->st, i));
		break;
	case SQLITE_FLOAT:
		snprintf(buf, len, "real %g", sqlite3_column_double(r->st, i));
		break;
	case SQLITE_BLOB:
		snprintf(buf, len, "a blob of %d bytes", sqlite3_column_bytes(r->st, i));
		break;
	case SQLITE_NULL:
		snprintf(buf, len, "NULL");
		break;
	default: {
		const unsigned char *s = sqlite3_column_text(r->st, i);
		size_t k = 0, n = 0;

		k += (size_t)snprintf(buf, len, "text '");
		for (; s && s[n] && n < 24 && k + 6 < len; n++)
			buf[k++] = s[n] >= 0x20 && s[n] < 0x7f && s[n] != '\'' ? (char)s[n] : '?';
		snprintf(buf + k, len - k, "%s'", s && s[n] ? "..." : "");
	}
	}
	return buf;
}

static void bad_value(struct reader *r, int col, const char *fmt, ...)
	CAUSAL_PRINTF(3, 4);
static void bad_value(struct reader *r, int col, const char *fmt, ...)
{
	char what[192];
	va_list ap;

	if (r->bad++)
		return;
	if (r->has_call_id)
		snprintf(r->row, sizeof(r->row), "call_id %lld",
			 (long long)r->call_id);
	else if (!r->row[0])
		snprintf(r->row, sizeof(r->row), "#%zu", r->n);
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	fail("'%s': table %s, row %s, column %s: %s", r->path, r->table, r->row,
	     sqlite3_column_name(r->st, r->at[col]), what);
}

/* An integer within [min, max]; NULL is CCSG_NONE when null_ok. */
static int64_t rd_int(struct reader *r, int col, int64_t min, int64_t max,
		      int null_ok)
{
	int i = r->at[col], type;
	sqlite3_value *val;
	char d[64];
	int64_t v;

	/* a column the database's version does not have: NULL */
	if (i < 0)
		return CCSG_NONE;
	/* one API call per value, then the value's own accessors (a third
	 * of a report's time went to sqlite3_column_type + _int64) */
	val = sqlite3_column_value(r->st, i);
	type = sqlite3_value_type(val);

	if (type == SQLITE_NULL) {
		if (!null_ok)
			bad_value(r, col, "NULL where a value is required");
		return CCSG_NONE;
	}
	if (type != SQLITE_INTEGER) {
		bad_value(r, col, "%s where an integer is expected",
			  describe(r, col, d, sizeof(d)));
		return CCSG_NONE;
	}
	v = sqlite3_value_int64(val);
	if (v < min || v > max) {
		bad_value(r, col, "%lld is out of range (%lld to %lld)",
			  (long long)v, (long long)min, (long long)max);
		return CCSG_NONE;
	}
	return v;
}

static int32_t rd_i32(struct reader *r, int col, int64_t min, int64_t max,
		      int32_t dflt)
{
	int64_t v = rd_int(r, col, min, max, 1);

	return v == CCSG_NONE ? dflt : (int32_t)v;
}

/* Text, or NULL (when null_ok). */
static const char *rd_text(struct reader *r, int col, int null_ok)
{
	int i = r->at[col], type;
	sqlite3_value *val;
	char d[64];

	if (i < 0)
		return NULL;
	val = sqlite3_column_value(r->st, i);
	type = sqlite3_value_type(val);
	if (type == SQLITE_NULL) {
		if (!null_ok)
			bad_value(r, col, "NULL where a value is required");
		return NULL;
	}
	if (type != SQLITE_TEXT) {
		bad_value(r, col, "%s where text is expected",
			  describe(r, col, d, sizeof(d)));
		return NULL;
	}
	return (const char *)sqlite3_value_text(val);
}

/* One of names[0..n), its index; -1 for NULL. */
static int rd_enum(struct reader *r, int col, const char *const *names, int n)
{
	const char *s = rd_text(r, col, 1);
	char d[64], list[160] = "";
	size_t k = 0;

	if (!s)
		return -1;
	for (int j = 0; j < n; j++)
		if (!strcmp(s, names[j]))
			return j;
	for (int j = 0; j < n && k < sizeof(list); j++)
		k += (size_t)snprintf(list + k, sizeof(list) - k, "%s%s", j ? ", " : "", names[j]);
	/* describe() says "text 'x'": the quotes are enough here */
	bad_value(r, col, "unknown value %s (expected %s)",
		  describe(r, col, d, sizeof(d)) + 5, list);
	return -1;
}

/*
 * Start reading columns cols[0..n) of table t, rows in the order tail
 * gives ("ORDER BY ..." or NULL); 0 or -1 after fail().
 */
static int rd_open(struct reader *r, sqlite3 *db, enum db_table t,
		   const int *cols, size_t n, const char *tail,
		   const char *path)
{
	char *sql = db_sql_select(t, cols, n, tail);
	int rc;

	memset(r, 0, sizeof(*r));
	memset(r->at, -1, sizeof(r->at));
	r->path = path;
	r->table = db_tables[t].name;
	for (size_t i = 0; i < n; i++)
		r->at[cols[i]] = (signed char)i;
	if (!sql)
		return fail("out of memory");
	rc = sqlite3_prepare_v2(db, sql, -1, &r->st, NULL);
	free(sql);
	if (rc != SQLITE_OK)
		return fail("cannot read '%s': %s", path, sqlite3_errmsg(db));
	return 0;
}

/* The next row: 1, or 0 at the end (or on an error: then r->bad). */
static int rd_next(struct reader *r, sqlite3 *db)
{
	int rc;

	if (r->bad)
		return 0;
	rc = sqlite3_step(r->st);
	if (rc == SQLITE_ROW) {
		r->row[0] = '\0';
		r->has_call_id = 0;
		r->n++;
		return 1;
	}
	if (rc != SQLITE_DONE) {
		r->bad = 1;
		fail("cannot read '%s': %s", r->path, sqlite3_errmsg(db));
	}
	return 0;
}

/* Finish a table: 0, or -1 when a value was bad. */
static int rd_close(struct reader *r)
{
	sqlite3_finalize(r->st);
	r->st = NULL;
	return r->bad ? -1 : 0;
}

static int nomem(struct reader *r)
{
	if (!r->bad++)
		fail("out of memory");
	return -1;
}

static uint64_t str_hash(const char *s)
{
	return hash_fnv(HASH_FNV_SEED, s, strlen(s));
}

int32_t ccsg_trace_intern(struct ccsg_trace *t, const char *s)
{
	uint64_t h = str_hash(s);
	int32_t i;

	/* Collisions move to the next key: at worst a short walk. */
	for (;; h++) {
		i = hashmap_get(&t->string_map, h);
		if (i < 0)
			break;
		if (!strcmp(t->strings[i], s))
			return i;
	}
	if (GROW(t->strings, t->cap_strings, t->nstrings + 1))
		return -ENOMEM;
	t->strings[t->nstrings] = strdup(s);
	if (!t->strings[t->nstrings])
		return -ENOMEM;
	if (hashmap_put(&t->string_map, h, (int32_t)t->nstrings) < 0)
		return -ENOMEM;
	return (int32_t)t->nstrings++;
}

int32_t ccsg_trace_thread(const struct ccsg_trace *t, int32_t proc, int32_t tid)
{
	return hashmap_get(&t->thread_map, hashmap_key2((uint32_t)proc, (uint32_t)tid));
}

int32_t ccsg_trace_host(const struct ccsg_trace *t, int32_t proc)
{
	if (proc <= 0 || (size_t)proc >= t->nprocs)
		return -1;
	return t->procs[proc].host;
}

/* A lowercase hex digit (tracedump writes them so) or -1. */
static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* meta.schema_version: digits only, else -1. */
static long parse_version(const char *s)
{
	long v = 0;

	if (!s || !*s || strlen(s) > 9)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (*s - '0');
	}
	return v;
}

int ccsg_db_has_table(sqlite3 *db, const char *name)
{
	sqlite3_stmt *st;
	int found;

	if (sqlite3_prepare_v2(db,
			       "SELECT 1 FROM sqlite_master WHERE type = "
			       "'table' AND name = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

/*
 * Is this a merged trace that ccsg reads?  Say what is wrong if not; its
 * schema version in *version.
 */
static int check_schema(sqlite3 *db, const char *path, int *schema_version)
{
	static const enum db_table need[] = { DB_HOSTS,	    DB_PROCESSES,
					      DB_THREADS,   DB_RPC_CALLS,
					      DB_RPC_SITES, DB_RPC_OBJECTS };
	sqlite3_stmt *st;
	char value[64] = "";
	int found = 0;
	long version;

	if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = 'schema_version'",
			       -1, &st, NULL) != SQLITE_OK) {
		if (sqlite3_errcode(db) == SQLITE_NOTADB)
			return fail("'%s' is not an SQLite database", path);
		return fail("'%s' is not a causal trace database (no meta table); "
			     "make one with 'tracedump merge DIR'", path);
	}
	if (sqlite3_step(st) == SQLITE_ROW) {
		const unsigned char *v = sqlite3_column_text(st, 0);

		found = 1;
		/* made printable: it goes into a one-line message */
		for (size_t i = 0; v && v[i] && i + 1 < sizeof(value); i++)
			value[i] = v[i] >= 0x20 && v[i] < 0x7f && v[i] != '\'' ? (char)v[i] : '?';
	}
	sqlite3_finalize(st);
	if (!found)
		return fail("'%s' is not a causal trace database (no schema version)", path);
	version = parse_version(value);
	if (version < 0)
		return fail("'%s': schema version '%s' is not a number", path, value);
	if (version < CCSG_SCHEMA_OLDEST)
		return fail("trace database '%s' has schema version %ld, without rpc tables; "
			     "merge the logs again with this tracedump", path, version);
	if (version > DB_SCHEMA_VERSION)
		return fail("trace database '%s' has schema version %ld, "
			    "which this ccsg does not know (it reads versions "
			    "%d to %d); use the ccsg of the tracedump that "
			    "merged it",
			    path, version, CCSG_SCHEMA_OLDEST,
			    DB_SCHEMA_VERSION);
	*schema_version = (int)version;
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		found = ccsg_db_has_table(db, db_tables[need[i]].name);
		if (found < 0)
			return fail("cannot read '%s': %s", path,
				    sqlite3_errmsg(db));
		if (!found)
			return fail("'%s' is not a causal trace database "
				    "(no table '%s')",
				    path, db_tables[need[i]].name);
	}
	return 0;
}

static int load_hosts(struct ccsg_trace *t, sqlite3 *db, int32_t **host_index, size_t *nindex)
{
	static const int cols[] = { DB_HOSTS_HOST_ID, DB_HOSTS_NAME };
	struct reader r;

	if (rd_open(&r, db, DB_HOSTS, cols, 2, "ORDER BY host_id", t->path))
		return -1;
	while (rd_next(&r, db)) {
		int64_t id = rd_int(&r, DB_HOSTS_HOST_ID, 0, MAX_HOST, 0);
		const char *name;
		size_t cap = t->nhosts;

		if (r.bad)
			break;
		snprintf(r.row, sizeof(r.row), "host_id %lld", (long long)id);
		if (!(name = rd_text(&r, DB_HOSTS_NAME, 0)))
			break;
		if ((size_t)id >= *nindex) {
			int32_t *p = realloc(*host_index, (id + 1) * sizeof(*p));

			if (!p)
				return nomem(&r), rd_close(&r);
			for (size_t i = *nindex; i <= (size_t)id; i++)
				p[i] = -1;
			*host_index = p;
			*nindex = id + 1;
		}
		if (GROW(t->hosts, cap, t->nhosts + 1) ||
		    !(t->hosts[t->nhosts] = strdup(name)))
			return nomem(&r), rd_close(&r);
		(*host_index)[id] = (int32_t)t->nhosts++;
	}
	return rd_close(&r);
}

static int load_procs(struct ccsg_trace *t, sqlite3 *db, const int32_t *host_index, size_t nindex)
{
	/* the last one from version 4 on */
	static const int cols[] = { DB_PROCESSES_PROC_ID, DB_PROCESSES_HOST_ID,
				    DB_PROCESSES_PID, DB_PROCESSES_EXE,
				    DB_PROCESSES_PEAK_HEAP_BYTES };
	struct reader r;

	if (rd_open(&r, db, DB_PROCESSES, cols, t->has_heap ? 5 : 4,
		    "ORDER BY proc_id", t->path))
		return -1;
	while (rd_next(&r, db)) {
		int64_t id = rd_int(&r, DB_PROCESSES_PROC_ID, 1, MAX_PROC, 0),
			h, peak;
		int32_t pid;
		const char *exe;

		if (r.bad)
			break;
		snprintf(r.row, sizeof(r.row), "proc_id %lld", (long long)id);
		h = rd_int(&r, DB_PROCESSES_HOST_ID, 0, INT64_MAX, 0);
		pid = rd_i32(&r, DB_PROCESSES_PID, 0, INT32_MAX, 0);
		exe = rd_text(&r, DB_PROCESSES_EXE, 1);
		peak = rd_int(&r, DB_PROCESSES_PEAK_HEAP_BYTES, 0, MAX_BYTES,
			      1);
		if (r.bad)
			break;
		if ((size_t)id >= t->nprocs) {
			struct ccsg_proc *p = realloc(t->procs, (id + 1) * sizeof(*p));

			if (!p)
				return nomem(&r), rd_close(&r);
			for (size_t i = t->nprocs; i <= (size_t)id; i++)
				p[i] = (struct ccsg_proc){ .host = -1 };
			t->procs = p;
			t->nprocs = id + 1;
		}
		/* a host_id without its hosts row is shown as '?' */
		t->procs[id].host = (uint64_t)h < nindex ? host_index[h] : -1;
		t->procs[id].pid = pid;
		t->procs[id].peak_heap = peak;
		t->procs[id].present = 1;
		if (exe && !(t->procs[id].exe = strdup(exe)))
			return nomem(&r), rd_close(&r);
		t->nproc_rows++;
	}
	return rd_close(&r);
}

static int load_threads(struct ccsg_trace *t, sqlite3 *db)
{
	static const int cols[] = { DB_THREADS_PROC_ID, DB_THREADS_TID,
				    DB_THREADS_PARENT_TID, DB_THREADS_MARKER,
				    DB_THREADS_START_MONO_NS,
				    DB_THREADS_END_MONO_NS, DB_THREADS_CPU_NS,
				    DB_THREADS_CTX_FUNCTION,
				    /* from version 4 on */
				    DB_THREADS_ALLOC_BYTES,
				    DB_THREADS_FREED_BYTES,
				    DB_THREADS_PEAK_HEAP_BYTES };
	const size_t ncols = sizeof(cols) / sizeof(cols[0]);
	struct reader r;
	size_t cap = 0;

	if (rd_open(&r, db, DB_THREADS, cols, t->has_heap ? ncols : ncols - 3,
		    "ORDER BY proc_id, tid", t->path))
		return -1;
	while (rd_next(&r, db)) {
		struct ccsg_thread th;

		/* padding too: suites compare loaded threads with memcmp */
		memset(&th, 0, sizeof(th));
		th.parent_thread = th.spawn_call = -1;
		th.proc =
			(int32_t)rd_int(&r, DB_THREADS_PROC_ID, 1, MAX_PROC, 0);
		th.tid = (int32_t)rd_int(&r, DB_THREADS_TID, 0, INT32_MAX, 0);
		if (r.bad)
			break;
		snprintf(r.row, sizeof(r.row), "proc_id %d, tid %d", th.proc, th.tid);
		th.parent_tid =
			rd_i32(&r, DB_THREADS_PARENT_TID, 0, INT32_MAX, 0);
		th.infra = rd_enum(&r, DB_THREADS_MARKER, marker_names,
				   sizeof(marker_names) /
					   sizeof(marker_names[0])) ==
			   CAUSAL_MARKER_INFRA;
		th.start_mono_ns =
			rd_int(&r, DB_THREADS_START_MONO_NS, 0, MAX_NS, 1);
		th.end_mono_ns =
			rd_int(&r, DB_THREADS_END_MONO_NS, 0, MAX_NS, 1);
		th.cpu_ns = rd_int(&r, DB_THREADS_CPU_NS, 0, MAX_NS, 1);
		th.ctx_function =
			rd_int(&r, DB_THREADS_CTX_FUNCTION, 0, INT64_MAX, 1);
		th.heap[0] =
			rd_int(&r, DB_THREADS_ALLOC_BYTES, 0, MAX_BYTES, 1);
		th.heap[1] =
			rd_int(&r, DB_THREADS_FREED_BYTES, 0, MAX_BYTES, 1);
		th.heap_peak = rd_int(&r, DB_THREADS_PEAK_HEAP_BYTES,
				      -MAX_BYTES, MAX_BYTES, 1);
		if (r.bad)
			break;
		if (GROW(t->threads, cap, t->nthreads + 1))
			return nomem(&r), rd_close(&r);
		t->threads[t->nthreads] = th;
		if (hashmap_put(&t->thread_map, hashmap_key2(th.proc, th.tid),
				 (int32_t)t->nthreads) < 0)
			return nomem(&r), rd_close(&r);
		t->nthreads++;
	}
	return rd_close(&r);
}

static int load_sites_objects(struct ccsg_trace *t, sqlite3 *db)
{
	static const int site_cols[] = { DB_RPC_SITES_PROC_ID,
					 DB_RPC_SITES_SITE_ID,
					 DB_RPC_SITES_SYMBOL,
					 DB_RPC_SITES_MODULE };
	static const int object_cols[] = { DB_RPC_OBJECTS_PROC_ID,
					   DB_RPC_OBJECTS_OBJECT_ID,
					   DB_RPC_OBJECTS_ADDRESS };
	struct reader r;
	size_t cap = 0;

	if (rd_open(&r, db, DB_RPC_SITES, site_cols, 4, NULL, t->path))
		return -1;
	while (rd_next(&r, db)) {
		int64_t proc = rd_int(&r, DB_RPC_SITES_PROC_ID, 0, MAX_PROC, 0);
		int64_t site = rd_int(&r, DB_RPC_SITES_SITE_ID, INT64_MIN + 1,
				      INT64_MAX, 0);
		const char *sym, *mod;
		int32_t i;

		if (r.bad)
			break;
		snprintf(r.row, sizeof(r.row), "proc_id %lld, site_id %lld", (long long)proc,
			 (long long)site);
		sym = rd_text(&r, DB_RPC_SITES_SYMBOL, 1);
		mod = rd_text(&r, DB_RPC_SITES_MODULE, 1);
		if (r.bad)
			break;
		if (!sym)
			continue;
		if ((i = ccsg_trace_intern(t, sym)) < 0 || GROW(t->sites, cap, t->nsites + 1))
			return nomem(&r), rd_close(&r);
		t->sites[t->nsites].proc = (int32_t)proc;
		t->sites[t->nsites].symbol = i;
		/* libtirpc's own clients (rpcbind queries...) are runtime. */
		t->sites[t->nsites].tirpc = mod && strstr(mod, "libtirpc.so");
		t->nsites++;
	}
	if (rd_close(&r))
		return -1;
	cap = 0;
	if (rd_open(&r, db, DB_RPC_OBJECTS, object_cols, 3, NULL, t->path))
		return -1;
	while (rd_next(&r, db)) {
		struct ccsg_object o;
		const char *a;

		o.proc = (int32_t)rd_int(&r, DB_RPC_OBJECTS_PROC_ID, 0,
					 MAX_PROC, 0);
		if (r.bad)
			break;
		snprintf(r.row, sizeof(r.row), "proc_id %d", o.proc);
		o.object_id = (int32_t)rd_int(&r, DB_RPC_OBJECTS_OBJECT_ID, 0,
					      INT32_MAX, 0);
		a = rd_text(&r, DB_RPC_OBJECTS_ADDRESS, 1);
		if (r.bad)
			break;
		o.address = NULL;
		if (GROW(t->objects, cap, t->nobjects + 1) || (a && !(o.address = strdup(a))))
			return nomem(&r), rd_close(&r);
		t->objects[t->nobjects++] = o;
	}
	return rd_close(&r);
}

int ccsg_call_failed(const struct ccsg_call *c)
{
	if (c->status >= 0)
		return c->status != CCSG_RPC_SUCCESS &&
		       !(c->one_way && c->status == CCSG_RPC_TIMEDOUT);
	return c->reply >= 0 && c->reply != CCSG_REPLY_SUCCESS && c->reply != CCSG_REPLY_NONE;
}

/* The rpc_calls columns ccsg reads. */
static const int call_cols[] = {
	DB_RPC_CALLS_CALL_ID,
	DB_RPC_CALLS_CHAIN,
	DB_RPC_CALLS_PROG,
	DB_RPC_CALLS_VERS,
	DB_RPC_CALLS_PROC,
	DB_RPC_CALLS_ONE_WAY,
	DB_RPC_CALLS_CLIENT_PROC_ID,
	DB_RPC_CALLS_CLIENT_TID,
	DB_RPC_CALLS_SITE_SYMBOL,
	DB_RPC_CALLS_PEER,
	DB_RPC_CALLS_STUB_START_EVENT,
	DB_RPC_CALLS_STUB_START_NS,
	DB_RPC_CALLS_STUB_START_CPU_NS,
	DB_RPC_CALLS_STUB_END_EVENT,
	DB_RPC_CALLS_STUB_END_EXIT_NS,
	DB_RPC_CALLS_STUB_END_CPU_NS,
	DB_RPC_CALLS_SERVER_PROC_ID,
	DB_RPC_CALLS_SERVER_TID,
	DB_RPC_CALLS_SERVER_FUNCTION_ID,
	DB_RPC_CALLS_OBJECT_ID,
	DB_RPC_CALLS_SKEL_START_EVENT,
	DB_RPC_CALLS_SKEL_START_EXIT_NS,
	DB_RPC_CALLS_SKEL_START_CPU_NS,
	DB_RPC_CALLS_SKEL_END_EVENT,
	DB_RPC_CALLS_SKEL_END_NS,
	DB_RPC_CALLS_SKEL_END_CPU_NS,
	DB_RPC_CALLS_MISSING,
	DB_RPC_CALLS_STATUS,
	DB_RPC_CALLS_STATUS_NAME,
	DB_RPC_CALLS_ARGS_BYTES,
	DB_RPC_CALLS_RESULTS_BYTES,
	DB_RPC_CALLS_REPLY_TAG,
	DB_RPC_CALLS_SERVER_ARGS_BYTES,
	DB_RPC_CALLS_SERVER_RESULTS_BYTES,
	DB_RPC_CALLS_REPLY,
	DB_RPC_CALLS_TAG,
	DB_RPC_CALLS_TRANSPORT,
	/* from version 4 on (CALL_HEAP_COLS) */
	DB_RPC_CALLS_STUB_ALLOC_BYTES,
	DB_RPC_CALLS_STUB_FREED_BYTES,
	DB_RPC_CALLS_SKEL_ALLOC_BYTES,
	DB_RPC_CALLS_SKEL_FREED_BYTES,
};
#define CALL_HEAP_COLS 4

/*
 * The order of trace.calls: by chain, then by the first event of the
 * call (SQL: coalesce(stub_start_event, skel_start_event, skel_end_event,
 * stub_end_event), NULL first), then call_id.  The rows are read in
 * call_id order (the table's own, no sort) and sorted here: SQLite's
 * ORDER BY walked the chain index and fetched each row from it (1M calls:
 * 5 s against 0.3 s).
 */
struct call_key {
	uint32_t chain; /* rank of the chain id among the distinct ones */
	uint32_t index; /* into the calls as read */
	int64_t event;	/* CCSG_NONE (INT64_MIN) for NULL: first */
	int64_t call_id;
};

/* An optional string column interned: its index, -1 for NULL, -2 after an error. */
static int32_t rd_intern(struct reader *r, struct ccsg_trace *t, int col)
{
	const char *s = rd_text(r, col, 1);
	size_t len;
	int32_t k;

	if (!s)
		return r->bad ? -2 : -1;
	len = strlen(s);
	if (r->last[col].ok && r->last[col].len == len &&
	    !memcmp(r->last[col].s, s, len))
		return r->last[col].k;
	if ((k = ccsg_trace_intern(t, s)) < 0) {
		nomem(r);
		return -2;
	}
	r->last[col].ok = len < sizeof(r->last[col].s);
	if (r->last[col].ok) {
		r->last[col].len = (uint8_t)len;
		r->last[col].k = k;
		memcpy(r->last[col].s, s, len);
	}
	return k;
}

/* The columns of one probe of a call: event, time, CPU. */
static void rd_probe(struct reader *r, struct ccsg_call *c, int kind,
		     int event_col, int ns_col, int64_t *ns, int cpu_col)
{
	c->ev[kind] = rd_int(r, event_col, 0, MAX_EVENT, 1);
	*ns = rd_int(r, ns_col, 0, MAX_NS, 1);
	c->cpu[kind] = rd_int(r, cpu_col, 0, MAX_NS, 1);
}

static int read_call(struct reader *r, struct ccsg_trace *t, struct ccsg_call *c)
{
	/* by enum ccsg_missing - 1 */
	static const char *const missing[] = { DB_MISSING_SERVER,
					       DB_MISSING_CLIENT };
	int64_t prog, vers, proc, v;

	memset(c, 0, sizeof(*c));
	prog = rd_int(r, DB_RPC_CALLS_PROG, 0, UINT32_MAX, 1);
	vers = rd_int(r, DB_RPC_CALLS_VERS, 0, UINT32_MAX, 1);
	proc = rd_int(r, DB_RPC_CALLS_PROC, 0, UINT32_MAX, 1);
	v = rd_int(r, DB_RPC_CALLS_ONE_WAY, 0, 1, 1);
	c->one_way = v == 1;
	c->client_proc = rd_i32(r, DB_RPC_CALLS_CLIENT_PROC_ID, 1, MAX_PROC, 0);
	c->client_tid = rd_i32(r, DB_RPC_CALLS_CLIENT_TID, 0, INT32_MAX, 0);
	c->symbol = rd_intern(r, t, DB_RPC_CALLS_SITE_SYMBOL);
	c->peer = rd_intern(r, t, DB_RPC_CALLS_PEER);
	rd_probe(r, c, CCSG_STUB_START, DB_RPC_CALLS_STUB_START_EVENT,
		 DB_RPC_CALLS_STUB_START_NS, &c->stub_start_ns,
		 DB_RPC_CALLS_STUB_START_CPU_NS);
	rd_probe(r, c, CCSG_STUB_END, DB_RPC_CALLS_STUB_END_EVENT,
		 DB_RPC_CALLS_STUB_END_EXIT_NS, &c->stub_end_exit_ns,
		 DB_RPC_CALLS_STUB_END_CPU_NS);
	c->server_proc = rd_i32(r, DB_RPC_CALLS_SERVER_PROC_ID, 1, MAX_PROC, 0);
	c->server_tid = rd_i32(r, DB_RPC_CALLS_SERVER_TID, 0, INT32_MAX, 0);
	c->server_function_id =
		rd_int(r, DB_RPC_CALLS_SERVER_FUNCTION_ID, 0, INT64_MAX, 1);
	c->object_id = rd_i32(r, DB_RPC_CALLS_OBJECT_ID, 0, INT32_MAX, -1);
	rd_probe(r, c, CCSG_SKEL_START, DB_RPC_CALLS_SKEL_START_EVENT,
		 DB_RPC_CALLS_SKEL_START_EXIT_NS, &c->skel_start_exit_ns,
		 DB_RPC_CALLS_SKEL_START_CPU_NS);
	rd_probe(r, c, CCSG_SKEL_END, DB_RPC_CALLS_SKEL_END_EVENT,
		 DB_RPC_CALLS_SKEL_END_NS, &c->skel_end_ns,
		 DB_RPC_CALLS_SKEL_END_CPU_NS);
	c->missing =
		(uint8_t)(rd_enum(r, DB_RPC_CALLS_MISSING, missing, 2) + 1);
	c->status = rd_i32(r, DB_RPC_CALLS_STATUS, 0, INT32_MAX, -1);
	c->status_name = rd_intern(r, t, DB_RPC_CALLS_STATUS_NAME);
	c->args_bytes = rd_int(r, DB_RPC_CALLS_ARGS_BYTES, 0, INT64_MAX, 1);
	c->results_bytes =
		rd_int(r, DB_RPC_CALLS_RESULTS_BYTES, 0, INT64_MAX, 1);
	c->reply_tag = rd_intern(r, t, DB_RPC_CALLS_REPLY_TAG);
	c->server_args_bytes =
		rd_int(r, DB_RPC_CALLS_SERVER_ARGS_BYTES, 0, INT64_MAX, 1);
	c->server_results_bytes =
		rd_int(r, DB_RPC_CALLS_SERVER_RESULTS_BYTES, 0, INT64_MAX, 1);
	c->reply = (int8_t)rd_enum(r, DB_RPC_CALLS_REPLY, ccsg_reply_names,
				   CCSG_NREPLY);
	c->tag = rd_intern(r, t, DB_RPC_CALLS_TAG);
	c->transport = rd_intern(r, t, DB_RPC_CALLS_TRANSPORT);
	c->stub_heap[0] =
		rd_int(r, DB_RPC_CALLS_STUB_ALLOC_BYTES, 0, MAX_BYTES, 1);
	c->stub_heap[1] =
		rd_int(r, DB_RPC_CALLS_STUB_FREED_BYTES, 0, MAX_BYTES, 1);
	c->skel_heap[0] =
		rd_int(r, DB_RPC_CALLS_SKEL_ALLOC_BYTES, 0, MAX_BYTES, 1);
	c->skel_heap[1] =
		rd_int(r, DB_RPC_CALLS_SKEL_FREED_BYTES, 0, MAX_BYTES, 1);
	if (r->bad)
		return -1;
	/* the start probes give the numbers: without one, the function is
	 * unknown (its record was dropped) */
	c->lost = c->ev[CCSG_STUB_START] == CCSG_NONE && c->ev[CCSG_SKEL_START] == CCSG_NONE;
	if (!c->lost && (prog == CCSG_NONE || vers == CCSG_NONE || proc == CCSG_NONE)) {
		bad_value(r,
			  prog == CCSG_NONE   ? DB_RPC_CALLS_PROG
			  : vers == CCSG_NONE ? DB_RPC_CALLS_VERS
					      : DB_RPC_CALLS_PROC,
			  "NULL although the call has a start probe");
		return -1;
	}
	if (!c->lost) {
		c->prog = (uint32_t)prog;
		c->vers = (uint32_t)vers;
		c->proc = (uint32_t)proc;
	}
	if (c->status >= 0 && c->status_name < 0) {
		char name[32];

		snprintf(name, sizeof(name), "clnt_stat %d", c->status);
		if ((c->status_name = ccsg_trace_intern(t, name)) < 0)
			return nomem(r);
	}
	c->failed = (uint8_t)ccsg_call_failed(c);
	c->parent = -1;
	c->depth = 1;
	return 0;
}

/*
 * The chain id: 20 bytes, a BLOB (schema version 3) or 40 lowercase hex
 * digits of TEXT (version 2, read on purpose: the same ids, in the same
 * order).
 */
static int read_chain(struct reader *r, int version, uint8_t id[DB_CHAIN_LEN])
{
	int i = r->at[DB_RPC_CALLS_CHAIN];
	const char *s, *what = "40 lowercase hex digits";
	char d[64];

	if (version >= 3) {
		if (sqlite3_column_type(r->st, i) == SQLITE_BLOB &&
		    sqlite3_column_bytes(r->st, i) == DB_CHAIN_LEN) {
			memcpy(id, sqlite3_column_blob(r->st, i), DB_CHAIN_LEN);
			return 0;
		}
		what = "a blob of 20 bytes";
	} else if ((s = rd_text(r, DB_RPC_CALLS_CHAIN, 0))) {
		int k = 0;

		for (; k < DB_CHAIN_LEN && hexval(s[2 * k]) >= 0 &&
		       hexval(s[2 * k + 1]) >= 0;
		     k++)
			id[k] = (uint8_t)(hexval(s[2 * k]) << 4 |
					  hexval(s[2 * k + 1]));
		if (k == DB_CHAIN_LEN && !s[2 * k])
			return 0;
	}
	if (!r->bad)
		bad_value(r, DB_RPC_CALLS_CHAIN, "%s is not a chain id (%s)",
			  describe(r, DB_RPC_CALLS_CHAIN, d, sizeof(d)), what);
	return -1;
}

/* coalesce(stub_start_event, skel_start_event, skel_end_event,
 * stub_end_event): CCSG_NONE when all four are NULL */
static int64_t first_event(const struct ccsg_call *c)
{
	static const enum ccsg_probe order[] = { CCSG_STUB_START,
						 CCSG_SKEL_START, CCSG_SKEL_END,
						 CCSG_STUB_END };

	for (size_t i = 0; i < 4; i++)
		if (c->ev[order[i]] != CCSG_NONE)
			return c->ev[order[i]];
	return CCSG_NONE;
}

static int cmp_key(const void *a, const void *b)
{
	const struct call_key *x = a, *y = b;

	if (x->chain != y->chain)
		return x->chain < y->chain ? -1 : 1;
	if (x->event != y->event)
		return x->event < y->event ? -1 : 1;
	if (x->call_id != y->call_id)
		return x->call_id < y->call_id ? -1 : 1;
	return 0;
}

/* Distinct chain ids, as first seen, then ranked by their bytes. */
struct chain_set {
	uint8_t (*id)[DB_CHAIN_LEN];
	size_t n, cap;
	struct hashmap map; /* hash of the id -> index */
	uint32_t *rank;	    /* index -> rank in byte order */
};

static int64_t chain_set_add(struct chain_set *cs, const uint8_t *id)
{
	uint64_t h = hash_fnv(HASH_FNV_SEED, id, DB_CHAIN_LEN);
	int32_t i;

	/* collisions move to the next key: at worst a short walk */
	for (;; h++) {
		if ((i = hashmap_get(&cs->map, h)) < 0)
			break;
		if (!memcmp(cs->id[i], id, DB_CHAIN_LEN))
			return i;
	}
	if (cs->n >= INT32_MAX || GROW(cs->id, cs->cap, cs->n + 1) ||
	    hashmap_put(&cs->map, h, (int32_t)cs->n) < 0)
		return -ENOMEM;
	memcpy(cs->id[cs->n], id, DB_CHAIN_LEN);
	return (int64_t)cs->n++;
}

static const struct chain_set *sort_set;

static int cmp_chain(const void *a, const void *b)
{
	return memcmp(sort_set->id[*(const uint32_t *)a],
		      sort_set->id[*(const uint32_t *)b], DB_CHAIN_LEN);
}

/* Rank the distinct chain ids by their bytes: 0 or -ENOMEM. */
static int chain_set_rank(struct chain_set *cs)
{
	uint32_t *order = malloc((cs->n + 1) * sizeof(*order));

	if (!order || !(cs->rank = malloc((cs->n + 1) * sizeof(*cs->rank)))) {
		free(order);
		return -ENOMEM;
	}
	for (size_t i = 0; i < cs->n; i++)
		order[i] = (uint32_t)i;
	sort_set = cs;
	qsort(order, cs->n, sizeof(*order), cmp_chain);
	sort_set = NULL;
	for (size_t i = 0; i < cs->n; i++)
		cs->rank[order[i]] = (uint32_t)i;
	free(order);
	return 0;
}

static void chain_set_release(struct chain_set *cs)
{
	free(cs->id);
	free(cs->rank);
	hashmap_release(&cs->map);
}

/*
 * Put the calls in key order: calls[i] becomes the call key[i] names,
 * moved along the permutation's cycles (no second array of calls).
 */
static void permute_calls(struct ccsg_trace *t, struct call_key *key)
{
	for (size_t i = 0; i < t->ncalls; i++) {
		struct ccsg_call tmp;
		size_t j = i;

		if (key[i].index == i)
			continue;
		tmp = t->calls[i];
		while (key[j].index != i) {
			size_t k = key[j].index;

			t->calls[j] = t->calls[k];
			key[j].index = (uint32_t)j;
			j = k;
		}
		t->calls[j] = tmp;
		key[j].index = (uint32_t)j;
	}
}

/*
 * Whether the client_mon and server_mon values read so far (text, NULL
 * aside) are all one: *first holds it (malloc'd), *mixed says not.
 */
static int note_mon(struct reader *r, int col, char **first, int *mixed)
{
	int i = r->at[col];
	const unsigned char *s;

	if (i < 0 || *mixed || sqlite3_column_type(r->st, i) == SQLITE_NULL)
		return 0;
	s = sqlite3_column_text(r->st, i);
	if (!s)
		return nomem(r);
	if (!*first)
		return (*first = strdup((const char *)s)) ? 0 : nomem(r);
	*mixed = strcmp(*first, (const char *)s) != 0;
	return 0;
}

static int load_calls(struct ccsg_trace *t, sqlite3 *db, int with_mon,
		      int *mon_mixed)
{
	size_t ncols = sizeof(call_cols) / sizeof(call_cols[0]) -
		       (t->has_heap ? 0 : CALL_HEAP_COLS);
	int cols[sizeof(call_cols) / sizeof(call_cols[0]) + 2];
	size_t cap = 0, kcap = 0, ccap = 0;
	struct chain_set cs = { 0 };
	struct call_key *key = NULL;
	char *mon = NULL;
	struct reader r;
	int ret = -1;

	memcpy(cols, call_cols, sizeof(call_cols));
	if (with_mon) {
		cols[ncols++] = DB_RPC_CALLS_CLIENT_MON;
		cols[ncols++] = DB_RPC_CALLS_SERVER_MON;
	}
	*mon_mixed = 0;
	if (rd_open(&r, db, DB_RPC_CALLS, cols, ncols, "ORDER BY call_id",
		    t->path))
		return -1;
	while (rd_next(&r, db)) {
		int64_t id = rd_int(&r, DB_RPC_CALLS_CALL_ID, INT64_MIN + 1,
				    INT64_MAX, 0);
		struct ccsg_call *c;
		uint8_t cid[DB_CHAIN_LEN];
		int64_t chain;

		if (r.bad)
			break;
		r.call_id = id;
		r.has_call_id = 1;
		if (read_chain(&r, t->schema_version, cid))
			break;
		if (t->ncalls >= INT32_MAX ||
		    GROW(t->calls, cap, t->ncalls + 1) ||
		    GROW(key, kcap, t->ncalls + 1) ||
		    (chain = chain_set_add(&cs, cid)) < 0) {
			nomem(&r);
			break;
		}
		c = &t->calls[t->ncalls];
		if (read_call(&r, t, c) ||
		    note_mon(&r, DB_RPC_CALLS_CLIENT_MON, &mon, mon_mixed) ||
		    note_mon(&r, DB_RPC_CALLS_SERVER_MON, &mon, mon_mixed))
			break;
		c->call_id = id;
		c->chain = (int32_t)chain;
		key[t->ncalls] =
			(struct call_key){ (uint32_t)chain, (uint32_t)t->ncalls,
					   first_event(c), id };
		t->ncalls++;
	}
	if (rd_close(&r))
		goto out;
	if (chain_set_rank(&cs)) {
		fail("out of memory");
		goto out;
	}
	for (size_t i = 0; i < t->ncalls; i++)
		key[i].chain = cs.rank[key[i].chain];
	if (t->ncalls)
		qsort(key, t->ncalls, sizeof(*key), cmp_key);
	permute_calls(t, key);
	/* the chains in order, each with its run of calls */
	for (size_t i = 0; i < t->ncalls; i++) {
		if (!i || key[i].chain != key[i - 1].chain) {
			struct ccsg_chain *ch;

			if (GROW(t->chains, ccap, t->nchains + 1)) {
				fail("out of memory");
				goto out;
			}
			ch = &t->chains[t->nchains++];
			memset(ch, 0, sizeof(*ch));
			ch->first = (int32_t)i;
			ch->owner = -1;
			memcpy(ch->id, cs.id[t->calls[i].chain], DB_CHAIN_LEN);
		}
		t->chains[t->nchains - 1].n++;
		t->calls[i].chain = (int32_t)t->nchains - 1;
	}
	ret = 0;
out:
	free(mon);
	free(key);
	chain_set_release(&cs);
	return ret;
}

/* Open the database at given (or a store's copy) and load everything but
 * the calls; *db open on success.  0, or -1 after fail() with t released. */
static int open_trace(struct ccsg_trace *t, const char *given, const char *path,
		      sqlite3 **db, int *with_mon)
{
	int32_t *host_index = NULL;
	size_t nindex = 0;
	struct stat sb;
	int ret = -1;

	*db = NULL;
	if (!path)
		return -1;
	if (stat(path, &sb))
		return fail("cannot open trace database '%s': %s", path, strerror(errno));
	if (!S_ISREG(sb.st_mode))
		return fail("'%s' is not a trace database file", path);
	if (sqlite3_open_v2(path, db,
			    SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK) {
		fail("cannot open trace database '%s': %s", path,
		     sqlite3_errmsg(*db));
		goto out;
	}
	t->path = strdup(given);
	t->file = strdup(path);
	if (!t->path || !t->file || check_schema(*db, path, &t->schema_version))
		goto out;
	t->has_heap = t->schema_version >= CCSG_SCHEMA_HEAP;
	/* the monitoring columns come with monitor_switches */
	*with_mon = ccsg_db_has_table(*db, "monitor_switches") > 0;
	if (load_hosts(t, *db, &host_index, &nindex) ||
	    load_procs(t, *db, host_index, nindex) || load_threads(t, *db) ||
	    load_sites_objects(t, *db))
		goto out;
	if (t->nproc_rows)
		ret = 0;
	else
		fail("trace database '%s' is empty: no processes were traced", path);
out:
	free(host_index);
	if (ret) {
		sqlite3_close(*db);
		*db = NULL;
		ccsg_trace_release(t);
	}
	return ret;
}

int ccsg_trace_load(struct ccsg_trace *t, const char *given)
{
	int with_mon, mon_mixed;
	sqlite3 *db;
	int ret = -1;

	memset(t, 0, sizeof(*t));
	/* a store URL: its copy as an SQLite file */
	if (open_trace(t, given, store_sqlite_path(given), &db, &with_mon))
		return -1;
	if (!load_calls(t, db, with_mon, &mon_mixed) &&
	    !ccsg_monitoring_load_cuts(&t->mon, db, mon_mixed, NULL))
		ret = 0;
	sqlite3_close(db);
	if (ret)
		ccsg_trace_release(t);
	return ret;
}

/* Does meta say call_id follows chain order (DB_META_CALLS_ORDER)? */
static int calls_in_chain_order(sqlite3 *db)
{
	sqlite3_stmt *st;
	int yes = 0;

	if (sqlite3_prepare_v2(
		    db,
		    "SELECT value FROM meta WHERE key = '" DB_META_CALLS_ORDER
		    "'",
		    -1, &st, NULL) != SQLITE_OK)
		return 0;
	if (sqlite3_step(st) == SQLITE_ROW)
		yes = !strcmp((const char *)sqlite3_column_text(st, 0) ?: "",
			      DB_CALLS_ORDER_CHAIN);
	sqlite3_finalize(st);
	return yes;
}

/* A trace read chain by chain (ccsg_trace_open()). */
struct ccsg_stream {
	struct store_stream *store; /* a store's calls, range by range */
	sqlite3 *db;
	struct reader r;
	int with_mon, mon_mixed;
	char *mon;
	int ordered;	    /* call_id order is chain order: checked */
	char share[64];	    /* an SQLite share's chains: SQL on rpc_calls */
	int store_share;    /* a share of a store's chains */
	int64_t prev_event; /* the first event of the row before */
	int have_row;	    /* r is on the first row of the next chain */
	int last;	    /* r has no row left (a step more restarts it) */
	int done;
	uint8_t next[DB_CHAIN_LEN]; /* that row's chain, call_id, first event */
	int64_t next_id, next_first;
	int chain_over;	   /* the pending row begins a chain */
	int in_chain;	   /* a call of the chain was read */
	int64_t max_event; /* the chain's latest event read */
	size_t cap_calls;
};

/* causal_shard(chain): the key that shares an SQLite trace's chains
 * among workers (FNV-1a of the id's bytes, as an SQLite integer >= 0). */
static void shard_of_chain(sqlite3_context *ctx, int argc, sqlite3_value **v)
{
	const void *p = sqlite3_value_blob(v[0]);
	size_t n = p ? (size_t)sqlite3_value_bytes(v[0]) : 0;

	(void)argc;
	sqlite3_result_int64(
		ctx, (sqlite3_int64)(hash_fnv(HASH_FNV_SEED, p, n) >> 1));
}

int ccsg_trace_open(struct ccsg_trace *t, const char *given)
{
	return ccsg_trace_open_share(t, given, 0, 1);
}

int ccsg_trace_open_share(struct ccsg_trace *t, const char *given,
			  unsigned share, unsigned shares)
{
	size_t ncols = sizeof(call_cols) / sizeof(call_cols[0]);
	int cols[sizeof(call_cols) / sizeof(call_cols[0]) + 2];
	struct ccsg_stream *s;
	char order[384], where[96] = "";
	sqlite3 *db;
	int with_mon;

	memset(t, 0, sizeof(*t));
	if (!(s = t->stream = calloc(1, sizeof(*s))))
		return fail("out of memory");
	/* a store URL: all but the calls copied, which come range by range */
	if (open_trace(t, given,
		       store_is_url(given)
			       ? store_stream_open(given, share, shares,
							&s->store)
			       : given,
		       &db, &with_mon)) {
		ccsg_trace_release(t); /* the stream, if open_trace() did not */
		return -1;
	}
	s->db = db;
	s->with_mon = with_mon;
	ncols -= t->has_heap ? 0 : CALL_HEAP_COLS;
	memcpy(cols, call_cols, sizeof(call_cols));
	if (with_mon) {
		cols[ncols++] = DB_RPC_CALLS_CLIENT_MON;
		cols[ncols++] = DB_RPC_CALLS_SERVER_MON;
	}
	/* the order of trace.calls (above): the table's own when the merge
	 * wrote it so, else SQLite's sorter, which spills to temporary
	 * files rather than hold the table (1M calls: +1.7 s of CPU) */
	s->ordered = s->store || calls_in_chain_order(db);
	s->store_share = s->store && shares > 1;
	/* a share of an SQLite file's chains: a WHERE here (a store's is
	 * the server's) */
	if (shares > 1 && !s->store) {
		if (sqlite3_create_function(db, "causal_shard", 1,
					    SQLITE_UTF8 | SQLITE_DETERMINISTIC,
					    NULL, shard_of_chain, NULL,
					    NULL) != SQLITE_OK) {
			fail("'%s': %s", t->path, sqlite3_errmsg(db));
			ccsg_trace_release(t);
			return -1;
		}
		snprintf(s->share, sizeof(s->share),
			 "causal_shard(%s) %% %u = %u",
			 db_col_name(DB_RPC_CALLS, DB_RPC_CALLS_CHAIN), shares,
			 share);
		snprintf(where, sizeof(where), "WHERE %s ", s->share);
	}
	if (s->ordered)
		snprintf(order, sizeof(order), "%sORDER BY %s", where,
			 db_col_name(DB_RPC_CALLS, DB_RPC_CALLS_CALL_ID));
	else
		snprintf(order, sizeof(order),
			 "%sORDER BY %s, coalesce(%s, %s, %s, %s), %s", where,
			 db_col_name(DB_RPC_CALLS, DB_RPC_CALLS_CHAIN),
			 db_col_name(DB_RPC_CALLS,
				     DB_RPC_CALLS_STUB_START_EVENT),
			 db_col_name(DB_RPC_CALLS,
				     DB_RPC_CALLS_SKEL_START_EVENT),
			 db_col_name(DB_RPC_CALLS, DB_RPC_CALLS_SKEL_END_EVENT),
			 db_col_name(DB_RPC_CALLS, DB_RPC_CALLS_STUB_END_EVENT),
			 db_col_name(DB_RPC_CALLS, DB_RPC_CALLS_CALL_ID));
	if (rd_open(&s->r, db, DB_RPC_CALLS, cols, ncols, order, t->path)) {
		ccsg_trace_release(t);
		return -1;
	}
	return 0;
}

/* Row r's call_id and chain: 0, or -1 (r->bad). */
static int read_call_key(struct reader *r, int version, int64_t *id,
			 uint8_t chain[DB_CHAIN_LEN])
{
	*id = rd_int(r, DB_RPC_CALLS_CALL_ID, INT64_MIN + 1, INT64_MAX, 0);
	if (r->bad)
		return -1;
	r->call_id = *id;
	r->has_call_id = 1;
	return read_chain(r, version, chain);
}

/* A store's cuts once its shares are merged, by SQL on every call. */
static int store_cuts(struct ccsg_trace *t, struct ccsg_stream *s)
{
	ccsg_monitoring_release(&t->mon);
	return store_stream_all_calls(s->store) ||
			       ccsg_monitoring_load_cuts(&t->mon, s->db, 1,
							 NULL)
		       ? -1
		       : 0;
}

/*
 * The stream's end: the monitoring, and its cuts when the calls read
 * were not all monitored alike (SQL on the calls; only then can a chain
 * be cut).  A store's copy held the last range only: it gets every call
 * first.  An SQLite share's cuts are those of its chains; a store
 * share's come once the shares are merged (ccsg_trace_shares_end()).
 */
static int stream_end(struct ccsg_trace *t, struct ccsg_stream *s)
{
	int cuts = s->mon_mixed && !s->store_share;

	s->done = 1;
	if (rd_close(&s->r) ||
	    (cuts && s->store && store_stream_all_calls(s->store)) ||
	    ccsg_monitoring_load_cuts(&t->mon, s->db, cuts,
				      s->share[0] ? s->share : NULL))
		return -1;
	return 0;
}

/* The next row: 1, or 0 at the end (or on an error: then r->bad).  A
 * store's next range of chains is fetched when one is read. */
static int stream_step(struct ccsg_stream *s)
{
	int got = 0;

	if (rd_next(&s->r, s->db))
		return 1;
	/* a step after the end runs the query again, on the new range */
	while (!s->r.bad && s->store &&
	       (got = store_stream_next(s->store)) > 0)
		if (rd_next(&s->r, s->db))
			return 1;
	if (got < 0)
		s->r.bad = 1;
	return 0;
}

/* meta.calls_order promised what the rows break: a corrupt database. */
static int out_of_order(const struct ccsg_trace *t, struct reader *r,
			int64_t call_id)
{
	r->bad = 1;
	rd_close(r);
	return fail("'%s': rpc_calls is not in chain order at call_id %lld "
		    "although "
		    "meta.calls_order says so; merge the logs again",
		    t->path, (long long)call_id);
}

/* The first event of the row r is on (first_event()'s order), CCSG_NONE. */
static int64_t row_first_event(struct reader *r)
{
	static const int cols[] = { DB_RPC_CALLS_STUB_START_EVENT,
				    DB_RPC_CALLS_SKEL_START_EVENT,
				    DB_RPC_CALLS_SKEL_END_EVENT,
				    DB_RPC_CALLS_STUB_END_EVENT };

	for (size_t i = 0; i < 4; i++) {
		int64_t e = rd_int(r, cols[i], 0, MAX_EVENT, 1);

		if (e != CCSG_NONE)
			return e;
	}
	return CCSG_NONE;
}

/* A part ends here, before the pending row, when the part is not too
 * short to be worth a fold and every event read comes before the rest. */
#define PART_MIN 256

/* The pending row: its key, and its first event. */
static int read_next_key(struct ccsg_trace *t, struct ccsg_stream *s)
{
	if (read_call_key(&s->r, t->schema_version, &s->next_id, s->next))
		return -1;
	s->next_first = row_first_event(&s->r);
	return s->r.bad ? -1 : 0;
}

/* The pending row begins a chain: the chain's entry, its order anew. */
static void chain_begins(struct ccsg_trace *t, struct ccsg_stream *s)
{
	memset(t->chains, 0, sizeof(*t->chains));
	t->chains->owner = -1;
	memcpy(t->chains->id, s->next, DB_CHAIN_LEN);
	t->nchains = 1;
	t->ncalls = 0;
	t->part.from = 0;
	t->part.starts = 1;
	s->in_chain = 0;
	s->max_event = CCSG_NONE;
	s->chain_over = 0;
}

int ccsg_trace_next_part(struct ccsg_trace *t, int keep)
{
	struct ccsg_stream *s = t->stream;
	struct reader *r = &s->r;

	if (!keep)
		t->ncalls = 0;
	t->part = (struct ccsg_part){ (int32_t)t->ncalls, 0, 0 };
	if (s->done)
		return 0;
	if (!t->chains && !(t->chains = calloc(1, sizeof(*t->chains))))
		return nomem(r), rd_close(r), -1;
	if (!s->have_row) { /* the first row, or none left */
		if (s->last || !stream_step(s))
			return stream_end(t, s) ? -1 : 0;
		if (read_next_key(t, s))
			return rd_close(r), -1;
		s->have_row = 1;
		s->chain_over = 1;
	}
	if (s->chain_over)
		chain_begins(t, s);
	for (;;) {
		struct ccsg_call *c;

		if (t->ncalls >= INT32_MAX ||
		    GROW(t->calls, s->cap_calls, t->ncalls + 1))
			return nomem(r), rd_close(r), -1;
		c = &t->calls[t->ncalls];
		if (read_call(r, t, c) ||
		    note_mon(r, DB_RPC_CALLS_CLIENT_MON, &s->mon,
			     &s->mon_mixed) ||
		    note_mon(r, DB_RPC_CALLS_SERVER_MON, &s->mon,
			     &s->mon_mixed))
			return rd_close(r), -1;
		c->call_id = s->next_id;
		c->chain = 0;
		if (s->ordered && s->in_chain && first_event(c) < s->prev_event)
			return out_of_order(t, r, c->call_id);
		s->in_chain = 1;
		s->prev_event = first_event(c);
		for (int k = 0; k < 4; k++)
			if (c->ev[k] != CCSG_NONE && c->ev[k] > s->max_event)
				s->max_event = c->ev[k];
		t->ncalls++;
		if (!stream_step(s)) {
			s->have_row = 0;
			s->last = 1;
			if (r->bad)
				return rd_close(r), -1;
			t->part.ends = 1;
			break;
		}
		if (read_next_key(t, s))
			return rd_close(r), -1;
		if (memcmp(s->next, t->chains->id, DB_CHAIN_LEN)) {
			if (s->ordered &&
			    memcmp(s->next, t->chains->id, DB_CHAIN_LEN) < 0)
				return out_of_order(t, r, s->next_id);
			t->part.ends = 1;
			s->chain_over = 1;
			break;
		}
		if ((int32_t)t->ncalls - t->part.from >= PART_MIN &&
		    s->next_first != CCSG_NONE && s->next_first > s->max_event)
			break;
	}
	t->chains->n = (int32_t)t->ncalls;
	return 1;
}

int ccsg_trace_merge_mon(struct ccsg_trace *into, const struct ccsg_trace *from)
{
	/* a cut is in a chain not all monitored alike, which its share saw
	 * whole: an SQLite share found it */
	into->stream->mon_mixed |= from->stream->mon_mixed;
	return ccsg_monitoring_add_cuts(&into->mon, &from->mon);
}

int ccsg_trace_shares_end(struct ccsg_trace *t)
{
	struct ccsg_stream *s = t->stream;

	return s->store_share && s->mon_mixed ? store_cuts(t, s) : 0;
}

static void stream_close(struct ccsg_stream *s)
{
	if (!s)
		return;
	sqlite3_finalize(s->r.st);
	sqlite3_close(s->db);
	store_stream_close(s->store);
	free(s->mon);
	free(s);
}

void ccsg_trace_release(struct ccsg_trace *t)
{
	for (size_t i = 0; i < t->nhosts; i++)
		free(t->hosts[i]);
	for (size_t i = 0; i < t->nprocs; i++)
		free(t->procs[i].exe);
	for (size_t i = 0; i < t->nobjects; i++)
		free(t->objects[i].address);
	for (size_t i = 0; i < t->nstrings; i++)
		free(t->strings[i]);
	free(t->hosts);
	free(t->procs);
	free(t->threads);
	free(t->calls);
	free(t->chains);
	free(t->objects);
	free(t->sites);
	free(t->strings);
	free(t->path);
	free(t->file);
	stream_close(t->stream);
	hashmap_release(&t->thread_map);
	hashmap_release(&t->string_map);
	ccsg_monitoring_release(&t->mon);
	memset(t, 0, sizeof(*t));
}
