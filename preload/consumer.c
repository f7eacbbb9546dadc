/*
 * consumer.c - the event consumer of the monitoring coordinator (Figure 9
 * of the monitoring paper): one infrastructure thread per process (never
 * traced, every signal blocked) that connects to CAUSAL_COORDINATOR,
 * pulls the events it publishes, applies them in order (monitor.c) and
 * acknowledges each (include/causal/monitor-proto.h).
 *
 * The program never waits for it: it runs beside the program's threads,
 * which only read the state it writes.  The coordinator is network
 * input: a malformed message is rejected and counted, never acted on; a
 * coordinator that is down, unreachable or restarted is retried with a
 * growing delay (0.1 s to 2 s) while the process keeps its last state.
 * Not a hook path: it may allocate (getaddrinfo).
 */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "causal/monitor-proto.h"
#include "internal.h"

static _Atomic int consumer_fd = -1; /* the connection, -1: none */
static char instance[24] = "-";	     /* the coordinator applied counts in */
static _Atomic uint64_t rejected;    /* malformed messages */

static void pause_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* A connected socket to the coordinator, or -1 (within about a second). */
static int dial(void)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC,
				  .ai_socktype = SOCK_STREAM };
	struct addrinfo *res;
	char port[8];
	int fd, err;

	snprintf(port, sizeof(port), "%u",
		 (unsigned)causal_g.cfg.coordinator_port);
	if (getaddrinfo(causal_g.cfg.coordinator, port, &hints, &res))
		return -1;
	fd = causal_mon_dial(res, 1000, &err);
	freeaddrinfo(res);
	return fd;
}

/* Send one line whole, or fail (the connection is then given up). */
static int send_line(int fd, const char *line)
{
	size_t len = strlen(line), done = 0;

	while (done < len) {
		struct pollfd pfd = { .fd = fd, .events = POLLOUT };
		ssize_t n = send(fd, line + done, len - done,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n > 0) {
			done += (size_t)n;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return -1;
		if (poll(&pfd, 1, 1000) != 1)
			return -1;
	}
	return 0;
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

static int hello(int fd)
{
	char line[CAUSAL_MON_LINE_MAX], uuid[2 * CAUSAL_UUID_LEN + 1], host[64],
		exe[256];

	causal_uuid_hex(causal_g.id.uuid, uuid);
	word(host, sizeof(host), causal_g.id.hostname);
	word(exe, sizeof(exe), causal_g.id.exe);
	snprintf(line, sizeof(line), "HELLO %d %s %s %d %s %llu %s\n",
		 CAUSAL_MON_PROTO_VERSION, uuid, host, (int)getpid(), instance,
		 (unsigned long long)atomic_load(&causal_mon.applied), exe);
	return send_line(fd, line);
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

/* One line from the coordinator; -1 to give the connection up. */
static int take_line(int fd, char *line, int *welcomed)
{
	char reply[64], *rest, *kind = causal_mon_kind(line, &rest);
	uint64_t seq, applied = atomic_load(&causal_mon.applied);

	if (!kind)
		goto malformed;
	if (!strcmp(kind, "WELCOME")) {
		char *v = causal_mon_field(&rest),
		     *id = causal_mon_field(&rest);

		if (*welcomed || !v || strcmp(v, "1") || !id || *rest ||
		    strlen(id) >= sizeof(instance))
			goto malformed;
		if (strcmp(id, instance)) {
			/* another coordinator: its events are numbered anew;
			 * the state stays what it is */
			snprintf(instance, sizeof(instance), "%s", id);
			atomic_store(&causal_mon.applied, 0);
		}
		*welcomed = 1;
		return 0;
	}
	if (!*welcomed || strcmp(kind, "EVENT") ||
	    causal_mon_u64(causal_mon_field(&rest), &seq))
		goto malformed;
	if (seq <= applied)
		return 0; /* had it already */
	if (seq != applied + 1) {
		/* the order is broken: start again from what was applied */
		atomic_fetch_add(&rejected, 1);
		return -1;
	}
	if (apply(seq, rest)) {
		/* skipped, in order: the next event is still seq + 1 */
		atomic_fetch_add(&rejected, 1);
		atomic_store(&causal_mon.applied, seq);
		snprintf(reply, sizeof(reply), "BAD %llu\n",
			 (unsigned long long)seq);
		return send_line(fd, reply);
	}
	snprintf(reply, sizeof(reply), "ACK %llu\n", (unsigned long long)seq);
	return send_line(fd, reply);
malformed:
	atomic_fetch_add(&rejected, 1);
	return -1;
}

/* Read and apply events until the connection ends or the process does. */
static void session(int fd)
{
	char buf[CAUSAL_MON_LINE_MAX + 1];
	size_t have = 0;
	int welcomed = 0;

	if (hello(fd))
		return;
	while (causal_running() && getpid() == causal_g.id.pid) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		char *nl;
		ssize_t n;
		int r = poll(&pfd, 1, 1000);

		if (r < 0 && errno != EINTR)
			return;
		if (r <= 0) {
			if (send_line(fd, "PING\n"))
				return;
			continue;
		}
		n = recv(fd, buf + have, sizeof(buf) - 1 - have, MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			return;
		if (n < 0)
			continue;
		have += (size_t)n;
		buf[have] = '\0';
		while ((nl = memchr(buf, '\n', have))) {
			size_t len = (size_t)(nl - buf) + 1;

			*nl = '\0';
			if (take_line(fd, buf, &welcomed))
				return;
			memmove(buf, buf + len, have - len);
			have -= len;
			buf[have] = '\0';
		}
		if (have == sizeof(buf) - 1) {
			/* a line longer than the protocol allows */
			atomic_fetch_add(&rejected, 1);
			return;
		}
	}
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
		int fd = dial();

		if (fd >= 0) {
			atomic_store(&consumer_fd, fd);
			session(fd);
			atomic_store(&consumer_fd, -1);
			close(fd);
			backoff = 100;
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
