/*
 * check-logdir-segments.c - tracedump's listing of a directory groups a
 * rotated log's segments (docs/tracing.md "Segments and the disk cap"):
 * in the order of their numbers, the open one last, one log each.
 */
#include <check.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "logdir.h"
#include "test-tmp.h"

#define U1 "0123456789abcdef0123456789abcdef"
#define U2 "fedcba9876543210fedcba9876543210"

START_TEST(a_segment_number_follows_the_uuid)
{
	size_t stem;

	ck_assert_uint_eq(logdir_segment("h.1." U1 ".000012.clog", &stem), 12);
	ck_assert_uint_eq(stem, strlen("h.1." U1));
	ck_assert_uint_eq(logdir_segment("h.1." U1 ".1234567.clog", &stem),
			  1234567);
	/* the open segment, a log not rotated, names of no pattern */
	ck_assert_uint_eq(logdir_segment("h.1." U1 ".clog", &stem), 0);
	ck_assert_uint_eq(stem, strlen("h.1." U1));
	ck_assert_uint_eq(logdir_segment("h.1." U1 ".00012.clog", &stem), 0);
	ck_assert_uint_eq(logdir_segment("x.000012.clog", &stem), 0);
	ck_assert_uint_eq(logdir_segment("h.1.0123456789abcdef0123456789abcdeX"
					 ".000012.clog",
					 &stem),
			  0);
}
END_TEST

START_TEST(segments_are_one_log_in_number_order)
{
	static const char *const files[] = {
		"h.1." U1 ".clog",	  "h.1." U1 ".000010.clog",
		"h.1." U1 ".000009.clog", "h.2." U2 ".clog",
		"a.3." U2 ".000001.clog", "h.1." U1 ".1000000.clog",
	};
	char dir[PATH_MAX], path[PATH_MAX + 64], cmd[PATH_MAX + 16];
	struct logdir ld;

	test_tmp_name(dir, sizeof(dir), "causal-segments-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		close(open(path, O_WRONLY | O_CREAT, 0600));
	}
	ck_assert_int_eq(logdir_scan(dir, &ld), 0);
	ck_assert_uint_eq(ld.n, 6);
	ck_assert_uint_eq(ld.n_logs, 3);
	ck_assert_uint_eq(ld.logs[0].n, 1);
	ck_assert_str_eq(ld.names[0], "a.3." U2 ".000001.clog");
	ck_assert_uint_eq(ld.logs[1].n, 4);
	ck_assert_str_eq(ld.names[1], "h.1." U1 ".000009.clog");
	ck_assert_str_eq(ld.names[2], "h.1." U1 ".000010.clog");
	ck_assert_str_eq(ld.names[3], "h.1." U1 ".1000000.clog");
	ck_assert_str_eq(ld.names[4], "h.1." U1 ".clog");
	ck_assert_uint_eq(ld.logs[2].first, 5);
	ck_assert_str_eq(ld.names[5], "h.2." U2 ".clog");
	logdir_release(&ld);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

Suite *logdir_segments_suite(void)
{
	Suite *s = suite_create("logdir_segments");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, a_segment_number_follows_the_uuid);
	tcase_add_test(tc, segments_are_one_log_in_number_order);
	suite_add_tcase(s, tc);
	return s;
}
