/*
 * db-schema.h - the merged trace database as shared code: its version,
 * its tables and columns (from db-schema.def), the enum strings that only
 * the database has, and the SQL made from them (store/db-schema.c).
 * `tracedump merge` writes with it (store/schema.h: tracedump/merge.c,
 * rpc-calls.c, spikes.c), ccsg reads with it (store/db-read.h, the typed
 * reader), and the ClickHouse store maps it (store/db-clickhouse.h);
 * docs/database.md is its documentation and check-db-schema.c
 * keeps the two the same.
 *
 * Columns are named by enums, one per table, in the table's order:
 *
 *	enum db_rpc_calls_col { DB_RPC_CALLS_CALL_ID, DB_RPC_CALLS_CHAIN, ...,
 *				DB_RPC_CALLS_NCOLS };
 *
 * so a writer binds DB_RPC_CALLS_XID of an INSERT made by db_sql_insert()
 * (SQL parameter DB_RPC_CALLS_XID + 1) and a reader selects columns by
 * name with db_sql_select() (db_read_open()): a column renamed or removed
 * here breaks the build of the code that names it, not a run
 * (scripts/check-db-typed.py shows it).  The enum strings of the log
 * records that the database stores ('user', 'success', 'RPC_TIMEDOUT'...)
 * are the log format's names, not this file's.
 */
#ifndef CAUSAL_DB_SCHEMA_H
#define CAUSAL_DB_SCHEMA_H

#include <stddef.h>
#include <stdio.h>

/*
 * meta.schema_version.  2: the rpc_* tables.  3: chain ids are 20-byte
 * BLOBs (rpc_calls.chain, threads.ctx_chain; 40 hex digits of TEXT in 2),
 * rpc_probes is a view over rpc_calls instead of a table.  4: heap memory
 * (processes.peak_heap_bytes, threads.alloc_bytes ... peak_heap_bytes,
 * rpc_calls.stub_alloc_bytes ... skel_freed_bytes), only added.  5: the
 * spike_* tables (sporadic bottlenecks), only added.  6: the records
 * table only with `tracedump merge --raw` (the logs are the archive; it
 * was half of the database and a third of the merge time), one index over
 * rpc_calls.  7: the lock_events table (LOCK records), only added; and
 * later no index over rpc_calls at all (tables and columns the same, so
 * the same version: a reader sees no difference but speed).  8:
 * processes.last_mono_ns (when a process that did not end cleanly was
 * last heard of), only added.
 * 9: rpc_calls.reply_proc_id (a reply sent by a fork child), only
 * added.  10: the spike_samplers table (how each process sampled), only
 * added.  11: the rpc_values table (values of calls), only added.
 * 12: processes.segments and deleted_segments, deleted_records,
 * deleted_bytes (a rotated log, CAUSAL_LOG_MAX_MB), only added.
 * 13: processes.keep_held, keep_written, keep_overflow,
 * keep_chains (tail keep), only added.
 * 14: the call_totals table (exact totals under head sampling)
 * and processes.sample_rate_q32, only added.
 * 15: the loaded_segments table (`tracedump merge --follow`), only
 * added; a database it writes has no meta.calls_order.
 * 16: a ClickHouse store has the loaded_segments table too (a
 * follower's load names its segment there), only added.
 */
#define DB_SCHEMA_VERSION 16
#define DB_STR_(x) #x
#define DB_STR(x) DB_STR_(x)

/*
 * meta.calls_order = 'chain': rpc_calls.call_id follows the order a
 * reader of chains wants - by chain, then by the call's first event
 * (coalesce of stub_start_event, skel_start_event, skel_end_event,
 * stub_end_event; NULL first), then call_id - so `ORDER BY call_id`
 * gives the calls chain by chain without a sort.  Merges since schema
 * version 7 write it; without it a reader sorts.
 */
#define DB_META_CALLS_ORDER "calls_order"
#define DB_CALLS_ORDER_CHAIN "chain"

/* Bytes of a chain id in rpc_calls.chain and threads.ctx_chain. */
#define DB_CHAIN_LEN 20

enum db_table {
#define DB_TABLE(ID, name, comment) DB_##ID,
#include "causal/db-schema.def"
	DB_NTABLES
};

