/*
 * db-schema.c - the tables of db-schema.def as data, and the SQL made
 * from them: the commented CREATE statements (docs/database.md's SQL block),
 * the INSERTs of tracedump and the SELECTs of ccsg, every column by name.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "causal/db-schema.h"

/* The macros open and close the arrays. */
/* clang-format off */
#define DB_TABLE(ID, name, comment) static const struct db_column name##_cols[] = {
#define DB_COL(ID, COLUMN, column, type, comment) { #column, type, comment },
#define DB_END(ID, name, key, options) };
#include "causal/db-schema.def"

const struct db_table_def db_tables[DB_NTABLES] = {
#define DB_TABLE(ID, name, comment) \
	[DB_##ID] = { #name, comment, name##_cols, DB_##ID##_NCOLS,
#define DB_END(ID, name, key, options) key, options },
#include "causal/db-schema.def"
};
/* clang-format on */

/*
 * docs/database.md's layout: a column's comment at COMMENT_AT (its continuation
 * lines too), columns without a comment or a constraint side by side up
 * to PACK_WIDTH.
 */
#define INDENT "    "
#define COMMENT_AT 35
#define PACK_WIDTH 60
#define LINE_WIDTH 80

/* End a line of len characters with comment (may hold '\n's), if any. */
static void put_comment(FILE *f, size_t len, const char *comment)
{
	if (!*comment) {
		fputc('\n', f);
		return;
	}
	for (;;) {
		const char *nl = strchr(comment, '\n');
		int n = nl ? (int)(nl - comment) : (int)strlen(comment);

		fprintf(f, "%*s-- %.*s\n",
			len < COMMENT_AT ? (int)(COMMENT_AT - len) : 1, "", n,
			comment);
		if (!nl)
			break;
		comment = nl + 1;
		len = 0;
	}
}

/* The whole table on one line, when it has no comment and fits. */
static int write_short_table(FILE *f, const struct db_table_def *t)
{
	size_t len = strlen("CREATE TABLE ();") + strlen(t->name);

	if (*t->comment || *t->key || *t->options)
		return 0;
	for (int i = 0; i < t->ncols; i++) {
		if (*t->cols[i].comment)
			return 0;
		len += strlen(t->cols[i].name) + 1 + strlen(t->cols[i].type) +
		       (i ? 2 : 0);
	}
	if (len > LINE_WIDTH)
		return 0;
	fprintf(f, "CREATE TABLE %s(", t->name);
	for (int i = 0; i < t->ncols; i++)
		fprintf(f, "%s%s %s", i ? ", " : "", t->cols[i].name,
			t->cols[i].type);
	fputs(");\n", f);
	return 1;
}

static void write_table(FILE *f, const struct db_table_def *t)
{
	char line[256];
	size_t len = 0;

	if (write_short_table(f, t))
		return;
	put_comment(f, (size_t)fprintf(f, "CREATE TABLE %s(", t->name),
		    t->comment);
	for (int i = 0; i < t->ncols; i++) {
		const struct db_column *c = &t->cols[i];
		int last = i + 1 == t->ncols && !*t->key;
		char col[128];
		size_t n;

		n = (size_t)snprintf(col, sizeof(col), "%s %s%s%s%s%s", c->name,
				     c->type, last ? ")" : ",",
				     last && *t->options ? " " : "",
				     last ? t->options : "", last ? ";" : "");
		/* a comment or a constraint: a line of its own */
		if (len && (*c->comment || strchr(c->type, ' ') ||
			    len + 1 + n > PACK_WIDTH)) {
			fprintf(f, "%s\n", line);
			len = 0;
		}
		len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%s",
					len ? " " : INDENT, col);
		if (*c->comment || strchr(c->type, ' ') || last) {
			fputs(line, f);
			put_comment(f, len, c->comment);
			len = 0;
		}
	}
	if (len)
		fprintf(f, "%s\n", line);
	if (*t->key)
		fprintf(f, INDENT "%s)%s%s;\n", t->key, *t->options ? " " : "",
			t->options);
}

