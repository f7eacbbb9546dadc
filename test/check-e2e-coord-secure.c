/*
 * check-e2e-coord-secure.c - end to end: the coordinator (`causalctl
 * serve`) against the attacks of issue 40, with real sockets, a second
 * user (`nobody`, and users made up by number) and real traced processes:
 * another user's commands act on that user's processes alone and see
 * nothing else; TCP only with the key, which each side proves to the
 * other, so nothing recorded can be replayed; a port or a socket taken
 * first learns nothing and switches nothing; a flood of events is capped
 * by the process, what is dropped counted and said; idle and half-sent
 * connections go, no user takes every connection, fake processes do not
 * grow the coordinator.  And `--listen 127.0.0.1:0` (issue 35).
 */
#include <grp.h>
#include <poll.h>
#include <sys/un.h>

#include "causal/monitor-proto.h"
#include "e2e-monitor.h"
#include "tool-run.h"

#define NOBODY 65534

/* The test's directories open to other users: nobody's logs in dir/nobody. */
static void open_dirs(struct e2e *t, char *nobody, size_t size)
{
	ck_assert_int_eq(chmod(e2e_root, 0711), 0);
	ck_assert_int_eq(chmod(t->dir, 0711), 0);
	e2e_fmt(nobody, size, "%s/nobody", t->dir);
	ck_assert_int_eq(mkdir(nobody, 0700), 0);
	ck_assert_int_eq(chown(nobody, NOBODY, NOBODY), 0);
}

/* argv as user uid (setpriv, killed with the test), env added. */
static pid_t spawn_as(unsigned uid, const char *const argv[],
		      const char *const env[], const char *out, const char *err)
{
	static char ru[32], rg[32];
	const char *a[48] = { "/usr/bin/setpriv", ru, rg, "--clear-groups",
			      "--pdeathsig=KILL" };
	int n = 5;

	e2e_fmt(ru, sizeof(ru), "--reuid=%u", uid);
	e2e_fmt(rg, sizeof(rg), "--regid=%u", uid);
	for (int i = 0; argv[i] && n < 47; i++)
		a[n++] = argv[i];
	a[n] = NULL;
	return e2e_spawn(a, env, out, err);
}

/* causalctl ARGS as uid (0: root, as is) with env; it must exit with
 * code; its stdout and stderr (malloc'ed). */
static char *ctl(struct e2e *t, unsigned uid, const char *const env[], int code,
		 const char *const args[])
{
	char path[PATH_MAX], out[PATH_MAX];
	const char *argv[16] = { path };
	int n = 1, status;

	/* a copy another user can reach, wherever the build is */
	e2e_fmt(path, sizeof(path), "%s",
		uid ? e2e_reachable(t, tool_path("causalctl"))
		    : tool_path("causalctl"));
	e2e_fmt(out, sizeof(out), "%s/ctl-as.out", t->dir);
	for (int i = 0; args[i] && n < 15; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	status = e2e_wait(uid ? spawn_as(uid, argv, env, out, out)
			      : e2e_spawn(argv, env, out, out));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != code)
		ck_abort_msg("causalctl %s as %u: status 0x%x, expected exit "
			     "%d: %s",
			     args[0], uid, status, code, e2e_slurp(out, NULL));
	return e2e_slurp(out, NULL);
}

/* demo-server traced as nobody (CAUSAL_COORDINATOR=local), its logs and
 * ready file in dir; returns once it serves. */
static void server_as_nobody(struct e2e *t, struct rpc_server *s,
			     const char *dir)
{
	static char preload[PATH_MAX], logs[PATH_MAX], prog[PATH_MAX];
	const char *argv[] = { "/usr/bin/env", preload, logs,	  MON_COORD,
			       prog,	       "-r",	s->ready, NULL };
	char *text;

	memset(s, 0, sizeof(*s));
	e2e_fmt(s->name, sizeof(s->name), "nobody's server");
	e2e_fmt(s->out, sizeof(s->out), "%s/b.out", t->dir);
	e2e_fmt(s->err, sizeof(s->err), "%s/b.err", t->dir);
	e2e_fmt(s->ready, sizeof(s->ready), "%s/b.ready", dir);
	/* copies nobody can reach, wherever the build is */
	e2e_fmt(prog, sizeof(prog), "%s",
		e2e_reachable(t, rpc_prog("demo-server")));
	e2e_fmt(preload, sizeof(preload), "LD_PRELOAD=%s",
		e2e_reachable(t, tool_path("libcausal.so")));
	e2e_fmt(logs, sizeof(logs), "CAUSAL_LOG_DIR=%s", dir);
	s->pid = spawn_as(NOBODY, argv, NULL, s->out, s->err);
	rpc_wait_file(s->ready, s->pid);
	text = e2e_slurp(s->ready, NULL);
	ck_assert(sscanf(text, "pid %d tcp %d udp %d", &s->server_pid, &s->tcp,
			 &s->udp) == 3);
	free(text);
}

