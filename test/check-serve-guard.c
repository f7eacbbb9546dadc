/*
 * check-serve-guard.c - the guard of `ccsg serve` (ccsg/serve/guard.h) on
 * its own, with a clock of the test's and the sockets it closes
 * recorded: who is closed when there are too many connections from one
 * address or in all, when the deadlines of a request and of an answer
 * pass; and the checks of a Host and of a request's origin.
 */
#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "serve/guard.h"

static int closed[64], reset[64];
static int nclosed;

static void record_close(int fd, int r)
{
	ck_assert_int_lt(nclosed, 64);
	reset[nclosed] = r;
	closed[nclosed++] = fd;
}

static const struct guard_limits limits = {
	.per_ip = 2,
	.total = 4,
	.request_ms = 100,
	.send_ms = 1000,
};

static void setup(struct guard *g)
{
	guard_init(g, &limits);
	g->close_fd = record_close;
	nclosed = 0;
}

static struct sockaddr_in v4(const char *a)
{
	struct sockaddr_in s = { .sin_family = AF_INET };

	ck_assert_int_eq(inet_pton(AF_INET, a, &s.sin_addr), 1);
	return s;
}

static struct sockaddr_in6 v6(const char *a)
{
	struct sockaddr_in6 s = { .sin6_family = AF_INET6 };

	ck_assert_int_eq(inet_pton(AF_INET6, a, &s.sin6_addr), 1);
	return s;
}

#define OPEN(g, fd, sa, now)                                                   \
	guard_open(g, fd, (const struct sockaddr *)&(sa), now)

/* More than per_ip from one address: its oldest one goes, waiting or
 * sending (reset), never the newcomer, never one of another address. */
START_TEST(test_per_ip)
{
	struct sockaddr_in a = v4("127.0.0.1"), b = v4("127.0.0.2");
	struct guard_conn *c[8];
	struct guard g;

	setup(&g);
	c[1] = OPEN(&g, 1, a, 0);
	c[2] = OPEN(&g, 2, b, 1);
	c[3] = OPEN(&g, 3, a, 2);
	ck_assert_int_eq(nclosed, 0);
	c[4] = OPEN(&g, 4, a, 3);
	ck_assert_int_eq(nclosed, 1);
	ck_assert_int_eq(closed[0], 1);
	ck_assert_int_eq(reset[0], 0);
	guard_closed(&g, c[1]);
	/* 3 is answering since 4, 4 has waited since 3: 4 goes for 5 */
	guard_answering(&g, c[3], 4);
	c[5] = OPEN(&g, 5, a, 5);
	ck_assert_int_eq(nclosed, 2);
	ck_assert_int_eq(closed[1], 4);
	ck_assert_int_eq(reset[1], 0);
	guard_closed(&g, c[4]);
	/* 3 and 5 of a both answering (a client that does not read): the
	 * older answer, 3's, goes for 6 */
	guard_answering(&g, c[5], 6);
	c[6] = OPEN(&g, 6, a, 7);
	ck_assert_int_eq(nclosed, 3);
	ck_assert_int_eq(closed[2], 3);
	ck_assert_int_eq(reset[2], 1);
	guard_closed(&g, c[3]);
	/* 5 answering since 6, 6 waiting since 7: the older, 5, for 7 */
	c[7] = OPEN(&g, 7, a, 8);
	ck_assert_int_eq(nclosed, 4);
	ck_assert_int_eq(closed[3], 5);
	ck_assert_int_eq(reset[3], 1);
	guard_closed(&g, c[5]);
	ck_assert_uint_eq(g.live, 3);
	guard_closed(&g, c[2]);
	guard_closed(&g, c[6]);
	guard_closed(&g, c[7]);
	ck_assert_uint_eq(g.live, 0);
	ck_assert_uint_eq(g.closed_crowd, 4);
}
END_TEST

/* More than total in all: the oldest waiting one of any address. */
START_TEST(test_total)
{
	struct sockaddr_in a[6];
	struct guard_conn *c[6];
	char name[32];
	struct guard g;

	setup(&g);
	for (int i = 0; i < 6; i++) {
		snprintf(name, sizeof(name), "10.0.0.%d", i + 1);
		a[i] = v4(name);
	}
	for (int i = 0; i < 4; i++)
		c[i] = OPEN(&g, 10 + i, a[i], i);
	ck_assert_int_eq(nclosed, 0);
	guard_answered(&g, c[0], 10); /* 0 is the newest waiting now */
	c[4] = OPEN(&g, 14, a[4], 11);
	ck_assert_int_eq(nclosed, 1);
	ck_assert_int_eq(closed[0], 11);
	c[5] = OPEN(&g, 15, a[5], 12);
	ck_assert_int_eq(closed[1], 12);
	ck_assert_uint_eq(g.live, 4);
	for (int i = 0; i < 6; i++)
		guard_closed(&g, c[i]);
	ck_assert_uint_eq(g.live, 0);
}
END_TEST

/* The deadlines, and what guard_tick() says of the next one; a sending
 * connection is reset as it is closed, a waiting one is not. */
