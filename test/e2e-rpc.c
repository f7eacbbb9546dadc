/*
 * e2e-rpc.c - the helpers e2e-rpc.h declares, whose comments there are their
 * contract: compiled once and linked into the runner.
 */
#include "e2e-rpc.h"

void rpc_isolate(void)
{
	struct ifreq ifr = { 0 };
	int fd;

	ck_assert_msg(unshare(CLONE_NEWNET | CLONE_NEWNS) == 0,
		      "unshare(CLONE_NEWNET | CLONE_NEWNS): %s (root needed)",
		      strerror(errno));
	ck_assert_msg(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0,
		      "mount --make-rprivate /: %s", strerror(errno));
	ck_assert_msg(mount("tmpfs", "/run", "tmpfs", 0, "mode=0755") == 0,
		      "mount tmpfs /run: %s", strerror(errno));
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	ck_assert_msg(fd >= 0, "socket: %s", strerror(errno));
	strcpy(ifr.ifr_name, "lo");
	ck_assert_msg(ioctl(fd, SIOCGIFFLAGS, &ifr) == 0, "SIOCGIFFLAGS lo");
	ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
	ck_assert_msg(ioctl(fd, SIOCSIFFLAGS, &ifr) == 0, "cannot bring lo up");
	close(fd);
}

const char *rpc_prog(const char *name)
{
	static char paths[4][PATH_MAX];
	static int next;
	char *p = paths[next++ % 4];

	e2e_fmt(p, PATH_MAX, "%s/test/rpc/%s", e2e_build(), name);
	ck_assert_msg(access(p, X_OK) == 0, "'%s' is not built", p);
	return p;
}

void rpc_wait_file(const char *path, pid_t pid)
{
	for (int i = 0; access(path, F_OK); i++) {
		int status;

		ck_assert_msg(i < 3000, "'%s' did not appear", path);
		ck_assert_msg(!pid || waitpid(pid, &status, WNOHANG) == 0,
			      "the process writing '%s' ended (status 0x%x)",
			      path, status);
		e2e_sleep_ms(10);
	}
}

void rpc_server_start(struct e2e *t, struct rpc_server *s, const char *name,
		      int traced, const char *host, const char *const args[])
{
	rpc_server_start_prog(t, s, "demo-server", name, traced, host, args);
}