/* The switches process pid logged, "EVENT:KIND ..." in order. */
static const char *switches(struct e2e *t, int pid)
{
	return mon_text(t, rpc_q("SELECT group_concat(event || ':' || kind, "
				 "' ') FROM (SELECT * FROM monitor_switches "
				 "WHERE proc_id = %lld ORDER BY seq)",
				 e2e_proc(t, pid)));
}

/* A TCP connection to 127.0.0.1:port, or -1. */
static int tcp_dial(int port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons((uint16_t)port) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Everything fd sends until it hangs up (30 s at most; malloc'ed). */
static char *drain(int fd)
{
	static char buf[1 << 16];
	size_t n = 0;

	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t got;

		ck_assert_msg(poll(&pfd, 1, 30000) == 1, "the peer hangs on");
		got = read(fd, buf + n, sizeof(buf) - 1 - n);
		if (got <= 0)
			break;
		n += (size_t)got;
	}
	buf[n] = '\0';
	close(fd);
	return strdup(buf);
}

/* A second coordinator port from the ready file. */
static int ready_port(struct e2e *t)
{
	char *text = e2e_slurp(rpc_q("%s/coord.ready", t->dir), NULL);
	const char *p = strstr(text, "port ");
	int port = p ? atoi(p + 5) : 0;

	ck_assert_msg(port > 0, "no port in the ready file: %s", text);
	free(text);
	return port;
}

/*
 * Another user on the Unix socket: nobody's `on locks` and `select * * *
 * off` reach nobody's process alone, nobody's status shows only it;
 * root's commands reach and see both.  Without --listen nothing listens
 * on TCP.
 */
START_TEST(test_second_user_acts_on_its_own)
{
	struct rpc_server a, b;
	struct e2e t, u;
	char nd[PATH_MAX], *text;
	pid_t coord;

	rpc_isolate();
	e2e_init(&t);
	open_dirs(&t, nd, sizeof(nd));
	coord = mon_coord_start(&t, NULL);
	ck_assert_int_eq(tcp_dial(CAUSAL_MON_DEFAULT_PORT), -1);
	mon_server_start(&t, &a, "a", NULL, ENV(MON_COORD), NULL);
	server_as_nobody(&t, &b, nd);
	mon_wait_connected(&t, 2);

	free(ctl(&t, NOBODY, NULL, 0, ARGS("on", "locks")));
	free(ctl(&t, NOBODY, NULL, 0, ARGS("select", "*", "*", "*", "off")));
	text = ctl(&t, NOBODY, NULL, 0, ARGS("status", "--wait", "30"));
	ck_assert_msg(strstr(text, rpc_q(" %d  65534 ", b.server_pid)) &&
			      !strstr(text, rpc_q(" %d ", a.server_pid)) &&
			      strstr(text, "state reached: 1 connected process "
					   "applied event 2 (1 ever "
					   "connected)"),
		      "%s", text);
	free(text);
	text = mon_ctl(&t, 0, ARGS("status", "--wait", "30"));
	ck_assert_msg(
		strstr(text, rpc_q(" %d      0 ", a.server_pid)) &&
			strstr(text, rpc_q(" %d  65534 ", b.server_pid)) &&
			strstr(text, "state reached: 2 connected "
				     "processes applied event 2"),
		"%s", text);
	free(text);
	/* root's reach everyone */
	mon_publish(&t, ARGS("off", "memory"));
	rpc_server_stop(&a);
	rpc_server_stop(&b);
	kill(coord, SIGTERM);
	e2e_assert_exit(e2e_wait(coord), 0, "causalctl serve");
	e2e_merge(&t);
	ck_assert_str_eq(switches(&t, a.server_pid), "0:initial 3:off");
	u = t;
	e2e_fmt(u.logs, sizeof(u.logs), "%s", nd);
	e2e_fmt(u.db, sizeof(u.db), "%s/trace.db", nd);
	u.sql = NULL;
	e2e_merge(&u);
	ck_assert_str_eq(switches(&u, b.server_pid),
			 "0:initial 1:on 2:select 3:off");
	sqlite3_close(u.sql);
	e2e_release(&t);
}
END_TEST

/*
 * A recorded client session: the test relays causalctl's connection to
 * the coordinator and keeps what causalctl sent, for a replay.
 */
static char *relay(int lfd, int port, size_t *len)
{
	static char kept[8192];
	int c = mon_accept(lfd), s = tcp_dial(port), open = 2;

	*len = 0;
	ck_assert(s >= 0);
	while (open) {
		struct pollfd pfd[2] = { { .fd = c, .events = POLLIN },
					 { .fd = s, .events = POLLIN } };
		char buf[4096];
		ssize_t n;

		ck_assert_msg(poll(pfd, 2, 30000) > 0, "the relay hangs");
		for (int k = 0; k < 2; k++) {
			if (!pfd[k].revents)
				continue;
			n = read(k ? s : c, buf, sizeof(buf));
			if (n <= 0) {
				shutdown(k ? c : s, SHUT_WR);
				pfd[k].fd = -1;
				open = 0;
				continue;
			}
			if (!k && *len + (size_t)n < sizeof(kept)) {
				memcpy(kept + *len, buf, (size_t)n);
				*len += (size_t)n;
			}
			ck_assert(write(k ? c : s, buf, (size_t)n) == n);
		}
	}
	close(c);
	close(s);
	return kept;
}

/*
 * TCP: without the key nothing is published or read, a forged line is
 * hung up on, a recorded session replayed publishes nothing; causalctl
 * without the key, or with another one, says so.  A process connected
 * with the key follows.
 */
START_TEST(test_tcp_peers_prove_the_key)
{
	struct rpc_server a;
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sin);
	struct e2e t;
	char coordinator[64], *text, *kept, other[PATH_MAX],
		env_other[PATH_MAX + 32];
	int port, lfd, fd, one = 1;
	size_t len;
	pid_t coord, c;

	rpc_isolate();
	e2e_init(&t);
	coord = mon_coord_start(&t, "127.0.0.1:0");
	port = ready_port(&t);
	e2e_fmt(coordinator, sizeof(coordinator),
		"CAUSAL_COORDINATOR=127.0.0.1:%d", port);
	mon_server_start(&t, &a, "a", NULL, ENV(coordinator, mon_key_env(&t)),
			 NULL);
	mon_wait_connected(&t, 1);
	text = mon_ctl(&t, 0, ARGS("status"));
	ck_assert_msg(strstr(text, rpc_q(" %d      - ", a.server_pid)), "%s",
		      text);
	free(text);

	/* no key: an old peer's requests, then a forged line */
	fd = tcp_dial(port);
	mon_send(fd, "PUBLISH on locks\n");
	text = drain(fd);
	ck_assert_str_eq(text, "ERR protocol 2 needed: prove the key of "
			       "CAUSAL_COORDINATOR_KEY\n");
	free(text);
	fd = tcp_dial(port);
	mon_send(fd, "STATUS\n");
	text = drain(fd);
	ck_assert_msg(!strstr(text, "PROC") && !strncmp(text, "ERR ", 4), "%s",
		      text);
	free(text);
	fd = tcp_dial(port);
	mon_send(fd, "AUTH 2 00112233445566778899aabbccddeeff\n");
	ck_assert_int_eq(strlen(mon_line(fd)), 64 + 1 + 7 + 32);
	mon_send(fd, "0000000000000000000000000000000000000000000000000000"
		     "000000000000 PUBLISH on locks\n");
	text = drain(fd);
	ck_assert_str_eq(text, "");
	free(text);
	/* causalctl without the key, with another */
	e2e_fmt(coordinator, sizeof(coordinator), "--coordinator=127.0.0.1:%d",
		port);
	text = ctl(&t, 0, ENV("CAUSAL_COORDINATOR_KEY="), 2,
		   ARGS("on", "locks", coordinator));
	ck_assert_msg(strstr(text, "set CAUSAL_COORDINATOR_KEY to its key "
				   "file"),
		      "%s", text);
	free(text);
	e2e_fmt(other, sizeof(other), "%s/other.key", t.dir);
	fd = open(other, O_WRONLY | O_CREAT, 0600);
	ck_assert(write(fd, "another key of more than 16 bytes", 33) == 33);
	close(fd);
	e2e_fmt(env_other, sizeof(env_other), "CAUSAL_COORDINATOR_KEY=%s",
		other);
	text = ctl(&t, 0, ENV(env_other), 1, ARGS("on", "locks", coordinator));
	ck_assert_msg(strstr(text, "did not prove the key of "
				   "CAUSAL_COORDINATOR_KEY: not asked"),
		      "%s", text);
	free(text);

	/* a session recorded on the way, then replayed */
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert(!bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) &&
		  !listen(lfd, 4) &&
		  !getsockname(lfd, (struct sockaddr *)&sin, &sl));
	e2e_fmt(coordinator, sizeof(coordinator), "--coordinator=127.0.0.1:%u",
		(unsigned)ntohs(sin.sin_port));
	{
		char ctlp[PATH_MAX];
		const char *argv[] = { ctlp, "on", "cpu", coordinator, NULL };

		e2e_fmt(ctlp, sizeof(ctlp), "%s/causalctl", e2e_build());
		c = e2e_spawn(argv, ENV(mon_key_env(&t)),
			      rpc_q("%s/rec.out", t.dir), NULL);
	}
	kept = relay(lfd, port, &len);
	e2e_assert_exit(e2e_wait(c), 0, "causalctl on cpu, relayed");
	close(lfd);
	ck_assert_msg(memmem(kept, len, " PUBLISH on cpu\n", 16),
		      "not recorded: %.*s", (int)len, kept);
	fd = tcp_dial(port);
	ck_assert(write(fd, kept, len) == (ssize_t)len);
	text = drain(fd);
	ck_assert_msg(!strstr(text, " OK "), "%s", text);
	free(text);

	free(mon_ctl(&t, 0, ARGS("status", "--wait", "30")));
	text = mon_ctl(&t, 0, ARGS("status"));
	ck_assert_msg(strstr(text, "1 event published, 0 malformed messages "
				   "rejected, 4 requests denied"),
		      "%s", text);
	free(text);
	rpc_server_stop(&a);
	kill(coord, SIGTERM);
	e2e_assert_exit(e2e_wait(coord), 0, "causalctl serve");
	e2e_merge(&t);
	ck_assert_str_eq(switches(&t, a.server_pid), "0:initial 1:on");
	e2e_release(&t);
}
END_TEST

