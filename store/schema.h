/*
 * schema.h - the merged trace database as tracedump writes it (the SQLite
 * writer; db-read.h is the reader): the tables, columns and version of
 * include/causal/db-schema.h (documented in docs/database.md),
 * and binding an INSERT's values by column name.
 */
#ifndef CAUSAL_SCHEMA_H
#define CAUSAL_SCHEMA_H

#include <stdbool.h>
#include <stdint.h>

#include <sqlite3.h>

#include "causal/db-schema.h"

/*
 * Create the tables and the view, fill meta; the records table only when
 * raw.  Returns 0 or -1 after fail().
 */
int schema_create(sqlite3 *db, bool raw);
/* Set meta.key to value: 0, or -1 after fail(). */
int schema_set_meta(sqlite3 *db, const char *key, const char *value);

/* Create the indexes; called after the bulk insert, which is faster. */
int schema_create_indexes(sqlite3 *db);

/*
 * Prepare db_sql_insert(t, verb, rows) into *st (persistent: it is
 * stepped many times).  Returns 0 or -1 after fail().
 */
int schema_prepare_insert(sqlite3 *db, enum db_table t, const char *verb,
			  int rows, sqlite3_stmt **st);

/*
 * Bind column col (an enum db_<table>_col) of row 0 of an INSERT made by
 * db_sql_insert(); a column left unbound is NULL.  Text and blobs must
 * outlive the step (SQLITE_STATIC) unless the _copy variant is used.
 */
static inline void schema_bind_int(sqlite3_stmt *st, int col, int64_t v)
{
	sqlite3_bind_int64(st, col + 1, v);
}

static inline void schema_bind_u64(sqlite3_stmt *st, int col, uint64_t v)
{
	sqlite3_bind_int64(st, col + 1, (int64_t)v);
}

/* s (NULL: the column stays NULL), n bytes or up to its NUL when n < 0. */
static inline void schema_bind_text(sqlite3_stmt *st, int col, const char *s,
				    int n)
{
	if (s)
		sqlite3_bind_text(st, col + 1, s, n, SQLITE_STATIC);
}

static inline void schema_bind_text_copy(sqlite3_stmt *st, int col,
					 const char *s, int n)
{
	if (s)
		sqlite3_bind_text(st, col + 1, s, n, SQLITE_TRANSIENT);
}

static inline void schema_bind_blob(sqlite3_stmt *st, int col, const void *p,
				    int n)
{
	sqlite3_bind_blob(st, col + 1, p, n, SQLITE_STATIC);
}

static inline void schema_bind_blob_copy(sqlite3_stmt *st, int col,
					 const void *p, int n)
{
	sqlite3_bind_blob(st, col + 1, p, n, SQLITE_TRANSIENT);
}

/* A chain id, DB_CHAIN_LEN bytes that outlive the step. */
static inline void schema_bind_chain(sqlite3_stmt *st, int col,
				     const uint8_t *chain)
{
	sqlite3_bind_blob(st, col + 1, chain, DB_CHAIN_LEN, SQLITE_STATIC);
}

#endif
