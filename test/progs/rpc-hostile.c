/*
 * rpc-hostile - a Sun RPC client made of plain sockets (no libtirpc) that
 * sends demo-server (test/rpc/demo.x) valid SAY_IT calls followed by
 * causality tags good and bad, for check-e2e-rpc-edge.c.
 *
 *   rpc-hostile tcp|udp PORT CASE...
 *
 * One SAY_IT(100 + i) per CASE (i from 0), xid 0x48000000 + 0x100 * udp
 * + i + 1; over TCP each on a connection of its own.  What follows the
 * arguments:
 *   none       nothing (an untraced client)
 *   ok         a valid tag: chain "hostile" + i, event 1000, bound to the
 *              xid over UDP and to 0 over TCP, as the shim binds them
 *   badsum     that tag with its checksum off by one bit
 *   short      its first 20 bytes only
 *   random     48 bytes of noise (no tag magic)
 *   wrongxid   a valid tag bound to another xid
 *   bigevent   a valid tag (checksum right) with event 2^64 - 16
 *   hugefrag   TCP: the call in a fragment that is not the last, then a
 *              last fragment announced as 2 GiB - 16 bytes of which 48
 *              bytes of noise are sent
 *   stallfrag  TCP: the call in a fragment that is not the last, then
 *              the header of a 48-byte last fragment whose bytes are
 *              only sent if no reply came within 10 s
 *   announced  TCP: the call in a fragment that is not the last, then
 *              the header of a 48-byte last fragment, nothing more
 *   cut        the same and the first 20 bytes of a valid tag
 *   splittag   TCP: the call in a fragment, then a valid tag in two: 20
 *              bytes in a fragment, the last 28 in the last one
 *   bytetag    TCP: the call in a fragment, then a valid tag in 48
 *              fragments of one byte each
 *   splitcall  TCP: the call and a valid tag's first 24 bytes in one
 *              fragment, its last 24 in the last fragment
 * A TCP record goes in one write (what is sent of it is received at
 * once); the connection is closed once the reply is in.
 *
 * Prints per case "CASE xid X = Y bytes B chain HEX" (B: the reply's
 * length, HEX: the tag's chain as tracedump spells it), or "CASE error
 * WHAT".  Exit 0 when every reply is SAY_IT's success with 101 + i.
 * The tag's wire layout is that of shim-rpc/tag.h, encoded here anew.
 *
 *   rpc-hostile stall PORT ATTACKERS MS
 *
 * The stall attack on a TCP server, while an honest client measures what
 * is left of the server.  ATTACKERS connections (a thread) each send a
 * SAY_IT call in a fragment that is not the last, then the header of a
 * 48-byte last fragment that never follows, and wait for the reply: an
 * untraced server has all it needs and answers.  On the reply the
 * attacker closes and starts again on a new connection, xids 0x53000001
 * on.  (It closes because libtirpc itself, after replying, waits up to
 * 35 s for the rest of a record before it serves anything else: holding
 * the connection open stalls any server, traced or not.)  Once the
 * first attack was answered, the main thread calls SAY_IT(k) on one
 * connection of its own, untagged records of one fragment, xids
 * 0x42000001 on, for MS milliseconds.  Prints "stall attackers N calls C
 * replies R honest H us T median_us U" (C attack calls sent, R answered;
 * H honest calls answered right in T us, U their median latency).  Exit
 * 0 unless a connection or an honest call failed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define DEMO_PROG 0x20000c5a
#define SAY_IT 1
#define TAG_LEN 48
#define REPLY_WAIT_MS 20000

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static uint32_t fnv1a(const uint8_t *p, size_t n)
{
	uint32_t h = 2166136261u;

	while (n--) {
		h ^= *p++;
		h *= 16777619u;
	}
	return h;
}

/* magic | version << 16 | length | xid | flags | chain[20] | event | check */
static void tag_encode(uint8_t out[TAG_LEN], uint32_t xid,
		       const uint8_t chain[20], uint64_t event)
{
	put32(out, 0x43534c54u);
	put32(out + 4, 1u << 16 | TAG_LEN);
	put32(out + 8, xid);
	put32(out + 12, 0);
	memcpy(out + 16, chain, 20);
	put32(out + 36, (uint32_t)(event >> 32));
	put32(out + 40, (uint32_t)event);
	put32(out + 44, fnv1a(out, 44));
}

static void noise(uint8_t *p, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (uint8_t)(seed >> 16);
	}
	p[0] = 0x99; /* never the tag magic's first byte */
}

