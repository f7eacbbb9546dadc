/*
 * check-monitor-proto.c - reading the monitoring channel's messages
 * (util/monitor-proto.c): the one parser of the coordinator and the
 * consumer, so what one side reads as malformed the other does too.
 */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <netdb.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "causal/monitor-proto.h"
#include "test-tmp.h"

START_TEST(test_kind_and_fields)
{
	char line[] = "HELLO 1 abc", *rest,
	     *kind = causal_mon_kind(line, &rest);

	ck_assert_str_eq(kind, "HELLO");
	ck_assert_str_eq(causal_mon_field(&rest), "1");
	ck_assert_str_eq(causal_mon_field(&rest), "abc");
	ck_assert_ptr_null(causal_mon_field(&rest));
	ck_assert_str_eq(rest, "");
}
END_TEST

START_TEST(test_kind_rejects)
{
	char ctl[] = "EVENT 4 \x01", del[] = "EVENT 4 \x7f", tab[] = "PING\t",
	     empty[] = "", space[] = " PING", *rest;

	ck_assert_ptr_null(causal_mon_kind(ctl, &rest));
	ck_assert_ptr_null(causal_mon_kind(del, &rest));
	ck_assert_ptr_null(causal_mon_kind(tab, &rest));
	ck_assert_ptr_null(causal_mon_kind(empty, &rest));
	ck_assert_ptr_null(causal_mon_kind(space, &rest));
}
END_TEST

/* An empty field stops the fields, and leaves the rest to be seen. */
START_TEST(test_empty_field)
{
	char twice[] = "a  b", trailing[] = "a ", *s = twice;

	ck_assert_str_eq(causal_mon_field(&s), "a");
	ck_assert_ptr_null(causal_mon_field(&s));
	ck_assert_str_eq(s, "b");
	s = trailing;
	ck_assert_str_eq(causal_mon_field(&s), "a");
	ck_assert_ptr_null(causal_mon_field(&s));
	ck_assert_str_eq(s, "");
}
END_TEST

START_TEST(test_u64)
{
	uint64_t v = 7;

	ck_assert_int_eq(causal_mon_u64("0", &v), 0);
	ck_assert_uint_eq(v, 0);
	ck_assert_int_eq(causal_mon_u64("18446744073709551615", &v), 0);
	ck_assert_uint_eq(v, UINT64_MAX);
	ck_assert_int_eq(causal_mon_u64("18446744073709551616", &v), -1);
	ck_assert_int_eq(causal_mon_u64("99999999999999999999", &v), -1);
	ck_assert_int_eq(causal_mon_u64(NULL, &v), -1);
	ck_assert_int_eq(causal_mon_u64("", &v), -1);
	ck_assert_int_eq(causal_mon_u64("+1", &v), -1);
	ck_assert_int_eq(causal_mon_u64("-1", &v), -1);
	ck_assert_int_eq(causal_mon_u64(" 1", &v), -1);
	ck_assert_int_eq(causal_mon_u64("1 ", &v), -1);
	ck_assert_int_eq(causal_mon_u64("0x10", &v), -1);
	ck_assert_uint_eq(v, UINT64_MAX); /* untouched on failure */
}
END_TEST

START_TEST(test_event_on_off)
{
	struct causal_mon_event ev;
	char on[] = "on cpu,latency", off[] = "off memory",
	     trailing[] = "on cpu ";

	ck_assert_int_eq(causal_mon_event_parse(on, &ev), 0);
	ck_assert_uint_eq(ev.kind, CAUSAL_MONITOR_ON);
	ck_assert_str_eq(ev.types, "cpu,latency");
	ck_assert_ptr_null(ev.host);
	ck_assert_int_eq(causal_mon_event_parse(off, &ev), 0);
	ck_assert_uint_eq(ev.kind, CAUSAL_MONITOR_OFF);
	ck_assert_str_eq(ev.types, "memory");
	/* a space at the end is the end */
	ck_assert_int_eq(causal_mon_event_parse(trailing, &ev), 0);
	ck_assert_str_eq(ev.types, "cpu");
}
END_TEST

START_TEST(test_event_select)
{
	struct causal_mon_event ev;
	char sel[] = "select * 0x20000c5a say_it off";

	ck_assert_int_eq(causal_mon_event_parse(sel, &ev), 0);
	ck_assert_uint_eq(ev.kind, CAUSAL_MONITOR_SELECT);
	ck_assert_str_eq(ev.host, "*");
	ck_assert_str_eq(ev.iface, "0x20000c5a");
	ck_assert_str_eq(ev.func, "say_it");
	/* the words unchecked: each side checks them as it must */
	ck_assert_str_eq(ev.on, "off");
	ck_assert_ptr_null(ev.types);
}
END_TEST

