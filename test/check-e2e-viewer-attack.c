/*
 * check-e2e-viewer-attack.c - `ccsg serve` under the attacks of issue 40,
 * item 7, made by real sockets from this process: 300 clients that each
 * send one header line a second (slowloris), or nothing at all, or ask
 * for d3 and never read the answer, from one loopback address or from
 * ten, reconnecting whenever the server closes one.  While the attack goes on,
 * five legitimate requests, from the attackers' address or another, must each
 * be answered (200) within a generous deadline; then, the attackers no longer
 * reconnecting, every attack connection must be closed by the server (within
 * another).  No figure of time is asserted beyond those deadlines: how fast the
 * server answers is its guard's business (guard.h), the test only says it does.
 *
 * Several client addresses need no namespace: every address of 127/8 is
 * the loopback's, so a socket bound to 127.0.0.2 before it connects comes
 * from another address as the server sees it.
 */
#include <arpa/inet.h>
#include <check.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ccsg-fixture.h"
#include "serve-run.h"
#include "tool-run.h"

#define ATTACKERS 300
#define ROUNDS 5

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A non-blocking socket from 127.0.0.src connecting to port: the fd.
 * rcvbuf: its receive buffer's size, or 0 for the system's. */
static int dial(int port, int src, int rcvbuf)
{
	struct sockaddr_in from = { .sin_family = AF_INET },
			   to = { .sin_family = AF_INET,
				  .sin_port = htons((uint16_t)port) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	ck_assert_int_ge(fd, 0);
	if (rcvbuf)
		ck_assert(!setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf,
				      sizeof(rcvbuf)));
	from.sin_addr.s_addr = htonl(0x7f000000u | (uint32_t)src);
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_msg(!bind(fd, (struct sockaddr *)&from, sizeof(from)),
		      "bind 127.0.0.%d: %s", src, strerror(errno));
	ck_assert_msg(!connect(fd, (struct sockaddr *)&to, sizeof(to)) ||
			      errno == EINPROGRESS,
		      "connect: %s", strerror(errno));
	return fd;
}

/* ---- the attackers ------------------------------------------------------- */

/* What each attacker does once connected. */
enum attack_kind {
	IDLE,	/* sends nothing */
	SLOW,	/* sends a header line a second */
	NOREAD, /* asks for d3 (250 KB) and never reads the answer */
};

struct attack {
	int port;
	enum attack_kind kind;
	int reconnect; /* a closed socket is opened again at its next tick */
	int nsrc;      /* from 127.0.0.2 .. 127.0.0.(1 + nsrc); 0: 127.0.0.1 */
	int fd[ATTACKERS];
	int64_t next[ATTACKERS]; /* its next tick */
	int sent[ATTACKERS];	 /* lines sent on this connection */
	long opened, closed;	 /* connections, and those the server closed */
};

static int attack_src(const struct attack *a, int i)
{
	return a->nsrc ? 2 + i % a->nsrc : 1;
}

static void attack_open(struct attack *a, int i, int64_t now)
{
	/* a small buffer that d3 cannot fill (the kernel doubles it) */
	a->fd[i] =
		dial(a->port, attack_src(a, i), a->kind == NOREAD ? 4096 : 0);
	a->sent[i] = 0;
	/* ticks spread over the second, as many clients would send */
	a->next[i] = now + 1000 * (i + 1) / ATTACKERS;
	a->opened++;
}

static void attack_start(struct attack *a)
{
	int64_t now = now_ms();

	for (int i = 0; i < ATTACKERS; i++)
		attack_open(a, i, now);
}

/* Socket i ended by the server (an end of stream or a reset). */
static void attack_lost(struct attack *a, int i)
{
	close(a->fd[i]);
	a->fd[i] = -1;
	a->closed++;
}