/* `serve` as asked, stopped; its stdout and stderr, and the exit code. */
static char *serve(struct e2e *t, const char *const env[], int code,
		   const char *const args[])
{
	char path[PATH_MAX], out[PATH_MAX], err[PATH_MAX], ready[PATH_MAX];
	const char *argv[16] = { path, "serve", "--ready", ready };
	char *text, *e;
	int n = 4;
	pid_t pid;

	e2e_fmt(path, sizeof(path), "%s/causalctl", e2e_build());
	e2e_fmt(out, sizeof(out), "%s/serve.out", t->dir);
	e2e_fmt(err, sizeof(err), "%s/serve.err", t->dir);
	e2e_fmt(ready, sizeof(ready), "%s/serve.ready", t->dir);
	unlink(ready);
	for (int i = 0; args[i] && n < 15; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	pid = e2e_spawn(argv, env, out, err);
	if (!code) {
		rpc_wait_file(ready, pid);
		kill(pid, SIGTERM);
	}
	e2e_assert_exit(e2e_wait(pid), code, "causalctl serve");
	text = e2e_slurp(out, NULL);
	e = e2e_slurp(err, NULL);
	text = realloc(text, strlen(text) + strlen(e) + 1);
	strcat(text, e);
	free(e);
	if (!code) {
		e = e2e_slurp(ready, NULL);
		ck_assert_msg(
			strstr(e, "socket /run/causal/coordinator.sock\n"),
			"%s", e);
		free(e);
	}
	return text;
}

/* The port `serve` printed for TCP, checked against its ready file. */
static int served_port(struct e2e *t, const char *text, const char *addr)
{
	char want[64],
		*ready = e2e_slurp(rpc_q("%s/serve.ready", t->dir), NULL);
	const char *p = strstr(ready, "port ");
	int port = p ? atoi(p + 5) : 0;

	ck_assert_msg(port > 0, "%s", ready);
	e2e_fmt(want, sizeof(want), "causalctl serve: on %s:%d (TCP", addr,
		port);
	ck_assert_msg(strstr(text, want), "no '%s' in %s", want, text);
	free(ready);
	return port;
}

/*
 * Where serve listens: the Unix socket alone by default; TCP on loopback
 * when given a port alone; port 0 with or without an address takes a free
 * port, printed and written (issue 35 item 7); another address warns; no
 * key, a bad one, a bad --listen or a busy socket are refused.
 */
START_TEST(test_listen_addresses)
{
	struct e2e t;
	char *text, key[PATH_MAX + 32], open_key[PATH_MAX];
	int fd;

	rpc_isolate();
	e2e_init(&t);
	text = serve(&t, NULL, 0, ARGS(NULL));
	ck_assert_str_eq(text, "causalctl serve: on "
			       "/run/causal/coordinator.sock\n");
	free(text);
	e2e_fmt(key, sizeof(key), "%s", mon_key_env(&t));
	text = serve(&t, ENV(key), 0, ARGS("--listen", "0"));
	served_port(&t, text, "127.0.0.1");
	free(text);
	text = serve(&t, ENV(key), 0, ARGS("--listen", "127.0.0.1:0"));
	served_port(&t, text, "127.0.0.1");
	ck_assert_msg(!strstr(text, "warning"), "%s", text);
	free(text);
	text = serve(&t, ENV(key), 0, ARGS("--listen", "0.0.0.0:0"));
	served_port(&t, text, "0.0.0.0");
	ck_assert_msg(strstr(text, "causalctl: warning: listening on 0.0.0.0:"),
		      "%s", text);
	free(text);
	text = serve(&t, ENV("CAUSAL_COORDINATOR_KEY="), 2,
		     ARGS("--listen", "127.0.0.1:0"));
	ck_assert_str_eq(text, "causalctl: error: --listen needs a key: set "
			       "CAUSAL_COORDINATOR_KEY to a file readable by "
			       "its owner only\n");
	free(text);
	text = serve(&t, ENV(key), 2, ARGS("--listen", "127.0.0.1:65536"));
	ck_assert_msg(strstr(text, "bad --listen '127.0.0.1:65536'"), "%s",
		      text);
	free(text);
	e2e_fmt(open_key, sizeof(open_key), "%s/open.key", t.dir);
	fd = open(open_key, O_WRONLY | O_CREAT, 0644);
	ck_assert(write(fd, "a key anyone may read, 32 bytes.", 32) == 32);
	close(fd);
	ck_assert_int_eq(chmod(open_key, 0644), 0);
	e2e_fmt(key, sizeof(key), "CAUSAL_COORDINATOR_KEY=%s", open_key);
	text = serve(&t, ENV(key), 1, ARGS("--listen", "0"));
	ck_assert_msg(strstr(text, "readable by others than its owner: chmod "
				   "600 it"),
		      "%s", text);
	free(text);
	/* a second coordinator on a socket in use */
	{
		pid_t first = mon_coord_start(&t, NULL);

		text = serve(&t, NULL, 1, ARGS(NULL));
		ck_assert_str_eq(text, "causalctl: error: a coordinator "
				       "already listens on "
				       "'/run/causal/coordinator.sock'\n");
		free(text);
		kill(first, SIGTERM);
		e2e_assert_exit(e2e_wait(first), 0, "causalctl serve");
	}
	e2e_release(&t);
}
END_TEST

/* As nobody: listen on path, send a coordinator's words to whoever comes
 * and exit 0 if it said nothing at all before hanging up. */
static pid_t impostor(const char *path)
{
	pid_t pid = fork();

	ck_assert(pid >= 0);
	if (pid == 0) {
		char buf[256];
		int lfd, fd;
		ssize_t n, total = 0;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
			_exit(2);
		lfd = mon_listen(path);
		fd = mon_accept(lfd);
		/* what the process does not wait to hear */
		n = send(fd, "WELCOME 2 feedfacefeedface\nEVENT 1 off cpu\n",
			 43, MSG_NOSIGNAL);
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			total += n;
		_exit(total ? 1 : 0);
	}
	return pid;
}

/*
 * Port 7350 taken first, a socket planted where a process is told to
 * look: the process says nothing to either but its challenge, applies
 * nothing, says so once, and runs on.
 */
START_TEST(test_impostors_learn_and_switch_nothing)
{
	struct rpc_server a, c;
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(CAUSAL_MON_DEFAULT_PORT) };
	char nd[PATH_MAX], evil[PATH_MAX + 32], forged[512], *err;
	const char *line;
	struct e2e t;
	int lfd, fd, one = 1;
	pid_t imp;

	rpc_isolate();
	e2e_init(&t);
	open_dirs(&t, nd, sizeof(nd));
	/* a coordinator of nobody's, on a socket path the process is given */
	e2e_fmt(evil, sizeof(evil), "%s/evil.sock", nd);
	imp = impostor(evil);
	rpc_wait_file(evil, imp);
	e2e_fmt(evil, sizeof(evil), "CAUSAL_COORDINATOR=%s/evil.sock", nd);
	mon_server_start(&t, &c, "c", NULL, ENV(evil), NULL);
	e2e_assert_exit(e2e_wait(imp), 0, "nobody's socket heard nothing");

	/* the port taken first: the test plays it, without the key */
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	ck_assert(!bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) &&
		  !listen(lfd, 8));
	mon_server_start(&t, &a, "a", NULL,
			 ENV("CAUSAL_COORDINATOR=127.0.0.1", mon_key_env(&t)),
			 NULL);
	fd = mon_accept(lfd);
	line = mon_line(fd);
	ck_assert_msg(!strncmp(line, "AUTH 2 ", 7) && strlen(line) == 39, "%s",
		      line);
	/* an answer that does not prove the key, then events */
	e2e_fmt(forged, sizeof(forged),
		"%064d AUTH 2 00112233445566778899aabbccddeeff\n"
		"WELCOME 2 feedfacefeedface\nEVENT 1 off cpu\n",
		0);
	mon_send(fd, forged);
	ck_assert_str_eq(mon_line(fd), "");
	close(fd);
	/* it comes back later; told in the clear, it hangs up again */
	fd = mon_accept(lfd);
	ck_assert_int_eq(strncmp(mon_line(fd), "AUTH 2 ", 7), 0);
	mon_send(fd, "WELCOME 2 feedfacefeedface\nEVENT 1 off cpu\n");
	ck_assert_str_eq(mon_line(fd), "");
	close(fd);
	close(lfd);

	rpc_client(&t, "client", 0, ARGS("-P", rpc_port(a.tcp), "say", "5"), 0,
		   NULL);
	rpc_server_stop(&a);
	rpc_server_stop(&c);
	err = e2e_slurp(a.err, NULL);
	ck_assert_str_eq(err, "causal: the coordinator at '127.0.0.1' does not "
			      "prove the key of CAUSAL_COORDINATOR_KEY: "
			      "nothing it sends is applied\n");
	free(err);
	err = e2e_slurp(c.err, NULL);
	ck_assert_msg(strstr(err, "evil.sock' runs as another user, neither "
				  "root nor this process's: nothing it sends "
				  "is applied\n") &&
			      !strchr(strchr(err, '\n') + 1, '\n'),
		      "%s", err);
	free(err);
	e2e_merge(&t);
	ck_assert_str_eq(switches(&t, a.server_pid), "0:initial");
	ck_assert_str_eq(switches(&t, c.server_pid), "0:initial");
	rpc_assert_calls(
		&t, rpc_q("server_proc_id = %lld", e2e_proc(&t, a.server_pid)),
		"server_mon = 'semantics|latency|cpu'", 1);
	e2e_release(&t);
}
END_TEST

