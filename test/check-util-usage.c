/*
 * check-util-usage.c - util/usage.h: the messages' form and fail()'s
 * return value.  Included after <check.h> on purpose: check's deprecated
 * fail() macro must not break the header (so calls here are (fail)(...)).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "usage.h"

static char got[512];

/* Run fn with stderr going to a temporary file; its text into got. */
static void capture(void (*fn)(void))
{
	FILE *tmp = tmpfile();
	int saved = dup(2);
	size_t n;

	ck_assert_ptr_nonnull(tmp);
	ck_assert_int_ge(saved, 0);
	fflush(stderr);
	ck_assert_int_eq(dup2(fileno(tmp), 2), 2);
	fn();
	fflush(stderr);
	ck_assert_int_eq(dup2(saved, 2), 2);
	close(saved);
	rewind(tmp);
	n = fread(got, 1, sizeof(got) - 1, tmp);
	got[n] = '\0';
	fclose(tmp);
}

static int fail_ret;

static void call_fail(void)
{
	fail_ret = (fail)("cannot open '%s': %s", "x.db", "no such file");
}

static void call_warning(void) { warning("%d records dropped", 3); }

START_TEST(test_fail)
{
	causal_progname = "tool";
	capture(call_fail);
	ck_assert_int_eq(fail_ret, -1);
	ck_assert_str_eq(got,
			 "tool: error: cannot open 'x.db': no such file\n");
	capture(call_warning);
	ck_assert_str_eq(got, "tool: warning: 3 records dropped\n");
}
END_TEST

START_TEST(test_die_exits_1)
{
	FILE *null = fopen("/dev/null", "w");

	causal_progname = "tool";
	ck_assert_ptr_nonnull(null);
	dup2(fileno(null), 2); /* the message is not the test's */
	die("out of memory");
}
END_TEST

Suite *util_usage_suite(void)
{
	Suite *s = suite_create("util-usage");
	TCase *tc = tcase_create("usage");

	tcase_add_test(tc, test_fail);
	tcase_add_exit_test(tc, test_die_exits_1, 1);
	suite_add_tcase(s, tc);
	return s;
}
