/*
 * trace.c - load a merged trace database into the arrays of trace.h.
 *
 * One query per table; rpc_calls is read once, ordered by chain and by
 * the first event of each call, so that the DSCG scan (dscg.c) finds each
 * chain's calls together.  No per-call query: a million calls load in a
 * few seconds.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "trace.h"
#include "usage.h"

static int64_t col_i64(sqlite3_stmt *st, int i)
{
	if (sqlite3_column_type(st, i) == SQLITE_NULL)
		return CCSG_NONE;
	return sqlite3_column_int64(st, i);
}

static int32_t col_i32(sqlite3_stmt *st, int i, int32_t dflt)
{
	if (sqlite3_column_type(st, i) == SQLITE_NULL)
		return dflt;
	return (int32_t)sqlite3_column_int64(st, i);
}

static char *col_strdup(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	return s ? strdup((const char *)s) : NULL;
}

static uint64_t str_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ULL;
	return h;
}

int32_t ccsg_trace_intern(struct ccsg_trace *t, const char *s)
{
	uint64_t h = str_hash(s);
	int32_t i;

	/* Collisions move to the next key: at worst a short walk. */
	for (;; h++) {
		i = ccsg_map_get(&t->string_map, h);
		if (i < 0)
			break;
		if (!strcmp(t->strings[i], s))
			return i;
	}
	if (CCSG_GROW(t->strings, t->cap_strings, t->nstrings + 1))
		return -ENOMEM;
	t->strings[t->nstrings] = strdup(s);
	if (!t->strings[t->nstrings])
		return -ENOMEM;
	if (ccsg_map_put(&t->string_map, h, (int32_t)t->nstrings) < 0)
		return -ENOMEM;
	return (int32_t)t->nstrings++;
}

int32_t ccsg_trace_thread(const struct ccsg_trace *t, int32_t proc, int32_t tid)
{
	return ccsg_map_get(&t->thread_map, ccsg_key2((uint32_t)proc, (uint32_t)tid));
}

int32_t ccsg_trace_host(const struct ccsg_trace *t, int32_t proc)
{
	if (proc <= 0 || (size_t)proc >= t->nprocs)
		return -1;
	return t->procs[proc].host;
}

void ccsg_chain_hex(const struct ccsg_chain *c, char buf[41])
{
	static const char hex[] = "0123456789abcdef";

	for (int i = 0; i < 20; i++) {
		buf[2 * i] = hex[c->id[i] >> 4];
		buf[2 * i + 1] = hex[c->id[i] & 15];
	}
	buf[40] = 0;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int prepare(sqlite3 *db, const char *sql, sqlite3_stmt **st, const char *path)
{
	if (sqlite3_prepare_v2(db, sql, -1, st, NULL) != SQLITE_OK)
		return error("cannot read '%s': %s", path, sqlite3_errmsg(db));
	return 0;
}

static int step_done(sqlite3 *db, sqlite3_stmt *st, int rc, const char *path)
{
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return error("cannot read '%s': %s", path, sqlite3_errmsg(db));
	return 0;
}

/* Is this a merged trace with the rpc tables?  Say what is wrong if not. */
static int check_schema(sqlite3 *db, const char *path)
{
	static const char *const need[] = { "hosts", "processes", "threads", "rpc_calls",
					    "rpc_sites", "rpc_objects" };
	sqlite3_stmt *st;
	int version = -1;

	if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = 'schema_version'",
			       -1, &st, NULL) != SQLITE_OK) {
		if (sqlite3_errcode(db) == SQLITE_NOTADB)
			return error("'%s' is not an SQLite database", path);
		return error("'%s' is not a causal trace database (no meta table); "
			     "make one with 'tracedump merge DIR'", path);
	}
	if (sqlite3_step(st) == SQLITE_ROW)
		version = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (version < 0)
		return error("'%s' is not a causal trace database (no schema version)", path);
	if (version < 2)
		return error("trace database '%s' has schema version %d, without rpc tables; "
			     "merge the logs again with this tracedump", path, version);
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		int found;

		if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' "
				       "AND name = ?", -1, &st, NULL) != SQLITE_OK)
			return error("cannot read '%s': %s", path, sqlite3_errmsg(db));
		sqlite3_bind_text(st, 1, need[i], -1, SQLITE_STATIC);
		found = sqlite3_step(st) == SQLITE_ROW;
		sqlite3_finalize(st);
		if (!found)
			return error("'%s' is not a causal trace database (no table '%s')",
				     path, need[i]);
	}
	return 0;
}

