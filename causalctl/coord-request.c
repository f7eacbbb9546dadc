/*
 * coord-request.c - the user's commands' side of the coordinator
 * (coordinator.h): find it (its Unix socket, or TCP with the key), check
 * it is to be trusted before saying anything, send one request, read the
 * reply.
 */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "causal/monitor-auth.h"
#include "causal/monitor-proto.h"
#include "coordinator.h"
#include "usage.h"

#define REPLY_MAX (16u << 20) /* a STATUS of every process fits */
#define WAIT_MS 5000	      /* for each line of the reply */

int coord_hostport(const char *s, char *host, size_t size, uint16_t *port,
		   int zero_ok)
{
	const char *colon;
	size_t len;
	char *end;
	unsigned long p = CAUSAL_MON_DEFAULT_PORT;

	if (!s || !*s)
		return -EINVAL;
	if (*s == '[') {
		const char *close_br = strchr(s, ']');

		if (!close_br || (close_br[1] && close_br[1] != ':'))
			return -EINVAL;
		len = (size_t)(close_br - s - 1);
		colon = close_br[1] ? close_br + 1 : NULL;
		s++;
	} else {
		colon = strchr(s, ':');
		if (colon && strchr(colon + 1, ':'))
			return -EINVAL;
		len = colon ? (size_t)(colon - s) : strlen(s);
	}
	if (!len || len >= size)
		return -EINVAL;
	if (colon) {
		errno = 0;
		p = strtoul(colon + 1, &end, 10);
		if (errno || *end || !colon[1] || colon[1] == '-' ||
		    colon[1] == '+' || p < (zero_ok ? 0u : 1u) || p > 65535)
			return -EINVAL;
	}
	memcpy(host, s, len);
	host[len] = '\0';
	*port = (uint16_t)p;
	return 0;
}

/* The lines of a connection, one at a time. */
struct lines {
	int fd;
	char buf[CAUSAL_MON_WIRE_MAX + 1], line[CAUSAL_MON_WIRE_MAX + 1];
	size_t have;
};

/* The next line (without "\n") in l->line, or NULL: the peer hung up,
 * said nothing for WAIT_MS, or sent a line too long. */
static char *next_line(struct lines *l)
{
	for (;;) {
		char *nl = memchr(l->buf, '\n', l->have);
		struct pollfd pfd = { .fd = l->fd, .events = POLLIN };
		ssize_t got;

		if (nl) {
			size_t len = (size_t)(nl - l->buf);

			memcpy(l->line, l->buf, len);
			l->line[len] = '\0';
			memmove(l->buf, nl + 1, l->have - len - 1);
			l->have -= len + 1;
			return l->line;
		}
		if (l->have == sizeof(l->buf) - 1 ||
		    poll(&pfd, 1, WAIT_MS) != 1)
			return NULL;
		got = recv(l->fd, l->buf + l->have,
			   sizeof(l->buf) - 1 - l->have, 0);
		if (got <= 0)
			return NULL;
		l->have += (size_t)got;
	}
}

/* The coordinator on the Unix socket where names: connected, and run by
 * root or by this user; or -errno (said). */
static int dial_unix(const char *where)
{
	char path[108];
	unsigned uid;
	int fd = -1, err = ENOENT, local = !strcmp(where, CAUSAL_MON_LOCAL);

	if (!local)
		snprintf(path, sizeof(path), "%s", where);
	for (int i = 0;
	     fd < 0 && (local ? !causal_mon_local_socket(i, (unsigned)geteuid(),
							 path, sizeof(path))
			      : i == 0);
	     i++)
		fd = causal_mon_dial_unix(path, &err);
	if (fd < 0)
		return fail("cannot reach the coordinator '%s': %s (is "
			    "`causalctl serve` running?)",
			    local ? CAUSAL_MON_SOCKET : where, strerror(err)),
		       -err;
	if (causal_mon_peer_uid(fd, &uid) || (uid && uid != geteuid())) {
		close(fd);
		return fail("the coordinator on '%s' runs as another user, "
			    "neither root nor you: not asked",
			    path),
		       -EACCES;
	}
	return fd;
}

static int dial_tcp(const char *where, const char *host, uint16_t port)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC,
				  .ai_socktype = SOCK_STREAM };
	struct addrinfo *res;
	char p[8];
	int fd, r, err = ECONNREFUSED;

	snprintf(p, sizeof(p), "%u", (unsigned)port);
	r = getaddrinfo(host, p, &hints, &res);
	if (r)
		return fail("cannot reach the coordinator '%s': %s", where,
			    gai_strerror(r)),
		       -EHOSTUNREACH;
	fd = causal_mon_dial(res, 3000, &err);
	freeaddrinfo(res);
	if (fd < 0)
		return fail("cannot reach the coordinator '%s': %s", where,
			    strerror(err)),
		       -err;
	return fd;
}

