/*
 * check-db-id-text.c - store/db-id-text.h, a table's text column by its
 * id, on a database made here: hosts' names and log files' statuses, a
 * NULL text as the caller says, a NULL id left out, an id no row has.
 */
#include <check.h>
#include <errno.h>
#include <sqlite3.h>
#include <stddef.h>

#include "db-id-text.h"

static sqlite3 *open_db(const char *sql)
{
	sqlite3 *db = NULL;

	ck_assert_int_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	return db;
}

START_TEST(test_hosts)
{
	/* no constraints: what an old or damaged file may hold */
	sqlite3 *db = open_db("CREATE TABLE hosts (host_id, name);"
			      "INSERT INTO hosts VALUES (3, 'hostA'), "
			      "(7, NULL), (NULL, 'lost'), (1, 'hostB');");
	struct db_id_text m;
	const char *s;

	ck_assert_int_eq(db_id_text_load(&m, db, DB_HOSTS, DB_HOSTS_HOST_ID,
					 DB_HOSTS_NAME, NULL),
			 0);
	ck_assert_uint_eq(m.n, 3); /* the NULL id left out */
	ck_assert_int_eq(db_id_text_get(&m, 3, &s), 1);
	ck_assert_str_eq(s, "hostA");
	ck_assert_int_eq(db_id_text_get(&m, 1, &s), 1);
	ck_assert_str_eq(s, "hostB");
	ck_assert_int_eq(db_id_text_get(&m, 7, &s), 1); /* a row, no name */
	ck_assert_ptr_null(s);
	ck_assert_int_eq(db_id_text_get(&m, 0, &s), 0);
	ck_assert_ptr_null(s);
	db_id_text_release(&m);
	db_id_text_release(&m); /* twice: still fine */
	sqlite3_close(db);
}
END_TEST

START_TEST(test_files_default)
{
	sqlite3 *db = open_db("CREATE TABLE files (file_id, status);"
			      "INSERT INTO files VALUES (1, 'truncated'), "
			      "(2, NULL);");
	struct db_id_text m;
	const char *s;

	ck_assert_int_eq(db_id_text_load(&m, db, DB_FILES, DB_FILES_FILE_ID,
					 DB_FILES_STATUS, "ok"),
			 0);
	ck_assert_int_eq(db_id_text_get(&m, 1, &s), 1);
	ck_assert_str_eq(s, "truncated");
	ck_assert_int_eq(db_id_text_get(&m, 2, &s), 1);
	ck_assert_str_eq(s, "ok");
	db_id_text_release(&m);
	sqlite3_close(db);
}
END_TEST

START_TEST(test_no_table)
{
	sqlite3 *db = open_db("CREATE TABLE other (x);");
	struct db_id_text m;

	ck_assert_int_eq(db_id_text_load(&m, db, DB_HOSTS, DB_HOSTS_HOST_ID,
					 DB_HOSTS_NAME, NULL),
			 -EIO);
	ck_assert_uint_eq(m.n, 0);
	sqlite3_close(db);
}
END_TEST

Suite *db_id_text_suite(void)
{
	Suite *s = suite_create("db-id-text");
	TCase *tc = tcase_create("id-text");

	tcase_add_test(tc, test_hosts);
	tcase_add_test(tc, test_files_default);
	tcase_add_test(tc, test_no_table);
	suite_add_tcase(s, tc);
	return s;
}
