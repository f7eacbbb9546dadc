/*
 * coordinator.c - `causalctl serve` (the monitoring coordinator holding
 * the event channel, Figure 9 of the monitoring paper) and the requests
 * of the user's commands.  One thread, one poll loop: the event order is
 * the order of publication, and nothing a peer sends can block it (every
 * socket is non-blocking, every buffer bounded).
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "causal/monitor-proto.h"
#include "causal/log-format.h"
#include "coordinator.h"
#include "usage.h"

#define MAX_CONNS 1024
#define MAX_BAD 8	   /* malformed messages before a hang-up */
#define OUT_MAX (4u << 20) /* a consumer this far behind is dropped */

enum conn_kind { CONN_NEW, CONN_CONSUMER, CONN_COMMAND };

struct proc {
	char uuid[33], host[64], exe[256];
	long pid;
	uint64_t applied, bad, seen_ms;
	int connected;
};

struct conn {
	int fd, kind, bad;
	long proc; /* index in procs, consumers */
	char in[CAUSAL_MON_LINE_MAX + 1];
	size_t nin;
	char *out;
	size_t nout, cap;
	int closing; /* close once out is sent */
};

struct coord {
	char instance[17];
	char **events; /* events[i] is event i + 1: "on cpu" ... */
	size_t nevents, cap_events;
	struct proc *procs;
	size_t nprocs, cap_procs;
	struct conn conns[MAX_CONNS];
	size_t nconns;
	uint64_t malformed;
};

static volatile sig_atomic_t stopping;

