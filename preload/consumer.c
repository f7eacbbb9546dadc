/*
 * consumer.c - the event consumer of the monitoring coordinator (Figure 9
 * of the monitoring paper): one infrastructure thread per process (never
 * traced, every signal blocked) that connects to CAUSAL_COORDINATOR,
 * pulls the events it publishes, applies them in order (monitor.c) and
 * acknowledges each (include/causal/monitor-proto.h).
 *
 * The program never waits for it: it runs beside the program's threads,
 * which only read the state it writes.  The coordinator is network
 * input, checked before anything it says is read: on the Unix socket it
 * must run as root or as this process's user (SO_PEERCRED), over TCP
 * prove the key of CAUSAL_COORDINATOR_KEY, line by line
 * (monitor-auth.h).  A malformed message is rejected and counted, never
 * acted on; events beyond the rate cap (monitor.c) are dropped, counted
 * and said once; a coordinator that is down, unreachable, restarted or
 * not to be trusted is retried with a growing delay (0.1 s to 2 s) while
 * the process keeps its last state.  Not a hook path: it may allocate
 * (getaddrinfo).
 */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "causal/monitor-auth.h"
#include "causal/monitor-proto.h"
#include "internal.h"
#include "keep.h"

static _Atomic int consumer_fd = -1; /* the connection, -1: none */
static char instance[24] = "-";	     /* the coordinator applied counts in */
static _Atomic uint64_t rejected;    /* malformed messages */
/* Said once in a process (and not again in its fork children). */
static int said_peer, said_auth, said_key, said_drop, said_old;
/* the protocol this process says HELLO in: 2 once a coordinator refused
 * 3 (an older one: tail keep's KEEP and KEPT are not spoken) */
static int hello_version = CAUSAL_MON_PROTO_VERSION;
static struct causal_mon_key key; /* TCP: CAUSAL_COORDINATOR_KEY's */

/* The handshake's own deadline: a coordinator that does not prove the
 * key by then is not ours (an older one, or not one at all). */
#define AUTH_WAIT_S 5
#define SEND_WAIT_MS 1000

/* Said once when the rate cap (monitor.h) drops an event. */
static const char drop_note[] =
	"the coordinator sends more events than this process applies (128 at "
	"once, then 32 a second): the others are dropped, counted by "
	"`causalctl status`";
_Static_assert(CAUSAL_MON_EVENT_BURST == 128 && CAUSAL_MON_EVENT_RATE == 32,
	       "drop_note states the rate cap");

/* One connection: over TCP, each line sealed (monitor-auth.h). */
struct link {
	int fd, tcp;
	struct causal_mon_auth *auth; /* once the challenge is sent */
	int state;		      /* enum link_state */
	int quiet;		      /* ticks without a line */
	int proto;	  /* the protocol the coordinator welcomed */
	uint64_t said_at; /* when it last sent a line */
};

/* How often the consumer looks for chains to announce (tail keep on),
 * else for the coordinator's lines alone. */
#define TICK_KEEP_MS 50
#define TICK_MS 1000

enum link_state { LINK_AUTH, LINK_WELCOME, LINK_EVENTS };

static void pause_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void say_once(int *said, const char *a, const char *b, const char *c)
{
	if (*said)
		return;
	*said = 1;
	causal_say("causal: ", a, b, c, NULL);
}

/*
 * A Unix socket's coordinator is trusted when it runs as root or as this
 * process's user: those who could change the process anyway.
 */
static int trusted(int fd, const char *path)
{
	unsigned uid;

	if (!causal_mon_peer_uid(fd, &uid) && (uid == 0 || uid == geteuid()))
		return 1;
	say_once(&said_peer, "the coordinator on '", path,
		 "' runs as another user, neither root nor this process's: "
		 "nothing it sends is applied");
	return 0;
}

