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
 *              bytes of noise are sent; the connection is closed once
 *              the reply is in
 *   stallfrag  TCP: the call in a fragment that is not the last, then
 *              the header of a 48-byte last fragment whose bytes are
 *              only sent if no reply came within 10 s
 *
 * Prints per case "CASE xid X = Y bytes B chain HEX" (B: the reply's
 * length, HEX: the tag's chain as tracedump spells it), or "CASE error
 * WHAT".  Exit 0 when every reply is SAY_IT's success with 101 + i.
 * The tag's wire layout is that of shim-rpc/tag.h, encoded here anew.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
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

int main(int argc, char **argv)
{
	struct sockaddr_in sin = {.sin_family = AF_INET};
	int udp, bad = 0, ufd = -1;

	if (argc < 4 || (strcmp(argv[1], "tcp") && strcmp(argv[1], "udp"))) {
		fprintf(stderr, "usage: rpc-hostile tcp|udp PORT CASE...\n");
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
		uint8_t msg[512], reply[9000], tag[TAG_LEN], chain[20];
		size_t n = 4, tl = 0;
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
		} else if (!udp && (!strcmp(c, "hugefrag") ||
				    !strcmp(c, "stallfrag"))) {
			noise(tag, TAG_LEN, xid);
			split = 1;
		} else {
			fprintf(stderr, "rpc-hostile: unknown case '%s'\n", c);
			return 2;
		}
		n += call_encode(msg + 4, xid, 100 + k);
		if (!split) {
			memcpy(msg + n, tag, tl);
			n += tl;
		}
		if (udp) {
			if (send(fd, msg + 4, n - 4, 0) != (ssize_t)(n - 4))
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
			/* the call's fragment: the last one unless split */
			put32(msg, (uint32_t)(n - 4) | (split ? 0 : 0x80000000u));
			if (split) {
				/* the next fragment's header */
				put32(msg + n, 0x80000000u |
						   (strcmp(c, "hugefrag")
							? TAG_LEN
							: 0x7ffffff0u));
				n += 4;
			}
			if (write_full(fd, msg, n)) {
				err = "write";
				goto done;
			}
			if (!strcmp(c, "hugefrag") &&
			    write_full(fd, tag, TAG_LEN)) {
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