START_TEST(test_event_malformed)
{
	static const char *const bad[] = {
		"",
		"on",
		"on ",
		"on cpu latency",
		"on  cpu",
		"off cpu x",
		"select * 1 2",
		"select * 1 2 on x",
		"select  * 1 on",
		"ON cpu",
		"toggle cpu",
		" on cpu",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct causal_mon_event ev;
		char text[64];

		snprintf(text, sizeof(text), "%s", bad[i]);
		ck_assert_msg(causal_mon_event_parse(text, &ev) == -1,
			      "'%s' read as an event", bad[i]);
	}
}
END_TEST

START_TEST(test_number)
{
	uint32_t v;

	ck_assert_int_eq(causal_mon_number("0", &v), 0);
	ck_assert_uint_eq(v, 0);
	ck_assert_int_eq(causal_mon_number("4294967295", &v), 0);
	ck_assert_uint_eq(v, UINT32_MAX);
	ck_assert_int_eq(causal_mon_number("0x20000C5a", &v), 0);
	ck_assert_uint_eq(v, 0x20000c5a);
	ck_assert_int_eq(causal_mon_number("0XfFfFfFfF", &v), 0);
	ck_assert_uint_eq(v, UINT32_MAX);
	ck_assert_int_eq(causal_mon_number("4294967296", &v), -1);
	ck_assert_int_eq(causal_mon_number("0x100000000", &v), -1);
	ck_assert_int_eq(causal_mon_number("", &v), -1);
	ck_assert_int_eq(causal_mon_number("0x", &v), -1);
	ck_assert_int_eq(causal_mon_number("12a", &v), -1);
	ck_assert_int_eq(causal_mon_number("-1", &v), -1);
	ck_assert_int_eq(causal_mon_number("*", &v), -1);
}
END_TEST

START_TEST(test_is_name)
{
	ck_assert_int_eq(causal_mon_is_name("say_it"), 1);
	ck_assert_int_eq(causal_mon_is_name("_x9"), 1);
	ck_assert_int_eq(causal_mon_is_name("SAY_IT"), 1);
	ck_assert_int_eq(causal_mon_is_name(""), 0);
	ck_assert_int_eq(causal_mon_is_name("9lives"), 0);
	ck_assert_int_eq(causal_mon_is_name("say-it"), 0);
	ck_assert_int_eq(causal_mon_is_name("*"), 0);
}
END_TEST

/* A listening socket on the loopback; its port in *port. */
static int listener(char *port, size_t size)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t len = sizeof(sin);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert(fd >= 0 && !bind(fd, (struct sockaddr *)&sin, sizeof(sin)) &&
		  !listen(fd, 1) &&
		  !getsockname(fd, (struct sockaddr *)&sin, &len));
	snprintf(port, size, "%u", (unsigned)ntohs(sin.sin_port));
	return fd;
}

START_TEST(test_dial)
{
	struct addrinfo hints = { .ai_family = AF_INET,
				  .ai_socktype = SOCK_STREAM },
			*res;
	char port[8];
	int lfd = listener(port, sizeof(port)), fd, err = 0;

	ck_assert_int_eq(getaddrinfo("127.0.0.1", port, &hints, &res), 0);
	fd = causal_mon_dial(res, 1000, &err);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(err, 0);
	close(fd);
	/* nobody listening any more: refused, said */
	close(lfd);
	ck_assert_int_eq(causal_mon_dial(res, 1000, &err), -1);
	ck_assert_int_eq(err, ECONNREFUSED);
	freeaddrinfo(res);
}
END_TEST

/* CAUSAL_COORDINATOR=local: the user's own coordinator, then root's. */
START_TEST(test_local_sockets)
{
	char path[128];

	ck_assert_int_eq(causal_mon_local_socket(0, 0, path, sizeof(path)), 0);
	ck_assert_str_eq(path, "/run/causal/coordinator.sock");
	ck_assert_int_eq(causal_mon_local_socket(1, 0, path, sizeof(path)), -1);
	ck_assert_int_eq(causal_mon_local_socket(0, 1000, path, sizeof(path)),
			 0);
	ck_assert_str_eq(path, "/run/user/1000/causal-coordinator.sock");
	ck_assert_int_eq(causal_mon_local_socket(1, 1000, path, sizeof(path)),
			 0);
	ck_assert_str_eq(path, "/run/causal/coordinator.sock");
	ck_assert_int_eq(causal_mon_local_socket(2, 1000, path, sizeof(path)),
			 -1);
	ck_assert_int_eq(
		causal_mon_local_socket(0, 4294967295u, path, sizeof(path)), 0);
	ck_assert_str_eq(path, "/run/user/4294967295/causal-coordinator.sock");
	ck_assert_int_eq(causal_mon_local_socket(0, 1000, path, 20), -1);
}
END_TEST