static uint64_t ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/*
 * A flood of events from the (trusted) coordinator: the process applies
 * at most the burst and the rate, drops the rest, answers DROP for each
 * (the coordinator counts them) and says so once.
 */
START_TEST(test_event_flood_is_capped)
{
	enum { N = 2000 };
	struct rpc_server a;
	struct e2e t;
	unsigned long long dropped = 0;
	long long applied;
	uint64_t t0, elapsed;
	char *text, *err;
	const char *row;
	pid_t coord;

	rpc_isolate();
	e2e_init(&t);
	coord = mon_coord_start(&t, NULL);
	mon_server_start(&t, &a, "a", NULL, ENV(MON_COORD), NULL);
	mon_wait_connected(&t, 1);
	t0 = ms_now();
	for (int i = 0; i < N; i++) {
		int fd = mon_socket();

		mon_send(fd,
			 i % 2 ? "PUBLISH off locks\n" : "PUBLISH on locks\n");
		ck_assert_str_eq(mon_line(fd), rpc_q("OK %d", i + 1));
		close(fd);
	}
	text = mon_ctl(&t, 0, ARGS("status", "--wait", "60"));
	elapsed = ms_now() - t0;
	row = strstr(text, rpc_q(" %d ", a.server_pid));
	ck_assert_msg(
		row && sscanf(row, " %*d %*s %*d %*d %llu", &dropped) == 1 &&
			strstr(text, "state reached: 1 connected process "
				     "applied event 2000"),
		"%s", text);
	free(text);
	rpc_server_stop(&a);
	kill(coord, SIGTERM);
	e2e_assert_exit(e2e_wait(coord), 0, "causalctl serve");
	err = e2e_slurp(a.err, NULL);
	ck_assert_str_eq(err, "causal: the coordinator sends more events than "
			      "this process applies (128 at once, then 32 a "
			      "second): the others are dropped, counted by "
			      "`causalctl status`\n");
	free(err);
	e2e_merge(&t);
	applied = e2e_query_int(t.sql,
				"SELECT count(*) FROM monitor_switches WHERE "
				"proc_id = %lld AND event > 0",
				e2e_proc(&t, a.server_pid));
	/* every event applied or dropped, none lost; the cap held over the
	 * time the test itself measured */
	ck_assert_int_eq(applied + (long long)dropped, N);
	ck_assert_msg(
		dropped > 0 &&
			applied <= 128 + 32 * (long long)(elapsed / 1000 + 1),
		"applied %lld in %llu ms", applied,
		(unsigned long long)elapsed);
	e2e_release(&t);
}
END_TEST

