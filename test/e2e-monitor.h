/*
 * e2e-monitor.h - helpers of the selective-monitoring end-to-end suites
 * (check-e2e-monitor*.c), on top of e2e-rpc.h: demo-server and
 * demo-client with an environment of their own (CAUSAL_MONITOR,
 * CAUSAL_COORDINATOR), servers on simulated hosts (`unshare --uts`).
 */
#ifndef CAUSAL_TEST_E2E_MONITOR_H
#define CAUSAL_TEST_E2E_MONITOR_H

#include "e2e-rpc.h"

#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })
#define ENV(...) ((const char *const[]){ __VA_ARGS__, NULL })

/*
 * demo-server NAME, traced, with env ("NAME=value"..., NULL-terminated)
 * on top of the traced environment; host: under `unshare --uts` with that
 * hostname (NULL: this one).  Returns when it serves.
 */
E2E_FN void mon_server_start(struct e2e *t, struct rpc_server *s,
			     const char *name, const char *host,
			     const char *const env[], const char *const args[])
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

/* demo-client, traced with env; must exit with code.  *out: stdout. */
E2E_FN pid_t mon_client(struct e2e *t, const char *name,
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
	pid = e2e_spawn_traced(t, argv, env, outp, errp);
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

/* The text of a query's single value, "NULL" for NULL (static buffer). */
E2E_FN const char *mon_text(struct e2e *t, const char *sql)
{
	static char buf[4][256];
	static int next;
	char *b = buf[next++ % 4], *v = e2e_query_text(t->sql, "%s", sql);

	e2e_fmt(b, 256, "%s", v ? v : "NULL");
	free(v);
	return b;
}

#endif /* CAUSAL_TEST_E2E_MONITOR_H */
