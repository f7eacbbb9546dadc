/*
 * db-clickhouse.c - the ClickHouse form of the trace tables
 * (db-clickhouse.h), made from db-schema.def.
 *
 * Every table is a MergeTree partitioned by the day of its load (so that
 * old loads go with DROP PARTITION) and ordered by load_id, then by the
 * SQLite table's key: (load_id, proc_id, seq) for a table keyed so,
 * (load_id, chain, call_id) for rpc_calls, read range of chains by range.
 * Both 18.16 (Debian bookworm) and current releases accept these statements.
 */
#include <stdlib.h>
#include <string.h>

#include "db-clickhouse.h"

/* DB_CH_CHAIN_SHARD's SQL text names it (db-schema.h) */
DB_NAMED(RPC_CALLS, chain);

#define LOAD_DAY                                                               \
	"toDate(toDateTime(intDiv(load_id, 4096000000)))" /* 2^12 * 10^6 */

bool db_ch_has_table(enum db_table t)
{
	return t != DB_RECORDS;
}

bool db_ch_nullable(enum db_table t, int col)
{
	const char *type = db_tables[t].cols[col].type;

	return !strstr(type, "NOT NULL") && !strstr(type, "PRIMARY KEY");
}

int db_ch_col_kinds(enum db_table t, uint8_t kind[DB_CH_MAX_COLS])
{
	const struct db_table_def *d = &db_tables[t];

	if (d->ncols > DB_CH_MAX_COLS)
		return -1;
	for (int i = 0; i < d->ncols; i++) {
		const char *type = d->cols[i].type;

		kind[i] =
			(uint8_t)((db_ch_nullable(t, i) ? DB_CH_NULLABLE : 0) |
				  (!strncmp(type, "INTEGER", 7) ? DB_CH_INTEGER
								: 0) |
				  (!strncmp(type, "BLOB", 4) ? DB_CH_BLOB : 0));
	}
	return 0;
}

const char *db_ch_type(enum db_table t, int col)
{
	bool integer = !strncmp(db_tables[t].cols[col].type, "INTEGER", 7);

	if (db_ch_nullable(t, col))
		return integer ? "Nullable(Int64)" : "Nullable(String)";
	return integer ? "Int64" : "String";
}

struct sql {
	char *p;
	size_t len;
	FILE *f;
};

static int sql_open(struct sql *q)
{
	q->p = NULL;
	q->f = open_memstream(&q->p, &q->len);
	return q->f ? 0 : -1;
}

static char *sql_close(struct sql *q)
{
	if (fclose(q->f)) {
		free(q->p);
		return NULL;
	}
	return q->p;
}

/* The ORDER BY of t after load_id: the SQLite key's columns. */
static void write_order(FILE *f, enum db_table t)
{
	const struct db_table_def *d = &db_tables[t];
	const char *key = strstr(d->key, "PRIMARY KEY(");

	fputs("load_id", f);
	/* a reader asks for calls by range of chains (ch-read.c): the
	 * server then reads the granules of those chains only */
	if (t == DB_RPC_CALLS)
		fprintf(f, ", %s", db_col_name(t, DB_RPC_CALLS_CHAIN));
	if (key) {
		key += strlen("PRIMARY KEY(");
		fprintf(f, ", %.*s", (int)strcspn(key, ")"), key);
		return;
	}
	for (int i = 0; i < d->ncols; i++)
		if (strstr(d->cols[i].type, "PRIMARY KEY"))
			fprintf(f, ", %s", d->cols[i].name);
}

static const char loads_ddl[] =
	"CREATE TABLE IF NOT EXISTS " DB_CH_LOADS " (\n"
	"    load_id UInt64,\n"
	"    state String,          -- 'started', then 'finished'\n"
	"    at_ns UInt64,          -- realtime clock of the loader\n"
	"    loader_host String,    -- where tracedump merge ran\n"
	"    dir String,            -- its DIR\n"
	"    schema_version UInt32, -- meta.schema_version it wrote\n"
	"    processes UInt64,      -- processes it loaded\n"
	"    rows UInt64            -- rows it wrote (finished)\n"
	") ENGINE = MergeTree PARTITION BY " LOAD_DAY "\n"
	"ORDER BY (load_id, state)";

/* The name of table t (DB_NTABLES: loads). */
static const char *table_name(int t)
{
	return t == DB_NTABLES ? DB_CH_LOADS : db_tables[t].name;
}

char *db_ch_create(int t)
{
	return db_ch_create_in(t, NULL);
}

char *db_ch_create_in(int t, const char *db)
{
	const struct db_table_def *d;
	struct sql q;

	if (t == DB_NTABLES && !db)
		return strdup(loads_ddl);
	if (sql_open(&q))
		return NULL;
	if (t == DB_NTABLES) { /* the same, in db */
		fprintf(q.f, "CREATE TABLE IF NOT EXISTS %s.%s", db,
			loads_ddl + strlen("CREATE TABLE IF NOT EXISTS "));
		return sql_close(&q);
	}
	d = &db_tables[t];
	fprintf(q.f, "CREATE TABLE IF NOT EXISTS %s%s%s (\n    load_id UInt64",
		db ? db : "", db ? "." : "", d->name);
	for (int i = 0; i < d->ncols; i++)
		fprintf(q.f, ",\n    %s %s", d->cols[i].name, db_ch_type(t, i));
	fputs("\n) ENGINE = MergeTree PARTITION BY " LOAD_DAY "\nORDER BY (",
	      q.f);
	write_order(q.f, t);
	fputc(')', q.f);
	return sql_close(&q);
}

char *db_ch_into(enum db_table t)
{
	const struct db_table_def *d = &db_tables[t];
	struct sql q;

	if (sql_open(&q))
		return NULL;
	fprintf(q.f, "%s (load_id", d->name);
	for (int i = 0; i < d->ncols; i++)
		fprintf(q.f, ", %s", d->cols[i].name);
	fputc(')', q.f);
	return sql_close(&q);
}

int db_ch_cluster_schema_write(FILE *f, const char *cluster, const char *db)
{
	fprintf(f, "CREATE DATABASE IF NOT EXISTS %s" DB_CH_SHARD_SUFFIX ";\n",
		db);
	fprintf(f, "CREATE DATABASE IF NOT EXISTS %s;\n", db);
	for (int t = 0; t <= DB_NTABLES; t++) {
		char shard[256];
		char *sql;

		if (t < DB_NTABLES && !db_ch_has_table(t))
			continue;
		snprintf(shard, sizeof(shard), "%s" DB_CH_SHARD_SUFFIX, db);
		if (!(sql = db_ch_create_in(t, shard)))
			return -1;
		fprintf(f, "\n%s;\n", sql);
		free(sql);
		/* a chain's rows on one shard; a load's other rows together */
		fprintf(f,
			"CREATE TABLE IF NOT EXISTS %s.%s AS %s.%s\n"
			"ENGINE = Distributed(%s, %s, %s, %s);\n",
			db, table_name(t), shard, table_name(t), cluster, shard,
			table_name(t),
			t == DB_RPC_CALLS ? DB_CH_CHAIN_SHARD : "load_id");
	}
	return ferror(f) ? -1 : 0;
}

int db_ch_schema_write(FILE *f)
{
	for (int t = 0; t <= DB_NTABLES; t++) {
		char *sql;

		if (t < DB_NTABLES && !db_ch_has_table(t))
			continue;
		sql = db_ch_create(t);
		if (!sql)
			return -1;
		fprintf(f, "%s%s;\n", t ? "\n" : "", sql);
		free(sql);
	}
	return ferror(f) ? -1 : 0;
}
