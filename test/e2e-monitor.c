/*
 * e2e-monitor.c - the helpers e2e-monitor.h declares, whose comments there are
 * their contract: compiled once and linked into the runner.
 */
#include <poll.h>
#include <sys/un.h>

#include "causal/monitor-proto.h"
#include "e2e-monitor.h"

void mon_server_start(struct e2e *t, struct rpc_server *s, const char *name,
		      const char *host, const char *const env[],
		      const char *const args[])
{
	static char script[PATH_MAX * 4 + 256];
	const char *argv[40];
	char *text;
	int n = 0;

	memset(s, 0, sizeof(*s));
	e2e_fmt(s->name, sizeof(s->name), "%s", name);
	e2e_fmt(s->out, sizeof(s->out), "%s/%s.out", t->dir, name);
	e2e_fmt(s->err, sizeof(s->err), "%s/%s.err", t->dir, name);
	e2e_fmt(s->ready, sizeof(s->ready), "%s/%s.ready", t->dir, name);
	if (host) {
		size_t len;

		e2e_fmt(script, sizeof(script),
			"hostname %s && exec env LD_PRELOAD=%s/libcausal.so "
			"CAUSAL_LOG_DIR=%s",
			host, e2e_build(), t->logs);
		for (int i = 0; env && env[i]; i++) {
			len = strlen(script);
			e2e_fmt(script + len, sizeof(script) - len, " '%s'",
				env[i]);
		}
		len = strlen(script);
		e2e_fmt(script + len, sizeof(script) - len, " \"$@\"");
		argv[n++] = "/usr/bin/unshare";
		argv[n++] = "--uts";
		argv[n++] = "/bin/sh";
		argv[n++] = "-c";
		argv[n++] = script;
		argv[n++] = "demo-server";
	}
	argv[n++] = rpc_prog("demo-server");
	argv[n++] = "-r";
	argv[n++] = s->ready;
	for (int i = 0; args && args[i] && n < 39; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	if (host)
		s->pid = e2e_spawn(argv, NULL, s->out, s->err);
	else
		s->pid = e2e_spawn_traced(t, argv, env, s->out, s->err);
	rpc_wait_file(s->ready, s->pid);
	text = e2e_slurp(s->ready, NULL);
	ck_assert_msg(sscanf(text, "pid %d tcp %d udp %d", &s->server_pid,
			     &s->tcp, &s->udp) == 3,
		      "%s: bad ready file: %s", name, text);
	free(text);
}

pid_t mon_client(struct e2e *t, const char *name, const char *const env[],
		 const char *const args[], int code, char **out)
{
	return rpc_client_env(t, name, 1, env, args, code, out);
}

const char *mon_text(struct e2e *t, const char *sql)
{
	static char buf[4][256];
	static int next;
	char *b = buf[next++ % 4], *v = e2e_query_text(t->sql, "%s", sql);

	e2e_fmt(b, 256, "%s", v ? v : "NULL");
	free(v);
	return b;
}

const char *mon_key(struct e2e *t)
{
	static char path[PATH_MAX];
	static const char key[] = "e2e coordinator key: 32 bytes at least";
	int fd;

	e2e_fmt(path, sizeof(path), "%s/coord.key", t->dir);
	if (access(path, F_OK) == 0)
		return path;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	ck_assert_msg(fd >= 0, "%s: %s", path, strerror(errno));
	ck_assert(write(fd, key, sizeof(key) - 1) == (ssize_t)sizeof(key) - 1);
	close(fd);
	return path;
}

const char *mon_key_env(struct e2e *t)
{
	static char env[PATH_MAX + 32];

	e2e_fmt(env, sizeof(env), "CAUSAL_COORDINATOR_KEY=%s", mon_key(t));
	return env;
}

pid_t mon_coord_start(struct e2e *t, const char *port)
{
	char ctl[PATH_MAX], listen[64], ready[PATH_MAX], out[PATH_MAX],
		err[PATH_MAX];
	const char *argv[] = {
		ctl,	"serve", "--ready", ready, port ? "--listen" : NULL,
		listen, NULL
	};
	pid_t pid;

	e2e_fmt(ctl, sizeof(ctl), "%s/causalctl", e2e_build());
	if (!port)
		listen[0] = '\0';
	else if (port[0] == ':')
		e2e_fmt(listen, sizeof(listen), "0.0.0.0%s", port);
	else if (strchr(port, ':'))
		e2e_fmt(listen, sizeof(listen), "%s", port);
	else
		e2e_fmt(listen, sizeof(listen), "127.0.0.1:%s", port);
	e2e_fmt(ready, sizeof(ready), "%s/coord.ready", t->dir);
	e2e_fmt(out, sizeof(out), "%s/coord.out", t->dir);
	e2e_fmt(err, sizeof(err), "%s/coord.err", t->dir);
	unlink(ready);
	pid = e2e_spawn(argv, port ? ENV(mon_key_env(t)) : NULL, out, err);
	rpc_wait_file(ready, pid);
	return pid;
}

char *mon_ctl(struct e2e *t, int code, const char *const args[])
{
	char ctl[PATH_MAX], out[PATH_MAX];
	const char *argv[16];
	int n = 0, status;

	e2e_fmt(ctl, sizeof(ctl), "%s/causalctl", e2e_build());
	e2e_fmt(out, sizeof(out), "%s/ctl.out", t->dir);
	argv[n++] = ctl;
	for (int i = 0; args[i] && n < 13; i++)
		argv[n++] = args[i];
	argv[n++] = "--coordinator=local";
	argv[n] = NULL;
	status = e2e_wait(e2e_spawn(argv, NULL, out, out));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != code)
		ck_abort_msg("causalctl %s: status 0x%x, expected exit %d: %s",
			     args[0], status, code, e2e_slurp(out, NULL));
	return e2e_slurp(out, NULL);
}