static int load_hosts(struct ccsg_trace *t, sqlite3 *db, int32_t **host_index, size_t *nindex)
{
	sqlite3_stmt *st;
	int rc;

	if (prepare(db, "SELECT host_id, name FROM hosts ORDER BY host_id", &st, t->path))
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		size_t cap = t->nhosts;

		if (id < 0 || id > 10000000) {
			sqlite3_finalize(st);
			return error("'%s': host_id %lld out of range", t->path, (long long)id);
		}
		if ((size_t)id >= *nindex) {
			int32_t *p = realloc(*host_index, (id + 1) * sizeof(*p));

			if (!p)
				goto nomem;
			for (size_t i = *nindex; i <= (size_t)id; i++)
				p[i] = -1;
			*host_index = p;
			*nindex = id + 1;
		}
		if (CCSG_GROW(t->hosts, cap, t->nhosts + 1))
			goto nomem;
		t->hosts[t->nhosts] = col_strdup(st, 1);
		if (!t->hosts[t->nhosts])
			t->hosts[t->nhosts] = strdup("?");
		(*host_index)[id] = (int32_t)t->nhosts++;
	}
	return step_done(db, st, rc, t->path);
nomem:
	sqlite3_finalize(st);
	return error("out of memory");
}

static int load_procs(struct ccsg_trace *t, sqlite3 *db, const int32_t *host_index, size_t nindex)
{
	sqlite3_stmt *st;
	int rc;

	if (prepare(db, "SELECT proc_id, host_id, pid, exe FROM processes ORDER BY proc_id",
		    &st, t->path))
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		int64_t h = sqlite3_column_int64(st, 1);

		if (id <= 0 || id > 100000000) {
			sqlite3_finalize(st);
			return error("'%s': proc_id %lld out of range", t->path, (long long)id);
		}
		if ((size_t)id >= t->nprocs) {
			struct ccsg_proc *p = realloc(t->procs, (id + 1) * sizeof(*p));

			if (!p) {
				sqlite3_finalize(st);
				return error("out of memory");
			}
			for (size_t i = t->nprocs; i <= (size_t)id; i++)
				p[i] = (struct ccsg_proc){ .host = -1 };
			t->procs = p;
			t->nprocs = id + 1;
		}
		t->procs[id].host = h >= 0 && (size_t)h < nindex ? host_index[h] : -1;
		t->procs[id].pid = col_i32(st, 2, 0);
		t->procs[id].exe = col_strdup(st, 3);
		t->nproc_rows++;
	}
	return step_done(db, st, rc, t->path);
}

static int load_threads(struct ccsg_trace *t, sqlite3 *db)
{
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc;

	if (prepare(db, "SELECT proc_id, tid, parent_tid, marker, cpu_ns, ctx_function "
		    "FROM threads ORDER BY proc_id, tid", &st, t->path))
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct ccsg_thread *th;
		const unsigned char *m;

		if (CCSG_GROW(t->threads, cap, t->nthreads + 1))
			goto nomem;
		th = &t->threads[t->nthreads];
		th->proc = col_i32(st, 0, 0);
		th->tid = col_i32(st, 1, 0);
		th->parent_tid = col_i32(st, 2, 0);
		m = sqlite3_column_text(st, 3);
		th->infra = m && !strcmp((const char *)m, "infra");
		th->cpu_ns = col_i64(st, 4);
		th->ctx_function = col_i64(st, 5);
		th->parent_thread = th->spawn_call = -1;
		if (ccsg_map_put(&t->thread_map, ccsg_key2(th->proc, th->tid),
				 (int32_t)t->nthreads) < 0)
			goto nomem;
		t->nthreads++;
	}
	return step_done(db, st, rc, t->path);