static void on_stop(int sig)
{
	(void)sig;
	stopping = 1;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 8;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	q = realloc(*p, n * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

/* Queue text for c; a peer too far behind is hung up on. */
static void queue(struct conn *c, const char *text)
{
	size_t len = strlen(text);

	if (c->nout + len > OUT_MAX ||
	    grow((void **)&c->out, &c->cap, c->nout + len, 1)) {
		c->closing = 2; /* now */
		return;
	}
	memcpy(c->out + c->nout, text, len);
	c->nout += len;
}

static void queue_event(struct coord *co, struct conn *c, size_t seq)
{
	char line[CAUSAL_MON_LINE_MAX + 32];

	snprintf(line, sizeof(line), "EVENT %zu %s\n", seq,
		 co->events[seq - 1]);
	queue(c, line);
}

/* ---- validating what is published ------------------------------------- */

/* The bits of enums.def's monitor_types: `all`, the types of calls, is
 * the first four; locks is named alone. */
static const char *const type_names[] = CAUSAL_MONTYPE_NAMES;
#define NTYPES (sizeof(type_names) / sizeof(type_names[0]))

int coord_types(int n, char *const words[], char *out, size_t size)
{
	unsigned bits = 0;
	size_t len = 0;

	if (n <= 0)
		return fail("no monitoring type given (semantics, latency, "
			    "cpu, memory, all, locks)"),
		       -EINVAL;
	for (int i = 0; i < n; i++) {
		const char *s = words[i];

		for (;;) {
			size_t l = strcspn(s, ",");
			unsigned b = 0;

			for (unsigned t = 0; t < NTYPES; t++)
				if (strlen(type_names[t]) == l &&
				    !strncmp(s, type_names[t], l))
					b = 1u << t;
			if (l == 3 && !strncmp(s, "all", 3))
				b = 0xf;
			if (!b)
				return fail("unknown monitoring type '%.*s' "
					    "(semantics, latency, cpu, "
					    "memory, all, locks)",
					    (int)l, s),
				       -EINVAL;
			bits |= b;
			s += l;
			if (!*s)
				break;
			s++; /* the comma: a type must follow */
		}
	}
	out[0] = '\0';
	for (unsigned t = 0; t < NTYPES; t++)
		if (bits & (1u << t))
			len += (size_t)snprintf(
				out + len, len < size ? size - len : 0, "%s%s",
				len ? "," : "", type_names[t]);
	return len < size ? 0 : -EINVAL;
}

int coord_is_number(const char *s)
{
	size_t digits = strlen(s);
	uint32_t v;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		digits -= 2;
	/* at most 10 digits here: 0000000000042 is said no */
	return digits <= 10 && !causal_mon_number(s, &v);
}

static int is_host(const char *s)
{
	if (!*s || strlen(s) > 63)
		return 0;
	for (; *s; s++)
		if (*s <= ' ' || *s > '~')
			return 0;
	return 1;
}

int coord_selection(const char *host, const char *iface, const char *func,
		    const char *on)
{
	if (!is_host(host))
		return fail("bad host '%s': a host name or '*'", host), -EINVAL;
	if (strcmp(iface, "*") && !coord_is_number(iface))
		return fail("bad interface '%s': '*' or a program number "
			    "(decimal or 0x)",
			    iface),
		       -EINVAL;
	if (strcmp(func, "*") && !coord_is_number(func) &&
	    !(causal_mon_is_name(func) && strlen(func) < 48))
		return fail("bad function '%s': '*', a procedure number or "
			    "a name",
			    func),
		       -EINVAL;
	if (strcmp(on, "on") && strcmp(on, "off"))
		return fail("expected 'on' or 'off', not '%s'", on), -EINVAL;
	return 0;
}

/* ---- serving ------------------------------------------------------------ */

/* A publication "on TYPES" | "off TYPES" | "select H I F on|off", as a
 * command sent it; 0 with the event's text in out, else -1. */
static int check_publish(char *rest, char *out, size_t size)
{
	struct causal_mon_event ev;
	char types[64];

	if (causal_mon_event_parse(rest, &ev))
		return -1;
	if (ev.kind == CAUSAL_MONITOR_SELECT) {
		if (coord_selection(ev.host, ev.iface, ev.func, ev.on))
			return -1;
		snprintf(out, size, "select %s %s %s %s", ev.host, ev.iface,
			 ev.func, ev.on);
		return 0;
	}
	if (coord_types(1, &ev.types, types, sizeof(types)))
		return -1;
	snprintf(out, size, "%s %s",
		 ev.kind == CAUSAL_MONITOR_ON ? "on" : "off", types);
	return 0;
}

static void bad(struct coord *co, struct conn *c)
{
	co->malformed++;
	if (++c->bad >= MAX_BAD)
		c->closing = 2;
}

static void send_status(struct coord *co, struct conn *c)
{
	char line[512];
	uint64_t now = now_ms();

	snprintf(line, sizeof(line), "STATE %s %zu %llu\n", co->instance,
		 co->nevents, (unsigned long long)co->malformed);
	queue(c, line);
	for (size_t i = 0; i < co->nprocs; i++) {
		const struct proc *p = &co->procs[i];

		snprintf(line, sizeof(line),
			 "PROC %s %ld %llu %d %llu %llu %s\n", p->host, p->pid,
			 (unsigned long long)p->applied, p->connected,
			 (unsigned long long)(now - p->seen_ms),
			 (unsigned long long)p->bad, p->exe);
		queue(c, line);
	}
	queue(c, "END\n");
	c->closing = 1;
}

static int publish(struct coord *co, const char *text)
{
	char *copy = strdup(text);

	if (!copy || grow((void **)&co->events, &co->cap_events,
			  co->nevents + 1, sizeof(*co->events))) {
		free(copy);
		return -ENOMEM;
	}
	co->events[co->nevents++] = copy;
	for (size_t i = 0; i < co->nconns; i++)
		if (co->conns[i].kind == CONN_CONSUMER && !co->conns[i].closing)
			queue_event(co, &co->conns[i], co->nevents);
	return 0;
}

/* HELLO 1 UUID HOST PID INSTANCE APPLIED EXE */
static int take_hello(struct coord *co, struct conn *c, char *rest)
{
	char *v = causal_mon_field(&rest), *uuid = causal_mon_field(&rest),
	     *host = causal_mon_field(&rest), *pid = causal_mon_field(&rest),
	     *inst = causal_mon_field(&rest),
	     *applied = causal_mon_field(&rest), *exe = rest, line[64];
	uint64_t npid, napplied;
	size_t i, from;

	if (!v || strcmp(v, "1") || !uuid || strlen(uuid) != 32 ||
	    strspn(uuid, "0123456789abcdef") != 32 || !host ||
	    strlen(host) >= sizeof(co->procs->host) ||
	    causal_mon_u64(pid, &npid) || !inst ||
	    causal_mon_u64(applied, &napplied) || !*exe ||
	    strlen(exe) >= sizeof(co->procs->exe) || strchr(exe, ' '))
		return -1;
	for (i = 0; i < co->nprocs && strcmp(co->procs[i].uuid, uuid); i++)
		;
	if (i == co->nprocs) {
		if (grow((void **)&co->procs, &co->cap_procs, i + 1,
			 sizeof(*co->procs)))
			return -1;
		memset(&co->procs[i], 0, sizeof(co->procs[i]));
		co->nprocs++;
	}
	snprintf(co->procs[i].uuid, sizeof(co->procs[i].uuid), "%s", uuid);
	snprintf(co->procs[i].host, sizeof(co->procs[i].host), "%s", host);
	snprintf(co->procs[i].exe, sizeof(co->procs[i].exe), "%s", exe);
	co->procs[i].pid = (long)npid;
	co->procs[i].connected = 1;
	co->procs[i].seen_ms = now_ms();
	/* what it applied counts in our numbering only if it met us */
	from = strcmp(inst, co->instance) ? 0 : (size_t)napplied;
	if (from > co->nevents)
		from = 0;
	co->procs[i].applied = from;
	c->kind = CONN_CONSUMER;
	c->proc = (long)i;
	snprintf(line, sizeof(line), "WELCOME %d %s\n",
		 CAUSAL_MON_PROTO_VERSION, co->instance);
	queue(c, line);
	for (size_t s = from + 1; s <= co->nevents; s++)
		queue_event(co, c, s);
	return 0;
}

static void take_line(struct coord *co, struct conn *c, char *line)
{
	char *rest, *kind = causal_mon_kind(line, &rest),
		    text[CAUSAL_MON_LINE_MAX];
	uint64_t seq;

	if (!kind) {
		bad(co, c);
		return;
	}
	if (c->kind == CONN_NEW && !strcmp(kind, "HELLO")) {
		if (take_hello(co, c, rest))
			bad(co, c);
		return;
	}
	if (c->kind == CONN_NEW && !strcmp(kind, "STATUS") && !*rest) {
		c->kind = CONN_COMMAND;
		send_status(co, c);
		return;
	}
	if (c->kind == CONN_NEW && !strcmp(kind, "PUBLISH")) {
		char reply[64];

		c->kind = CONN_COMMAND;
		c->closing = 1;
		if (check_publish(rest, text, sizeof(text))) {
			bad(co, c);
			queue(c, "ERR malformed publication\n");
			return;
		}
		if (publish(co, text)) {
			queue(c, "ERR out of memory\n");
			return;
		}
		snprintf(reply, sizeof(reply), "OK %zu\n", co->nevents);
		queue(c, reply);
		return;
	}
	if (c->kind == CONN_CONSUMER) {
		struct proc *p = &co->procs[c->proc];

		p->seen_ms = now_ms();
		if (!strcmp(kind, "PING") && !*rest)
			return;
		if ((!strcmp(kind, "ACK") || !strcmp(kind, "BAD")) &&
		    !causal_mon_u64(causal_mon_field(&rest), &seq) && !*rest &&
		    seq == p->applied + 1 && seq <= co->nevents) {
			p->applied = seq;
			p->bad += kind[0] == 'B';
			return;
		}
	}
	bad(co, c);
}

static void conn_close(struct coord *co, size_t i)
{
	struct conn *c = &co->conns[i];

	if (c->kind == CONN_CONSUMER) {
		co->procs[c->proc].connected = 0;
		co->procs[c->proc].seen_ms = now_ms();
	}
	close(c->fd);
	free(c->out);
	co->conns[i] = co->conns[--co->nconns];
}

static void conn_read(struct coord *co, struct conn *c)
{
	ssize_t n = recv(c->fd, c->in + c->nin, sizeof(c->in) - 1 - c->nin,
			 MSG_DONTWAIT);
	char *nl;

	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		c->closing = 2;
		return;
	}
	if (n < 0)
		return;
	c->nin += (size_t)n;
	c->in[c->nin] = '\0';
	while (!c->closing && (nl = memchr(c->in, '\n', c->nin))) {
		size_t len = (size_t)(nl - c->in) + 1;

		*nl = '\0';
		take_line(co, c, c->in);
		memmove(c->in, c->in + len, c->nin - len);
		c->nin -= len;
		c->in[c->nin] = '\0';
	}
	if (c->nin == sizeof(c->in) - 1) {
		/* longer than a line may be */
		co->malformed++;
		c->closing = 2;
	}
}

static void conn_write(struct conn *c)
{
	ssize_t n = send(c->fd, c->out, c->nout, MSG_DONTWAIT | MSG_NOSIGNAL);

	if (n < 0 && errno != EAGAIN && errno != EINTR) {
		c->closing = 2;
		return;
	}
	if (n > 0) {
		memmove(c->out, c->out + n, c->nout - (size_t)n);
		c->nout -= (size_t)n;
	}
}

static int listen_on(const struct coord_opts *o, uint16_t *port)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC,
				  .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE };
	struct addrinfo *res;
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char p[8];
	int fd, one = 1, r;

	snprintf(p, sizeof(p), "%u", (unsigned)o->port);
	r = getaddrinfo(o->host, p, &hints, &res);
	if (r)
		return fail("cannot listen on '%s': %s",
			    o->host ? o->host : "*", gai_strerror(r)),
		       -EINVAL;
	fd = socket(res->ai_family,
		    res->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, res->ai_addr, res->ai_addrlen) || listen(fd, 128) ||
	    getsockname(fd, (struct sockaddr *)&ss, &len)) {
		r = -errno;
		fail("cannot listen on port %u: %s", (unsigned)o->port,
		     strerror(errno));
		if (fd >= 0)
			close(fd);
		freeaddrinfo(res);
		return r;
	}
	freeaddrinfo(res);
	*port = ntohs(ss.ss_family == AF_INET6
			      ? ((struct sockaddr_in6 *)&ss)->sin6_port
			      : ((struct sockaddr_in *)&ss)->sin_port);
	return fd;
}

