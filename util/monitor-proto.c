/*
 * monitor-proto.c - reading the messages of the monitoring channel
 * (include/causal/monitor-proto.h): the coordinator's and the consumer's
 * one parser, and their one way to connect.  Runs inside the traced
 * process (libcausal.so's consumer thread): no global state, no
 * allocation, no stdio; the parser sets no errno either.
 */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "causal/monitor-proto.h"

char *causal_mon_kind(char *line, char **rest)
{
	/* the whole line first: the fields are cut from it in place */
	for (const char *p = line; *p; p++)
		if (*p < ' ' || *p > '~')
			return NULL;
	*rest = line;
	return causal_mon_field(rest);
}

char *causal_mon_field(char **s)
{
	char *f = *s, *sp;

	if (!*f)
		return NULL;
	sp = strchr(f, ' ');
	if (sp) {
		*sp = '\0';
		*s = sp + 1;
	} else {
		*s = f + strlen(f);
	}
	return *f ? f : NULL;
}

int causal_mon_u64(const char *s, uint64_t *v)
{
	uint64_t n = 0;

	if (!s || !*s)
		return -1;
	for (; *s; s++) {
		unsigned d = (unsigned)(*s - '0');

		if (d > 9 || n > (UINT64_MAX - d) / 10)
			return -1;
		n = n * 10 + d;
	}
	*v = n;
	return 0;
}

int causal_mon_event_parse(char *text, struct causal_mon_event *ev)
{
	char *what = causal_mon_field(&text), *w[4];
	int n = 0;

	memset(ev, 0, sizeof(*ev));
	if (!what)
		return -1;
	while (n < 4 && (w[n] = causal_mon_field(&text)))
		n++;
	if (*text)
		return -1;
	if ((!strcmp(what, "on") || !strcmp(what, "off")) && n == 1) {
		ev->kind =
			what[1] == 'n' ? CAUSAL_MONITOR_ON : CAUSAL_MONITOR_OFF;
		ev->types = w[0];
		return 0;
	}
	if (!strcmp(what, "select") && n == 4) {
		ev->kind = CAUSAL_MONITOR_SELECT;
		ev->host = w[0];
		ev->iface = w[1];
		ev->func = w[2];
		ev->on = w[3];
		return 0;
	}
	return -1;
}

int causal_mon_number(const char *s, uint32_t *v)
{
	uint64_t n = 0;
	int base = 10, digits = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	for (; *s; s++, digits++) {
		int d;

		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			return -1;
		n = n * (uint64_t)base + (uint64_t)d;
		if (n > UINT32_MAX)
			return -1;
	}
	if (!digits)
		return -1;
	*v = (uint32_t)n;
	return 0;
}

int causal_mon_is_name(const char *s)
{
	if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
	      *s == '_'))
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_'))
			return 0;
	return 1;
}

int causal_mon_dial(const struct addrinfo *res, int timeout_ms, int *err)
{
	int fd = -1;

	for (const struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next) {
		struct pollfd pfd = { .events = POLLOUT };
		socklen_t len = sizeof(*err);

		fd = socket(ai->ai_family,
			    ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0)
			continue;
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) &&
		    errno != EINPROGRESS) {
			*err = errno;
		} else {
			pfd.fd = fd;
			*err = ETIMEDOUT;
			if (poll(&pfd, 1, timeout_ms) == 1 &&
			    !getsockopt(fd, SOL_SOCKET, SO_ERROR, err, &len) &&
			    !*err)
				continue; /* connected: the loop ends */
		}
		close(fd);
		fd = -1;
	}
	return fd;
}

int causal_mon_send_all(int fd, const char *text, int timeout_ms)
{
	size_t len = strlen(text), done = 0;

	while (done < len) {
		struct pollfd pfd = { .fd = fd, .events = POLLOUT };
		ssize_t n = send(fd, text + done, len - done,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n > 0)
			done += (size_t)n;
		else if ((n < 0 && errno != EAGAIN && errno != EINTR) ||
			 poll(&pfd, 1, timeout_ms) != 1)
			return -1;
	}
	return 0;
}

int causal_mon_local_socket(int i, unsigned uid, char *path, size_t size)
{
	static const char user[] = CAUSAL_MON_USER_SOCKET;
	const char *at = strstr(user, "UID");
	char digits[12];
	size_t nd = 0, head = (size_t)(at - user);

	if (uid == 0 || i == 1) {
		if ((uid == 0 && i) || sizeof(CAUSAL_MON_SOCKET) > size)
			return -1;
		memcpy(path, CAUSAL_MON_SOCKET, sizeof(CAUSAL_MON_SOCKET));
		return 0;
	}
	if (i)
		return -1;
	/* no stdio in the library: the uid's digits by hand */
	do
		digits[nd++] = (char)('0' + uid % 10);
	while ((uid /= 10));
	if (head + nd + strlen(at + 3) + 1 > size)
		return -1;
	memcpy(path, user, head);
	for (size_t k = 0; k < nd; k++)
		path[head + k] = digits[nd - 1 - k];
	memcpy(path + head + nd, at + 3, strlen(at + 3) + 1);
	return 0;
}

int causal_mon_dial_unix(const char *path, int *err)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	size_t len = strlen(path);
	int fd;

	if (len >= sizeof(sun.sun_path)) {
		*err = ENAMETOOLONG;
		return -1;
	}
	memcpy(sun.sun_path, path, len + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		*err = errno;
		return -1;
	}
	/* a Unix socket connects at once, or says why not (EAGAIN: its
	 * backlog is full) */
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun))) {
		*err = errno;
		close(fd);
		return -1;
	}
	return fd;
}

int causal_mon_peer_uid(int fd, unsigned *uid)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) ||
	    len != sizeof(cred))
		return -1;
	*uid = (unsigned)cred.uid;
	return 0;
}

int causal_mon_chain(const char *s, uint8_t chain[CAUSAL_CHAIN_ID_LEN])
{
	static const char digits[] = "0123456789abcdef";

	if (!s || strlen(s) != CAUSAL_MON_CHAIN_HEX ||
	    strspn(s, digits) != CAUSAL_MON_CHAIN_HEX)
		return -1;
	for (int i = 0; i < CAUSAL_CHAIN_ID_LEN; i++)
		chain[i] = (uint8_t)((strchr(digits, s[2 * i]) - digits) << 4 |
				     (strchr(digits, s[2 * i + 1]) - digits));
	return 0;
}

void causal_mon_chain_hex(const uint8_t chain[CAUSAL_CHAIN_ID_LEN],
			  char out[CAUSAL_MON_CHAIN_HEX + 1])
{
	static const char digits[] = "0123456789abcdef";

	for (int i = 0; i < CAUSAL_CHAIN_ID_LEN; i++) {
		out[2 * i] = digits[chain[i] >> 4];
		out[2 * i + 1] = digits[chain[i] & 15];
	}
	out[CAUSAL_MON_CHAIN_HEX] = '\0';
}

int causal_mon_bucket_take(struct causal_mon_bucket *b, uint64_t now_ns,
			   unsigned burst, unsigned rate)
{
	/* in thousandths of a message, so that a slow rate still refills */
	const uint64_t full = burst * 1000ull, step = 1000000ull / rate;
	uint64_t gained;

	if (!b->started || now_ns < b->since) {
		b->started = 1;
		b->since = now_ns;
		b->tokens = full;
	}
	gained = (now_ns - b->since) / step;
	b->since += gained * step; /* the remainder counts next time */
	b->tokens = b->tokens + gained > full ? full : b->tokens + gained;
	if (b->tokens < 1000)
		return 0;
	b->tokens -= 1000;
	return 1;
}