/* Over TCP: the key, before anything is dialled; 0 or -EINVAL (said). */
static int load_key(const char *where, struct causal_mon_key *key)
{
	const char *path = getenv("CAUSAL_COORDINATOR_KEY");
	char why[160];

	if (!path || !*path)
		return fail("the coordinator '%s' is reached over TCP: set "
			    "CAUSAL_COORDINATOR_KEY to its key file",
			    where),
		       -EINVAL;
	if (causal_mon_key_load(path, key, why, sizeof(why)))
		return fail("the key '%s' (CAUSAL_COORDINATOR_KEY): %s", path,
			    why),
		       -EINVAL;
	return 0;
}

/* Over TCP: the challenge, and the coordinator's proof of the key. */
static int prove(struct lines *l, const char *where, struct causal_mon_auth *a,
		 struct causal_mon_key *key)
{
	char line[CAUSAL_MON_LINE_MAX + 1], *got;

	if (causal_mon_auth_client(a, key, line, sizeof(line)))
		return fail("no random bytes for the challenge"), -EIO;
	strcat(line, "\n");
	if (causal_mon_send_all(l->fd, line, WAIT_MS))
		return fail("cannot send to the coordinator '%s': %s", where,
			    strerror(errno)),
		       -EIO;
	got = next_line(l);
	if (got && !strncmp(got, "ERR ", 4))
		/* a refusal before the proof (a limit): said, not trusted */
		return fail("the coordinator '%s' refused: %.200s", where,
			    got + 4),
		       -EPERM;
	if (!got || causal_mon_auth_check(a, got))
		return fail("the coordinator '%s' did not prove the key of "
			    "CAUSAL_COORDINATOR_KEY: not asked",
			    where),
		       -EACCES;
	return 0;
}

/* The reply, one message a line, up to END, OK or ERR; 0 or -errno. */
static int read_reply(struct lines *l, const char *where,
		      struct causal_mon_auth *a, char **reply)
{
	char *buf = NULL, *line;
	size_t n = 0, cap = 0;

	while ((line = next_line(l))) {
		size_t len;

		if (a && !(line = causal_mon_open(a, line))) {
			free(buf);
			return fail("a line from the coordinator '%s' is not "
				    "sealed with the key: not read",
				    where),
			       -EACCES;
		}
		len = strlen(line);
		if (n + len + 2 > REPLY_MAX)
			break;
		if (n + len + 2 > cap) {
			char *q = realloc(buf, cap = (n + len + 2) * 2);

			if (!q)
				break;
			buf = q;
		}
		memcpy(buf + n, line, len);
		n += len;
		buf[n++] = '\n';
		buf[n] = '\0';
		if (!strcmp(line, "END") || !strncmp(line, "OK ", 3) ||
		    !strncmp(line, "ERR ", 4)) {
			*reply = buf;
			return 0;
		}
	}
	free(buf);
	return fail("the coordinator '%s' did not answer", where), -EPROTO;
}

int coord_request(const char *where, const char *request, char **reply)
{
	static struct causal_mon_key key;
	struct causal_mon_auth auth, *a = NULL;
	struct lines l = { .fd = -1 };
	char host[256], line[CAUSAL_MON_WIRE_MAX + 2];
	uint16_t port;
	int r;

	if (!strcmp(where, CAUSAL_MON_LOCAL) || where[0] == '/') {
		l.fd = dial_unix(where);
	} else if (coord_hostport(where, host, sizeof(host), &port, 0)) {
		return fail("bad coordinator '%s': expected local, a socket "
			    "path or HOST[:PORT]",
			    where),
		       -EINVAL;
	} else {
		if ((r = load_key(where, &key)))
			return r;
		l.fd = dial_tcp(where, host, port);
		a = &auth;
	}
	if (l.fd < 0)
		return l.fd;
	r = a ? prove(&l, where, a, &key) : 0;
	if (!r && (a ? causal_mon_seal(a, request, line, sizeof(line))
		     : snprintf(line, sizeof(line), "%s\n", request) < 0))
		r = (fail("request too long"), -EINVAL);
	if (!r && causal_mon_send_all(l.fd, line, WAIT_MS))
		r = (fail("cannot send to the coordinator '%s': %s", where,
			  strerror(errno)),
		     -EIO);
	if (!r)
		r = read_reply(&l, where, a, reply);
	close(l.fd);
	return r;
}