/* What became of the connections a user held. */
struct held {
	int mine, total, idled, other;
};

/* As uid: n connections to the socket (the first half-sends a line), say
 * so on ready, then wait until the coordinator closes each; the tally on
 * out. */
static pid_t hold(unsigned uid, int n, int ready, int out)
{
	pid_t pid = fork();

	ck_assert(pid >= 0);
	if (pid == 0) {
		static int fds[256];
		struct held h = { 0 };
		uint64_t until;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (setgroups(0, NULL) || setgid(uid) || setuid(uid))
			_exit(2);
		for (int i = 0; i < n; i++)
			if ((fds[i] = mon_dial(NULL)) < 0)
				_exit(3);
		if (write(fds[0], "PUBLISH on", 10) != 10 ||
		    write(ready, "x", 1) != 1)
			_exit(4);
		until = ms_now() + 90000;
		for (int i = 0; i < n; i++) {
			char buf[128] = "";
			ssize_t got = 0;
			struct pollfd pfd = { .fd = fds[i], .events = POLLIN };

			while (ms_now() < until && poll(&pfd, 1, 1000) == 0)
				;
			got = read(fds[i], buf, sizeof(buf) - 1);
			if (got <= 0)
				h.idled++;
			else if (strstr(buf, "of yours"))
				h.mine++;
			else if (strstr(buf, "too many connections"))
				h.total++;
			else
				h.other++;
		}
		_exit(write(out, &h, sizeof(h)) == sizeof(h) ? 0 : 5);
	}
	return pid;
}