void rpc_server_start_prog(struct e2e *t, struct rpc_server *s,
			   const char *prog, const char *name, int traced,
			   const char *host, const char *const args[])
{
	const char *argv[40];
	char *text;
	int n = 0;

	memset(s, 0, sizeof(*s));
	e2e_fmt(s->name, sizeof(s->name), "%s", name);
	e2e_fmt(s->out, sizeof(s->out), "%s/%s.out", t->dir, name);
	e2e_fmt(s->err, sizeof(s->err), "%s/%s.err", t->dir, name);
	e2e_fmt(s->ready, sizeof(s->ready), "%s/%s.ready", t->dir, name);
	if (host) {
		/* hostname, then exec the server: only it is traced */
		static char script[PATH_MAX * 3 + 256], pre[PATH_MAX + 32],
			logs[PATH_MAX + 32];

		e2e_fmt(pre, sizeof(pre), "LD_PRELOAD=%s/libcausal.so",
			e2e_build());
		e2e_fmt(logs, sizeof(logs), "CAUSAL_LOG_DIR=%s", t->logs);
		e2e_fmt(script, sizeof(script),
			"hostname %s && exec env %s %s \"$@\"", host,
			traced ? pre : "", traced ? logs : "");
		argv[n++] = "/usr/bin/unshare";
		argv[n++] = "--uts";
		argv[n++] = "/bin/sh";
		argv[n++] = "-c";
		argv[n++] = script;
		argv[n++] = prog; /* $0; "$@" is what follows */
	}
	argv[n++] = rpc_prog(prog);
	argv[n++] = "-r";
	argv[n++] = s->ready;
	for (int i = 0; args && args[i] && n < 39; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	if (traced && !host)
		s->pid = e2e_spawn_traced(t, argv, NULL, s->out, s->err);
	else
		s->pid = e2e_spawn(argv, NULL, s->out, s->err);
	rpc_wait_file(s->ready, s->pid);
	text = e2e_slurp(s->ready, NULL);
	ck_assert_msg(sscanf(text, "pid %d tcp %d udp %d", &s->server_pid,
			     &s->tcp, &s->udp) == 3,
		      "%s: bad ready file: %s", name, text);
	free(text);
}

void rpc_server_stop(struct rpc_server *s)
{
	ck_assert_int_eq(kill(s->pid, SIGTERM), 0);
	e2e_assert_exit(e2e_wait(s->pid), 0, s->name);
	s->pid = 0;
}

void rpc_server_kill(struct rpc_server *s)
{
	if (s->pid > 0) {
		kill(s->pid, SIGKILL);
		e2e_wait(s->pid);
	}
	s->pid = 0;
}

long long rpc_server_proc(struct e2e *t, struct rpc_server *s)
{
	s->proc = e2e_proc(t, s->server_pid);
	return s->proc;
}

pid_t rpc_client_env(struct e2e *t, const char *name, int traced,
		     const char *const env[], const char *const args[],
		     int code, char **out)
{
	char outp[PATH_MAX], errp[PATH_MAX];
	const char *argv[40];
	int n = 0, status;
	pid_t pid;

	argv[n++] = rpc_prog("demo-client");
	for (int i = 0; args[i] && n < 39; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	e2e_fmt(outp, sizeof(outp), "%s/%s.out", t->dir, name);
	e2e_fmt(errp, sizeof(errp), "%s/%s.err", t->dir, name);
	if (traced)
		pid = e2e_spawn_traced(t, argv, env, outp, errp);
	else
		pid = e2e_spawn(argv, env, outp, errp);
	status = e2e_wait(pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != code) {
		char *o = e2e_slurp(outp, NULL), *e = e2e_slurp(errp, NULL);

		ck_abort_msg("client %s: status 0x%x, expected exit %d; "
			     "stdout: %s stderr: %s",
			     name, status, code, o, e);
	}
	if (out)
		*out = e2e_slurp(outp, NULL);
	return pid;
}

pid_t rpc_client(struct e2e *t, const char *name, int traced,
		 const char *const args[], int code, char **out)
{
	return rpc_client_env(t, name, traced, NULL, args, code, out);
}

const char *rpc_q(const char *fmt, ...)
{
	static char bufs[8][1024];
	static int next;
	char *b = bufs[next++ % 8];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(b, 1024, fmt, ap);
	va_end(ap);
	ck_assert(n >= 0 && n < 1024);
	return b;
}

const char *rpc_port(int port)
{
	static char bufs[8][16];
	static int next;
	char *b = bufs[next++ % 8];

	snprintf(b, 16, "%d", port);
	return b;
}

const char *rpc_line(const char *text, const char *prefix)
{
	static char line[512];
	size_t pl = strlen(prefix);

	for (const char *p = text; p && *p; p = strchr(p, '\n') + 1) {
		if (!strncmp(p, prefix, pl)) {
			size_t n = strcspn(p, "\n");

			ck_assert(n < sizeof(line));
			memcpy(line, p, n);
			line[n] = '\0';
			return line;
		}
		if (!strchr(p, '\n'))
			break;
	}
	ck_abort_msg("no line '%s...' in: %s", prefix, text);
	return NULL;
}

const char *rpc_head(const char *text, const char *prefix)
{
	char *line = (char *)rpc_line(text, prefix),
	     *tid = strstr(line, " tid ");

	if (tid)
		*tid = '\0';
	return line;
}

long long rpc_fact(const char *text, const char *prefix, const char *key)
{
	const char *line = rpc_line(text, prefix);
	char pat[64];
	const char *k;

	e2e_fmt(pat, sizeof(pat), " %s ", key);
	k = strstr(line, pat);
	ck_assert_msg(k, "no '%s' in '%s'", key, line);
	return atoll(k + strlen(pat));
}

void rpc_assert_calls(struct e2e *t, const char *where, const char *cond,
		      long long count)
{
	long long n = e2e_query_int(
		t->sql, "SELECT count(*) FROM rpc_calls WHERE %s", where);
	long long bad;

	if (count >= 0)
		ck_assert_msg(n == count, "%lld calls where %s, expected %lld",
			      n, where, count);
	else
		ck_assert_msg(n > 0, "no call where %s", where);
	bad = e2e_query_int(t->sql,
			    "SELECT count(*) FROM rpc_calls WHERE (%s) AND "
			    "NOT coalesce(%s, 0)",
			    where, cond);
	if (bad) {
		char *row = e2e_query_text(
			t->sql,
			"SELECT " RPC_ROW_TEXT " FROM rpc_calls WHERE (%s) AND "
			"NOT coalesce(%s, 0) ORDER BY call_id LIMIT 1",
			where, cond);

		ck_abort_msg("%lld of %lld calls where %s fail %s; first: %s",
			     bad, n, where, cond, row);
	}
}

long long rpc_call_id(struct e2e *t, const char *where)
{
	long long n = e2e_query_int(
		t->sql, "SELECT count(*) FROM rpc_calls WHERE %s", where);

	ck_assert_msg(n == 1, "%lld calls where %s, expected 1", n, where);
	return e2e_query_int(t->sql, "SELECT call_id FROM rpc_calls WHERE %s",
			     where);
}

long long rpc_col(struct e2e *t, long long id, const char *col)
{
	return e2e_query_int(t->sql,
			     "SELECT %s FROM rpc_calls WHERE call_id = %lld",
			     col, id);
}

char *rpc_col_text(struct e2e *t, long long id, const char *col)
{
	return e2e_query_text(t->sql,
			      "SELECT %s FROM rpc_calls WHERE call_id = %lld",
			      col, id);
}

void rpc_assert_text(struct e2e *t, long long id, const char *col,
		     const char *want)
{
	char *got = rpc_col_text(t, id, col);

	ck_assert_msg(got && !strcmp(got, want),
		      "call %lld: %s is %s, expected %s", id, col,
		      got ? got : "NULL", want);
	free(got);
}

void rpc_assert_nested(struct e2e *t, long long outer, long long inner)
{
	char *co = rpc_col_text(t, outer, "hex(chain)"),
	     *ci = rpc_col_text(t, inner, "hex(chain)");

	ck_assert_msg(co && ci && !strcmp(co, ci),
		      "nested call %lld in chain %s, its parent %lld in %s",
		      inner, ci ? ci : "NULL", outer, co ? co : "NULL");
	ck_assert_msg(rpc_col(t, inner, "stub_start_event") >
			      rpc_col(t, outer, "skel_start_event"),
		      "call %lld starts before its parent %lld's skeleton",
		      inner, outer);
	ck_assert_msg(rpc_col(t, inner, "stub_end_event") <
			      rpc_col(t, outer, "skel_end_event"),
		      "call %lld ends after its parent %lld's skeleton", inner,
		      outer);
	ck_assert_int_eq(rpc_col(t, inner, "client_proc_id"),
			 rpc_col(t, outer, "server_proc_id"));
	ck_assert_int_eq(rpc_col(t, inner, "client_tid"),
			 rpc_col(t, outer, "server_tid"));
	free(co);
	free(ci);
}

pid_t rpc_rpcbind_start_with(struct e2e *t, int traced, int rmtcalls)
{
	const char *argv[] = { "/usr/sbin/rpcbind", "-f", "-w",
			       rmtcalls ? "-r" : NULL, NULL };
	char out[PATH_MAX], err[PATH_MAX];
	pid_t pid;

	ck_assert_msg(access("/run/rpcbind.sock", F_OK) != 0,
		      "an rpcbind runs in the test's namespace");
	e2e_fmt(out, sizeof(out), "%s/rpcbind.out", t->dir);
	e2e_fmt(err, sizeof(err), "%s/rpcbind.err", t->dir);
	pid = traced ? e2e_spawn_traced(t, argv, NULL, out, err)
		     : e2e_spawn(argv, NULL, out, err);
	for (int i = 0;; i++) {
		struct sockaddr_in sin = { .sin_family = AF_INET,
					   .sin_port = htons(111) };
		int fd = socket(AF_INET, SOCK_STREAM, 0), ok, status;

		sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		ok = connect(fd, (struct sockaddr *)&sin, sizeof(sin)) == 0;
		close(fd);
		if (ok && access("/run/rpcbind.sock", F_OK) == 0)
			break;
		ck_assert_msg(waitpid(pid, &status, WNOHANG) == 0,
			      "rpcbind ended (status 0x%x): %s", status,
			      e2e_slurp(err, NULL));
		ck_assert_msg(i < 3000, "rpcbind did not start");
		e2e_sleep_ms(10);
	}
	return pid;
}

pid_t rpc_rpcbind_start(struct e2e *t, int traced)
{
	return rpc_rpcbind_start_with(t, traced, 0);
}

void rpc_broadcast_link(void)
{
	static const char *const cmds[][12] = {
		{ "/usr/sbin/ip", "link", "add", "cz0", "type", "veth", "peer",
		  "name", "cz1", NULL },
		{ "/usr/sbin/ip", "addr", "add", "10.77.0.1/24", "brd", "+",
		  "dev", "cz0", NULL },
		{ "/usr/sbin/ip", "link", "set", "cz0", "up", NULL },
		{ "/usr/sbin/ip", "link", "set", "cz1", "up", NULL },
	};

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		e2e_assert_exit(e2e_run_plain(cmds[i], NULL, NULL), 0,
				cmds[i][1]);
}

void rpc_rpcbind_stop(pid_t pid)
{
	int status;

	ck_assert_int_eq(kill(pid, SIGTERM), 0);
	status = e2e_wait(pid);
	ck_assert_msg(WIFEXITED(status), "rpcbind: status 0x%x", status);
}