/* enum db_<table>_col: DB_<TABLE>_<COLUMN>, then DB_<TABLE>_NCOLS. */
/* clang-format off */
#define DB_TABLE(ID, name, comment) enum db_##name##_col {
#define DB_COL(ID, COLUMN, column, type, comment) DB_##ID##_##COLUMN,
#define DB_END(ID, name, key, options) DB_##ID##_NCOLS };
#include "causal/db-schema.def"
/* clang-format on */

/* rpc_calls.missing: the side a call has no probe of. */
#define DB_MISSING_SERVER "server"
#define DB_MISSING_CLIENT "client"

/* files.status: how much of a log was read. */
#define DB_FILE_OK "ok"
#define DB_FILE_TRUNCATED "truncated" /* only the end is missing */
#define DB_FILE_CORRUPT "corrupt"
#define DB_FILE_DISK_FULL "disk_full" /* the loss slot says ENOSPC, EDQUOT */
#define DB_FILE_WRITE_ERROR "write_error" /* ... another errno */

struct db_column {
	const char *name;
	const char *type;    /* "INTEGER NOT NULL", "BLOB" ... */
	const char *comment; /* "" for none */
};

struct db_table_def {
	const char *name, *comment;
	const struct db_column *cols;
	int ncols;
	const char *key;     /* "PRIMARY KEY(proc_id, seq)" or "" */
	const char *options; /* "WITHOUT ROWID" or "" */
};

/* Indexed by enum db_table. */
extern const struct db_table_def db_tables[DB_NTABLES];

/* The name of column col of table t. */
static inline const char *db_col_name(enum db_table t, int col)
{
	return db_tables[t].cols[col].name;
}

/* Column COLUMN of table TABLE by name, for SQL: DB_NAME(RPC_CALLS,
 * CHAIN) is "chain".  The enums must exist, so SQL that names its
 * columns so stops compiling when one is renamed or removed here. */
#define DB_NAME(TABLE, COLUMN) db_col_name(DB_##TABLE, DB_##TABLE##_##COLUMN)

/*
 * For SQL kept as text (the ClickHouse store's copy, store/ch-*.c), the
 * same check by the names themselves: DB_NAMED(PROCESSES, uuid) and
 * DB_NAMED_TABLE(processes) compile only while db-schema.def has that
 * column and that table.  A file declares so every name its SQL text
 * holds (scripts/check-db-typed.py checks that it declares them all).
 */
enum db_named {
#define DB_TABLE(ID, name, comment) DB_NAMED_##name,
#define DB_COL(ID, COLUMN, column, type, comment) DB_NAMED_##ID##_##column,
#include "causal/db-schema.def"
};
#define DB_NAMED(TABLE, column)                                                \
	_Static_assert(DB_NAMED_##TABLE##_##column >= 0,                       \
		       "db-schema.def has " #column)
#define DB_NAMED_TABLE(name)                                                   \
	_Static_assert(DB_NAMED_##name >= 0, "db-schema.def has " #name)

/* What db_schema_write() writes. */
enum {
	DB_SQL_TABLES = 1 << 0,	 /* CREATE TABLE and CREATE VIEW */
	DB_SQL_INDEXES = 1 << 1, /* CREATE INDEX */
	DB_SQL_ALL = DB_SQL_TABLES | DB_SQL_INDEXES,
	DB_SQL_NO_RECORDS = 1 << 2, /* ... but the records table */
};

/*
 * The statements that create the schema, commented, one table after the
 * other, as docs/database.md shows them (DB_SQL_ALL is its SQL block, byte for
 * byte).  Returns 0, or -1 when f failed.
 */
int db_schema_write(FILE *f, unsigned what);

/*
 * "INSERT INTO t(c1, c2, ...) VALUES(?, ...)", with rows rows of
 * parameters; verb is "INSERT" or "INSERT OR IGNORE".  Row r's column c is
 * parameter r * ncols + c + 1.  Malloc'd; NULL when out of memory.
 */
char *db_sql_insert(enum db_table t, const char *verb, int rows);

/*
 * "SELECT <cols[0]>, <cols[1]>, ... FROM t <tail>": result column i is
 * column cols[i] of the table.  Malloc'd; NULL when out of memory.
 */
char *db_sql_select(enum db_table t, const int *cols, size_t n,
		    const char *tail);

#endif
