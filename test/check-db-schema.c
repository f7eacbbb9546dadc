/*
 * check-db-schema.c - the database contract of include/causal/db-schema.def:
 * the SQL blocks of docs/database.md and docs/clickhouse.md are what the
 * code creates, byte for byte (the suite writes what it should be into the
 * build when they differ); the
 * enum of each column names that column; the INSERTs of tracedump and the
 * SELECTs of ccsg name their columns; a fresh database has the version,
 * tables, view and indexes the definition gives.
 */
#include <check.h>
#include <ctype.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "causal/db-schema.h"
#include "db-clickhouse.h"
#include "schema.h"
#include "test-sql.h"

/* The whole file at path, NUL-terminated (malloc'd). */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long len;

	ck_assert_msg(f != NULL, "cannot open '%s'", path);
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	len = ftell(f);
	ck_assert_int_ge(len, 0);
	rewind(f);
	buf = malloc((size_t)len + 1);
	ck_assert(buf != NULL);
	ck_assert_uint_eq(fread(buf, 1, (size_t)len, f), (size_t)len);
	buf[len] = '\0';
	fclose(f);
	return buf;
}

/* The SQLite schema (what: DB_SQL_...), or the ClickHouse one for ~0u. */
static char *schema_text(unsigned what)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert(f != NULL);
	if (what == ~0u)
		ck_assert_int_eq(db_ch_schema_write(f), 0);
	else
		ck_assert_int_eq(db_schema_write(f, what), 0);
	fclose(f);
	return buf;
}

/* The heading line "#... title" of doc, at any level, or NULL. */
static const char *doc_heading(const char *doc, const char *title)
{
	size_t n = strlen(title);

	for (const char *line = doc; line; line = strchr(line, '\n')) {
		const char *h;

		line += *line == '\n';
		h = line + strspn(line, "#");
		if (h > line && h - line <= 6 && *h == ' ' &&
		    !strncmp(h + 1, title, n) && h[1 + n] == '\n')
			return line;
	}
	return NULL;
}

/* The ```sql block of the section title of doc, named path (malloc'd). */
static char *doc_block(const char *doc, const char *path, const char *title)
{
	const char *sec, *start, *end;

	sec = doc_heading(doc, title);
	ck_assert_msg(sec != NULL, "%s has no section '%s'", path, title);
	start = strstr(sec, "\n```sql\n");
	ck_assert_msg(start != NULL, "%s's '%s' has no ```sql block", path,
		      title);
	start += strlen("\n```sql\n");
	end = strstr(start, "\n```\n");
	ck_assert_msg(end != NULL, "%s's ```sql block does not end", path);
	return strndup(start, (size_t)(end - start) + 1);
}

/* The file docs/name of the source tree (malloc'd). */
static char *doc_text(const char *name)
{
	const char *src = getenv("CAUSAL_SRC");
	char path[4096];

	ck_assert_msg(src && *src, "CAUSAL_SRC is not set: run the suites "
				   "with `make check`");
	snprintf(path, sizeof(path), "%s/docs/%s", src, name);
	return slurp(path);
}

/*
 * The ```sql block of section title of docs/name is code, byte for byte;
 * else the suite writes what it should be into CAUSAL_BUILD/file.
 */
static void assert_doc_block(const char *name, const char *title,
			     const char *code, const char *file)
{
	const char *build = getenv("CAUSAL_BUILD");
	char path[4096], *doc, *block;
	int line = 1;
	size_t i;

	ck_assert_msg(build && *build, "CAUSAL_BUILD is not set: run the "
				       "suites with `make check`");
	doc = doc_text(name);
	block = doc_block(doc, name, title);
	for (i = 0; block[i] && block[i] == code[i]; i++)
		line += block[i] == '\n';
	if (block[i] || code[i]) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s", build, file);
		f = fopen(path, "w");
		ck_assert(f != NULL);
		fputs(code, f);
		fclose(f);
		ck_abort_msg("docs/%s's '%s' differs from db-schema.def's "
			     "at line %d of its ```sql block; the block "
			     "should be '%s'",
			     name, title, line, path);
	}
	free(block);
	free(doc);
}

