/*
 * db-read.h - the merged trace database (db-schema.def) read by typed
 * column: the one way its readers (ccsg) read a table.
 *
 * A read names its table and its columns by their enums (enum db_table,
 * enum db_<table>_col), and the SQL after FROM takes column names from
 * DB_NAME() only, never from text of its own, so that a column renamed or
 * removed in db-schema.def breaks the build of every reader of it, not a
 * run:
 *
 *	static const int cols[] = { DB_HOSTS_HOST_ID, DB_HOSTS_NAME };
 *	struct db_read r;
 *
 *	if (db_read_open(&r, db, path, DB_HOSTS, cols, 2, "ORDER BY %s",
 *			 DB_NAME(HOSTS, HOST_ID)))
 *		return -1;
 *	while (db_read_next(&r)) {
 *		int64_t id = db_read_int(&r, DB_HOSTS_HOST_ID, 0, MAX, 0);
 *		...
 *	}
 *	return db_read_close(&r);
 *
 * Values are taken by the same enums, two ways:
 *  - checked (db_read_int(), db_read_text(), db_read_enum()): SQLite keeps
 *    whatever a column is given, so each value's type and range are
 *    checked as it is read, and the first bad one is reported naming the
 *    file, table, row and column; the read then stops (r->bad);
 *  - as stored (db_get_*()): SQLite's own conversions (NULL reads as 0,
 *    or a NULL pointer), for readers that take what there is.
 * A column the read did not select (one an older schema version lacks)
 * reads as NULL either way.
 */
#ifndef CAUSAL_DB_READ_H
#define CAUSAL_DB_READ_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "causal/db-schema.h"

/* What a checked integer reads for NULL (and a column not selected). */
#define DB_NONE INT64_MIN

/* Columns a table may have (at[] below). */
#define DB_READ_MAX_COLS 64

struct db_read {
	sqlite3 *db;
	sqlite3_stmt *st;
	const char *path; /* for messages; NULL: SQLite's errors unsaid */
	enum db_table t;
	/*
	 * The row a message names: row, when the caller wrote it ("proc_id
	 * 3"), else column key_col's key (db_read_key()), else "#n".
	 */
	char row[96];
	int key_col;
	int64_t key;
	size_t n; /* rows read */
	/* a value or SQLite failed (said), or the caller set it: the read
	 * is over, db_read_close() says -1 */
	int bad;
	signed char at[DB_READ_MAX_COLS]; /* table column -> query column */
};

/*
 * Start reading columns cols[0..n) of table t of db, then the SQL that
 * tail (a printf format, or NULL) makes: "WHERE ..." or "ORDER BY ...",
 * its column names from DB_NAME(), its '?' bound with db_read_bind().
 * 0; -ENOMEM after fail("out of memory"); -EIO when SQLite refused the
 * statement, after fail("cannot read '<path>': <SQLite's message>"), or
 * nothing said when path is NULL (the caller says why: sqlite3_errmsg()).
 */
int db_read_open(struct db_read *r, sqlite3 *db, const char *path,
		 enum db_table t, const int *cols, size_t n, const char *tail,
		 ...) __attribute__((format(printf, 7, 8)));

static inline void db_read_bind(struct db_read *r, int param, int64_t v)
{
	sqlite3_bind_int64(r->st, param, v);
}

/* The next row: 1, or 0 at the end or after an error (then r->bad). */
int db_read_next(struct db_read *r);

/* Read the rows again from the first (the same statement, its bound
 * values kept). */
static inline void db_read_rewind(struct db_read *r)
{
	sqlite3_reset(r->st);
	r->n = 0;
}

/* Finish: 0, or -1 when a value or SQLite failed (said). */
int db_read_close(struct db_read *r);

/* The row is named by integer column col, v: "call_id 17" in a message,
 * made only if one is said.  Until the next row. */
static inline void db_read_key(struct db_read *r, int col, int64_t v)
{
	r->key_col = col;
	r->key = v;
}

/* ---- checked values ---------------------------------------------------- */

