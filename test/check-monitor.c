/*
 * check-monitor.c - component selections (preload/monitor-rules.c):
 * parsing as the consumer reads them, and which one decides for a call
 * (the most specific; among equally specific ones, the latest).
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "monitor.h"

static int put(struct causal_mon_rules *rs, const char *host, const char *iface,
	       const char *func, const char *on)
{
	struct causal_mon_rule r;
	int ret = causal_mon_rule_parse(host, iface, func, on, "hostA", &r);

	if (ret == 0)
		ck_assert_int_eq(causal_mon_rules_put(rs, &r), 0);
	return ret;
}

START_TEST(test_parse_fields)
{
	struct causal_mon_rule r;

	ck_assert_int_eq(causal_mon_rule_parse("*", "0x20000c5a", "1", "on",
					       "hostA", &r),
			 0);
	ck_assert_uint_eq(r.prog, 0x20000c5a);
	ck_assert_uint_eq(r.proc, 1);
	ck_assert_uint_eq(r.wild, CAUSAL_SEL_ANY_HOST);
	ck_assert_uint_eq(r.on, 1);
	ck_assert_int_eq(causal_mon_rule_parse("hostA", "*", "SAY_IT", "off",
					       "hostA", &r),
			 0);
	ck_assert_uint_eq(r.wild, CAUSAL_SEL_ANY_PROG | CAUSAL_SEL_PROC_NAME);
	ck_assert_str_eq(r.name, "say_it");
	ck_assert_uint_eq(r.on, 0);
	ck_assert_int_eq(
		causal_mon_rule_parse("536874074", "*", "*", "on", "hostA", &r),
		1); /* another host's */
	/* malformed: each field in turn */
	ck_assert_int_eq(causal_mon_rule_parse("*", "x1", "*", "on", "h", &r),
			 -1);
	ck_assert_int_eq(causal_mon_rule_parse("*", "0x", "*", "on", "h", &r),
			 -1);
	ck_assert_int_eq(
		causal_mon_rule_parse("*", "4294967296", "*", "on", "h", &r),
		-1);
	ck_assert_int_eq(
		causal_mon_rule_parse("*", "*", "say-it", "on", "h", &r), -1);
	ck_assert_int_eq(causal_mon_rule_parse("*", "*", "*", "yes", "h", &r),
			 -1);
	ck_assert_int_eq(causal_mon_rule_parse("", "*", "*", "on", "h", &r),
			 -1);
	ck_assert_int_eq(causal_mon_rule_parse("*", "*", NULL, "on", "h", &r),
			 -1);
}
END_TEST

START_TEST(test_no_selection_matches)
{
	struct causal_mon_rules rs = { 0 };

	ck_assert_int_eq(causal_mon_rules_match(&rs, 1, 2, 0), -1);
	put(&rs, "*", "7", "*", "off");
	ck_assert_int_eq(causal_mon_rules_match(&rs, 1, 2, 0), -1);
	ck_assert_int_eq(causal_mon_rules_match(&rs, 7, 2, 0), 0);
}
END_TEST

/* The most specific wins, whatever the order. */
START_TEST(test_most_specific_wins)
{
	struct causal_mon_rules rs = { 0 };

	put(&rs, "*", "7", "2", "on");
	put(&rs, "*", "*", "*", "off"); /* later, but less specific */
	ck_assert_int_eq(causal_mon_rules_match(&rs, 7, 2, 0), 1);
	ck_assert_int_eq(causal_mon_rules_match(&rs, 7, 3, 0), 0);
	put(&rs, "hostA", "7", "*", "off"); /* two fields: as specific */
	ck_assert_int_eq(causal_mon_rules_match(&rs, 7, 2, 0), 0);
	put(&rs, "hostA", "7", "2", "on"); /* all three */
	put(&rs, "*", "7", "2", "off");
	ck_assert_int_eq(causal_mon_rules_match(&rs, 7, 2, 0), 1);
}
END_TEST