int coord_serve(const struct coord_opts *o)
{
	static struct coord co;
	static struct pollfd pfd[MAX_CONNS + 1];
	struct sigaction sa = { .sa_handler = on_stop };
	uint8_t id[8];
	uint16_t port = 0;
	int lfd;

	lfd = listen_on(o, &port);
	if (lfd < 0)
		return lfd;
	if (getrandom(id, sizeof(id), 0) != sizeof(id))
		for (size_t i = 0; i < sizeof(id); i++)
			id[i] = (uint8_t)(now_ms() >> (i * 3) ^
					  (uint64_t)getpid());
	for (size_t i = 0; i < sizeof(id); i++)
		snprintf(co.instance + 2 * i, 3, "%02x", id[i]);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (o->ready) {
		FILE *f = fopen(o->ready, "w");

		if (!f || fprintf(f, "port %u\n", (unsigned)port) < 0 ||
		    fclose(f))
			return close(lfd), fail("cannot write '%s': %s",
						o->ready, strerror(errno));
	}
	while (!stopping) {
		size_t n = co.nconns;
		int r;

		pfd[0] = (struct pollfd){ .fd = lfd, .events = POLLIN };
		for (size_t i = 0; i < n; i++)
			pfd[i + 1] = (struct pollfd){
				.fd = co.conns[i].fd,
				.events = (short)(POLLIN |
						  (co.conns[i].nout ? POLLOUT
								    : 0))
			};
		r = poll(pfd, n + 1, 1000);
		if (r < 0 && errno != EINTR)
			break;
		for (size_t i = 0; r > 0 && i < n; i++) {
			struct conn *c = &co.conns[i];

			if (pfd[i + 1].revents & (POLLIN | POLLHUP | POLLERR))
				conn_read(&co, c);
			if (c->nout && !c->closing)
				conn_write(c);
			else if (c->nout && c->closing == 1)
				conn_write(c);
		}
		/* closed from the end: conn_close() moves the last one */
		for (size_t i = co.nconns; i-- > 0;)
			if (co.conns[i].closing == 2 ||
			    (co.conns[i].closing == 1 && !co.conns[i].nout))
				conn_close(&co, i);
		if (r > 0 && (pfd[0].revents & POLLIN)) {
			int fd = accept4(lfd, NULL, NULL,
					 SOCK_NONBLOCK | SOCK_CLOEXEC);

			if (fd >= 0 && co.nconns == MAX_CONNS)
				close(fd);
			else if (fd >= 0)
				co.conns[co.nconns++] =
					(struct conn){ .fd = fd,
						       .kind = CONN_NEW };
		}
	}
	while (co.nconns)
		conn_close(&co, co.nconns - 1);
	close(lfd);
	for (size_t i = 0; i < co.nevents; i++)
		free(co.events[i]);
	free(co.events);
	free(co.procs);
	return 0;
}