START_TEST(test_docs_give_the_schema)
{
	char version[64], *doc, *code;

	code = schema_text(DB_SQL_ALL);
	assert_doc_block("database.md", "The database", code, "db-schema.sql");
	/* and the prose says the same version */
	doc = doc_text("database.md");
	snprintf(version, sizeof(version),
		 "Schema version %d (`meta.schema_version`", DB_SCHEMA_VERSION);
	ck_assert_msg(strstr(doc, version),
		      "docs/database.md does not say "
		      "'%s'",
		      version);
	free(code);
	free(doc);
}
END_TEST

/* The ClickHouse store's tables: the docs' block, the types, the keys. */
START_TEST(test_clickhouse_schema)
{
	char *code = schema_text(~0u), *sql;

	assert_doc_block("clickhouse.md", "The tables", code,
			 "db-clickhouse.sql");
	ck_assert_str_eq(db_ch_type(DB_RPC_CALLS, DB_RPC_CALLS_CHAIN),
			 "String");
	ck_assert_str_eq(db_ch_type(DB_RPC_CALLS, DB_RPC_CALLS_CALL_ID),
			 "Int64");
	ck_assert_str_eq(db_ch_type(DB_RPC_CALLS, DB_RPC_CALLS_XID),
			 "Nullable(Int64)");
	ck_assert_str_eq(db_ch_type(DB_RPC_CALLS, DB_RPC_CALLS_PEER),
			 "Nullable(String)");
	ck_assert(!db_ch_has_table(DB_RECORDS));
	sql = db_ch_create(DB_THREADS);
	ck_assert_msg(strstr(sql, "ORDER BY (load_id, proc_id, tid)"), "%s",
		      sql);
	free(sql);
	sql = db_ch_create(DB_RPC_CALLS);
	ck_assert_msg(strstr(sql, "ORDER BY (load_id, chain, call_id)"), "%s",
		      sql);
	free(sql);
	sql = db_ch_into(DB_HOSTS);
	ck_assert_str_eq(sql, "hosts (load_id, host_id, name)");
	free(sql);
	/* no column without a table of the store but records' (a
	 * follower's loads name their segments: loaded_segments too) */
	for (int t = 0; t < DB_NTABLES; t++)
		ck_assert(db_ch_has_table(t) == (t != DB_RECORDS));
	free(code);
}
END_TEST

/* Each column's enum, its upper-case name and its name, from the .def. */
static const struct {
	enum db_table table;
	int col;
	const char *upper, *name;
} names[] = {
#define DB_COL(ID, COLUMN, column, type, comment)                              \
	{ DB_##ID, DB_##ID##_##COLUMN, #COLUMN, #column },
#include "causal/db-schema.def"
};

/* The enum DB_<TABLE>_<COLUMN> is the column <column> of <table>. */
START_TEST(test_column_enums)
{
	int ncols = 0;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char lower[64];
		size_t k;

		for (k = 0; names[i].upper[k] && k + 1 < sizeof(lower); k++)
			lower[k] =
				(char)tolower((unsigned char)names[i].upper[k]);
		lower[k] = '\0';
		ck_assert_msg(!strcmp(lower, names[i].name),
			      "DB_%s_%s names column '%s'",
			      db_tables[names[i].table].name, names[i].upper,
			      names[i].name);
		ck_assert_str_eq(db_col_name(names[i].table, names[i].col),
				 names[i].name);
	}
	for (int t = 0; t < DB_NTABLES; t++)
		ncols += db_tables[t].ncols;
	ck_assert_int_eq(ncols, (int)(sizeof(names) / sizeof(names[0])));
	ck_assert_int_eq(DB_RPC_CALLS_NCOLS, 52);
	ck_assert_str_eq(db_tables[DB_RPC_CALLS].name, "rpc_calls");
}
END_TEST

START_TEST(test_statements_name_columns)
{
	static const int cols[] = { DB_RPC_CALLS_TAG, DB_RPC_CALLS_CHAIN };
	char *sql;

	sql = db_sql_insert(DB_HOSTS, "INSERT", 1);
	ck_assert_str_eq(sql, "INSERT INTO hosts(host_id, name) VALUES(?, ?)");
	free(sql);
	sql = db_sql_insert(DB_RPC_SITES, "INSERT OR IGNORE", 2);
	ck_assert_str_eq(sql, "INSERT OR IGNORE INTO rpc_sites(proc_id,"
			      " site_id, symbol, module)"
			      " VALUES(?, ?, ?, ?), (?, ?, ?, ?)");
	free(sql);
	sql = db_sql_select(DB_RPC_CALLS, cols, 2, "ORDER BY call_id");
	ck_assert_str_eq(sql,
			 "SELECT tag, chain FROM rpc_calls ORDER BY call_id");
	free(sql);
}
END_TEST