/* The call: header (AUTH_NONE both ways) and SAY_IT's int. */
static size_t call_encode(uint8_t *p, uint32_t xid, int32_t arg)
{
	static const uint32_t head[] = {0, 0, 2, DEMO_PROG, 1, SAY_IT,
					0, 0, 0, 0};
	size_t n = 0;

	for (size_t i = 0; i < sizeof(head) / sizeof(head[0]); i++, n += 4)
		put32(p + n, i ? head[i] : xid);
	put32(p + n, (uint32_t)arg);
	return n + 4;
}

static int wait_in(int fd, int ms)
{
	struct pollfd pfd = {fd, POLLIN, 0};
	int r;

	while ((r = poll(&pfd, 1, ms)) < 0 && errno == EINTR)
		;
	return r;
}

/* Read exactly n bytes of a stream; 0 on success. */
static int read_full(int fd, uint8_t *p, size_t n)
{
	while (n) {
		ssize_t r;

		if (wait_in(fd, REPLY_WAIT_MS) <= 0)
			return -1;
		r = read(fd, p, n);
		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

static int write_full(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* One TCP record (all its fragments) into buf; its length, or -1. */
static long read_record(int fd, uint8_t *buf, size_t cap)
{
	size_t len = 0;
	uint8_t h[4];

	for (;;) {
		uint32_t frag;

		if (read_full(fd, h, 4))
			return -1;
		frag = get32(h);
		if ((frag & 0x7fffffffu) > cap - len ||
		    read_full(fd, buf + len, frag & 0x7fffffffu))
			return -1;
		len += frag & 0x7fffffffu;
		if (frag & 0x80000000u)
			return (long)len;
	}
}

/* SAY_IT's accepted, successful reply to xid, with its result. */
static const char *check_reply(const uint8_t *p, long len, uint32_t xid,
			       int32_t *result)
{
	uint32_t verf_len;

	if (len < 28)
		return "short reply";
	if (get32(p) != xid || get32(p + 4) != 1 || get32(p + 8) != 0)
		return "not an accepted reply to this xid";
	verf_len = get32(p + 16);
	if (verf_len > 400 || len < 28 + (long)((verf_len + 3) & ~3u))
		return "bad verifier";
	p += 20 + ((verf_len + 3) & ~3u);
	if (get32(p) != 0)
		return "not SUCCESS";
	*result = (int32_t)get32(p + 4);
	return NULL;
}

/* Append a fragment of n bytes to a record at p; its length. */
static size_t fragment(uint8_t *p, const void *data, size_t n, int last)
{
	put32(p, (uint32_t)n | (last ? 0x80000000u : 0));
	memcpy(p + 4, data, n);
	return 4 + n;
}

static const char *const split_cases[] = {
	"hugefrag", "stallfrag", "announced", "cut", "splittag", "bytetag",
	"splitcall",
};

static int tcp_split(const char *c)
{
	for (size_t i = 0; i < sizeof(split_cases) / sizeof(split_cases[0]);
	     i++)
		if (!strcmp(c, split_cases[i]))
			return 1;
	return 0;
}

/* The record of a TCP case whose call and tag are in fragments of their
 * own (see the head of this file); its length. */
static size_t tcp_split_record(uint8_t *msg, const char *c,
			       const uint8_t *call, size_t cl, uint32_t xid,
			       const uint8_t chain[20])
{
	uint8_t tag[TAG_LEN], first[128];
	size_t n;

	tag_encode(tag, 0, chain, 1000);
	if (!strcmp(c, "splitcall")) {
		/* the call and the tag's first half in one fragment */
		memcpy(first, call, cl);
		memcpy(first + cl, tag, 24);
		n = fragment(msg, first, cl + 24, 0);
		return n + fragment(msg + n, tag + 24, 24, 1);
	}
	n = fragment(msg, call, cl, 0);
	if (!strcmp(c, "splittag")) {
		n += fragment(msg + n, tag, 20, 0);
		return n + fragment(msg + n, tag + 20, 28, 1);
	}
	if (!strcmp(c, "bytetag")) {
		for (int j = 0; j < TAG_LEN; j++)
			n += fragment(msg + n, tag + j, 1, j == TAG_LEN - 1);
		return n;
	}
	/* the last fragment's header, and only some of it */
	put32(msg + n, 0x80000000u |
			   (strcmp(c, "hugefrag") ? TAG_LEN : 0x7ffffff0u));
	n += 4;
	if (!strcmp(c, "hugefrag")) {
		noise(msg + n, TAG_LEN, xid);
		n += TAG_LEN;
	} else if (!strcmp(c, "cut")) {
		memcpy(msg + n, tag, 20);
		n += 20;
	}
	return n;
}

/* ---- the stall attack ------------------------------------------------- */

#define STALL_MAX 64
#define HONEST_MAX 1000000

struct stall {
	struct sockaddr_in sin;
	int attackers;
	atomic_int stop;
	atomic_long calls, replies;
	const char *error;		/* set once, by the attacker thread */
};

static long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000L + ts.tv_nsec / 1000;
}

static int connect_to(const struct sockaddr_in *sin)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd >= 0 && connect(fd, (const struct sockaddr *)sin, sizeof(*sin))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* A new connection with a call whose last fragment never comes. */
static int stalled_call(struct stall *st)
{
	uint8_t msg[128], call[64];
	uint32_t xid = 0x53000000u + (uint32_t)atomic_fetch_add(&st->calls, 1) + 1;
	size_t n = fragment(msg, call, call_encode(call, xid, 7), 0);
	int fd = connect_to(&st->sin);

	put32(msg + n, 0x80000000u | TAG_LEN); /* and no more */
	n += 4;
	if (fd >= 0 && write_full(fd, msg, n)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static void *attacker(void *arg)
{
	struct stall *st = arg;
	struct pollfd pfd[STALL_MAX];

	for (int i = 0; i < st->attackers; i++) {
		pfd[i].fd = stalled_call(st);
		pfd[i].events = POLLIN;
		if (pfd[i].fd < 0) {
			st->error = "attacker connect";
			st->attackers = i;
			break;
		}
	}
	while (!atomic_load(&st->stop) && !st->error) {
		int r = poll(pfd, (nfds_t)st->attackers, 100);

		if (r < 0 && errno != EINTR) {
			st->error = "attacker poll";
			break;
		}
		for (int i = 0; r > 0 && i < st->attackers; i++) {
			uint8_t buf[512];

			if (!pfd[i].revents)
				continue;
			if (read(pfd[i].fd, buf, sizeof(buf)) > 0)
				atomic_fetch_add(&st->replies, 1);
			close(pfd[i].fd);
			pfd[i].fd = stalled_call(st);
			if (pfd[i].fd < 0) {
				st->error = "attacker connect";
				pfd[i].fd = -1;
			}
		}
	}
	for (int i = 0; i < st->attackers; i++)
		if (pfd[i].fd >= 0)
			close(pfd[i].fd);
	return NULL;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

static int stall_main(int argc, char **argv)
{
	static long lat[HONEST_MAX];
	static struct stall st;
	const char *err = NULL;
	long honest = 0, start, end, ms;
	pthread_t th;
	int fd;

	if (argc != 5 || atoi(argv[3]) < 1 || atoi(argv[3]) > STALL_MAX ||
	    atol(argv[4]) < 1) {
		fprintf(stderr, "usage: rpc-hostile stall PORT ATTACKERS MS\n");
		return 2;
	}
	st.sin.sin_family = AF_INET;
	st.sin.sin_port = htons((uint16_t)atoi(argv[2]));
	st.sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	st.attackers = atoi(argv[3]);
	ms = atol(argv[4]);
	fd = connect_to(&st.sin);
	if (fd < 0 || pthread_create(&th, NULL, attacker, &st)) {
		printf("stall error start\n");
		return 1;
	}
	/* the attack is on once a first stalled call was answered */
	start = now_us();
	while (!atomic_load(&st.replies) && !st.error &&
	       now_us() - start < REPLY_WAIT_MS * 1000L) {
		struct timespec ms1 = {0, 1000000};

		nanosleep(&ms1, NULL);
	}
	if (!atomic_load(&st.replies))
		err = st.error ? st.error : "no reply to an attack";
	start = now_us();
	end = start;
	while (!err && end - start < ms * 1000) {
		uint32_t xid = 0x42000000u + (uint32_t)honest + 1;
		uint8_t msg[128], call[64], reply[512];
		size_t n = fragment(msg, call,
				    call_encode(call, xid, (int32_t)honest), 1);
		int32_t result;
		long rlen, t0 = now_us();

		if (write_full(fd, msg, n)) {
			err = "honest write";
			break;
		}
		rlen = read_record(fd, reply, sizeof(reply));
		if (rlen < 0) {
			err = "honest reply";
			break;
		}
		err = check_reply(reply, rlen, xid, &result);
		if (!err && result != (int32_t)honest + 1)
			err = "honest result";
		end = now_us();
		if (!err && honest < HONEST_MAX)
			lat[honest++] = end - t0;
	}
	atomic_store(&st.stop, 1);
	pthread_join(th, NULL);
	close(fd);
	if (!err)
		err = st.error;
	if (err) {
		printf("stall error %s\n", err);
		return 1;
	}
	qsort(lat, (size_t)honest, sizeof(lat[0]), cmp_long);
	printf("stall attackers %d calls %ld replies %ld honest %ld us %ld "
	       "median_us %ld\n",
	       st.attackers, atomic_load(&st.calls), atomic_load(&st.replies),
	       honest, end - start, honest ? lat[honest / 2] : -1);
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_in sin = {.sin_family = AF_INET};
	int udp, bad = 0, ufd = -1;

	if (argc > 1 && !strcmp(argv[1], "stall"))
		return stall_main(argc, argv);
	if (argc < 4 || (strcmp(argv[1], "tcp") && strcmp(argv[1], "udp"))) {
		fprintf(stderr, "usage: rpc-hostile tcp|udp PORT CASE...\n"
				"       rpc-hostile stall PORT ATTACKERS MS\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	udp = !strcmp(argv[1], "udp");
	sin.sin_port = htons((uint16_t)atoi(argv[2]));
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (udp) {
		ufd = socket(AF_INET, SOCK_DGRAM, 0);
		if (ufd < 0 || connect(ufd, (struct sockaddr *)&sin,
				       sizeof(sin))) {
			perror("rpc-hostile: udp socket");
			return 1;
		}
	}
	for (int i = 3; i < argc; i++) {
		const char *c = argv[i], *err = NULL;
		int k = i - 3, fd = ufd, split = 0;
		uint32_t xid = 0x48000000u + 0x100u * udp + (uint32_t)k + 1;
		uint8_t msg[512], body[128], reply[9000], tag[TAG_LEN],
		    chain[20];
		size_t n, cl, tl = 0;
		int32_t result = 0;
		char hex[41];
		long rlen = -1;

		memcpy(chain, "hostile-chain-00", 16);
		put32(chain + 16, (uint32_t)k + 1);
		for (int j = 0; j < 20; j++)
			snprintf(hex + 2 * j, 3, "%02x", chain[j]);
		tag_encode(tag, udp ? xid : 0, chain, 1000);
		if (!strcmp(c, "none")) {
			tl = 0;
		} else if (!strcmp(c, "ok")) {
			tl = TAG_LEN;
		} else if (!strcmp(c, "badsum")) {
			tag[47] ^= 1;
			tl = TAG_LEN;
		} else if (!strcmp(c, "short")) {
			tl = 20;
		} else if (!strcmp(c, "random")) {
			noise(tag, TAG_LEN, xid);
			tl = TAG_LEN;
		} else if (!strcmp(c, "wrongxid")) {
			tag_encode(tag, xid + 7777, chain, 1000);
			tl = TAG_LEN;
		} else if (!strcmp(c, "bigevent")) {
			tag_encode(tag, udp ? xid : 0, chain,
				   0xfffffffffffffff0ull);
			tl = TAG_LEN;
		} else if (!udp && tcp_split(c)) {
			split = 1;
		} else {
			fprintf(stderr, "rpc-hostile: unknown case '%s'\n", c);
			return 2;
		}
		cl = call_encode(body, xid, 100 + k);
		memcpy(body + cl, tag, tl);
		if (udp) {
			if (send(fd, body, cl + tl, 0) != (ssize_t)(cl + tl))
				err = "send";
			else if (wait_in(fd, REPLY_WAIT_MS) <= 0)
				err = "no reply";
			else
				rlen = recv(fd, reply, sizeof(reply), 0);
		} else {
			fd = socket(AF_INET, SOCK_STREAM, 0);
			if (fd < 0 || connect(fd, (struct sockaddr *)&sin,
					      sizeof(sin))) {
				err = "connect";
				goto done;
			}
			/* the whole record in one write, so that what is
			 * sent of it is received at once */
			if (split)
				n = tcp_split_record(msg, c, body, cl, xid, chain);
			else
				n = fragment(msg, body, cl + tl, 1);
			if (write_full(fd, msg, n)) {
				err = "write";
				goto done;
			}
			if (!strcmp(c, "stallfrag")) {
				/* an untraced server has all it needs */
				if (wait_in(fd, 10000) <= 0) {
					printf("stallfrag no reply before the "
					       "rest of the record\n");
					bad = 1;
				}
				noise(tag, TAG_LEN, xid);
				if (write_full(fd, tag, TAG_LEN)) {
					err = "write";
					goto done;
				}
			}
			rlen = read_record(fd, reply, sizeof(reply));
		}
		if (!err && rlen < 0)
			err = "no reply";
		if (!err)
			err = check_reply(reply, rlen, xid, &result);
		if (!err && result != 101 + k)
			err = "wrong result";
	done:
		if (!udp && fd >= 0)
			close(fd);
		if (err) {
			printf("%s error %s\n", c, err);
			bad = 1;
		} else {
			printf("%s xid %u = %d bytes %ld chain %s\n", c,
			       (unsigned)xid, (int)result, rlen, hex);
		}
	}
	return bad;
}
