/*
 * merge-store.c - the store's statements (run one, its error) and the
 * store handlers: store_<handler>() of records.def's
 * CAUSAL_RECORD_DESTS, each putting a record of its type into the table
 * of its own (the types of stage STORE or BOTH), and the dispatch to
 * them, generated from that table.  The main thread runs them (merge.c),
 * the only one that writes SQLite.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"
#include "log-record.h"
#include "msgpack-json.h"
#include "schema.h"

int merge_db_fail(struct merge *m, const char *what)
{
	snprintf(m->db_error, sizeof(m->db_error), "%s: %s", what,
		 sqlite3_errmsg(m->db));
	return -EIO;
}

int merge_step(struct merge *m, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : merge_db_fail(m, what);
}

static void bind_addr(sqlite3_stmt *st, int col, const struct record_bin *b)
{
	char buf[RECORD_SOCKADDR_MAX];

	if (b->ptr)
		schema_bind_text_copy(st, col,
				      record_sockaddr(buf, b->ptr, b->len), -1);
}

/*
 * *st: the INSERT into table t that a store handler binds, verb "INSERT",
 * or "INSERT OR IGNORE" where the first row of a key wins; prepared for
 * the first record that asks.  0, or -errno (-EIO after merge_db_fail()).
 */
static int table_insert(struct merge *m, enum db_table t, const char *verb,
			sqlite3_stmt **st)
{
	int rc = SQLITE_OK;
	char *sql;

	if (!m->ins_table[t]) {
		if (!(sql = db_sql_insert(t, verb, 1)))
			return -ENOMEM;
		rc = sqlite3_prepare_v3(m->db, sql, -1,
					SQLITE_PREPARE_PERSISTENT,
					&m->ins_table[t], NULL);
		free(sql);
	}
	*st = m->ins_table[t];
	return rc == SQLITE_OK ? 0 : merge_db_fail(m, "prepare insert");
}

/*
 * The store handlers: store_<handler>() of records.def's
 * CAUSAL_RECORD_DESTS, a record of the type (number seq of its process)
 * into its table.  0, or -errno (-EIO after merge_db_fail()).
 */

/* RPC_SITE and RPC_OBJECT: the first record of an id wins. */
static int store_rpc_site(struct merge *m, uint64_t seq, const struct record *r)
{
	sqlite3_stmt *st;
	int rc;

	(void)seq;
	if ((rc = table_insert(m, DB_RPC_SITES, "INSERT OR IGNORE", &st)))
		return rc;
	schema_bind_int(st, DB_RPC_SITES_PROC_ID, m->proc_id);
	schema_bind_u64(st, DB_RPC_SITES_SITE_ID, r->rpc_site.site_id);
	/* empty: no function there has a symbol (NULL), or no file */
	if (r->rpc_site.symbol.len)
		schema_bind_text_copy(st, DB_RPC_SITES_SYMBOL,
				      r->rpc_site.symbol.ptr,
				      (int)r->rpc_site.symbol.len);
	if (r->rpc_site.module.len)
		schema_bind_text_copy(st, DB_RPC_SITES_MODULE,
				      r->rpc_site.module.ptr,
				      (int)r->rpc_site.module.len);
	return merge_step(m, st, "insert rpc site");
}

static int store_rpc_object(struct merge *m, uint64_t seq,
			    const struct record *r)
{
	sqlite3_stmt *st;
	int rc;

	(void)seq;
	if ((rc = table_insert(m, DB_RPC_OBJECTS, "INSERT OR IGNORE", &st)))
		return rc;
	schema_bind_int(st, DB_RPC_OBJECTS_PROC_ID, m->proc_id);
	schema_bind_u64(st, DB_RPC_OBJECTS_OBJECT_ID, r->rpc_object.object_id);
	schema_bind_u64(st, DB_RPC_OBJECTS_PROG, r->rpc_object.prog);
	schema_bind_u64(st, DB_RPC_OBJECTS_VERS, r->rpc_object.vers);
	schema_bind_text(st, DB_RPC_OBJECTS_TRANSPORT,
			 record_transport_name(r->rpc_object.transport), -1);
	bind_addr(st, DB_RPC_OBJECTS_ADDRESS, &r->rpc_object.address);
	schema_bind_text_copy(st, DB_RPC_OBJECTS_NETID, r->rpc_object.netid.ptr,
			      (int)r->rpc_object.netid.len);
	return merge_step(m, st, "insert rpc object");
}