static int dial_unix(void)
{
	const char *where = causal_g.cfg.coordinator;
	char path[CAUSAL_SOCKET_PATH_MAX];
	int fd = -1, err;

	if (strcmp(where, CAUSAL_MON_LOCAL))
		fd = causal_mon_dial_unix(where, &err);
	for (int i = 0;
	     fd < 0 && !strcmp(where, CAUSAL_MON_LOCAL) &&
	     !causal_mon_local_socket(i, geteuid(), path, sizeof(path));
	     i++)
		fd = causal_mon_dial_unix(path, &err);
	if (fd >= 0 &&
	    !trusted(fd, strcmp(where, CAUSAL_MON_LOCAL) ? where : path)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* A connected socket to the coordinator, or -1 (within about a second). */
static int dial(void)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC,
				  .ai_socktype = SOCK_STREAM };
	struct addrinfo *res;
	char port[8];
	int fd, err;

	if (!causal_g.cfg.coordinator_port)
		return dial_unix();
	snprintf(port, sizeof(port), "%u",
		 (unsigned)causal_g.cfg.coordinator_port);
	if (getaddrinfo(causal_g.cfg.coordinator, port, &hints, &res))
		return -1;
	fd = causal_mon_dial(res, 1000, &err);
	freeaddrinfo(res);
	return fd;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Send one message (no "\n"): sealed over TCP; a coordinator that takes
 * nothing for SEND_WAIT_MS is given up (the connection is). */
static int send_msg(struct link *l, const char *msg)
{
	char line[CAUSAL_MON_WIRE_MAX + 1];

	l->said_at = mono_ns();
	if (l->auth)
		return causal_mon_seal(l->auth, msg, line, sizeof(line))
			       ? -1
			       : causal_mon_send_all(l->fd, line, SEND_WAIT_MS);
	snprintf(line, sizeof(line), "%s\n", msg);
	return causal_mon_send_all(l->fd, line, SEND_WAIT_MS);
}

/* A printable word of the protocol: no space, no control byte. */
static void word(char *out, size_t size, const char *s)
{
	size_t i;

	for (i = 0; s[i] && i + 1 < size; i++)
		out[i] = s[i] > ' ' && s[i] < 127 ? s[i] : '?';
	out[i] = '\0';
	if (!i && size > 1)
		snprintf(out, size, "?");
}

static int hello(struct link *l)
{
	char line[CAUSAL_MON_LINE_MAX], uuid[2 * CAUSAL_UUID_LEN + 1], host[64],
		exe[256];

	causal_uuid_hex(causal_g.id.uuid, uuid);
	word(host, sizeof(host), causal_g.id.hostname);
	word(exe, sizeof(exe), causal_g.id.exe);
	snprintf(line, sizeof(line), "HELLO %d %s %s %d %s %llu %s",
		 hello_version, uuid, host, (int)getpid(), instance,
		 (unsigned long long)atomic_load(&causal_mon.applied), exe);
	l->state = LINK_WELCOME;
	return send_msg(l, line);
}

/* Apply "on|off TYPES" or "select H I F on|off"; 0, or -1 if malformed. */
static int apply(uint64_t seq, char *rest)
{
	struct causal_mon_event ev;
	uint32_t types;

	if (causal_mon_event_parse(rest, &ev))
		return -1;
	if (ev.kind != CAUSAL_MONITOR_SELECT)
		return causal_parse_monitor(ev.types, &types)
			       ? -1
			       : causal_monitor_apply(seq, ev.kind, types, NULL,
						      NULL, NULL, 0);
	if (strcmp(ev.on, "on") && strcmp(ev.on, "off"))
		return -1;
	return causal_monitor_apply(seq, CAUSAL_MONITOR_SELECT, 0, ev.host,
				    ev.iface, ev.func, !strcmp(ev.on, "on"));
}

/* Event seq, in order: applied (ACK), malformed (BAD) or over the rate
 * cap (DROP); each moves what was applied on. */
static int take_event(struct link *l, uint64_t seq, char *rest)
{
	const char *answer = "ACK";
	char reply[64];

	if (!causal_monitor_admit(mono_ns())) {
		answer = "DROP";
		say_once(&said_drop, drop_note, NULL, NULL);
	} else if (apply(seq, rest)) {
		/* skipped, in order: the next event is still seq + 1 */
		answer = "BAD";
		atomic_fetch_add(&rejected, 1);
	}
	atomic_store(&causal_mon.applied, seq);
	snprintf(reply, sizeof(reply), "%s %llu", answer,
		 (unsigned long long)seq);
	return send_msg(l, reply);
}

/* WELCOME VERSION INSTANCE (2, or up to the version of our HELLO): 0, or
 * -1 if malformed. */
static int take_welcome(struct link *l, char *rest)
{
	char *v = causal_mon_field(&rest), *id = causal_mon_field(&rest);
	uint64_t n;

	if (causal_mon_u64(v, &n) || n < 2 || n > (uint64_t)hello_version ||
	    !id || *rest || strlen(id) >= sizeof(instance))
		return -1;
	l->proto = (int)n;
	if (strcmp(id, instance)) {
		/* another coordinator: its events are numbered anew; the
		 * state stays what it is */
		snprintf(instance, sizeof(instance), "%s", id);
		atomic_store(&causal_mon.applied, 0);
	}
	return 0;
}

/* One line from the coordinator; -1 to give the connection up. */
static int take_line(struct link *l, char *line)
{
	char *rest, *kind, reply[64];
	uint64_t seq, applied = atomic_load(&causal_mon.applied);

	if (l->state == LINK_AUTH) {
		if (causal_mon_auth_check(l->auth, line)) {
			say_once(&said_auth, "the coordinator at '",
				 causal_g.cfg.coordinator,
				 "' does not prove the key of "
				 "CAUSAL_COORDINATOR_KEY: nothing it sends "
				 "is applied");
			goto malformed;
		}
		return hello(l);
	}
	if (l->auth && !(line = causal_mon_open(l->auth, line)))
		goto malformed;
	kind = causal_mon_kind(line, &rest);
	if (!kind)
		goto malformed;
	if (l->state == LINK_WELCOME) {
		if (!strcmp(kind, "ERR") && hello_version > 2 &&
		    !strncmp(rest, "protocol 2 needed", 17)) {
			/* an older coordinator refuses HELLO 3: speak 2 */
			hello_version = 2;
			say_once(&said_old,
				 "the coordinator speaks an older "
				 "protocol (2): the chains tail "
				 "keep keeps are not broadcast",
				 NULL, NULL);
			return -1;
		}
		if (strcmp(kind, "WELCOME") || take_welcome(l, rest))
			goto malformed;
		l->state = LINK_EVENTS;
		return 0;
	}
	if (!strcmp(kind, "KEPT") && l->proto >= 3) {
		if (causal_keepcast_take(rest))
			goto malformed;
		return 0;
	}
	if ((strcmp(kind, "EVENT") && strcmp(kind, "SKIP")) ||
	    causal_mon_u64(causal_mon_field(&rest), &seq))
		goto malformed;
	if (seq <= applied)
		return 0; /* had it already */
	if (kind[0] == 'S') {
		/* another user's events: nothing to apply, nothing written */
		if (*rest)
			goto malformed;
		atomic_store(&causal_mon.applied, seq);
		snprintf(reply, sizeof(reply), "ACK %llu",
			 (unsigned long long)seq);
		return send_msg(l, reply);
	}
	if (seq != applied + 1) {
		/* the order is broken: start again from what was applied */
		atomic_fetch_add(&rejected, 1);
		return -1;
	}
	return take_event(l, seq, rest);
malformed:
	atomic_fetch_add(&rejected, 1);
	return -1;
}

/* Tell the coordinator the chains kept here since (protocol 3). */
static int announce(struct link *l)
{
	char msg[CAUSAL_MON_LINE_MAX];

	if (l->proto < 3)
		return 0;
	while (causal_keepcast_next(mono_ns(), msg, sizeof(msg)))
		if (send_msg(l, msg))
			return -1;
	return 0;
}

/* TCP: the key, read again before each connection (it may change);
 * 0, or -1 (said once). */
static int load_key(void)
{
	char why[160];

	if (!causal_mon_key_load(causal_g.cfg.coordinator_key, &key, why,
				 sizeof(why)))
		return 0;
	if (!said_key)
		causal_say("causal: CAUSAL_COORDINATOR_KEY='",
			   causal_g.cfg.coordinator_key, "': ", why,
			   "; the coordinator is not used", NULL);
	said_key = 1;
	return -1;
}

/* The first words: over TCP the challenge, on the Unix socket HELLO. */
static int open_link(struct link *l)
{
	static struct causal_mon_auth auth;
	char line[CAUSAL_MON_LINE_MAX];

	if (!l->tcp)
		return hello(l);
	l->auth = &auth;
	if (causal_mon_auth_client(&auth, &key, line, sizeof(line)))
		return -1;
	l->state = LINK_AUTH;
	strcat(line, "\n");
	return causal_mon_send_all(l->fd, line, SEND_WAIT_MS);
}

/* Read and apply events until the connection ends or the process does;
 * 1 if the coordinator welcomed the process, else 0. */
static int session(int fd)
{
	char buf[CAUSAL_MON_WIRE_MAX + 1];
	size_t have = 0;
	struct link l = { .fd = fd, .tcp = causal_g.cfg.coordinator_port != 0 };
	int tick = causal_keep_enabled() ? TICK_KEEP_MS : TICK_MS;

	if (open_link(&l))
		return 0;
	while (causal_running() && getpid() == causal_g.id.pid) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		char *nl;
		ssize_t n;
		int r = poll(&pfd, 1, tick);

		if (r < 0 && errno != EINTR)
			goto out;
		if (l.state == LINK_EVENTS && announce(&l))
			goto out;
		if (r <= 0) {
			/* the coordinator hangs up on the silent; one that
			 * does not answer the challenge is not ours */
			if (l.state == LINK_AUTH &&
			    ++l.quiet >= AUTH_WAIT_S * 1000 / tick)
				goto out;
			if (l.state != LINK_AUTH &&
			    mono_ns() - l.said_at >= 1000000000ull &&
			    send_msg(&l, "PING"))
				goto out;
			continue;
		}
		n = recv(fd, buf + have, sizeof(buf) - 1 - have, MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			goto out;
		if (n < 0)
			continue;
		have += (size_t)n;
		buf[have] = '\0';
		while ((nl = memchr(buf, '\n', have))) {
			size_t len = (size_t)(nl - buf) + 1;

			*nl = '\0';
			if (take_line(&l, buf))
				goto out;
			memmove(buf, buf + len, have - len);
			have -= len;
			buf[have] = '\0';
		}
		if (have == sizeof(buf) - 1) {
			/* a line longer than the protocol allows */
			atomic_fetch_add(&rejected, 1);
			goto out;
		}
	}
out:
	return l.state == LINK_EVENTS;
}

static void *consumer_main(void *arg)
{
	long backoff = 100;

	(void)arg;
	/* infrastructure, like the writer: never traced (writer.c) */
	causal_self.status = CAUSAL_THREAD_INFRA;
	causal_self.in_hook = 1;
	causal_self.ctx.marker = CAUSAL_MARKER_INFRA;
	prctl(PR_SET_NAME, "causal-monitor");
	while (causal_running() && getpid() == causal_g.id.pid) {
		int fd = causal_g.cfg.coordinator_port && load_key() ? -1
								     : dial();

		if (fd >= 0) {
			int welcomed;

			atomic_store(&consumer_fd, fd);
			welcomed = session(fd);
			atomic_store(&consumer_fd, -1);
			close(fd);
			/* one that never welcomed us is not hammered */
			if (welcomed)
				backoff = 100;
			else if (backoff < 2000)
				backoff *= 2;
		} else if (backoff < 2000) {
			backoff *= 2;
		}
		pause_ms(backoff);
	}
	return NULL;
}

void causal_consumer_start(void)
{
	int fd = atomic_exchange(&consumer_fd, -1);
	sigset_t all, old;
	pthread_attr_t attr;
	pthread_t th;

	/* a fork child: the parent's connection is the parent's */
	if (fd >= 0)
		close(fd);
	if (!causal_g.cfg.coordinator[0])
		return; /* no coordinator: the start-up state stays */
	if (causal_g.cfg.coordinator_port && !causal_g.cfg.coordinator_key[0]) {
		/* over TCP only with the key (said once: not in children) */
		if (!said_key)
			causal_say("causal: CAUSAL_COORDINATOR='",
				   causal_g.cfg.coordinator,
				   "' is reached over TCP, which needs "
				   "CAUSAL_COORDINATOR_KEY (a key file "
				   "readable by its owner only): the "
				   "coordinator is not used",
				   NULL);
		said_key = 1;
		return;
	}
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	if (causal_real.pthread_create(&th, &attr, consumer_main, NULL))
		causal_say("causal: cannot start the monitoring consumer; the "
			   "monitoring state stays as it is",
			   NULL);
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}
