/*
 * check-db-typed.c - the trace database is read by typed column only:
 * no SQL text of ccsg/ names a table or a column of db-schema.def (they
 * come from DB_NAME() and the enums, so a renamed column breaks the
 * build), and the SQL that store/'s ClickHouse copy keeps as text names
 * only what its file declares with DB_NAMED() (which then breaks the
 * build in the same way).  scripts/check-db-typed.py --text reads the
 * sources; without --text it also renames each column in a copy of
 * db-schema.def and shows that the build of every reader of it fails.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

START_TEST(test_sql_text_names_nothing)
{
	const char *src = getenv("CAUSAL_SRC");
	char cmd[4096], out[8192];
	size_t len;
	FILE *p;
	int status;

	ck_assert_msg(src != NULL, "CAUSAL_SRC is not set: run the suites "
				   "with make check");
	snprintf(cmd, sizeof(cmd),
		 "python3 '%s/scripts/check-db-typed.py' --text 2>&1", src);
	p = popen(cmd, "r");
	ck_assert(p != NULL);
	len = fread(out, 1, sizeof(out) - 1, p);
	out[len] = '\0';
	status = pclose(p);
	ck_assert_msg(status != -1 && WIFEXITED(status) &&
			      WEXITSTATUS(status) == 0,
		      "%s", out);
}
END_TEST

Suite *db_typed_suite(void)
{
	Suite *s = suite_create("db-typed");
	TCase *tc = tcase_create("text");

	tcase_add_test(tc, test_sql_text_names_nothing);
	suite_add_tcase(s, tc);
	return s;
}