/* A switch of the monitoring state: a row of monitor_switches. */
static int store_monitor(struct merge *m, uint64_t seq, const struct record *r)
{
	const struct record_monitor *mo = &r->monitor;
	char types[64], named[64];
	sqlite3_stmt *st;
	int rc;

	if ((rc = table_insert(m, DB_MONITOR_SWITCHES, "INSERT", &st)))
		return rc;
	record_monitor_types(types, sizeof(types), mo->types, '|');
	record_monitor_types(named, sizeof(named), mo->named, '|');
	schema_bind_int(st, DB_MONITOR_SWITCHES_PROC_ID, m->proc_id);
	schema_bind_u64(st, DB_MONITOR_SWITCHES_SEQ, seq);
	schema_bind_u64(st, DB_MONITOR_SWITCHES_MONO_NS, r->mono_ns);
	schema_bind_u64(st, DB_MONITOR_SWITCHES_EVENT, mo->seq);
	schema_bind_text(st, DB_MONITOR_SWITCHES_KIND,
			 record_monitor_kind_name(mo->kind), -1);
	schema_bind_text_copy(st, DB_MONITOR_SWITCHES_TYPES, types, -1);
	schema_bind_text_copy(st, DB_MONITOR_SWITCHES_NAMED, named, -1);
	if (mo->kind == CAUSAL_MONITOR_SELECT) {
		schema_bind_text(st, DB_MONITOR_SWITCHES_HOST, mo->host.ptr,
				 (int)mo->host.len);
		schema_bind_text(st, DB_MONITOR_SWITCHES_INTERFACE,
				 mo->interface.ptr, (int)mo->interface.len);
		schema_bind_text(st, DB_MONITOR_SWITCHES_FUNCTION,
				 mo->function.ptr, (int)mo->function.len);
		schema_bind_text(st, DB_MONITOR_SWITCHES_STATE,
				 mo->on ? "on" : "off", -1);
	}
	schema_bind_u64(st, DB_MONITOR_SWITCHES_SELECTIONS, mo->selections);
	return merge_step(m, st, "insert monitor switch");
}

/* What a thread did with a lock: a row of lock_events. */
static int store_lock(struct merge *m, uint64_t seq, const struct record *r)
{
	const char *op = record_lock_op_name(r->lock.op);
	const char *kind = record_lock_kind_name(r->lock.kind);
	sqlite3_stmt *st;
	int rc;

	if ((rc = table_insert(m, DB_LOCK_EVENTS, "INSERT", &st)))
		return rc;
	schema_bind_int(st, DB_LOCK_EVENTS_PROC_ID, m->proc_id);
	schema_bind_u64(st, DB_LOCK_EVENTS_SEQ, seq);
	schema_bind_u64(st, DB_LOCK_EVENTS_TID, r->tid);
	schema_bind_u64(st, DB_LOCK_EVENTS_MONO_NS, r->mono_ns);
	schema_bind_text(st, DB_LOCK_EVENTS_OP, op ? op : "unknown", -1);
	schema_bind_u64(st, DB_LOCK_EVENTS_LOCK, r->lock.lock);
	schema_bind_text(st, DB_LOCK_EVENTS_KIND, kind ? kind : "unknown", -1);
	return merge_step(m, st, "insert lock event");
}

/* The first bytes of a call's arguments or results: a row of rpc_values. */
static int store_rpc_values(struct merge *m, uint64_t seq,
			    const struct record *r)
{
	const char *kind = record_values_kind_name(r->rpc_values.kind);
	const struct record_bin *b = &r->rpc_values.bytes;
	sqlite3_stmt *st;
	int rc;

	if ((rc = table_insert(m, DB_RPC_VALUES, "INSERT", &st)))
		return rc;
	schema_bind_int(st, DB_RPC_VALUES_PROC_ID, m->proc_id);
	schema_bind_u64(st, DB_RPC_VALUES_SEQ, seq);
	schema_bind_u64(st, DB_RPC_VALUES_FUNCTION_ID, r->rpc_values.function);
	schema_bind_text(st, DB_RPC_VALUES_KIND, kind ? kind : "unknown", -1);
	schema_bind_u64(st, DB_RPC_VALUES_LENGTH, r->rpc_values.length);
	/* empty, not NULL: the column is NOT NULL */
	schema_bind_blob(st, DB_RPC_VALUES_BYTES, b->len ? b->ptr : (void *)"",
			 (int)b->len);
	return merge_step(m, st, "insert rpc values");
}

/*
 * Exact totals: running totals, so the last record of a thread and key
 * replaces the one before (records come in log order).
 */
