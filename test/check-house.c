/*
 * check-house.c - the rules of docs/layout.md hold: no folder over 30% of
 * the production lines, no production file over 1,000 lines, and no circle
 * of files that call each other of more than 4 files in the library (none
 * at all elsewhere), as scripts/structure.py measures them from the
 * sources and the build's objects.
 */
#include <stdio.h>

#include "json-read.h"
#include "tool-run.h"

#define HOUSE_MAX_SHARE 30.0
#define HOUSE_MAX_LINES 1000
#define HOUSE_MAX_LIB_CIRCLE 4

/* structure.py's figures (--json) for this tree and this build. */
static struct jval *figures(void)
{
	const char *src = getenv("CAUSAL_SRC");
	char script[PATH_MAX], git[PATH_MAX];
	struct tool_out r;
	struct jval *doc;

	ck_assert_msg(src && *src, "CAUSAL_SRC is not set: run `make check`");
	e2e_fmt(script, sizeof(script), "%s/scripts/structure.py", src);
	e2e_fmt(git, sizeof(git), "%s/.git", src);
	if (access(git, F_OK) != 0) {
		fprintf(stderr, "house: skipped: '%s' is not a git checkout\n",
			src);
		return NULL;
	}
	r = tool_run((const char *[]){ "/usr/bin/python3", script, "--build",
				       e2e_build(), "--json", NULL });
	e2e_assert_exit(r.status, 0, "scripts/structure.py --json");
	doc = json_parse(r.out, "structure.py --json");
	tool_out_release(&r);
	return doc;
}

START_TEST(test_no_folder_holds_more_than_30_percent)
{
	struct e2e t;
	struct jval *doc;

	e2e_init(&t);
	if (!(doc = figures()))
		return;
	ck_assert_msg(json_need(doc, "largest_folder_share", J_NUM, "house")->num <=
			      HOUSE_MAX_SHARE,
		      "folder %s holds %.1f%% of the production lines (at most %.0f%%)",
		      json_need(doc, "largest_folder", J_STR, "house")->str,
		      json_need(doc, "largest_folder_share", J_NUM, "house")->num,
		      HOUSE_MAX_SHARE);
	json_free(doc);
}
END_TEST

START_TEST(test_no_file_over_1000_lines)
{
	struct e2e t;
	const struct jval *big;
	struct jval *doc;

	e2e_init(&t);
	if (!(doc = figures()))
		return;
	big = json_need(doc, "files_over_1000_lines", J_OBJ, "house");
	ck_assert_msg(big->n == 0, "%d production files over %d lines, first %s (%.0f): split them along their seams",
		      big->n, HOUSE_MAX_LINES, big->n ? big->keys[0] : "",
		      big->n ? big->item[0].num : 0.0);
	json_free(doc);
}
END_TEST

/* Whether every file of circle c is the library's (preload/, shim-*). */
static int in_library(const struct jval *c)
{
	for (int i = 0; i < c->n; i++)
		if (strncmp(c->item[i].str, "preload/", 8) &&
		    strncmp(c->item[i].str, "shim-", 5))
			return 0;
	return 1;
}

START_TEST(test_no_circle_of_files_over_the_limit)
{
	struct e2e t;
	const struct jval *circles;
	struct jval *doc;

	e2e_init(&t);
	if (!(doc = figures()))
		return;
	circles = json_need(doc, "circles", J_ARR, "house");
	for (int i = 0; i < circles->n; i++) {
		const struct jval *c = &circles->item[i];
		int max = in_library(c) ? HOUSE_MAX_LIB_CIRCLE : 1;

		ck_assert_msg(c->n <= max,
			      "a circle of %d files that call each other, from %s: `python3 scripts/structure.py` names the calls",
			      c->n, c->item[0].str);
	}
	json_free(doc);
}
END_TEST

Suite *house_suite(void)
{
	Suite *s = suite_create("house");
	TCase *tc = tcase_create("house");

	e2e_add_fixture(tc);
	tcase_set_timeout(tc, E2E_TIMEOUT);
	tcase_add_test(tc, test_no_folder_holds_more_than_30_percent);
	tcase_add_test(tc, test_no_file_over_1000_lines);
	tcase_add_test(tc, test_no_circle_of_files_over_the_limit);
	suite_add_tcase(s, tc);
	return s;
}