/*
 * 96 connections in all (the coordinator's open files limited to 128): a
 * user holds 24 at most, users together 90, the last 6 are root's.
 * Idle and half-sent connections are hung up on; root's commands and
 * processes get in while other users hold all they may.
 */
START_TEST(test_connection_limits)
{
	static const unsigned uids[] = { NOBODY, 65533, 65532, 65531 };
	static const int wants[] = { 40, 24, 24, 24 };
	struct rpc_server a;
	struct held h[4];
	int ready[2], out[4][2], total = 0;
	char ctlp[PATH_MAX], rd[PATH_MAX], *text;
	const char *argv[] = { "/usr/bin/prlimit",
			       "--nofile=128:128",
			       ctlp,
			       "serve",
			       "--ready",
			       rd,
			       NULL };
	struct e2e t;
	pid_t coord, pid[4];

	rpc_isolate();
	e2e_init(&t);
	e2e_fmt(ctlp, sizeof(ctlp), "%s/causalctl", e2e_build());
	e2e_fmt(rd, sizeof(rd), "%s/coord.ready", t.dir);
	coord = e2e_spawn(argv, NULL, rpc_q("%s/coord.out", t.dir),
			  rpc_q("%s/coord.err", t.dir));
	rpc_wait_file(rd, coord);
	ck_assert(pipe(ready) == 0);
	for (int i = 0; i < 4; i++) {
		char x;

		ck_assert(pipe(out[i]) == 0);
		pid[i] = hold(uids[i], wants[i], ready[1], out[i][1]);
		ck_assert(read(ready[0], &x, 1) == 1);
	}
	/* every user holding what it may: root still gets in */
	text = mon_ctl(&t, 0, ARGS("status"));
	ck_assert_msg(strstr(text, "22 connections cut by a limit"), "%s",
		      text);
	free(text);
	mon_server_start(&t, &a, "a", NULL, ENV(MON_COORD), NULL);
	mon_wait_connected(&t, 1);
	for (int i = 0; i < 4; i++) {
		e2e_assert_exit(e2e_wait(pid[i]), 0, "a user's connections");
		ck_assert(read(out[i][0], &h[i], sizeof(h[i])) == sizeof(h[i]));
		ck_assert_int_eq(h[i].other, 0);
		total += h[i].total;
	}
	/* nobody: 24 held until idle (one half-sent), 16 refused at once */
	ck_assert_int_eq(h[0].mine, 16);
	ck_assert_int_eq(h[0].idled, 24);
	ck_assert_int_eq(h[0].total, 0);
	/* the others: 72 more, of which 66 fit under 90 */
	ck_assert_int_eq(total, 6);
	ck_assert_int_eq(h[1].idled + h[2].idled + h[3].idled, 66);
	/* and the process is still connected */
	text = mon_ctl(&t, 0, ARGS("status"));
	ck_assert_msg(strstr(text, "112 connections cut by a limit") &&
			      strstr(text, "state reached: 1 connected"),
		      "%s", text);
	free(text);
	rpc_server_stop(&a);
	kill(coord, SIGTERM);
	e2e_assert_exit(e2e_wait(coord), 0, "causalctl serve");
	e2e_release(&t);
}
END_TEST