static int store_call_totals(struct merge *m, uint64_t seq,
			     const struct record *r)
{
	const struct record_call_totals *c = &r->call_totals;
	sqlite3_stmt *st;
	char *hist = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	(void)seq;
	if ((rc = table_insert(m, DB_CALL_TOTALS, "INSERT OR REPLACE", &st)))
		return rc;
	f = open_memstream(&hist, &len);
	if (!f)
		return -ENOMEM;
	if (c->latency)
		json_msgpack(f, c->latency);
	else
		fputs("[]", f);
	if (fclose(f)) {
		free(hist);
		return -ENOMEM;
	}
	schema_bind_int(st, DB_CALL_TOTALS_PROC_ID, m->proc_id);
	schema_bind_u64(st, DB_CALL_TOTALS_TID, r->tid);
	schema_bind_text(st, DB_CALL_TOTALS_SIDE, c->side ? "skeleton" : "stub",
			 -1);
	schema_bind_u64(st, DB_CALL_TOTALS_PROG, c->prog);
	schema_bind_u64(st, DB_CALL_TOTALS_VERS, c->vers);
	schema_bind_u64(st, DB_CALL_TOTALS_PROC, c->proc);
	schema_bind_u64(st, DB_CALL_TOTALS_CALLER_PROG, c->caller_prog);
	schema_bind_u64(st, DB_CALL_TOTALS_CALLER_VERS, c->caller_vers);
	schema_bind_u64(st, DB_CALL_TOTALS_CALLER_PROC, c->caller_proc);
	schema_bind_u64(st, DB_CALL_TOTALS_MONO_NS, r->mono_ns);
	schema_bind_u64(st, DB_CALL_TOTALS_CALLS, c->calls);
	schema_bind_u64(st, DB_CALL_TOTALS_FAILURES, c->failures);
	schema_bind_u64(st, DB_CALL_TOTALS_CPU_NS, c->cpu_ns);
	schema_bind_u64(st, DB_CALL_TOTALS_ALLOC_BYTES, c->alloc_bytes);
	schema_bind_u64(st, DB_CALL_TOTALS_LATENCY_NS, c->latency_ns);
	schema_bind_text(st, DB_CALL_TOTALS_LATENCY, hist, (int)len);
	schema_bind_u64(st, DB_CALL_TOTALS_LOST, c->lost);
	rc = merge_step(m, st, "insert call totals");
	free(hist);
	return rc;
}

/* Sporadic bottlenecks: the spike_* tables (spikes.c). */
static int store_spike(struct merge *m, uint64_t seq, const struct record *r)
{
	return spikes_put(&m->spikes, m->proc_id, (int64_t)seq, r);
}

/* A table name of CAUSAL_RECORD_DESTS that db-schema.def lacks fails here. */
/* clang-format off */
#define TABLE(ID) +0 * DB_##ID
#define DEST_TABLES(UPPER, STAGE, handler, tables) tables
_Static_assert(1 CAUSAL_RECORD_DESTS(DEST_TABLES),
	       "CAUSAL_RECORD_DESTS names the tables of db-schema.def");
#undef TABLE
/* clang-format on */

/*
 * The handler of each type of stage STORE or BOTH, by type: a handler the
 * table names and nobody wrote fails the build here ("'store_<handler>'
 * undeclared").
 */
/* clang-format off */
#define STORE_FN_STORE(UPPER, handler) [CAUSAL_REC_##UPPER] = store_##handler,
#define STORE_FN_BOTH STORE_FN_STORE
#define STORE_FN_READ(UPPER, handler)
#define STORE_FN_RAW(UPPER, handler)
#define STORE_FN(UPPER, STAGE, handler, tables) STORE_FN_##STAGE(UPPER, handler)
static int (*const store_fn[])(struct merge *m, uint64_t seq,
			       const struct record *r) = {
	CAUSAL_RECORD_DESTS(STORE_FN)
};
/* clang-format on */

/*
 * Main thread: a record of merge_stores() (number seq of the process),
 * into its table (records.def, CAUSAL_RECORD_DESTS).  The probes went to
 * the call join in the reader thread: rpc_calls has every probe's
 * columns (the view rpc_probes lists them one per row).
 */
int merge_store_record(struct merge *m, uint64_t seq, const struct record *r)
{
	if (r->type >= sizeof(store_fn) / sizeof(store_fn[0]) ||
	    !store_fn[r->type])
		return 0; /* merge_stores() hands no other type */
	return store_fn[r->type](m, seq, r);
}
