/*
 * schema.h - the merged trace database (documented in README.md, "The database").
 */
#ifndef CAUSAL_SCHEMA_H
#define CAUSAL_SCHEMA_H

#include <sqlite3.h>

#define CAUSAL_SCHEMA_VERSION 2

/* Create the tables and fill meta.  Returns 0 or -1 after fail(). */
int schema_create(sqlite3 *db);

/* Create the indexes; called after the bulk insert, which is faster. */
int schema_create_indexes(sqlite3 *db);

#endif