/* Without --raw: every table but records, and the same indexes. */
START_TEST(test_created_without_records)
{
	sqlite3 *db;

	ck_assert_int_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
	ck_assert_int_eq(schema_create(db, false), 0);
	ck_assert_int_eq(schema_create_indexes(db), 0);
	ck_assert_int_eq(q_int(db, "SELECT count(*) FROM sqlite_schema"
				   " WHERE type = 'table'"),
			 DB_NTABLES - 1);
	ck_assert_int_eq(q_int(db, "SELECT count(*) FROM sqlite_schema"
				   " WHERE name = 'records'"),
			 0);
	ck_assert_int_eq(q_int(db, "SELECT count(*) FROM sqlite_schema"
				   " WHERE name = 'rpc_probes'"),
			 1);
	sqlite3_close(db);
}
END_TEST

/* What schema_create() makes: the definition's tables, columns and types. */
START_TEST(test_created_database)
{
	sqlite3 *db;
	char sql[256];

	ck_assert_int_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
	ck_assert_int_eq(schema_create(db, true), 0);
	ck_assert_int_eq(schema_create_indexes(db), 0);
	snprintf(sql, sizeof(sql), "%d", DB_SCHEMA_VERSION);
	ck_assert_str_eq(
		q_text(db,
		       "SELECT value FROM meta WHERE key = 'schema_version'"),
		sql);
	ck_assert_int_eq(q_int(db, "SELECT count(*) FROM sqlite_schema"
				   " WHERE type = 'table'"),
			 DB_NTABLES);
	for (int t = 0; t < DB_NTABLES; t++) {
		const struct db_table_def *d = &db_tables[t];
		sqlite3_stmt *st;
		int n = 0;

		snprintf(sql, sizeof(sql),
			 "SELECT name, type FROM pragma_table_info('%s')",
			 d->name);
		ck_assert_int_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL),
				 SQLITE_OK);
		while (sqlite3_step(st) == SQLITE_ROW) {
			const char *name =
				(const char *)sqlite3_column_text(st, 0);
			const char *type =
				(const char *)sqlite3_column_text(st, 1);

			ck_assert_int_lt(n, d->ncols);
			ck_assert_str_eq(name, d->cols[n].name);
			/* the declared type is the first word of the
			 * definition's */
			ck_assert_msg(
				!strncmp(d->cols[n].type, type, strlen(type)) &&
					strlen(type) > 0,
				"%s.%s is %s", d->name, name, type);
			n++;
		}
		sqlite3_finalize(st);
		ck_assert_int_eq(n, d->ncols);
		/* every column of a one-row INSERT is a parameter */
		ck_assert_int_eq(schema_prepare_insert(db, (enum db_table)t,
						       "INSERT", 3, &st),
				 0);
		ck_assert_int_eq(sqlite3_bind_parameter_count(st),
				 3 * d->ncols);
		sqlite3_finalize(st);
	}
	ck_assert_str_eq(q_text(db, "SELECT typeof(chain) FROM rpc_probes"),
			 "<none>");
	ck_assert_int_eq(
		q_int(db,
		      "SELECT count(*) FROM sqlite_schema WHERE type = 'view'"),
		1);
	ck_assert_int_eq(
		q_int(db,
		      "SELECT count(*) FROM sqlite_schema WHERE type = 'index'"
		      " AND name NOT LIKE 'sqlite_%'"),
		3); /* threads by parent, processes by host and by parent */
	sqlite3_close(db);
}
END_TEST

Suite *db_schema_suite(void)
{
	Suite *s = suite_create("db_schema");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_docs_give_the_schema);
	tcase_add_test(tc, test_clickhouse_schema);
	tcase_add_test(tc, test_column_enums);
	tcase_add_test(tc, test_statements_name_columns);
	tcase_add_test(tc, test_created_database);
	tcase_add_test(tc, test_created_without_records);
	suite_add_tcase(s, tc);
	return s;
}