/* Socket i's tick: reopen it, or send its next line. */
static void attack_tick(struct attack *a, int i, int64_t now)
{
	static const char *const first =
		"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\n";
	static const char *const d3 =
		"GET /d3.min.js HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
	char line[64];
	const char *s = line;

	a->next[i] = now + 1000;
	if (a->fd[i] < 0) {
		if (a->reconnect)
			attack_open(a, i, now);
		return;
	}
	if (a->kind == IDLE || (a->kind == NOREAD && a->sent[i]))
		return;
	if (a->sent[i] == 0)
		s = a->kind == NOREAD ? d3 : first;
	else
		snprintf(line, sizeof(line), "X-Slow-%d: %d\r\n", a->sent[i],
			 i);
	if (send(a->fd[i], s, strlen(s), MSG_NOSIGNAL) > 0)
		a->sent[i]++;
	else if (errno != EAGAIN && errno != ENOTCONN)
		attack_lost(a, i);
}

static int attack_open_now(const struct attack *a)
{
	int n = 0;

	for (int i = 0; i < ATTACKERS; i++)
		n += a->fd[i] >= 0;
	return n;
}

/* ---- a legitimate client ------------------------------------------------- */

struct legit {
	int fd, src, sent;
	char buf[8192];
	size_t len;
	int status; /* -1 pending, 0 closed without an answer, else HTTP's */
};

static void legit_start(struct legit *l, int port)
{
	l->fd = dial(port, l->src, 0);
	l->sent = 0;
	l->len = 0;
	l->status = -1;
}

static void legit_event(struct legit *l, short revents)
{
	static const char req[] = "GET /api/info HTTP/1.1\r\nHost: "
				  "127.0.0.1\r\nConnection: close\r\n\r\n";
	ssize_t n;

	if (!l->sent && (revents & POLLOUT)) {
		if (send(l->fd, req, strlen(req), MSG_NOSIGNAL) ==
		    (ssize_t)strlen(req))
			l->sent = 1;
		else if (errno != EAGAIN && errno != ENOTCONN)
			l->status = 0;
	}
	if (!(revents & (POLLIN | POLLHUP | POLLERR)) || l->status == 0)
		return;
	n = read(l->fd, l->buf + l->len, sizeof(l->buf) - 1 - l->len);
	if (n > 0 && l->len + (size_t)n < sizeof(l->buf) - 1) {
		l->len += (size_t)n;
		return;
	}
	if (n < 0 && errno == EAGAIN)
		return;
	l->buf[l->len] = '\0';
	if (sscanf(l->buf, "HTTP/1.%*d %d", &l->status) != 1)
		l->status = 0;
}

/* ---- the two together ---------------------------------------------------- */

/*
 * Run the attack, and l when l->status is pending, until the deadline
 * or until l has its answer (with until_answered) or until every attack
 * socket is closed (without).
 */
static void run(struct attack *a, struct legit *l, int64_t deadline,
		int until_answered)
{
	struct pollfd p[ATTACKERS + 1];

	for (;;) {
		int64_t now = now_ms(), wait = deadline - now;
		int n = 0;

		if (until_answered ? l->status >= 0 : !attack_open_now(a))
			return;
		if (wait <= 0)
			return;
		for (int i = 0; i < ATTACKERS; i++) {
			if (a->next[i] <= now)
				attack_tick(a, i, now);
			if (a->next[i] - now < wait)
				wait = a->next[i] - now;
		}
		/* a reader reads (the end comes after the data); a
		 * non-reader sees the server's end without reading */
		for (int i = 0; i < ATTACKERS; i++)
			p[n++] = (struct pollfd){ a->fd[i],
						  a->kind == NOREAD ? POLLRDHUP
								    : POLLIN,
						  0 };
		p[n++] =
			(struct pollfd){ l && l->status < 0 ? l->fd : -1,
					 POLLIN | (l && !l->sent ? POLLOUT : 0),
					 0 };
		ck_assert_int_ge(poll(p, (nfds_t)n, (int)wait), 0);
		for (int i = 0; i < ATTACKERS; i++) {
			char b[512];
			ssize_t r;

			if (a->fd[i] < 0 ||
			    !(p[i].revents &
			      (POLLIN | POLLRDHUP | POLLHUP | POLLERR)))
				continue;
			if (a->kind == NOREAD) {
				attack_lost(a, i);
				continue;
			}
			r = read(a->fd[i], b, sizeof(b));
			if (r == 0 || (r < 0 && errno != EAGAIN))
				attack_lost(a, i);
		}
		if (l && l->status < 0 && p[ATTACKERS].revents)
			legit_event(l, p[ATTACKERS].revents);
	}
}