/* Equally specific: the latest; the same fields again replace. */
START_TEST(test_latest_among_equals)
{
	struct causal_mon_rules rs = { 0 };

	put(&rs, "hostA", "*", "*", "on");
	put(&rs, "*", "7", "*", "off");
	ck_assert_int_eq(causal_mon_rules_match(&rs, 7, 1, 0), 0);
	put(&rs, "hostA", "*", "*", "on"); /* again: latest now */
	ck_assert_uint_eq(rs.n, 2);
	ck_assert_int_eq(causal_mon_rules_match(&rs, 7, 1, 0), 1);
}
END_TEST

/*
 * A function by name matches the calls made from inside the functions
 * found for it (their addresses, which the writer finds in the process:
 * sites.h), and nothing else: no name is looked up at the call.
 */
START_TEST(test_function_by_name)
{
	struct causal_mon_rules rs = { 0 };
	struct causal_mon_rule r;

	put(&rs, "*", "*", "*", "off");
	ck_assert_int_eq(
		causal_mon_rule_parse("*", "*", "twice", "on", "h", &r), 0);
	ck_assert_uint_eq(r.nfound, 0);
	r.nfound = 2;
	r.found[0] = (struct causal_addr_range){ 0x1000, 0x1040 };
	r.found[1] = (struct causal_addr_range){ 0x9000, 0x9010 };
	ck_assert_int_eq(causal_mon_rules_put(&rs, &r), 0);
	/* a return address just after a call inside either function */
	ck_assert_int_eq(causal_mon_rules_match(&rs, 7, 2, 0x1005), 1);
	ck_assert_int_eq(causal_mon_rules_match(&rs, 7, 2, 0x1040), 1);
	ck_assert_int_eq(causal_mon_rules_match(&rs, 7, 2, 0x9010), 1);
	/* elsewhere, or at the function's first byte (no call before it) */
	ck_assert_int_eq(causal_mon_rules_match(&rs, 7, 2, 0x1000), 0);
	ck_assert_int_eq(causal_mon_rules_match(&rs, 7, 2, 0x1041), 0);
	ck_assert_int_eq(causal_mon_rules_match(&rs, 7, 2, 0x5000), 0);
	/* no stub (a skeleton) */
	ck_assert_int_eq(causal_mon_rules_match(&rs, 7, 2, 0), 0);
	/* nothing found: the selection matches no call */
	ck_assert_int_eq(
		causal_mon_rule_parse("*", "*", "say_it", "on", "h", &r), 0);
	ck_assert_int_eq(causal_mon_rules_put(&rs, &r), 0);
	ck_assert_int_eq(causal_mon_rules_match(&rs, 7, 1, 0x5000), 0);
}
END_TEST

START_TEST(test_table_full)
{
	struct causal_mon_rules rs = { 0 };
	struct causal_mon_rule r;
	char proc[16];

	for (int i = 0; i < CAUSAL_MON_RULES; i++) {
		snprintf(proc, sizeof(proc), "%d", i);
		ck_assert_int_eq(put(&rs, "*", "1", proc, "on"), 0);
	}
	ck_assert_int_eq(causal_mon_rule_parse("*", "1", "999", "on", "h", &r),
			 0);
	ck_assert_int_eq(causal_mon_rules_put(&rs, &r), -1);
	ck_assert_uint_eq(rs.n, CAUSAL_MON_RULES);
	/* the same fields still replace */
	ck_assert_int_eq(causal_mon_rule_parse("*", "1", "5", "off", "h", &r),
			 0);
	ck_assert_int_eq(causal_mon_rules_put(&rs, &r), 0);
	ck_assert_int_eq(causal_mon_rules_match(&rs, 1, 5, 0), 0);
}
END_TEST

Suite *monitor_suite(void)
{
	Suite *s = suite_create("monitor");
	TCase *tc = tcase_create("monitor");

	tcase_add_test(tc, test_parse_fields);
	tcase_add_test(tc, test_no_selection_matches);
	tcase_add_test(tc, test_most_specific_wins);
	tcase_add_test(tc, test_latest_among_equals);
	tcase_add_test(tc, test_function_by_name);
	tcase_add_test(tc, test_table_full);
	suite_add_tcase(s, tc);
	return s;
}
