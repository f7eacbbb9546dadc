/*
 * schema.c - create the merged trace database from db-schema.def, the
 * definition docs/database.md prints: the end-to-end tests and
 * ccsg query these names.
 */
#include <stdio.h>
#include <stdlib.h>

#include "causal/log-format.h"
#include "schema.h"
#include "usage.h"

_Static_assert(DB_CHAIN_LEN == CAUSAL_CHAIN_ID_LEN, "a chain id is the log's");

static int exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		fail("database: %s", msg ? msg : sqlite3_errmsg(db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

/* Run the statements db_schema_write(what) writes. */
static int exec_schema(sqlite3 *db, unsigned what)
{
	char *sql = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&sql, &len);
	int rc;

	if (!f)
		return fail("out of memory");
	rc = db_schema_write(f, what);
	if (fclose(f) || rc) {
		free(sql);
		return fail("out of memory");
	}
	rc = exec(db, sql);
	free(sql);
	return rc;
}

int schema_prepare_insert(sqlite3 *db, enum db_table t, const char *verb,
			  int rows, sqlite3_stmt **st)
{
	char *sql = db_sql_insert(t, verb, rows);
	int rc;

	if (!sql)
		return fail("out of memory");
	rc = sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, st,
				NULL);
	free(sql);
	if (rc != SQLITE_OK)
		return fail("database: %s", sqlite3_errmsg(db));
	return 0;
}

static int insert_meta(sqlite3 *db, sqlite3_stmt *st, const char *key,
		       const char *value)
{
	schema_bind_text(st, DB_META_KEY, key, -1);
	schema_bind_text(st, DB_META_VALUE, value, -1);
	if (sqlite3_step(st) != SQLITE_DONE)
		return fail("database: %s", sqlite3_errmsg(db));
	sqlite3_reset(st);
	return 0;
}

int schema_set_meta(sqlite3 *db, const char *key, const char *value)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (schema_prepare_insert(db, DB_META, "INSERT OR REPLACE", 1, &st))
		return -1;
	rc = insert_meta(db, st, key, value);
	sqlite3_finalize(st);
	return rc;
}

int schema_create(sqlite3 *db, bool raw)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (exec_schema(db, DB_SQL_TABLES | (raw ? 0 : DB_SQL_NO_RECORDS)) ||
	    schema_prepare_insert(db, DB_META, "INSERT", 1, &st))
		return -1;
	rc = insert_meta(db, st, "format_version",
			 DB_STR(CAUSAL_FORMAT_VERSION));
	if (!rc)
		rc = insert_meta(db, st, "schema_version",
				 DB_STR(DB_SCHEMA_VERSION));
	sqlite3_finalize(st);
	return rc;
}

int schema_create_indexes(sqlite3 *db)
{
	return exec_schema(db, DB_SQL_INDEXES);
}
