/*
 * db-clickhouse.h - the trace database's tables (db-schema.def) as a
 * ClickHouse store: the same tables and columns, with the SQLite types
 * mapped (INTEGER: Int64, TEXT and BLOB: String, Nullable(...) unless
 * NOT NULL or a key), the records table left out, and in front of every
 * table the column load_id: which load wrote the row.  docs/clickhouse.md
 * ("ClickHouse store") shows the statements (db_ch_schema_write()).
 *
 * A load is one `tracedump merge DIR --db clickhouse://...`: its rows
 * keep the ids its own merge gave (proc_id 1.. of DIR's logs), and the
 * table loads says when it started and when it finished.  Readers take
 * only finished loads, and of a process (processes.uuid) loaded more than
 * once only the last finished load.
 */
#ifndef CAUSAL_DB_CLICKHOUSE_H
#define CAUSAL_DB_CLICKHOUSE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "causal/db-schema.h"

/* The table of loads, ClickHouse's only. */
#define DB_CH_LOADS "loads"
/*
 * The chain's shard key: a cluster's Distributed rpc_calls is sharded by
 * it (so a chain is never split), and ccsg's workers each take the
 * chains whose key modulo their number is theirs.
 */
#define DB_CH_CHAIN_SHARD "cityHash64(chain)"

/* load_id: microseconds of the realtime clock at its start << 12, plus
 * 12 random bits, so that ids sort by time and never collide. */
#define DB_CH_LOAD_ID_SHIFT 12

/* Whether table t is in a ClickHouse store (not the records table). */
bool db_ch_has_table(enum db_table t);

/* How a column goes into and comes out of RowBinary (db_ch_col_kinds()). */
enum db_ch_kind {
	DB_CH_NULLABLE = 1 << 0, /* a flag byte before the value */
	DB_CH_INTEGER = 1 << 1,	 /* Int64; else a String: TEXT or BLOB */
	DB_CH_BLOB = 1 << 2,	 /* bytes, not text, in SQLite */
};

#define DB_CH_MAX_COLS 64

/*
 * The enum db_ch_kind of each column of t into kind[], worked out once
 * for a table rather than per value.  -1 when t has more than
 * DB_CH_MAX_COLS columns.
 */
int db_ch_col_kinds(enum db_table t, uint8_t kind[DB_CH_MAX_COLS]);

/* ClickHouse's type of column col of t: "Int64", "Nullable(String)"... */
const char *db_ch_type(enum db_table t, int col);

/* Whether column col of t may be NULL. */
bool db_ch_nullable(enum db_table t, int col);

/*
 * "CREATE TABLE IF NOT EXISTS name (load_id UInt64, ...) ENGINE = ...":
 * t's, or the loads table's for t = DB_NTABLES.  Malloc'd; NULL without
 * memory.
 */
char *db_ch_create(int t);
/* The same with the table in database db (NULL: the connection's). */
char *db_ch_create_in(int t, const char *db);

/*
 * "name (load_id, col1, col2, ...)": what an INSERT of all of t's
 * columns goes INTO.  Malloc'd; NULL without memory.
 */
char *db_ch_into(enum db_table t);

/*
 * The tables of a store on a cluster named cluster (remote_servers in
 * the servers' configuration): database db DB_CH_SHARD_SUFFIX holds each
 * table as db_ch_create() makes it, and database db each as a
 * Distributed table over those of every shard, sharded by
 * DB_CH_CHAIN_SHARD (rpc_calls) or load_id (the others).  Run on every
 * server, any can take loads and readers (clickhouse://HOST/db).
 * Statements end with ";\n".  0, or -1 on a write error.
 */
#define DB_CH_SHARD_SUFFIX "_shard"
int db_ch_cluster_schema_write(FILE *f, const char *cluster, const char *db);

/* Every statement of db_ch_create(), as docs/clickhouse.md shows them. */
int db_ch_schema_write(FILE *f);

#endif