static void write_view(FILE *f, const char *name, const char *comment,
		       const char *select)
{
	put_comment(f, (size_t)fprintf(f, "CREATE VIEW %s AS", name), comment);
	for (;;) {
		const char *nl = strchr(select, '\n');
		int n = nl ? (int)(nl - select) : (int)strlen(select);

		fprintf(f, INDENT "%.*s%s", n, select, nl ? "\n" : ";\n");
		if (!nl)
			break;
		select = nl + 1;
	}
}

int db_schema_write(FILE *f, unsigned what)
{
	int first = 1;

	/* a blank line between tables, none between indexes */
	if (what & DB_SQL_TABLES) {
#define DB_TABLE(ID, name, comment)                                            \
	if (DB_##ID != DB_RECORDS || !(what & DB_SQL_NO_RECORDS)) {            \
		fputs(first ? "" : "\n", f);                                   \
		first = 0;                                                     \
		write_table(f, &db_tables[DB_##ID]);                           \
	}
#define DB_VIEW(name, comment, select)                                         \
	fputs(first ? "" : "\n", f);                                           \
	first = 0;                                                             \
	write_view(f, #name, comment, select);
#include "causal/db-schema.def"
	}
	if (what & DB_SQL_INDEXES) {
#define DB_INDEX(name, table, columns)                                         \
	fputs(first ? "" : "\n", f);                                           \
	first = -1;                                                            \
	fprintf(f, "CREATE INDEX %s ON %s(%s);\n", #name, #table, columns);
#include "causal/db-schema.def"
	}
	return ferror(f) ? -1 : 0;
}

/* A statement being built: a malloc'd string that add() extends. */
struct sql {
	char *s;
	size_t len, cap;
};

/* Append s: 0, or -1 when out of memory. */
static int add(struct sql *q, const char *s)
{
	size_t n = strlen(s);

	if (q->len + n + 1 > q->cap) {
		size_t cap = q->cap ? q->cap : 256;
		char *ns;

		while (cap < q->len + n + 1)
			cap *= 2;
		if (!(ns = realloc(q->s, cap)))
			return -1;
		q->s = ns;
		q->cap = cap;
	}
	memcpy(q->s + q->len, s, n + 1);
	q->len += n;
	return 0;
}

/* The statement, or NULL (and nothing to free) when an add() failed. */
static char *done(struct sql *q, int failed)
{
	if (!failed)
		return q->s;
	free(q->s);
	return NULL;
}

char *db_sql_insert(enum db_table t, const char *verb, int rows)
{
	const struct db_table_def *d = &db_tables[t];
	struct sql q = { 0 };
	int bad;

	bad = add(&q, verb) || add(&q, " INTO ") || add(&q, d->name) ||
	      add(&q, "(");
	for (int i = 0; i < d->ncols; i++)
		bad = bad || add(&q, i ? ", " : "") || add(&q, d->cols[i].name);
	bad = bad || add(&q, ") VALUES");
	for (int r = 0; r < rows; r++) {
		bad = bad || add(&q, r ? ", (" : "(");
		for (int i = 0; i < d->ncols; i++)
			bad = bad || add(&q, i ? ", ?" : "?");
		bad = bad || add(&q, ")");
	}
	return done(&q, bad);
}

char *db_sql_select(enum db_table t, const int *cols, size_t n,
		    const char *tail)
{
	const struct db_table_def *d = &db_tables[t];
	struct sql q = { 0 };
	int bad = add(&q, "SELECT ");

	for (size_t i = 0; i < n; i++)
		bad = bad || add(&q, i ? ", " : "") ||
		      add(&q, d->cols[cols[i]].name);
	bad = bad || add(&q, " FROM ") || add(&q, d->name);
	if (tail && *tail)
		bad = bad || add(&q, " ") || add(&q, tail);
	return done(&q, bad);
}