/* The uuid in the name of pid's log (HOST.PID.UUID.clog). */
static const char *log_uuid(struct e2e *t, int pid)
{
	static char uuid[33];
	char mid[32];
	struct dirent *d;
	DIR *dir = opendir(t->logs);

	ck_assert(dir);
	e2e_fmt(mid, sizeof(mid), ".%d.", pid);
	uuid[0] = '\0';
	while ((d = readdir(dir)))
		if (strstr(d->d_name, mid) && strlen(d->d_name) > 38)
			e2e_fmt(uuid, sizeof(uuid), "%.32s",
				strstr(d->d_name, mid) + strlen(mid));
	closedir(dir);
	ck_assert_msg(strlen(uuid) == 32, "no log of %d", pid);
	return uuid;
}

static long rss_kb(pid_t pid)
{
	char *text = e2e_slurp(rpc_q("/proc/%d/status", (int)pid), NULL);
	const char *p = strstr(text, "VmRSS:");
	long kb = p ? atol(p + 6) : -1;

	free(text);
	return kb;
}

/*
 * 20,000 fake HELLOs from another user: a user's processes fill a
 * quarter of the table at most, its gone ones recycled; STATUS and the
 * coordinator's memory stay bounded; a fake HELLO naming root's process
 * is refused.
 */
