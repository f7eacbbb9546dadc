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
void mon_server_start(struct e2e *t, struct rpc_server *s, const char *name,
		      const char *host, const char *const env[],
		      const char *const args[]);

/* demo-client, traced with env; must exit with code.  *out: stdout. */
pid_t mon_client(struct e2e *t, const char *name, const char *const env[],
		 const char *const args[], int code, char **out);

/* The text of a query's single value, "NULL" for NULL (static buffer). */
const char *mon_text(struct e2e *t, const char *sql);

/* ---- the coordinator ---------------------------------------------------- */

#define MON_PORT "7350"
/* the coordinator of this host, on its Unix socket (rpc_isolate() gives
 * each test a /run of its own) */
#define MON_COORD "CAUSAL_COORDINATOR=local"

/*
 * `causalctl serve` on the default Unix socket and, unless port is NULL,
 * on TCP with the key mon_key() at 127.0.0.1:port (or HOST:PORT;
 * ":PORT": every address); returns when it listens.
 */
pid_t mon_coord_start(struct e2e *t, const char *port);

/* The test's coordinator key (made mode 0600 on first use): its path, and
 * "CAUSAL_COORDINATOR_KEY=path" for an environment (static buffers). */
const char *mon_key(struct e2e *t);
const char *mon_key_env(struct e2e *t);

/*
 * causalctl ARGS... against the coordinator on its Unix socket, which must
 * exit with code; returns its stdout and stderr together (malloc'ed).
 */
char *mon_ctl(struct e2e *t, int code, const char *const args[]);

/* Publish (causalctl ARGS), then wait until every connected process has
 * applied it. */
void mon_publish(struct e2e *t, const char *const args[]);

/* Wait until the coordinator lists n connected processes. */
void mon_wait_connected(struct e2e *t, int n);

/* Step n of a `demo-client steps PATH` client: run cmd, wait for it. */
void mon_step(const char *path, int n, const char *cmd, pid_t client);

/*
 * Start `demo-client -P port steps PATH` traced with env, on host (under
 * `unshare --uts`, only demo-client traced) or this one (NULL); it runs
 * until the step "stop".
 */
pid_t mon_step_client(struct e2e *t, const char *name, const char *host,
		      int port, const char *const env[], char *path,
		      size_t size);

/* ---- playing either side by hand ------------------------------------------
 */

/* A connection to the coordinator's Unix socket at path (NULL: root's
 * default, CAUSAL_MON_SOCKET), or -1 with errno. */
int mon_dial(const char *path);

/* A connection to the default socket, which must succeed. */
int mon_socket(void);

/* Listen on the Unix socket at path (NULL: root's default, its directory
 * made), as a coordinator would; the listening socket. */
int mon_listen(const char *path);

/* Accept the next peer on lfd (10 s at most). */
int mon_accept(int lfd);

/* The next line from fd, PINGs skipped; "" once it hung up (static). */
const char *mon_line(int fd);

/* Write text whole on fd. */
void mon_send(int fd, const char *text);

#endif /* CAUSAL_TEST_E2E_MONITOR_H */
