/*
 * coordinator.c - `causalctl serve`: the monitoring coordinator holding
 * the event channel (Figure 9 of the monitoring paper).  One thread, one
 * poll loop: the event order is the order of publication, and nothing a
 * peer sends can block it (every socket is non-blocking, every buffer,
 * table and wait bounded).
 *
 * Who may do what (docs/causalctl.md, "The coordinator"): on the Unix
 * socket the kernel names the peer's user (SO_PEERCRED).  Root's
 * commands reach every process and see every one; another user's reach
 * and see that user's processes alone.  Over TCP a peer first proves the
 * key (monitor-auth.h), and then counts as root does.  Events are kept
 * once, each with its scope; a consumer is sent those of its scope and a
 * SKIP over the others, so every process's count of events applied
 * still reaches the last one published.
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "causal/monitor-auth.h"
#include "causal/monitor-proto.h"
#include "coordinator.h"
#include "timespec.h"
#include "usage.h"

#define MAX_CONNS 4096	   /* at most; fewer when the open files are fewer */
#define MAX_PROCS 4096	   /* processes listed, gone ones recycled first */
#define MAX_EVENTS 65536   /* events kept; a user's at most a quarter */
#define MAX_BAD 8	   /* malformed messages before a hang-up */
#define IDLE_MS 10000	   /* no message, nothing sent: hung up on */
#define OUT_MAX (4u << 20) /* a reply this big is not queued */
#define FILL_MAX 16384	   /* events queued for a consumer at a time */

enum conn_kind { CONN_NEW, CONN_CONSUMER, CONN_COMMAND };

/* Who is at the other end: a user (the Unix socket) or an address. */
struct peer {
	int uid;	  /* the Unix socket: the peer's user; -1: TCP */
	uint8_t addr[16]; /* TCP: its address (IPv4 mapped into IPv6) */
};

struct proc {
	char uuid[33], host[64], exe[256];
	long pid;
	struct peer owner;
	uint64_t applied, bad, dropped, seen_ms;
	/* tail keep: KEEPs taken from it, those it said it dropped (its own
	 * rate cap), those cut here (the caps of its connection, its peer) */
	uint64_t keeps, keeps_dropped, keeps_cut;
	uint64_t conn; /* the id of the connection it is on */
	int connected;
};

struct conn {
	int fd, kind, bad, tcp, authed;
	int proto;   /* consumers: the protocol of their HELLO */
	int closing; /* 1: close once out is sent; 2: now */
	struct peer who;
	uint64_t id, deadline;
	long proc;   /* consumers: index in procs */
	size_t next; /* consumers: the next event to send */
	struct causal_mon_bucket keep_bucket; /* consumers: their KEEPs */
	struct causal_mon_auth auth;
	char in[CAUSAL_MON_WIRE_MAX + 1];
	size_t nin;
	char *out;
	size_t nout, cap;
};

/* An event: what was published, and whose processes it is for. */
struct event {
	char *text;
	int scope; /* -1: every process; else a user's */
};

struct user_count {
	int uid;
	size_t events;
};