/* The peer's user, as the kernel says; a socket nobody listens on. */
START_TEST(test_unix_dial_and_peer)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	char dir[64];
	unsigned uid = 12345;
	int lfd, fd, err = 0;

	test_tmp_name(dir, sizeof(dir), "causal-proto-XXXXXX");
	ck_assert(mkdtemp(dir));
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/s", dir);
	lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	ck_assert(!bind(lfd, (struct sockaddr *)&sun, sizeof(sun)) &&
		  !listen(lfd, 1));
	fd = causal_mon_dial_unix(sun.sun_path, &err);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(causal_mon_peer_uid(fd, &uid), 0);
	ck_assert_uint_eq(uid, geteuid());
	close(fd);
	close(lfd);
	/* the file stays, nobody listens: refused, said */
	ck_assert_int_eq(causal_mon_dial_unix(sun.sun_path, &err), -1);
	ck_assert_int_eq(err, ECONNREFUSED);
	unlink(sun.sun_path);
	ck_assert_int_eq(causal_mon_dial_unix(sun.sun_path, &err), -1);
	ck_assert_int_eq(err, ENOENT);
	rmdir(dir);
}
END_TEST

/* KEEP and KEPT's chain: 40 lowercase hex digits exactly, both ways. */
START_TEST(test_chain_hex)
{
	static const char *const bad[] = {
		"",
		"00",
		"0123456789abcdef0123456789abcdef0123456",
		"0123456789abcdef0123456789abcdef012345678",
		"0123456789ABCDEF0123456789abcdef01234567",
		"0123456789abcdef0123456789abcdef0123456g",
		"0123456789abcdef0123456789abcdef0123456 "
	};
	const char *good = "0123456789abcdef0123456789abcdef01234567";
	uint8_t chain[CAUSAL_CHAIN_ID_LEN];
	char hex[CAUSAL_MON_CHAIN_HEX + 1];

	ck_assert_int_eq(causal_mon_chain(good, chain), 0);
	ck_assert_int_eq(chain[0], 0x01);
	ck_assert_int_eq(chain[19], 0x67);
	causal_mon_chain_hex(chain, hex);
	ck_assert_str_eq(hex, good);
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		ck_assert_msg(causal_mon_chain(bad[i], chain) == -1, "'%s'",
			      bad[i]);
	ck_assert_int_eq(causal_mon_chain(NULL, chain), -1);
}
END_TEST

/* The rate caps' bucket: burst at once, then rate a second. */
START_TEST(test_bucket)
{
	struct causal_mon_bucket b = { 0 };
	const uint64_t t0 = 5000000000ull, s = 1000000000ull;
	int n = 0;

	while (causal_mon_bucket_take(&b, t0, 64, 64))
		n++;
	ck_assert_int_eq(n, 64);
	ck_assert_int_eq(causal_mon_bucket_take(&b, t0 + s / 128, 64, 64), 0);
	ck_assert_int_eq(causal_mon_bucket_take(&b, t0 + s / 64, 64, 64), 1);
	ck_assert_int_eq(causal_mon_bucket_take(&b, t0 + s / 64, 64, 64), 0);
	/* a second on: 64 more, no more (the burst caps what was saved) */
	for (n = 0; causal_mon_bucket_take(&b, t0 + 10 * s, 64, 64); n++)
		;
	ck_assert_int_eq(n, 64);
	/* a clock that goes back starts afresh, full */
	ck_assert_int_eq(causal_mon_bucket_take(&b, t0, 64, 64), 1);
}
END_TEST

Suite *monitor_proto_suite(void)
{
	Suite *s = suite_create("monitor-proto");
	TCase *tc = tcase_create("monitor-proto");

	tcase_add_test(tc, test_kind_and_fields);
	tcase_add_test(tc, test_kind_rejects);
	tcase_add_test(tc, test_empty_field);
	tcase_add_test(tc, test_u64);
	tcase_add_test(tc, test_event_on_off);
	tcase_add_test(tc, test_event_select);
	tcase_add_test(tc, test_event_malformed);
	tcase_add_test(tc, test_number);
	tcase_add_test(tc, test_is_name);
	tcase_add_test(tc, test_dial);
	tcase_add_test(tc, test_local_sockets);
	tcase_add_test(tc, test_unix_dial_and_peer);
	tcase_add_test(tc, test_chain_hex);
	tcase_add_test(tc, test_bucket);
	suite_add_tcase(s, tc);
	return s;
}
