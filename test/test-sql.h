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

#define TEST_SQL_FN static __attribute__((unused))

TEST_SQL_FN sqlite3 *open_db(const char *path)
{
	sqlite3 *db;

	ck_assert_int_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL),
			 SQLITE_OK);
	return db;
}

/* The first row's value: -1 for NULL, -999 for no row. */
TEST_SQL_FN int64_t q_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	int64_t v = -999;

	ck_assert_int_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_type(st, 0) == SQLITE_NULL
			    ? -1
			    : sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* The first row's text: "<null>" for NULL, "<none>" for no row. */
TEST_SQL_FN const char *q_text(sqlite3 *db, const char *sql)
{
	static char buf[8][256];
	static int k;
	char *out = buf[k++ & 7];
	sqlite3_stmt *st;

	strcpy(out, "<none>");
	ck_assert_int_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		snprintf(out, sizeof(buf[0]), "%s",
			 sqlite3_column_type(st, 0) == SQLITE_NULL
				 ? "<null>"
				 : (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return out;
}

/* Every row of a one-column query, joined with ','; NULL as "-". */
TEST_SQL_FN const char *q_list(sqlite3 *db, const char *sql)
{
	static char buf[8][512];
	static int k;
	char *out = buf[k++ & 7];
	sqlite3_stmt *st;
	size_t n = 0;

	out[0] = '\0';
	ck_assert_int_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW && n < sizeof(buf[0]))
		n += snprintf(out + n, sizeof(buf[0]) - n, "%s%s", n ? "," : "",
			      sqlite3_column_type(st, 0) == SQLITE_NULL
				      ? "-"
				      : (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return out;
}

#endif
