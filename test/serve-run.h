/*
 * serve-run.h - `ccsg serve` as a real process for the suites serve and
 * e2e-viewer-attack: started on a private port of 127.0.0.1 over a trace
 * database, asked over raw HTTP/1.1, stopped by its PID.
 */
#ifndef CAUSAL_TEST_SERVE_RUN_H
#define CAUSAL_TEST_SERVE_RUN_H

#include <limits.h>
#include <sys/types.h>

struct server {
	pid_t pid;
	int port;
	char out[PATH_MAX], err[PATH_MAX];
};

/* Start `ccsg serve --db db [--change change] --listen 127.0.0.1:0` in
 * the test's directory and wait for its URL. */
void serve_start(struct server *s, const char *db, const char *change);
/* The same with the options extra (NULL-terminated, at most 9; or NULL)
 * after --listen. */
void serve_start_with(struct server *s, const char *db,
		      const char *const *extra);
/* Send sig (SIGTERM, SIGINT): the exit status. */
int serve_stop(struct server *s, int sig);

/* What is missing of the browser tests' packages (chromium,
 * chromium-driver, python3-selenium), or NULL. */
const char *browser_missing(void);
/* Run test/browser/SCRIPT URL build/browser [ARGS...] (args
 * NULL-terminated, at most 4, or NULL) on s's page, HOME in dir: what it
 * printed is printed; a non-zero exit fails the test. */
void browser_run(const struct server *s, const char *dir, const char *script,
		 const char *const *args);

struct reply {
	int status;
	char *body; /* malloc'd */
};

/* One raw request (the request line and headers as given); lenient: a
 * connection closed without an answer is status 0. */
struct reply http_send(int port, const char *request, int lenient);
/* method target, with Host: 127.0.0.1 and Connection: close; headers
 * (each "Name: value\r\n", or "") added. */
struct reply http_with(int port, const char *method, const char *target,
		       const char *headers);
struct reply http(int port, const char *method, const char *target);

/* An API answer: method target answered with status (else the test
 * fails), its body valid JSON, parsed (json_free() it). */
struct jval *http_json(int port, const char *method, const char *target,
		       int status);

#endif
