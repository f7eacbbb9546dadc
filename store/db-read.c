/*
 * db-read.c - reading the merged trace database by typed column
 * (db-read.h): the statement made from the enums, and the messages that
 * name the file, table, row and column of a bad value.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db-read.h"
#include "usage.h"

/* at[] has room for every table's columns */
/* clang-format off */
#define DB_END(ID, name, key, options)                                         \
	_Static_assert(DB_##ID##_NCOLS <= DB_READ_MAX_COLS, #name " has too many columns");
#include "causal/db-schema.def"
/* clang-format on */

int db_read_open(struct db_read *r, sqlite3 *db, const char *path,
		 enum db_table t, const int *cols, size_t n, const char *tail,
		 ...)
{
	char *rest = NULL, *sql = NULL;
	va_list ap;
	int rc = -1;

	memset(r, 0, sizeof(*r));
	memset(r->at, -1, sizeof(r->at));
	r->db = db;
	r->path = path;
	r->t = t;
	r->key_col = -1;
	for (size_t i = 0; i < n; i++)
		r->at[cols[i]] = (signed char)i;
	if (tail) {
		va_start(ap, tail);
		rc = vasprintf(&rest, tail, ap);
		va_end(ap);
	}
	if ((tail && rc < 0) || !(sql = db_sql_select(t, cols, n, rest))) {
		if (tail && rc >= 0)
			free(rest);
		r->bad = 1;
		fail("out of memory");
		return -ENOMEM;
	}
	free(rest);
	rc = sqlite3_prepare_v2(db, sql, -1, &r->st, NULL);
	free(sql);
	if (rc == SQLITE_OK)
		return 0;
	r->bad = 1;
	if (path)
		fail("cannot read '%s': %s", path, sqlite3_errmsg(db));
	return -EIO;
}

int db_read_next(struct db_read *r)
{
	int rc;

	if (r->bad)
		return 0;
	rc = sqlite3_step(r->st);
	if (rc == SQLITE_ROW) {
		r->row[0] = '\0';
		r->key_col = -1;
		r->n++;
		return 1;
	}
	if (rc != SQLITE_DONE) {
		r->bad = 1;
		if (r->path)
			fail("cannot read '%s': %s", r->path,
			     sqlite3_errmsg(r->db));
	}
	return 0;
}

int db_read_close(struct db_read *r)
{
	sqlite3_finalize(r->st);
	r->st = NULL;
	return r->bad ? -1 : 0;
}

const char *db_read_describe(struct db_read *r, int col, char *buf, size_t len)
{
	int i = r->at[col];

	switch (sqlite3_column_type(r->st, i)) {
	case SQLITE_INTEGER:
		snprintf(buf, len, "%lld",
			 (long long)sqlite3_column_int64(r->st, i));
		break;
	case SQLITE_FLOAT:
		snprintf(buf, len, "real %g", sqlite3_column_double(r->st, i));
		break;
	case SQLITE_BLOB:
		snprintf(buf, len, "a blob of %d bytes",
			 sqlite3_column_bytes(r->st, i));
		break;
	case SQLITE_NULL:
		snprintf(buf, len, "NULL");
		break;
	default: {
		const unsigned char *s = sqlite3_column_text(r->st, i);
		size_t k = 0, n = 0;

		k += (size_t)snprintf(buf, len, "text '");
		for (; s && s[n] && n < 24 && k + 6 < len; n++)
			buf[k++] = s[n] >= 0x20 && s[n] < 0x7f && s[n] != '\''
					   ? (char)s[n]
					   : '?';
		snprintf(buf + k, len - k, "%s'", s && s[n] ? "..." : "");
	}
	}
	return buf;
}

void db_read_bad(struct db_read *r, int col, const char *fmt, ...)
{
	char what[192];
	va_list ap;

	if (r->bad++)
		return;
	if (r->key_col >= 0)
		snprintf(r->row, sizeof(r->row), "%s %lld",
			 db_col_name(r->t, r->key_col), (long long)r->key);
	else if (!r->row[0])
		snprintf(r->row, sizeof(r->row), "#%zu", r->n);
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	fail("'%s': table %s, row %s, column %s: %s", r->path,
	     db_tables[r->t].name, r->row,
	     sqlite3_column_name(r->st, r->at[col]), what);
}

int db_read_nomem(struct db_read *r)
{
	if (!r->bad++)
		fail("out of memory");
	return -1;
}

int64_t db_read_int_bad(struct db_read *r, int col, sqlite3_value *v,
			int64_t min, int64_t max, int null_ok)
{
	char d[64];

	switch (sqlite3_value_type(v)) {
	case SQLITE_NULL:
		if (!null_ok)
			db_read_bad(r, col, "NULL where a value is required");
		break;
	case SQLITE_INTEGER:
		db_read_bad(r, col, "%lld is out of range (%lld to %lld)",
			    (long long)sqlite3_value_int64(v), (long long)min,
			    (long long)max);
		break;
	default:
		db_read_bad(r, col, "%s where an integer is expected",
			    db_read_describe(r, col, d, sizeof(d)));
	}
	return DB_NONE;
}

const char *db_read_text_bad(struct db_read *r, int col, sqlite3_value *v,
			     int null_ok)
{
	char d[64];

	if (sqlite3_value_type(v) != SQLITE_NULL)
		db_read_bad(r, col, "%s where text is expected",
			    db_read_describe(r, col, d, sizeof(d)));
	else if (!null_ok)
		db_read_bad(r, col, "NULL where a value is required");
	return NULL;
}

int db_read_enum(struct db_read *r, int col, const char *const *names, int n)
{
	const char *s = db_read_text(r, col, 1);
	char d[64], list[160] = "";
	size_t k = 0;

	if (!s)
		return -1;
	for (int j = 0; j < n; j++)
		if (!strcmp(s, names[j]))
			return j;
	for (int j = 0; j < n && k < sizeof(list); j++)
		k += (size_t)snprintf(list + k, sizeof(list) - k, "%s%s",
				      j ? ", " : "", names[j]);
	/* db_read_describe() says "text 'x'": the quotes are enough here */
	db_read_bad(r, col, "unknown value %s (expected %s)",
		    db_read_describe(r, col, d, sizeof(d)) + 5, list);
	return -1;
}

char *db_get_strdup(const struct db_read *r, int col)
{
	const char *s = db_get_text(r, col);

	return s ? strdup(s) : NULL;
}

int db_has_table(sqlite3 *db, enum db_table t)
{
	sqlite3_stmt *st;
	int found;

	if (sqlite3_prepare_v2(db,
			       "SELECT 1 FROM sqlite_master WHERE type = "
			       "'table' AND name = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, db_tables[t].name, -1, SQLITE_STATIC);
	found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}
