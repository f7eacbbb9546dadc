/*
 * check-store.c - store/store-url.h and store/rowbinary.h: what --db
 * accepts as a store URL and what it refuses, and RowBinary values
 * written then read back, including a row cut short at every byte.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rowbinary.h"
#include "store-url.h"

static char why[512];

static struct store_url parse_ok(const char *arg)
{
	struct store_url u;

	ck_assert_msg(store_url_parse(arg, &u, why, sizeof(why)) == 0, "%s: %s",
		      arg, why);
	return u;
}

static void parse_bad(const char *arg, const char *says)
{
	struct store_url u;

	ck_assert_msg(store_url_parse(arg, &u, why, sizeof(why)) == -1,
		      "'%s' should be refused", arg);
	ck_assert_msg(strstr(why, says), "'%s': '%s' should say '%s'", arg, why,
		      says);
	ck_assert_msg(!strchr(why, '\n'), "one line: %s", why);
}

START_TEST(test_url)
{
	struct store_url u;

	unsetenv("CLICKHOUSE_USER");
	unsetenv("CLICKHOUSE_PASSWORD");
	ck_assert(store_is_url("clickhouse://h/db"));
	ck_assert(store_is_url("postgres+x://h/db"));
	ck_assert(!store_is_url("logs/trace.db"));
	ck_assert(!store_is_url("./clickhouse:/x"));
	ck_assert(!store_is_url("/tmp/a://b"));

	u = parse_ok("clickhouse://ch.example/traces");
	ck_assert_str_eq(u.host, "ch.example");
	ck_assert_int_eq(u.port, 8123);
	ck_assert_str_eq(u.database, "traces");
	ck_assert(!u.has_user);
	ck_assert_str_eq(u.shown, "clickhouse://ch.example:8123/traces");

	u = parse_ok("clickhouse://bob:s%40c%3Aret@10.0.0.1:9123/t_1");
	ck_assert_str_eq(u.user, "bob");
	ck_assert_str_eq(u.password, "s@c:ret");
	ck_assert_int_eq(u.port, 9123);
	/* the password never shows */
	ck_assert_str_eq(u.shown, "clickhouse://bob@10.0.0.1:9123/t_1");

	u = parse_ok("clickhouse://[::1]:8124/db");
	ck_assert_str_eq(u.host, "[::1]");
	ck_assert_int_eq(u.port, 8124);

	setenv("CLICKHOUSE_USER", "envuser", 1);
	setenv("CLICKHOUSE_PASSWORD", "envpw", 1);
	u = parse_ok("clickhouse://h/db");
	ck_assert(u.has_user);
	ck_assert_str_eq(u.user, "envuser");
	ck_assert_str_eq(u.password, "envpw");
	/* a user in the URL takes the environment's password only */
	u = parse_ok("clickhouse://me@h/db");
	ck_assert_str_eq(u.user, "me");
	ck_assert_str_eq(u.password, "envpw");
	unsetenv("CLICKHOUSE_USER");
	unsetenv("CLICKHOUSE_PASSWORD");
}
END_TEST

START_TEST(test_url_refused)
{
	parse_bad("postgres://h/db", "unknown store URL scheme 'postgres'");
	parse_bad("clickhouse://h", "no /DATABASE");
	parse_bad("clickhouse://h/", "no database name");
	parse_bad("clickhouse:///db", "no host");
	parse_bad("clickhouse://h:0/db", "bad port");
	parse_bad("clickhouse://h:70000/db", "bad port");
	parse_bad("clickhouse://h:8a/db", "bad port");
	parse_bad("clickhouse://h/db;DROP", "letters, digits and '_'");
	parse_bad("clickhouse://h/a/b", "letters, digits and '_'");
	parse_bad("clickhouse://u:%4@h/db", "bad password");
	parse_bad("clickhouse://%00@h/db", "bad user");
	parse_bad("clickhouse://[::1/db", "unclosed '['");
}
END_TEST

START_TEST(test_rowbinary)
{
	static const char text[300] = "x";
	struct rb_buf b = { 0 };
	struct rb_reader r;
	const unsigned char *s;
	uint64_t v;
	uint32_t w;
	uint8_t c;
	size_t n;

	rb_put_u64(&b, UINT64_MAX - 1);
	rb_put_u8(&b, 1);
	rb_put_u32(&b, 7);
	rb_put_string(&b, "", 0);
	rb_put_string(&b, text, sizeof(text)); /* a 2-byte length */
	ck_assert(!b.oom);
	ck_assert_uint_eq(b.len, 8 + 1 + 4 + 1 + 2 + sizeof(text));
	ck_assert_uint_eq(b.p[14], 0xac); /* 300 = 0b10_0101100 */
	ck_assert_uint_eq(b.p[15], 0x02);

	/* every cut short: nothing read past it, the value not taken */
	for (size_t cut = 0; cut < b.len; cut++) {
		int ok;

		r.p = b.p;
		r.end = b.p + cut;
		ok = !rb_get_u64(&r, &v) && !rb_get_u8(&r, &c) &&
		     !rb_get_u32(&r, &w) && !rb_get_string(&r, &s, &n) &&
		     !rb_get_string(&r, &s, &n);
		ck_assert_msg(!ok, "a row cut at %zu read whole", cut);
		ck_assert(r.p <= r.end);
	}
	r.p = b.p;
	r.end = b.p + b.len;
	ck_assert(!rb_get_u64(&r, &v) && v == UINT64_MAX - 1);
	ck_assert(!rb_get_u8(&r, &c) && c == 1);
	ck_assert(!rb_get_u32(&r, &w) && w == 7);
	ck_assert(!rb_get_string(&r, &s, &n) && n == 0);
	ck_assert(!rb_get_string(&r, &s, &n) && n == sizeof(text));
	ck_assert(!memcmp(s, text, n));
	ck_assert(r.p == r.end);
	rb_release(&b);
}
END_TEST

Suite *store_suite(void)
{
	Suite *s = suite_create("store");
	TCase *tc = tcase_create("store");

	tcase_add_test(tc, test_url);
	tcase_add_test(tc, test_url_refused);
	tcase_add_test(tc, test_rowbinary);
	suite_add_tcase(s, tc);
	return s;
}