START_TEST(test_fake_hellos_are_bounded)
{
	enum { N = 20000 };
	struct rpc_server a;
	char uuid[33], *text;
	struct e2e t;
	long rss0, rss1;
	pid_t coord, pid;
	int status, n = 0;

	rpc_isolate();
	e2e_init(&t);
	coord = mon_coord_start(&t, NULL);
	mon_server_start(&t, &a, "a", NULL, ENV(MON_COORD), NULL);
	mon_wait_connected(&t, 1);
	e2e_fmt(uuid, sizeof(uuid), "%s", log_uuid(&t, a.server_pid));
	rss0 = rss_kb(coord);
	pid = fork();
	ck_assert(pid >= 0);
	if (pid == 0) {
		char hello[256];
		int fd;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
			_exit(2);
		/* root's process, claimed */
		fd = mon_socket();
		e2e_fmt(hello, sizeof(hello),
			"HELLO 2 %s fake 1 - 0 /fake/exe\n", uuid);
		mon_send(fd, hello);
		if (strcmp(mon_line(fd), "ERR that process is another user's"))
			_exit(3);
		close(fd);
		for (int i = 0; i < N; i++) {
			fd = mon_socket();
			e2e_fmt(hello, sizeof(hello),
				"HELLO 2 %032x fake %d - 0 /fake/exe\n", i, i);
			mon_send(fd, hello);
			close(fd);
		}
		_exit(0);
	}
	ck_assert(waitpid(pid, &status, 0) == pid);
	e2e_assert_exit(status, 0, "nobody's HELLOs");
	/* every HELLO taken before the count */
	for (int i = 0;; i++) {
		text = mon_ctl(&t, 0, ARGS("status"));
		n = 0;
		for (const char *p = text; (p = strstr(p, " 65534 ")); p++)
			n++;
		if (strstr(text, "state reached: 1 connected") || i > 300)
			break;
		free(text);
		e2e_sleep_ms(100);
	}
	ck_assert_int_eq(n, 1024);
	ck_assert_msg(strstr(text, rpc_q(" %d      0 ", a.server_pid)), "%s",
		      text);
	ck_assert_msg(strlen(text) < 1100 * 160, "status of %zu bytes",
		      strlen(text));
	free(text);
	rss1 = rss_kb(coord);
	ck_assert_msg(rss0 > 0 && rss1 - rss0 < 8192,
		      "the coordinator grew from %ld to %ld kB", rss0, rss1);
	rpc_server_stop(&a);
	kill(coord, SIGTERM);
	e2e_assert_exit(e2e_wait(coord), 0, "causalctl serve");
	e2e_release(&t);
}
END_TEST

Suite *e2e_coord_secure_suite(void)
{
	Suite *s = suite_create("e2e-coord-secure");
	TCase *tc = tcase_create("e2e-coord-secure");

	tcase_set_timeout(tc, E2E_TIMEOUT);
	e2e_add_fixture(tc);
	tcase_add_test(tc, test_second_user_acts_on_its_own);
	tcase_add_test(tc, test_tcp_peers_prove_the_key);
	tcase_add_test(tc, test_listen_addresses);
	tcase_add_test(tc, test_impostors_learn_and_switch_nothing);
	tcase_add_test(tc, test_event_flood_is_capped);
	tcase_add_test(tc, test_connection_limits);
	tcase_add_test(tc, test_fake_hellos_are_bounded);
	suite_add_tcase(s, tc);
	return s;
}