struct coord {
	char instance[17];
	struct event *events; /* events[i] is event i + 1 */
	size_t nevents, cap_events;
	struct user_count *users; /* events published per user */
	size_t nusers, cap_users;
	struct proc *procs;
	size_t nprocs, cap_procs;
	struct conn *conns;
	size_t nconns, max_conns;
	struct pollfd *pfd;
	uint64_t malformed, denied, limited, ids;
	uint64_t keeps, keeps_cut; /* KEEPs taken, cut by a rate cap */
	struct coord_keeps kept;
	struct causal_mon_key key;
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

/* ---- who may do what ------------------------------------------------------
 */

static int same_peer(const struct peer *a, const struct peer *b)
{
	return a->uid == b->uid &&
	       (a->uid >= 0 || !memcmp(a->addr, b->addr, sizeof(a->addr)));
}

/* Root on the Unix socket, or a holder of the key over TCP: every
 * process.  Anyone else: their own. */
static int sees_all(const struct conn *c)
{
	return c->tcp || c->who.uid == 0;
}

static int may_see(const struct conn *c, const struct proc *p)
{
	return sees_all(c) || (p->owner.uid >= 0 && p->owner.uid == c->who.uid);
}

static int for_conn(const struct event *e, const struct conn *c)
{
	return e->scope < 0 || (c->who.uid >= 0 && e->scope == c->who.uid);
}

/* ---- sending --------------------------------------------------------------
 */

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

/* Queue one message (no "\n"): sealed once the peer proved the key. */
static void say(struct conn *c, const char *msg)
{
	char line[CAUSAL_MON_WIRE_MAX + 2];

	if (c->tcp && c->authed) {
		if (causal_mon_seal(&c->auth, msg, line, sizeof(line)))
			c->closing = 2;
		else
			queue(c, line);
		return;
	}
	snprintf(line, sizeof(line), "%s\n", msg);
	queue(c, line);
}

/* Refuse what c asked: one ERR line, then hang up. */
static void refuse(struct conn *c, uint64_t *count, const char *why)
{
	char line[160];

	(*count)++;
	snprintf(line, sizeof(line), "ERR %s", why);
	say(c, line);
	c->closing = 1;
}

/* The events c has not been sent, as the buffer takes them: those of its
 * scope, and one SKIP over each run of others'. */
static void fill(struct coord *co, struct conn *c)
{
	char line[CAUSAL_MON_LINE_MAX + 32];

	while (!c->closing && c->nout < FILL_MAX && c->next <= co->nevents) {
		const struct event *e = &co->events[c->next - 1];

		if (for_conn(e, c)) {
			snprintf(line, sizeof(line), "EVENT %zu %s", c->next,
				 e->text);
			c->next++;
		} else {
			while (c->next <= co->nevents &&
			       !for_conn(&co->events[c->next - 1], c))
				c->next++;
			snprintf(line, sizeof(line), "SKIP %zu", c->next - 1);
		}
		say(c, line);
	}
}

/* ---- requests -------------------------------------------------------------
 */

static void bad(struct coord *co, struct conn *c)
{
	co->malformed++;
	if (++c->bad >= MAX_BAD)
		c->closing = 2;
}

static void send_status(struct coord *co, struct conn *c)
{
	char line[CAUSAL_MON_LINE_MAX], uid[16];
	uint64_t now = now_ms();

	snprintf(line, sizeof(line), "STATE %s %zu %llu %llu %llu %llu %llu",
		 co->instance, co->nevents, (unsigned long long)co->malformed,
		 (unsigned long long)co->denied,
		 (unsigned long long)co->limited, (unsigned long long)co->keeps,
		 (unsigned long long)co->keeps_cut);
	say(c, line);
	for (size_t i = 0; i < co->nprocs; i++) {
		const struct proc *p = &co->procs[i];

		if (!may_see(c, p))
			continue;
		if (p->owner.uid >= 0)
			snprintf(uid, sizeof(uid), "%d", p->owner.uid);
		else
			snprintf(uid, sizeof(uid), "-");
		snprintf(line, sizeof(line),
			 "PROC %s %ld %s %llu %d %llu %llu %llu %s %llu %llu "
			 "%llu",
			 p->host, p->pid, uid, (unsigned long long)p->applied,
			 p->connected, (unsigned long long)(now - p->seen_ms),
			 (unsigned long long)p->bad,
			 (unsigned long long)p->dropped, p->exe,
			 (unsigned long long)p->keeps,
			 (unsigned long long)p->keeps_dropped,
			 (unsigned long long)p->keeps_cut);
		say(c, line);
	}
	say(c, "END");
	c->closing = 1;
}

static struct user_count *user_of(struct coord *co, int uid)
{
	for (size_t i = 0; i < co->nusers; i++)
		if (co->users[i].uid == uid)
			return &co->users[i];
	if (grow((void **)&co->users, &co->cap_users, co->nusers + 1,
		 sizeof(*co->users)))
		return NULL;
	co->users[co->nusers] = (struct user_count){ .uid = uid };
	return &co->users[co->nusers++];
}

/* PUBLISH: for every process (root, a key holder) or the user's own. */
static void publish(struct coord *co, struct conn *c, char *rest)
{
	char text[CAUSAL_MON_LINE_MAX], reply[64], *copy;
	int scope = sees_all(c) ? -1 : c->who.uid;
	struct user_count *u = scope < 0 ? NULL : user_of(co, scope);

	c->kind = CONN_COMMAND;
	c->closing = 1;
	if (coord_check_publish(rest, text, sizeof(text))) {
		bad(co, c);
		say(c, "ERR malformed publication");
		return;
	}
	if (co->nevents >= MAX_EVENTS || (scope >= 0 && !u) ||
	    (u && u->events >= MAX_EVENTS / 4)) {
		refuse(c, &co->limited,
		       "too many events kept: restart the coordinator");
		return;
	}
	copy = strdup(text);
	if (!copy || grow((void **)&co->events, &co->cap_events,
			  co->nevents + 1, sizeof(*co->events))) {
		free(copy);
		say(c, "ERR out of memory");
		return;
	}
	co->events[co->nevents++] = (struct event){ copy, scope };
	if (u)
		u->events++;
	snprintf(reply, sizeof(reply), "OK %zu", co->nevents);
	say(c, reply);
}

/*
 * A slot for a new process of owner: a new one while the table and the
 * owner's share of it (a quarter; root unbounded) allow, else the one
 * gone the longest (the owner's own when its share is full); -1 if none.
 */
static long proc_slot(struct coord *co, const struct peer *owner)
{
	size_t mine = 0;
	long oldest = -1, oldest_mine = -1;

	for (size_t i = 0; i < co->nprocs; i++) {
		const struct proc *p = &co->procs[i];
		int same = same_peer(&p->owner, owner);

		mine += same;
		if (p->connected)
			continue;
		if (oldest < 0 || p->seen_ms < co->procs[oldest].seen_ms)
			oldest = (long)i;
		if (same && (oldest_mine < 0 ||
			     p->seen_ms < co->procs[oldest_mine].seen_ms))
			oldest_mine = (long)i;
	}
	if (owner->uid != 0 && mine >= MAX_PROCS / 4)
		return oldest_mine;
	if (co->nprocs < MAX_PROCS) {
		if (grow((void **)&co->procs, &co->cap_procs, co->nprocs + 1,
			 sizeof(*co->procs)))
			return -1;
		return (long)co->nprocs++;
	}
	return oldest;
}

/* HELLO 3|2 UUID HOST PID INSTANCE APPLIED EXE */
static void take_hello(struct coord *co, struct conn *c, char *rest)
{
	char *v = causal_mon_field(&rest), *uuid = causal_mon_field(&rest),
	     *host = causal_mon_field(&rest), *pid = causal_mon_field(&rest),
	     *inst = causal_mon_field(&rest),
	     *applied = causal_mon_field(&rest), *exe = rest, line[64];
	uint64_t npid, napplied;
	size_t from;
	long i;

	if (v && strcmp(v, "2") && strcmp(v, "3")) {
		refuse(c, &co->denied,
		       "protocol 2 or 3 needed: a causal of this "
		       "version");
		return;
	}
	if (!v || !uuid || strlen(uuid) != 32 ||
	    strspn(uuid, "0123456789abcdef") != 32 || !host ||
	    strlen(host) >= sizeof(co->procs->host) ||
	    causal_mon_u64(pid, &npid) || !inst ||
	    causal_mon_u64(applied, &napplied) || !*exe ||
	    strlen(exe) >= sizeof(co->procs->exe) || strchr(exe, ' ')) {
		bad(co, c);
		return;
	}
	for (i = 0; i < (long)co->nprocs && strcmp(co->procs[i].uuid, uuid);
	     i++)
		;
	if (i < (long)co->nprocs && !same_peer(&co->procs[i].owner, &c->who)) {
		refuse(c, &co->denied, "that process is another user's");
		return;
	}
	if (i == (long)co->nprocs && (i = proc_slot(co, &c->who)) < 0) {
		refuse(c, &co->limited, "too many processes");
		return;
	}
	/* the same process on a connection still open: the new one wins */
	for (size_t k = 0; k < co->nconns; k++)
		if (co->conns[k].kind == CONN_CONSUMER &&
		    co->conns[k].proc == i && co->conns[k].id != c->id)
			co->conns[k].closing = 2;
	memset(&co->procs[i], 0, sizeof(co->procs[i]));
	snprintf(co->procs[i].uuid, sizeof(co->procs[i].uuid), "%s", uuid);
	snprintf(co->procs[i].host, sizeof(co->procs[i].host), "%s", host);
	snprintf(co->procs[i].exe, sizeof(co->procs[i].exe), "%s", exe);
	co->procs[i].pid = (long)npid;
	co->procs[i].owner = c->who;
	co->procs[i].connected = 1;
	co->procs[i].conn = c->id;
	co->procs[i].seen_ms = now_ms();
	/* what it applied counts in our numbering only if it met us */
	from = strcmp(inst, co->instance) ? 0 : (size_t)napplied;
	if (from > co->nevents)
		from = 0;
	co->procs[i].applied = from;
	c->kind = CONN_CONSUMER;
	c->proc = i;
	c->next = from + 1;
	c->proto = v[0] - '0';
	snprintf(line, sizeof(line), "WELCOME %d %s", c->proto, co->instance);
	say(c, line);
}

/*
 * KEEP CHAIN DROPPED (protocol 3): a process kept a chain; every other
 * consumer of protocol 3 is told (KEPT), once for the chain, within the
 * rate caps of the sender's connection and of its peer (a user, an
 * address): over them the KEEP is cut, counted.  0, or -1 if malformed.
 */
static int take_keep(struct coord *co, struct conn *c, struct proc *p,
		     char *rest)
{
	char *hex = causal_mon_field(&rest), line[64];
	uint8_t chain[CAUSAL_CHAIN_ID_LEN];
	uint64_t dropped, now = clock_ns(CLOCK_MONOTONIC);

	if (c->proto < 3 || causal_mon_chain(hex, chain) ||
	    causal_mon_u64(causal_mon_field(&rest), &dropped) || *rest)
		return -1;
	p->keeps_dropped = dropped;
	if (!causal_mon_bucket_take(&c->keep_bucket, now, CAUSAL_MON_KEEP_RATE,
				    CAUSAL_MON_KEEP_RATE) ||
	    !coord_keeps_admit(&co->kept, c->who.uid, c->who.addr, now)) {
		p->keeps_cut++;
		co->keeps_cut++;
		return 0;
	}
	p->keeps++;
	co->keeps++;
	if (!coord_keeps_new(&co->kept, chain))
		return 0;
	snprintf(line, sizeof(line), "KEPT %s", hex);
	for (size_t i = 0; i < co->nconns; i++) {
		struct conn *o = &co->conns[i];

		if (o->kind == CONN_CONSUMER && o->proto >= 3 && o != c &&
		    !o->closing)
			say(o, line);
	}
	return 0;
}

/* ACK SEQ | BAD SEQ | DROP SEQ | PING | KEEP from a consumer: 0, or -1. */
static int take_answer(struct coord *co, struct conn *c, const char *kind,
		       char *rest)
{
	struct proc *p = &co->procs[c->proc];
	uint64_t seq;

	p->seen_ms = now_ms();
	if (!strcmp(kind, "PING"))
		return *rest ? -1 : 0;
	if (!strcmp(kind, "KEEP"))
		return take_keep(co, c, p, rest);
	if ((strcmp(kind, "ACK") && strcmp(kind, "BAD") &&
	     strcmp(kind, "DROP")) ||
	    causal_mon_u64(causal_mon_field(&rest), &seq) || *rest ||
	    seq <= p->applied || seq >= c->next)
		return -1;
	p->applied = seq;
	p->bad += kind[0] == 'B';
	p->dropped += kind[0] == 'D';
	return 0;
}

/* TCP: the first line is the challenge, AUTH 2 NONCE; anything else is
 * an older peer, or not one of ours. */
static void take_auth(struct coord *co, struct conn *c, char *line)
{
	char *rest, *kind = causal_mon_kind(line, &rest),
		    out[CAUSAL_MON_WIRE_MAX + 2];

	if (kind && !strcmp(kind, "AUTH") &&
	    !causal_mon_auth_server(&c->auth, &co->key, rest, out,
				    sizeof(out))) {
		queue(c, out);
		c->authed = 1;
		return;
	}
	refuse(c, &co->denied,
	       "protocol 2 needed: prove the key of CAUSAL_COORDINATOR_KEY");
}

static void take_line(struct coord *co, struct conn *c, char *line)
{
	char *rest, *kind;

	if (c->tcp && !c->authed) {
		take_auth(co, c, line);
		return;
	}
	if (c->tcp && !(line = causal_mon_open(&c->auth, line))) {
		/* forged, replayed or out of order: never acted on */
		co->denied++;
		c->closing = 2;
		return;
	}
	kind = causal_mon_kind(line, &rest);
	if (!kind) {
		bad(co, c);
	} else if (c->kind == CONN_NEW && !strcmp(kind, "HELLO")) {
		take_hello(co, c, rest);
	} else if (c->kind == CONN_NEW && !strcmp(kind, "STATUS") && !*rest) {
		c->kind = CONN_COMMAND;
		send_status(co, c);
	} else if (c->kind == CONN_NEW && !strcmp(kind, "PUBLISH")) {
		publish(co, c, rest);
	} else if (c->kind != CONN_CONSUMER || take_answer(co, c, kind, rest)) {
		bad(co, c);
	}
}

/* ---- connections ----------------------------------------------------------
 */

static void conn_close(struct coord *co, size_t i)
{
	struct conn *c = &co->conns[i];

	if (c->kind == CONN_CONSUMER && co->procs[c->proc].conn == c->id) {
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
		c->deadline = now_ms() + IDLE_MS;
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
		c->deadline = now_ms() + IDLE_MS;
	}
}

/*
 * May a new connection from who stay?  NULL, or why not.  Of max
 * connections the last sixteenth are root's; any other peer (a user, an
 * address) holds a quarter at most, and TCP peers that have not proved
 * the key a quarter in all.
 */
static const char *admit(const struct coord *co, const struct peer *who,
			 int tcp)
{
	size_t same = 0, unproven = 0, max = co->max_conns;

	if (co->nconns >= max)
		return "too many connections";
	if (!tcp && who->uid == 0)
		return NULL;
	if (co->nconns >= max - max / 16)
		return "too many connections";
	for (size_t i = 0; i < co->nconns; i++) {
		same += same_peer(&co->conns[i].who, who);
		unproven += co->conns[i].tcp && !co->conns[i].authed;
	}
	if (same >= max / 4)
		return "too many connections of yours";
	if (tcp && unproven >= max / 4)
		return "too many connections";
	return NULL;
}

/* Who is on fd: a user on the Unix socket, an address over TCP. */
static int identify(int fd, int tcp, struct peer *who)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	unsigned uid;