void mon_publish(struct e2e *t, const char *const args[])
{
	free(mon_ctl(t, 0, args));
	free(mon_ctl(t, 0, ARGS("status", "--wait", "30")));
}

void mon_wait_connected(struct e2e *t, int n)
{
	for (int i = 0;; i++) {
		char *text = mon_ctl(t, 0, ARGS("status"));
		const char *state = strstr(text, "state ");
		int got = -1;

		if (state &&
		    sscanf(state, "state reached: %d connected", &got) != 1)
			sscanf(state, "state not reached: %*d of %d", &got);
		free(text);
		if (got == n)
			return;
		ck_assert_msg(i < 300, "%d processes connected, expected %d",
			      got, n);
		e2e_sleep_ms(100);
	}
}

void mon_step(const char *path, int n, const char *cmd, pid_t client)
{
	char name[PATH_MAX], tmp[PATH_MAX];
	FILE *f;

	e2e_fmt(tmp, sizeof(tmp), "%s.tmp", path);
	e2e_fmt(name, sizeof(name), "%s.%d", path, n);
	f = fopen(tmp, "w");
	ck_assert(f && fprintf(f, "%s\n", cmd) > 0 && fclose(f) == 0);
	ck_assert(rename(tmp, name) == 0);
	if (strcmp(cmd, "stop")) {
		e2e_fmt(name, sizeof(name), "%s.%d.done", path, n);
		rpc_wait_file(name, client);
	}
}

pid_t mon_step_client(struct e2e *t, const char *name, const char *host,
		      int port, const char *const env[], char *path,
		      size_t size)
{
	static char script[PATH_MAX * 4 + 256];
	char outp[PATH_MAX], errp[PATH_MAX];
	const char *argv[8];
	size_t len;

	e2e_fmt(path, size, "%s/%s.step", t->dir, name);
	e2e_fmt(outp, sizeof(outp), "%s/%s.out", t->dir, name);
	e2e_fmt(errp, sizeof(errp), "%s/%s.err", t->dir, name);
	if (!host) {
		argv[0] = rpc_prog("demo-client");
		argv[1] = "-P";
		argv[2] = rpc_port(port);
		argv[3] = "steps";
		argv[4] = path;
		argv[5] = NULL;
		return e2e_spawn_traced(t, argv, env, outp, errp);
	}
	e2e_fmt(script, sizeof(script),
		"hostname %s && exec env LD_PRELOAD=%s/libcausal.so "
		"CAUSAL_LOG_DIR=%s",
		host, e2e_build(), t->logs);
	for (int i = 0; env && env[i]; i++) {
		len = strlen(script);
		e2e_fmt(script + len, sizeof(script) - len, " '%s'", env[i]);
	}
	len = strlen(script);
	e2e_fmt(script + len, sizeof(script) - len, " %s -P %d steps %s",
		rpc_prog("demo-client"), port, path);
	argv[0] = "/usr/bin/unshare";
	argv[1] = "--uts";
	argv[2] = "/bin/sh";
	argv[3] = "-c";
	argv[4] = script;
	argv[5] = NULL;
	return e2e_spawn(argv, NULL, outp, errp);
}

int mon_dial(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	e2e_fmt(sun.sun_path, sizeof(sun.sun_path), "%s",
		path ? path : CAUSAL_MON_SOCKET);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sun, sizeof(sun))) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

int mon_socket(void)
{
	int fd = mon_dial(NULL);

	ck_assert_msg(fd >= 0, "connect %s: %s", CAUSAL_MON_SOCKET,
		      strerror(errno));
	return fd;
}

int mon_listen(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (!path) {
		path = CAUSAL_MON_SOCKET;
		mkdir("/run/causal", 0755);
	}
	e2e_fmt(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	unlink(path);
	ck_assert_msg(fd >= 0 &&
			      !bind(fd, (struct sockaddr *)&sun, sizeof(sun)) &&
			      !listen(fd, 64),
		      "listen on %s: %s", path, strerror(errno));
	chmod(path, 0666);
	return fd;
}

int mon_accept(int lfd)
{
	struct pollfd pfd = { .fd = lfd, .events = POLLIN };
	int fd;

	ck_assert_msg(poll(&pfd, 1, 10000) == 1, "no consumer connected");
	fd = accept(lfd, NULL, NULL);
	ck_assert(fd >= 0);
	return fd;
}

const char *mon_line(int fd)
{
	static char line[1024];

	for (;;) {
		size_t n = 0;

		for (;;) {
			struct pollfd pfd = { .fd = fd, .events = POLLIN };
			char c;

			ck_assert_msg(poll(&pfd, 1, 10000) == 1,
				      "the peer said nothing");
			if (read(fd, &c, 1) != 1) {
				line[0] = '\0';
				return line;
			}
			if (c == '\n')
				break;
			ck_assert(n < sizeof(line) - 1);
			line[n++] = c;
		}
		line[n] = '\0';
		if (strcmp(line, "PING"))
			return line;
	}
}

void mon_send(int fd, const char *text)
{
	ck_assert(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
}