/* Say what is wrong with column col of this row, once a read. */
void db_read_bad(struct db_read *r, int col, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The value of column col for a message: text quoted, cut and made
 * printable ("text 'abc'", "NULL", "a blob of 3 bytes"...). */
const char *db_read_describe(struct db_read *r, int col, char *buf, size_t len);
/* fail("out of memory") once, the read over: -1. */
int db_read_nomem(struct db_read *r);

int64_t db_read_int_bad(struct db_read *r, int col, sqlite3_value *v,
			int64_t min, int64_t max, int null_ok);

/*
 * An integer within [min, max]: DB_NONE for NULL, which is bad unless
 * null_ok, and for a bad value.
 */
static inline int64_t db_read_int(struct db_read *r, int col, int64_t min,
				  int64_t max, int null_ok)
{
	int i = r->at[col];
	sqlite3_value *v;
	int64_t x;

	if (i < 0)
		return DB_NONE;
	/* one API call per value, then the value's own accessors (a third
	 * of a report's time went to sqlite3_column_type + _int64) */
	v = sqlite3_column_value(r->st, i);
	if (sqlite3_value_type(v) != SQLITE_INTEGER ||
	    (x = sqlite3_value_int64(v)) < min || x > max)
		return db_read_int_bad(r, col, v, min, max, null_ok);
	return x;
}

/* The same as an int32_t, dflt for NULL. */
static inline int32_t db_read_i32(struct db_read *r, int col, int64_t min,
				  int64_t max, int32_t dflt)
{
	int64_t v = db_read_int(r, col, min, max, 1);

	return v == DB_NONE ? dflt : (int32_t)v;
}

const char *db_read_text_bad(struct db_read *r, int col, sqlite3_value *v,
			     int null_ok);

/* Text, or NULL (bad unless null_ok). */
static inline const char *db_read_text(struct db_read *r, int col, int null_ok)
{
	int i = r->at[col];
	sqlite3_value *v;

	if (i < 0)
		return NULL;
	v = sqlite3_column_value(r->st, i);
	if (sqlite3_value_type(v) != SQLITE_TEXT)
		return db_read_text_bad(r, col, v, null_ok);
	return (const char *)sqlite3_value_text(v);
}

/* Text that is one of names[0..n): its index; -1 for NULL or bad. */
int db_read_enum(struct db_read *r, int col, const char *const *names, int n);

/* ---- values as stored --------------------------------------------------- */

/* SQLITE_INTEGER, SQLITE_TEXT, ... SQLITE_NULL. */
static inline int db_get_type(const struct db_read *r, int col)
{
	return r->at[col] < 0 ? SQLITE_NULL
			      : sqlite3_column_type(r->st, r->at[col]);
}

static inline int64_t db_get_int(const struct db_read *r, int col)
{
	return r->at[col] < 0 ? 0 : sqlite3_column_int64(r->st, r->at[col]);
}

static inline const char *db_get_text(const struct db_read *r, int col)
{
	return r->at[col] < 0
		       ? NULL
		       : (const char *)sqlite3_column_text(r->st, r->at[col]);
}

/* SQL's coalesce(a, b) of two integer columns: the first that is not
 * NULL, else dflt. */
static inline int64_t db_get_coalesce(const struct db_read *r, int a, int b,
				      int64_t dflt)
{
	if (db_get_type(r, a) != SQLITE_NULL)
		return db_get_int(r, a);
	return db_get_type(r, b) != SQLITE_NULL ? db_get_int(r, b) : dflt;
}

/* A blob (or text as bytes), its length in *n; NULL for NULL. */
static inline const void *db_get_blob(const struct db_read *r, int col, int *n)
{
	const void *p;

	if (r->at[col] < 0) {
		*n = 0;
		return NULL;
	}
	p = sqlite3_column_blob(r->st, r->at[col]);
	*n = sqlite3_column_bytes(r->st, r->at[col]);
	return p;
}

/* The text of column col malloc'd, or NULL (NULL, or out of memory). */
char *db_get_strdup(const struct db_read *r, int col);

/* ---- the database -------------------------------------------------------- */

/* Has db table t?  1 or 0; -1 when SQLite cannot say. */
int db_has_table(sqlite3 *db, enum db_table t);

#endif