START_TEST(test_deadlines)
{
	struct sockaddr_in a = v4("127.0.0.1"), b = v4("127.0.0.2");
	struct guard_conn *x, *y;
	struct guard g;

	setup(&g);
	ck_assert_int_eq(guard_tick(&g, 0), -1);
	x = OPEN(&g, 1, a, 0);
	y = OPEN(&g, 2, b, 30);
	ck_assert_int_eq(guard_tick(&g, 40), 60);
	/* x answers: its answer may take send_ms */
	guard_answering(&g, x, 50);
	ck_assert_int_eq(guard_tick(&g, 50), 80); /* y's, at 130 */
	ck_assert_int_eq(guard_tick(&g, 130), 920);
	ck_assert_int_eq(nclosed, 1);
	ck_assert_int_eq(closed[0], 2);
	ck_assert_int_eq(reset[0], 0);
	guard_closed(&g, y);
	/* answered: waiting again from then */
	guard_answered(&g, x, 200);
	ck_assert_int_eq(guard_tick(&g, 250), 50);
	ck_assert_int_eq(guard_tick(&g, 300), -1);
	ck_assert_int_eq(closed[1], 1);
	ck_assert_int_eq(reset[1], 0);
	/* told to close, x is no longer the guard's to move */
	guard_answering(&g, x, 310);
	guard_answered(&g, x, 320);
	ck_assert_int_eq(guard_tick(&g, 5000), -1);
	guard_closed(&g, x);
	/* an answer too slow to go */
	x = OPEN(&g, 3, a, 6000);
	guard_answering(&g, x, 6010);
	ck_assert_int_eq(guard_tick(&g, 7009), 1);
	ck_assert_int_eq(guard_tick(&g, 7010), -1);
	ck_assert_int_eq(closed[2], 3);
	ck_assert_int_eq(reset[2], 1);
	guard_closed(&g, x);
	ck_assert_uint_eq(g.closed_late, 3);
	ck_assert_uint_eq(g.live, 0);
}
END_TEST

/* IPv6 is counted by /64; an IPv4-mapped address as its IPv4 one. */
START_TEST(test_addresses)
{
	struct sockaddr_in6 p1 = v6("2001:db8:1:2::1"),
			    p2 = v6("2001:db8:1:2:ffff::9"),
			    other = v6("2001:db8:1:3::1"),
			    mapped = v6("::ffff:10.1.2.3");
	struct sockaddr_in plain = v4("10.1.2.3");
	struct guard_conn *c[6];
	struct guard g;

	setup(&g);
	c[0] = OPEN(&g, 1, p1, 0);
	c[1] = OPEN(&g, 2, other, 1);
	c[2] = OPEN(&g, 3, p2, 2);
	ck_assert_int_eq(nclosed, 0);
	c[3] = OPEN(&g, 4, p2, 3);
	ck_assert_int_eq(nclosed, 1);
	ck_assert_int_eq(closed[0], 1);
	for (int i = 0; i < 4; i++)
		guard_closed(&g, c[i]);
	c[0] = OPEN(&g, 5, mapped, 10);
	c[1] = OPEN(&g, 6, plain, 11);
	c[2] = OPEN(&g, 7, mapped, 12);
	ck_assert_int_eq(nclosed, 2);
	ck_assert_int_eq(closed[1], 5);
	for (int i = 0; i < 3; i++)
		guard_closed(&g, c[i]);
}
END_TEST

START_TEST(test_requests)
{
	static const char *const loopback[] = {
		"localhost",   "LOCALHOST:8080", "127.0.0.1",  "127.0.0.1:80",
		"127.1.2.3:9", "[::1]",		 "[::1]:8080",
	};
	static const char *const other[] = {
		"evil.example",
		"evil.example:80",
		"localhost.evil.example",
		"127.0.0.1.evil.example",
		"[::1",
		"[::2]:80",
		"",
		"127.0.0.1x",
		"10.0.0.1",
	};

	for (size_t i = 0; i < sizeof(loopback) / sizeof(loopback[0]); i++)
		ck_assert_msg(guard_loopback_host(loopback[i]), "%s",
			      loopback[i]);
	for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++)
		ck_assert_msg(!guard_loopback_host(other[i]), "%s", other[i]);

	ck_assert(guard_same_origin("127.0.0.1:8080", NULL, NULL));
	ck_assert(guard_same_origin("127.0.0.1:8080", NULL, "same-origin"));
	ck_assert(guard_same_origin("127.0.0.1:8080", NULL, "none"));
	ck_assert(guard_same_origin("127.0.0.1:8080", "http://127.0.0.1:8080",
				    "same-origin"));
	ck_assert(guard_same_origin("LocalHost:8080", "http://localhost:8080",
				    NULL));
	ck_assert(!guard_same_origin("127.0.0.1:8080", NULL, "cross-site"));
	ck_assert(!guard_same_origin("127.0.0.1:8080", NULL, "same-site"));
	ck_assert(!guard_same_origin("127.0.0.1:8080", "http://evil.example",
				     NULL));
	ck_assert(!guard_same_origin("127.0.0.1:8080", "http://127.0.0.1:8081",
				     NULL));
	ck_assert(!guard_same_origin("127.0.0.1:8080", "https://127.0.0.1:8080",
				     NULL));
	ck_assert(!guard_same_origin("127.0.0.1:8080", "null", NULL));
	ck_assert(!guard_same_origin(NULL, "http://127.0.0.1:8080", NULL));
	ck_assert(!guard_same_origin("127.0.0.1:8080", "http://127.0.0.1:8080",
				     "cross-site"));
}
END_TEST

Suite *serve_guard_suite(void)
{
	Suite *s = suite_create("serve-guard");
	TCase *tc = tcase_create("guard");

	tcase_add_test(tc, test_per_ip);
	tcase_add_test(tc, test_total);
	tcase_add_test(tc, test_deadlines);
	tcase_add_test(tc, test_addresses);
	tcase_add_test(tc, test_requests);
	suite_add_tcase(s, tc);
	return s;
}