	memset(who, 0, sizeof(*who));
	who->uid = -1;
	if (!tcp) {
		if (causal_mon_peer_uid(fd, &uid))
			return -1;
		who->uid = (int)uid;
		return 0;
	}
	if (getpeername(fd, (struct sockaddr *)&ss, &len))
		return -1;
	if (ss.ss_family == AF_INET6) {
		memcpy(who->addr, &((struct sockaddr_in6 *)&ss)->sin6_addr, 16);
	} else {
		who->addr[10] = who->addr[11] = 0xff;
		memcpy(who->addr + 12, &((struct sockaddr_in *)&ss)->sin_addr,
		       4);
	}
	return 0;
}

/* Accept what waits on listener lfd; 0, or -1 when out of files. */
static int take_conns(struct coord *co, int lfd, int tcp)
{
	for (int k = 0; k < 16; k++) {
		int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct peer who;
		const char *why;

		if (fd < 0)
			return errno == EAGAIN || errno == EINTR ||
					       errno == ECONNABORTED
				       ? 0
				       : -1;
		why = identify(fd, tcp, &who) ? "who are you"
					      : admit(co, &who, tcp);
		if (why) {
			char line[64];
			ssize_t sent;

			co->limited++;
			snprintf(line, sizeof(line), "ERR %s\n", why);
			sent = send(fd, line, strlen(line),
				    MSG_DONTWAIT | MSG_NOSIGNAL);
			(void)sent;
			close(fd);
			continue;
		}
		co->conns[co->nconns++] =
			(struct conn){ .fd = fd,
				       .kind = CONN_NEW,
				       .tcp = tcp,
				       .who = who,
				       .id = ++co->ids,
				       .deadline = now_ms() + IDLE_MS };
	}
	return 0;
}

