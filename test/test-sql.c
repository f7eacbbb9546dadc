/*
 * test-sql.c - the helpers test-sql.h declares, whose comments there are their
 * contract: compiled once and linked into the runner.
 */
#include "test-sql.h"

sqlite3 *q_open(const char *path)
{
	sqlite3 *db;

	ck_assert_int_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL),
			 SQLITE_OK);
	return db;
}

int64_t q_int(sqlite3 *db, const char *sql)
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

const char *q_text(sqlite3 *db, const char *sql)
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

const char *q_list(sqlite3 *db, const char *sql)
{
	static char buf[8][512];
	static int k;
	char *out = buf[k++ & 7];
	sqlite3_stmt *st;
	size_t n = 0;

	out[0] = '\0';
	ck_assert_int_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW && n < sizeof(buf[0]))
		n += snprintf(
			out + n, sizeof(buf[0]) - n, "%s%s", n ? "," : "",
			sqlite3_column_type(st, 0) == SQLITE_NULL
				? "-"
				: (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return out;
}