nomem:
	sqlite3_finalize(st);
	return error("out of memory");
}

static int load_sites_objects(struct ccsg_trace *t, sqlite3 *db)
{
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc;

	if (prepare(db, "SELECT proc_id, symbol, module FROM rpc_sites "
		    "WHERE symbol IS NOT NULL", &st, t->path))
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *mod = (const char *)sqlite3_column_text(st, 2);
		int32_t sym = ccsg_trace_intern(t, (const char *)sqlite3_column_text(st, 1));

		if (sym < 0 || CCSG_GROW(t->sites, cap, t->nsites + 1))
			goto nomem;
		t->sites[t->nsites].proc = col_i32(st, 0, 0);
		t->sites[t->nsites].symbol = sym;
		/* libtirpc's own clients (rpcbind queries...) are runtime. */
		t->sites[t->nsites].tirpc = mod && strstr(mod, "libtirpc.so");
		t->nsites++;
	}
	if (step_done(db, st, rc, t->path))
		return -1;
	cap = 0;
	if (prepare(db, "SELECT proc_id, object_id, address FROM rpc_objects", &st, t->path))
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (CCSG_GROW(t->objects, cap, t->nobjects + 1))
			goto nomem;
		t->objects[t->nobjects].proc = col_i32(st, 0, 0);
		t->objects[t->nobjects].object_id = col_i32(st, 1, 0);
		t->objects[t->nobjects].address = col_strdup(st, 2);
		t->nobjects++;
	}
	return step_done(db, st, rc, t->path);
nomem:
	sqlite3_finalize(st);
	return error("out of memory");
}

static const char calls_sql[] =
	"SELECT call_id, chain, prog, vers, proc, one_way,"
	" client_proc_id, client_tid, site_symbol, peer,"
	" stub_start_event, stub_start_ns, stub_start_cpu_ns,"
	" stub_end_event, stub_end_exit_ns, stub_end_cpu_ns,"
	" server_proc_id, server_tid, server_function_id, object_id,"
	" skel_start_event, skel_start_exit_ns, skel_start_cpu_ns,"
	" skel_end_event, skel_end_ns, skel_end_cpu_ns, missing"
	" FROM rpc_calls ORDER BY chain,"
	" coalesce(stub_start_event, skel_start_event, skel_end_event, stub_end_event),"
	" call_id";