/* ---- the loop -------------------------------------------------------------
 */

struct listeners {
	int fd[2]; /* the Unix socket, TCP (-1: none) */
	char path[108];
	unsigned long ino;
	uint16_t port;
};

static int write_ready(const char *ready, const struct listeners *l)
{
	char tmp[4096];
	FILE *f;

	/* whole or not at all: a waiter sees the file once it is complete */
	snprintf(tmp, sizeof(tmp), "%s.tmp", ready);
	f = fopen(tmp, "w");
	if (!f || fprintf(f, "socket %s\n", l->path) < 0 ||
	    (l->fd[1] >= 0 && fprintf(f, "port %u\n", (unsigned)l->port) < 0) ||
	    fclose(f) || rename(tmp, ready))
		return fail("cannot write '%s': %s", ready, strerror(errno));
	return 0;
}

static int start(struct coord *co, const struct coord_opts *o,
		 struct listeners *l)
{
	char shown[80], why[160];
	int loopback = 1;

	l->fd[0] = l->fd[1] = -1;
	if (o->tcp && causal_mon_key_load(o->key, &co->key, why, sizeof(why)))
		return fail("the key '%s' (CAUSAL_COORDINATOR_KEY): %s", o->key,
			    why);
	if (o->socket)
		snprintf(l->path, sizeof(l->path), "%s", o->socket);
	else if (coord_default_socket(l->path, sizeof(l->path)))
		return fail("no default socket for this user: give --socket");
	l->fd[0] = coord_listen_unix(l->path, &l->ino);
	if (l->fd[0] < 0)
		return -1;
	printf("causalctl serve: on %s\n", l->path);
	if (o->tcp) {
		l->fd[1] = coord_listen_tcp(o->host, o->port, &l->port, shown,
					    sizeof(shown), &loopback);
		if (l->fd[1] < 0)
			return -1;
		printf("causalctl serve: on %s (TCP: every peer proves the "
		       "key of CAUSAL_COORDINATOR_KEY)\n",
		       shown);
		if (!loopback)
			warning("listening on %s, beyond this host: whoever "
				"reaches it and holds the key may switch "
				"every process",
				shown);
	}
	fflush(stdout);
	return o->ready ? write_ready(o->ready, l) : 0;
}

