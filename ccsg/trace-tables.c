/*
 * trace-tables.c - a merged trace database opened and checked, and its
 * tables but rpc_calls loaded into trace.h's arrays (hosts, processes,
 * threads, sites, objects), read by typed column (store/db-read.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "array.h"
#include "causal/log-format.h"
#include "trace-internal.h"
#include "usage.h"

/* The names the database stores for the log format's enums (enums.def). */
#define NAME_OF(constant, value, name) [value] = name,

static const char *const marker_names[] = { CAUSAL_VALUES_marker(NAME_OF) };

int32_t ccsg_trace_thread(const struct ccsg_trace *t, int32_t proc, int32_t tid)
{
	return hashmap_get(&t->thread_map,
			   hashmap_key2((uint32_t)proc, (uint32_t)tid));
}

int32_t ccsg_trace_host(const struct ccsg_trace *t, int32_t proc)
{
	if (proc <= 0 || (size_t)proc >= t->nprocs)
		return -1;
	return t->procs[proc].host;
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

/*
 * Is this a merged trace that ccsg reads?  Say what is wrong if not; its
 * schema version in *version.
 */
static int check_schema(sqlite3 *db, const char *path, int *schema_version)
{
	static const enum db_table need[] = { DB_HOSTS,	    DB_PROCESSES,
					      DB_THREADS,   DB_RPC_CALLS,
					      DB_RPC_SITES, DB_RPC_OBJECTS };
	static const int cols[] = { DB_META_VALUE };
	struct db_read r;
	char value[64] = "";
	int found = 0, rc;
	long version;

	if ((rc = db_read_open(&r, db, NULL, DB_META, cols, 1,
			       "WHERE %s = '%s'", DB_NAME(META, KEY),
			       "schema_version"))) {
		if (rc == -ENOMEM)
			return -1;
		if (sqlite3_errcode(db) == SQLITE_NOTADB)
			return fail("'%s' is not an SQLite database", path);
		return fail(
			"'%s' is not a causal trace database (no meta table); "
			"make one with 'tracedump merge DIR'",
			path);
	}
	if (db_read_next(&r)) {
		const char *v = db_get_text(&r, DB_META_VALUE);

		found = 1;
		/* made printable: it goes into a one-line message */
		for (size_t i = 0; v && v[i] && i + 1 < sizeof(value); i++)
			value[i] = v[i] >= 0x20 && v[i] < 0x7f && v[i] != '\''
					   ? (char)v[i]
					   : '?';
	}
	db_read_close(&r);
	if (!found)
		return fail("'%s' is not a causal trace database (no schema "
			    "version)",
			    path);
	version = parse_version(value);
	if (version < 0)
		return fail("'%s': schema version '%s' is not a number", path,
			    value);
	if (version < CCSG_SCHEMA_OLDEST)
		return fail("trace database '%s' has schema version %ld, "
			    "without rpc tables; "
			    "merge the logs again with this tracedump",
			    path, version);
	if (version > DB_SCHEMA_VERSION)
		return fail("trace database '%s' has schema version %ld, "
			    "which this ccsg does not know (it reads versions "
			    "%d to %d); use the ccsg of the tracedump that "
			    "merged it",
			    path, version, CCSG_SCHEMA_OLDEST,
			    DB_SCHEMA_VERSION);
	*schema_version = (int)version;
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		found = db_has_table(db, need[i]);
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

static int load_hosts(struct ccsg_trace *t, sqlite3 *db, int32_t **host_index,
		      size_t *nindex)
{
	static const int cols[] = { DB_HOSTS_HOST_ID, DB_HOSTS_NAME };
	struct db_read r;

	if (db_read_open(&r, db, t->path, DB_HOSTS, cols, 2, "ORDER BY %s",
			 DB_NAME(HOSTS, HOST_ID)))
		return -1;
	while (db_read_next(&r)) {
		int64_t id = db_read_int(&r, DB_HOSTS_HOST_ID, 0, MAX_HOST, 0);
		const char *name;
		size_t cap = t->nhosts;

		if (r.bad)
			break;
		db_read_key(&r, DB_HOSTS_HOST_ID, id);
		if (!(name = db_read_text(&r, DB_HOSTS_NAME, 0)))
			break;
		if ((size_t)id >= *nindex) {
			int32_t *p =
				realloc(*host_index, (id + 1) * sizeof(*p));

			if (!p)
				return db_read_nomem(&r), db_read_close(&r);
			for (size_t i = *nindex; i <= (size_t)id; i++)
				p[i] = -1;
			*host_index = p;
			*nindex = id + 1;
		}
		if (GROW(t->hosts, cap, t->nhosts + 1) ||
		    !(t->hosts[t->nhosts] = strdup(name)))
			return db_read_nomem(&r), db_read_close(&r);
		(*host_index)[id] = (int32_t)t->nhosts++;
	}
	return db_read_close(&r);
}

/* The 16 bytes of a uuid's 32 hex digits; zeros when it is not one. */
static void uuid_of(uint8_t out[16], const char *hex)
{
	memset(out, 0, 16);
	if (!hex || strlen(hex) != 32)
		return;
	for (int i = 0; i < 32; i++) {
		int d = hex[i] >= '0' && hex[i] <= '9'	 ? hex[i] - '0'
			: hex[i] >= 'a' && hex[i] <= 'f' ? hex[i] - 'a' + 10
			: hex[i] >= 'A' && hex[i] <= 'F' ? hex[i] - 'A' + 10
							 : -1;

		if (d < 0) {
			memset(out, 0, 16);
			return;
		}
		out[i / 2] = (uint8_t)(out[i / 2] << 4 | d);
	}
}

static int load_procs(struct ccsg_trace *t, sqlite3 *db,
		      const int32_t *host_index, size_t nindex)
{
	/* the last one from version 4 on */
	static const int cols[] = {
		DB_PROCESSES_PROC_ID, DB_PROCESSES_HOST_ID,
		DB_PROCESSES_PID,     DB_PROCESSES_EXE,
		DB_PROCESSES_UUID,    DB_PROCESSES_PEAK_HEAP_BYTES
	};
	struct db_read r;

	if (db_read_open(&r, db, t->path, DB_PROCESSES, cols,
			 t->has_heap ? 6 : 5, "ORDER BY %s",
			 DB_NAME(PROCESSES, PROC_ID)))
		return -1;
	while (db_read_next(&r)) {
		int64_t id = db_read_int(&r, DB_PROCESSES_PROC_ID, 1, MAX_PROC,
					 0),
			h, peak;
		int32_t pid;
		const char *exe;

		if (r.bad)
			break;
		db_read_key(&r, DB_PROCESSES_PROC_ID, id);
		h = db_read_int(&r, DB_PROCESSES_HOST_ID, 0, INT64_MAX, 0);
		pid = db_read_i32(&r, DB_PROCESSES_PID, 0, INT32_MAX, 0);
		exe = db_read_text(&r, DB_PROCESSES_EXE, 1);
		peak = db_read_int(&r, DB_PROCESSES_PEAK_HEAP_BYTES, 0,
				   MAX_BYTES, 1);
		if (r.bad)
			break;
		if ((size_t)id >= t->nprocs) {
			struct ccsg_proc *p =
				realloc(t->procs, (id + 1) * sizeof(*p));

			if (!p)
				return db_read_nomem(&r), db_read_close(&r);
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
		uuid_of(t->procs[id].uuid,
			db_read_text(&r, DB_PROCESSES_UUID, 1));
		if (exe && !(t->procs[id].exe = strdup(exe)))
			return db_read_nomem(&r), db_read_close(&r);
		t->nproc_rows++;
	}
	return db_read_close(&r);
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
	struct db_read r;
	size_t cap = 0;

	if (db_read_open(&r, db, t->path, DB_THREADS, cols,
			 t->has_heap ? ncols : ncols - 3, "ORDER BY %s, %s",
			 DB_NAME(THREADS, PROC_ID), DB_NAME(THREADS, TID)))
		return -1;
	while (db_read_next(&r)) {
		struct ccsg_thread th;

		/* padding too: suites compare loaded threads with memcmp */
		memset(&th, 0, sizeof(th));
		th.parent_thread = th.spawn_call = -1;
		th.proc = (int32_t)db_read_int(&r, DB_THREADS_PROC_ID, 1,
					       MAX_PROC, 0);
		th.tid = (int32_t)db_read_int(&r, DB_THREADS_TID, 0, INT32_MAX,
					      0);
		if (r.bad)
			break;
		snprintf(r.row, sizeof(r.row), "%s %d, %s %d",
			 DB_NAME(THREADS, PROC_ID), th.proc,
			 DB_NAME(THREADS, TID), th.tid);
		th.parent_tid =
			db_read_i32(&r, DB_THREADS_PARENT_TID, 0, INT32_MAX, 0);
		th.infra = db_read_enum(&r, DB_THREADS_MARKER, marker_names,
					sizeof(marker_names) /
						sizeof(marker_names[0])) ==
			   CAUSAL_MARKER_INFRA;
		th.start_mono_ns =
			db_read_int(&r, DB_THREADS_START_MONO_NS, 0, MAX_NS, 1);
		th.end_mono_ns =
			db_read_int(&r, DB_THREADS_END_MONO_NS, 0, MAX_NS, 1);
		th.cpu_ns = db_read_int(&r, DB_THREADS_CPU_NS, 0, MAX_NS, 1);
		th.ctx_function = db_read_int(&r, DB_THREADS_CTX_FUNCTION, 0,
					      INT64_MAX, 1);
		th.heap[0] = db_read_int(&r, DB_THREADS_ALLOC_BYTES, 0,
					 MAX_BYTES, 1);
		th.heap[1] = db_read_int(&r, DB_THREADS_FREED_BYTES, 0,
					 MAX_BYTES, 1);
		th.heap_peak = db_read_int(&r, DB_THREADS_PEAK_HEAP_BYTES,
					   -MAX_BYTES, MAX_BYTES, 1);
		if (r.bad)
			break;
		if (GROW(t->threads, cap, t->nthreads + 1))
			return db_read_nomem(&r), db_read_close(&r);
		t->threads[t->nthreads] = th;
		if (hashmap_put(&t->thread_map, hashmap_key2(th.proc, th.tid),
				(int32_t)t->nthreads) < 0)
			return db_read_nomem(&r), db_read_close(&r);
		t->nthreads++;
	}
	return db_read_close(&r);
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
	struct db_read r;
	size_t cap = 0;

	if (db_read_open(&r, db, t->path, DB_RPC_SITES, site_cols, 4, NULL))
		return -1;
	while (db_read_next(&r)) {
		int64_t proc =
			db_read_int(&r, DB_RPC_SITES_PROC_ID, 0, MAX_PROC, 0);
		int64_t site = db_read_int(&r, DB_RPC_SITES_SITE_ID,
					   INT64_MIN + 1, INT64_MAX, 0);
		const char *sym, *mod;
		int32_t i;

		if (r.bad)
			break;
		snprintf(r.row, sizeof(r.row), "%s %lld, %s %lld",
			 DB_NAME(RPC_SITES, PROC_ID), (long long)proc,
			 DB_NAME(RPC_SITES, SITE_ID), (long long)site);
		sym = db_read_text(&r, DB_RPC_SITES_SYMBOL, 1);
		mod = db_read_text(&r, DB_RPC_SITES_MODULE, 1);
		if (r.bad)
			break;
		if (!sym)
			continue;
		if ((i = ccsg_trace_intern(t, sym)) < 0 ||
		    GROW(t->sites, cap, t->nsites + 1))
			return db_read_nomem(&r), db_read_close(&r);
		t->sites[t->nsites].proc = (int32_t)proc;
		t->sites[t->nsites].symbol = i;
		/* libtirpc's own clients (rpcbind queries...) are runtime. */
		t->sites[t->nsites].tirpc = mod && strstr(mod, "libtirpc.so");
		t->nsites++;
	}
	if (db_read_close(&r))
		return -1;
	cap = 0;
	if (db_read_open(&r, db, t->path, DB_RPC_OBJECTS, object_cols, 3, NULL))
		return -1;
	while (db_read_next(&r)) {
		struct ccsg_object o;
		const char *a;

		o.proc = (int32_t)db_read_int(&r, DB_RPC_OBJECTS_PROC_ID, 0,
					      MAX_PROC, 0);
		if (r.bad)
			break;
		db_read_key(&r, DB_RPC_OBJECTS_PROC_ID, o.proc);
		o.object_id = (int32_t)db_read_int(&r, DB_RPC_OBJECTS_OBJECT_ID,
						   0, INT32_MAX, 0);
		a = db_read_text(&r, DB_RPC_OBJECTS_ADDRESS, 1);
		if (r.bad)
			break;
		o.address = NULL;
		if (GROW(t->objects, cap, t->nobjects + 1) ||
		    (a && !(o.address = strdup(a))))
			return db_read_nomem(&r), db_read_close(&r);
		t->objects[t->nobjects++] = o;
	}
	return db_read_close(&r);
}

/* The monitoring's intervals (its cuts come with the calls), and which
 * processes ran calls unmonitored for the CPU (a selection off, the cpu
 * type off). */
static int load_monitoring(struct ccsg_trace *t, sqlite3 *db)
{
	const struct ccsg_monitoring *m = &t->mon;

	if (ccsg_monitoring_load_cuts(&t->mon, db, 0, NULL))
		return -1;
	for (size_t i = 0; i < m->niv; i++)
		if (m->iv[i].deselects && m->iv[i].proc_id > 0 &&
		    (size_t)m->iv[i].proc_id < t->nprocs)
			t->procs[m->iv[i].proc_id].deselected = 1;
	return 0;
}

int trace_open(struct ccsg_trace *t, const char *given, const char *path,
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
		return fail("cannot open trace database '%s': %s", path,
			    strerror(errno));
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
	*with_mon = db_has_table(*db, DB_MONITOR_SWITCHES) > 0;
	if (load_hosts(t, *db, &host_index, &nindex) ||
	    load_procs(t, *db, host_index, nindex) ||
	    (*with_mon && load_monitoring(t, *db)) || load_threads(t, *db) ||
	    load_sites_objects(t, *db))
		goto out;
	if (db_ends_load(&t->ends, *db, t->schema_version)) {
		fail("cannot read how the processes of '%s' ended: %s", path,
		     sqlite3_errmsg(*db));
		goto out;
	}
	if (t->nproc_rows || t->empty_ok)
		ret = 0;
	else
		fail("trace database '%s' is empty: no processes were traced",
		     path);
out:
	free(host_index);
	if (ret) {
		sqlite3_close(*db);
		*db = NULL;
	}
	return ret;
}
