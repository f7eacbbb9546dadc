/*
 * tool-run.c - the helpers tool-run.h declares, whose comments there are their
 * contract: compiled once and linked into the runner.
 */
#include "tool-run.h"

void tool_out_release(struct tool_out *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}

struct tool_out tool_run_env(const char *const argv[],
			     const char *const env_add[], int deadline_s)
{
	struct e2e *t = e2e_current;
	char out[PATH_MAX], err[PATH_MAX];
	struct tool_out r = { 0 };
	pid_t pid, w;
	int ms = 0;

	ck_assert_msg(t, "tool_run: e2e_init() first");
	e2e_fmt(out, sizeof(out), "%s/tool.out", t->dir);
	e2e_fmt(err, sizeof(err), "%s/tool.err", t->dir);
	pid = e2e_spawn(argv, env_add, out, err);
	while ((w = waitpid(pid, &r.status, WNOHANG)) == 0 &&
	       ms < deadline_s * 1000) {
		e2e_sleep_ms(10);
		ms += 10;
	}
	if (w == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &r.status, 0);
		ck_abort_msg("'%s %s' still running after %d s: killed",
			     argv[0], argv[1] ? argv[1] : "", deadline_s);
	}
	ck_assert_msg(w == pid, "waitpid: %s", strerror(errno));
	r.out = e2e_slurp(out, NULL);
	r.err = e2e_slurp(err, NULL);
	return r;
}

struct tool_out tool_run(const char *const argv[])
{
	return tool_run_env(argv, NULL, TOOL_DEADLINE_S);
}

const char *tool_path(const char *name)
{
	static char paths[4][PATH_MAX];
	static int next;
	char *p = paths[next++ % 4];

	e2e_fmt(p, PATH_MAX, "%s/%s", e2e_build(), name);
	ck_assert_msg(access(p, X_OK) == 0, "'%s' is not built", p);
	return p;
}

size_t tool_lines(char *s, char **lines, size_t max)
{
	size_t n = 0;

	while (*s && n < max) {
		lines[n++] = s;
		s += strcspn(s, "\n");
		if (*s)
			*s++ = '\0';
	}
	return n;
}