static void instance_id(struct coord *co)
{
	uint8_t id[8];

	if (getrandom(id, sizeof(id), 0) != sizeof(id))
		for (size_t i = 0; i < sizeof(id); i++)
			id[i] = (uint8_t)(now_ms() >> (i * 3) ^
					  (uint64_t)getpid());
	for (size_t i = 0; i < sizeof(id); i++)
		snprintf(co->instance + 2 * i, 3, "%02x", id[i]);
}

/* One turn of the loop: wait for the peers, serve them, take new ones. */
static int turn(struct coord *co, const struct listeners *l,
		uint64_t *paused_until)
{
	size_t n = co->nconns, nl = 0;
	uint64_t now = now_ms();
	int r, lis[2];

	for (size_t i = 0; i < n; i++)
		if (co->conns[i].kind == CONN_CONSUMER)
			fill(co, &co->conns[i]);
	for (int k = 0; k < 2; k++)
		if (l->fd[k] >= 0 && now >= *paused_until) {
			lis[nl] = k;
			co->pfd[nl++] = (struct pollfd){ .fd = l->fd[k],
							 .events = POLLIN };
		}
	for (size_t i = 0; i < n; i++)
		co->pfd[nl + i] = (struct pollfd){
			.fd = co->conns[i].fd,
			.events = (short)(POLLIN |
					  (co->conns[i].nout ? POLLOUT : 0))
		};
	r = poll(co->pfd, nl + n, 1000);
	if (r < 0 && errno != EINTR)
		return -1;
	now = now_ms();
	for (size_t i = 0; r > 0 && i < n; i++) {
		struct conn *c = &co->conns[i];

		if (co->pfd[nl + i].revents & (POLLIN | POLLHUP | POLLERR))
			conn_read(co, c);
		if (c->nout && c->closing != 2)
			conn_write(c);
	}
	/* closed from the end: conn_close() moves the last one */
	for (size_t i = co->nconns; i-- > 0;) {
		struct conn *c = &co->conns[i];

		if (c->closing != 2 && !(c->closing == 1 && !c->nout) &&
		    now >= c->deadline)
			co->limited++; /* idle, or a message never ended */
		if (c->closing == 2 || (c->closing == 1 && !c->nout) ||
		    now >= c->deadline)
			conn_close(co, i);
	}
	for (size_t k = 0; r > 0 && k < nl; k++)
		if ((co->pfd[k].revents & POLLIN) &&
		    take_conns(co, l->fd[lis[k]], lis[k] == 1))
			/* out of open files: let the peers go first */
			*paused_until = now + 100;
	return 0;
}

int coord_serve(const struct coord_opts *o)
{
	static struct coord co;
	struct sigaction sa = { .sa_handler = on_stop };
	struct listeners l;
	uint64_t paused_until = 0;
	int r = 0;

	co.max_conns = coord_max_conns(MAX_CONNS);
	co.conns = calloc(co.max_conns, sizeof(*co.conns));
	co.pfd = calloc(co.max_conns + 2, sizeof(*co.pfd));
	if (!co.conns || !co.pfd) {
		free(co.conns);
		free(co.pfd);
		return fail("out of memory"), -ENOMEM;
	}
	instance_id(&co);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (start(&co, o, &l))
		r = -1;
	while (!r && !stopping)
		if (turn(&co, &l, &paused_until))
			break;
	while (co.nconns)
		conn_close(&co, co.nconns - 1);
	for (int k = 0; k < 2; k++)
		if (l.fd[k] >= 0)
			close(l.fd[k]);
	if (l.fd[0] >= 0)
		coord_unlisten(l.path, l.ino);
	for (size_t i = 0; i < co.nevents; i++)
		free(co.events[i].text);
	free(co.events);
	free(co.users);
	free(co.procs);
	free(co.conns);
	free(co.pfd);
	return r;
}
