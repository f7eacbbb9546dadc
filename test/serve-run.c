/*
 * serve-run.c - `ccsg serve` as a real process, and raw HTTP requests
 * to it (serve-run.h).
 */
#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "json-read.h"
#include "json-valid.h"
#include "serve-run.h"
#include "tool-run.h"

void serve_start(struct server *s, const char *db, const char *change)
{
	const char *extra[3] = { "--change", change, NULL };

	serve_start_with(s, db, change ? extra : NULL);
}

void serve_start_with(struct server *s, const char *db,
		      const char *const *extra)
{
	const char *argv[16];
	int n = 0;
	char *text = NULL;

	argv[n++] = tool_path("ccsg");
	argv[n++] = "serve";
	argv[n++] = "--db";
	argv[n++] = db;
	argv[n++] = "--listen";
	argv[n++] = "127.0.0.1:0";
	for (size_t i = 0; extra && extra[i] && n < 15; i++)
		argv[n++] = extra[i];
	argv[n] = NULL;
	e2e_fmt(s->out, sizeof(s->out), "%s/serve.out", e2e_current->dir);
	e2e_fmt(s->err, sizeof(s->err), "%s/serve.err", e2e_current->dir);
	s->pid = e2e_spawn(argv, NULL, s->out, s->err);
	s->port = 0;
	for (int ms = 0; ms < TOOL_DEADLINE_S * 1000; ms += 20) {
		const char *u;
		int status;

		free(text);
		text = access(s->out, R_OK) ? NULL : e2e_slurp(s->out, NULL);
		if (text && (u = strstr(text, "http://127.0.0.1:")) &&
		    strchr(u, '\n')) {
			s->port = atoi(u + strlen("http://127.0.0.1:"));
			break;
		}
		if (waitpid(s->pid, &status, WNOHANG) == s->pid)
			ck_abort_msg("ccsg serve exited (0x%x): %s", status,
				     e2e_slurp(s->err, NULL));
		e2e_sleep_ms(20);
	}
	free(text);
	ck_assert_msg(s->port > 0, "ccsg serve printed no URL");
}

const char *browser_missing(void)
{
	if (access("/usr/bin/chromium", X_OK))
		return "chromium";
	if (access("/usr/bin/chromedriver", X_OK))
		return "chromium-driver";
	if (access("/usr/bin/python3", X_OK) ||
	    e2e_run_plain((const char *[]){ "/usr/bin/python3", "-c",
					    "import selenium", NULL },
			  NULL, NULL))
		return "python3-selenium";
	return NULL;
}

void browser_run(const struct server *s, const char *dir, const char *script,
		 const char *const *args)
{
	char url[64], path[PATH_MAX], shots[PATH_MAX], home[PATH_MAX];
	const char *argv[10] = { "/usr/bin/python3", path, url, shots };
	struct tool_out r;
	size_t n = 4;

	snprintf(url, sizeof(url), "http://127.0.0.1:%d/", s->port);
	e2e_fmt(path, sizeof(path), "%s/test/browser/%s",
		getenv("CAUSAL_SRC") ? getenv("CAUSAL_SRC") : ".", script);
	e2e_fmt(shots, sizeof(shots), "%s/browser", e2e_build());
	e2e_fmt(home, sizeof(home), "HOME=%s", dir);
	for (size_t i = 0; args && args[i] && n < 8; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	r = tool_run_env(argv, (const char *[]){ home, NULL },
			 2 * TOOL_DEADLINE_S);
	ck_assert_msg(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0,
		      "%s failed (screenshots in %s):\n%s%s", script, shots,
		      r.out, r.err);
	printf("%s", r.out);
	tool_out_release(&r);
}

int serve_stop(struct server *s, int sig)
{
	int status;

	ck_assert_int_eq(kill(s->pid, sig), 0);
	for (int ms = 0; ms < TOOL_DEADLINE_S * 1000; ms += 10) {
		if (waitpid(s->pid, &status, WNOHANG) == s->pid)
			return status;
		e2e_sleep_ms(10);
	}
	kill(s->pid, SIGKILL);
	waitpid(s->pid, &status, 0);
	ck_abort_msg("ccsg serve did not stop on signal %d", sig);
	return -1;
}

struct reply http_send(int port, const char *request, int lenient)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((uint16_t)port) };
	struct reply r = { 0, NULL };
	struct timeval tv = { TOOL_DEADLINE_S, 0 };
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap), *body;
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	ssize_t n;

	ck_assert_int_ge(fd, 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	ck_assert_msg(!connect(fd, (struct sockaddr *)&a, sizeof(a)),
		      "connect: %s", strerror(errno));
	ck_assert_int_eq(write(fd, request, strlen(request)),
			 (ssize_t)strlen(request));
	while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += (size_t)n;
		if (len + 1 == cap)
			ck_assert_ptr_nonnull(buf = realloc(buf, cap *= 2));
	}
	ck_assert_msg(n == 0 || (lenient && errno == ECONNRESET), "read: %s",
		      strerror(errno));
	close(fd);
	buf[len] = '\0';
	if (lenient && sscanf(buf, "HTTP/1.%*d %d", &r.status) != 1) {
		r.body = buf;
		return r;
	}
	ck_assert_msg(sscanf(buf, "HTTP/1.%*d %d", &r.status) == 1,
		      "no status line: '%.200s'", buf);
	body = strstr(buf, "\r\n\r\n");
	ck_assert_ptr_nonnull(body);
	r.body = strdup(body + 4);
	free(buf);
	return r;
}

struct reply http_with(int port, const char *method, const char *target,
		       const char *headers)
{
	char req[16384];

	snprintf(req, sizeof(req),
		 "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
		 "Content-Length: 0\r\n%s\r\n",
		 method, target, headers);
	return http_send(port, req, 0);
}

struct reply http(int port, const char *method, const char *target)
{
	return http_with(port, method, target, "");
}

struct jval *http_json(int port, const char *method, const char *target,
		       int status)
{
	struct reply r = http(port, method, target);
	struct jv v;
	const char *bad = json_invalid(r.body, &v);
	struct jval *doc;

	ck_assert_msg(r.status == status, "%s %s: status %d, not %d: %s",
		      method, target, r.status, status, r.body);
	ck_assert_msg(!bad, "%s %s: %s: %s", method, target, bad, r.body);
	doc = json_parse(r.body, target);
	free(r.body);
	return doc;
}