/* ---- the commands' side ------------------------------------------------- */

int coord_hostport(const char *s, char *host, size_t size, uint16_t *port)
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
		if (errno || *end || !colon[1] || p < 1 || p > 65535)
			return -EINVAL;
	}
	memcpy(host, s, len);
	host[len] = '\0';
	*port = (uint16_t)p;
	return 0;
}

int coord_request(const char *where, const char *request, char **reply)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC,
				  .ai_socktype = SOCK_STREAM };
	struct addrinfo *res;
	char host[256], p[8], *buf = NULL;
	size_t n = 0, cap = 0;
	uint16_t port;
	int fd, r, err = ECONNREFUSED;
	uint64_t deadline;

	if (coord_hostport(where, host, sizeof(host), &port))
		return fail("bad coordinator address '%s': expected "
			    "HOST[:PORT]",
			    where),
		       -EINVAL;
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
	{
		char line[CAUSAL_MON_LINE_MAX + 2];
		size_t len;

		snprintf(line, sizeof(line), "%s\n", request);
		len = strlen(line);
		if (send(fd, line, len, MSG_NOSIGNAL) != (ssize_t)len) {
			close(fd);
			return fail("cannot send to the coordinator '%s': %s",
				    where, strerror(errno)),
			       -EIO;
		}
	}
	deadline = now_ms() + 5000;
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t got;
		uint64_t now = now_ms();

		if (now >= deadline ||
		    poll(&pfd, 1, (int)(deadline - now)) != 1)
			break;
		if (cap - n < 4096) {
			char *q = realloc(buf, cap + 65536);

			if (!q)
				break;
			buf = q;
			cap += 65536;
		}
		got = recv(fd, buf + n, cap - n - 1, 0);
		if (got <= 0)
			break;
		n += (size_t)got;
		buf[n] = '\0';
		if ((n >= 4 && !strcmp(buf + n - 4, "END\n")) ||
		    ((!strncmp(buf, "OK ", 3) || !strncmp(buf, "ERR ", 4)) &&
		     buf[n - 1] == '\n'))
			break;
	}
	close(fd);
	if (!buf || !n || buf[n - 1] != '\n') {
		free(buf);
		return fail("the coordinator '%s' did not answer", where),
		       -EPROTO;
	}
	*reply = buf;
	return 0;
}
