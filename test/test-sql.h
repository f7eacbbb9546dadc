/*
 * test-sql.h - one-value queries for the unit suites that read a merged
 * database.  A query that fails to prepare fails the test.
 */
#ifndef CAUSAL_TEST_SQL_H
#define CAUSAL_TEST_SQL_H

#include <check.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Open the database at path read-only; failing to fails the test. */
sqlite3 *q_open(const char *path);

/* The first row's value: -1 for NULL, -999 for no row. */
int64_t q_int(sqlite3 *db, const char *sql);

/* The first row's text: "<null>" for NULL, "<none>" for no row. */
const char *q_text(sqlite3 *db, const char *sql);

/* Every row of a one-column query, joined with ','; NULL as "-". */
const char *q_list(sqlite3 *db, const char *sql);

#endif