static int load_calls(struct ccsg_trace *t, sqlite3 *db)
{
	sqlite3_stmt *st;
	size_t cap = 0, ccap = 0;
	char prev[64] = "";
	int rc;

	if (prepare(db, calls_sql, &st, t->path))
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *chain = (const char *)sqlite3_column_text(st, 1);
		const char *s;
		struct ccsg_call *c;

		if (!chain)
			chain = "";
		if (CCSG_GROW(t->calls, cap, t->ncalls + 1))
			goto nomem;
		if (!t->nchains || strncmp(prev, chain, sizeof(prev) - 1)) {
			struct ccsg_chain *ch;

			if (CCSG_GROW(t->chains, ccap, t->nchains + 1))
				goto nomem;
			ch = &t->chains[t->nchains++];
			memset(ch, 0, sizeof(*ch));
			ch->first = (int32_t)t->ncalls;
			ch->owner = -1;
			for (int i = 0; i < 20 && chain[2 * i] && chain[2 * i + 1]; i++) {
				int hi = hexval(chain[2 * i]), lo = hexval(chain[2 * i + 1]);

				if (hi < 0 || lo < 0)
					break;
				ch->id[i] = (uint8_t)(hi << 4 | lo);
			}
			snprintf(prev, sizeof(prev), "%s", chain);
		}
		t->chains[t->nchains - 1].n++;
		c = &t->calls[t->ncalls];
		memset(c, 0, sizeof(*c));
		c->call_id = sqlite3_column_int64(st, 0);
		c->chain = (int32_t)t->nchains - 1;
		c->prog = (uint32_t)sqlite3_column_int64(st, 2);
		c->vers = (uint32_t)sqlite3_column_int64(st, 3);
		c->proc = (uint32_t)sqlite3_column_int64(st, 4);
		c->one_way = sqlite3_column_int(st, 5) != 0;
		c->client_proc = col_i32(st, 6, 0);
		c->client_tid = col_i32(st, 7, 0);
		c->symbol = c->peer = -1;
		if ((s = (const char *)sqlite3_column_text(st, 8)) &&
		    (c->symbol = ccsg_trace_intern(t, s)) < 0)
			goto nomem;
		if ((s = (const char *)sqlite3_column_text(st, 9)) &&
		    (c->peer = ccsg_trace_intern(t, s)) < 0)
			goto nomem;
		c->ev[CCSG_STUB_START] = col_i64(st, 10);
		c->stub_start_ns = col_i64(st, 11);
		c->cpu[CCSG_STUB_START] = col_i64(st, 12);
		c->ev[CCSG_STUB_END] = col_i64(st, 13);
		c->stub_end_exit_ns = col_i64(st, 14);
		c->cpu[CCSG_STUB_END] = col_i64(st, 15);
		c->server_proc = col_i32(st, 16, 0);
		c->server_tid = col_i32(st, 17, 0);
		c->server_function_id = col_i64(st, 18);
		c->object_id = col_i32(st, 19, -1);
		c->ev[CCSG_SKEL_START] = col_i64(st, 20);
		c->skel_start_exit_ns = col_i64(st, 21);
		c->cpu[CCSG_SKEL_START] = col_i64(st, 22);
		c->ev[CCSG_SKEL_END] = col_i64(st, 23);
		c->skel_end_ns = col_i64(st, 24);
		c->cpu[CCSG_SKEL_END] = col_i64(st, 25);
		s = (const char *)sqlite3_column_text(st, 26);
		c->missing = !s ? CCSG_BOTH : !strcmp(s, "server") ? CCSG_NO_SERVER : CCSG_NO_CLIENT;
		c->parent = -1;
		c->depth = 1;
		t->ncalls++;
	}
	return step_done(db, st, rc, t->path);
nomem:
	sqlite3_finalize(st);
	return error("out of memory");
}

int ccsg_trace_load(struct ccsg_trace *t, const char *path)
{
	int32_t *host_index = NULL;
	size_t nindex = 0;
	struct stat sb;
	sqlite3 *db;
	int ret = -1;

	memset(t, 0, sizeof(*t));
	if (stat(path, &sb))
		return error("cannot open trace database '%s': %s", path, strerror(errno));
	if (!S_ISREG(sb.st_mode))
		return error("'%s' is not a trace database file", path);
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		error("cannot open trace database '%s': %s", path, sqlite3_errmsg(db));
		sqlite3_close(db);
		return -1;
	}
	t->path = strdup(path);
	if (!t->path || check_schema(db, path) ||
	    load_hosts(t, db, &host_index, &nindex) ||
	    load_procs(t, db, host_index, nindex) || load_threads(t, db) ||
	    load_sites_objects(t, db) || load_calls(t, db))
		goto out;
	if (t->nproc_rows)
		ret = 0;
	else
		error("trace database '%s' is empty: no processes were traced", path);
out:
	free(host_index);
	sqlite3_close(db);
	if (ret)
		ccsg_trace_release(t);
	return ret;
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
	ccsg_map_release(&t->thread_map);
	ccsg_map_release(&t->string_map);
	memset(t, 0, sizeof(*t));
}