/*
 * The attack described by a (its options set) against a fresh server;
 * legitimate requests from 127.0.0.legit_src while it goes on.
 */
static void siege(struct attack *a, int legit_src)
{
	struct server s;
	struct legit l = { .src = legit_src };
	struct e2e t;

	e2e_init(&t);
	serve_start(&s, fx_figure1(), NULL);
	a->port = s.port;
	a->reconnect = 1;
	attack_start(a);
	/* the attack settles: every socket has opened at least once */
	run(a, NULL, now_ms() + 2000, 0);
	for (int round = 0; round < ROUNDS; round++) {
		legit_start(&l, s.port);
		run(a, &l, now_ms() + TOOL_DEADLINE_S * 1000, 1);
		ck_assert_msg(l.status == 200,
			      "request %d of 127.0.0.%d during the attack: %s "
			      "(%ld attack connections, %ld closed by the "
			      "server): '%.200s'",
			      round + 1, legit_src,
			      l.status < 0    ? "no answer in time"
			      : l.status == 0 ? "closed without an answer"
					      : "not 200",
			      a->opened, a->closed, l.buf);
		close(l.fd);
		/* the attack goes on a second between two requests */
		run(a, NULL, now_ms() + 1000, 0);
	}
	a->reconnect = 0;
	run(a, NULL, now_ms() + TOOL_DEADLINE_S * 1000, 0);
	ck_assert_msg(!attack_open_now(a),
		      "%d of %ld attack connections still open after %d s "
		      "(%ld closed by the server)",
		      attack_open_now(a), a->opened, TOOL_DEADLINE_S,
		      a->closed);
	printf("viewer attack (%s, %d address%s): %d requests answered, "
	       "%ld attack connections closed by the server\n",
	       a->kind == SLOW	   ? "slow headers"
	       : a->kind == NOREAD ? "answers not read"
				   : "idle",
	       a->nsrc ? a->nsrc : 1, a->nsrc > 1 ? "es" : "", ROUNDS,
	       a->closed);
	e2e_assert_exit(serve_stop(&s, SIGTERM), 0, "ccsg serve");
	e2e_release(&t);
}

/* 300 slowloris clients from the legitimate client's own address (the
 * loopback case: every local client is 127.0.0.1). */
START_TEST(test_slow_same_address)
{
	static struct attack a = { .kind = SLOW };

	siege(&a, 1);
}
END_TEST

/* ... from one address, the legitimate client from another. */
START_TEST(test_slow_other_address)
{
	static struct attack a = { .kind = SLOW, .nsrc = 1 };

	siege(&a, 3);
}
END_TEST

/* ... from ten addresses, 30 each: under the limit per address, over
 * the limit in all. */
START_TEST(test_slow_ten_addresses)
{
	static struct attack a = { .kind = SLOW, .nsrc = 10 };

	siege(&a, 1);
}
END_TEST

/* 300 connections that send nothing. */
START_TEST(test_idle)
{
	static struct attack a = { .kind = IDLE };

	siege(&a, 1);
}
END_TEST

/* 300 connections from the legitimate client's address that each ask
 * for d3 and never read it: their answers cannot go, yet a newcomer is
 * answered (the oldest answer is closed to make room). */
START_TEST(test_no_read)
{
	static struct attack a = { .kind = NOREAD };

	siege(&a, 1);
}
END_TEST

Suite *e2e_viewer_attack_suite(void)
{
	Suite *s = suite_create("e2e-viewer-attack");
	TCase *tc = tcase_create("attack");

	tcase_set_timeout(tc, 3 * E2E_TIMEOUT);
	e2e_add_fixture(tc);
	tcase_add_test(tc, test_slow_same_address);
	tcase_add_test(tc, test_slow_other_address);
	tcase_add_test(tc, test_slow_ten_addresses);
	tcase_add_test(tc, test_idle);
	tcase_add_test(tc, test_no_read);
	suite_add_tcase(s, tc);
	return s;
}
