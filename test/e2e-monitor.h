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
#define MON_COORD "CAUSAL_COORDINATOR=127.0.0.1:" MON_PORT

/* `causalctl serve` on 127.0.0.1:port (or HOST:PORT, ":PORT": every
 * address); returns when it listens. */
pid_t mon_coord_start(struct e2e *t, const char *port);

/*
 * causalctl ARGS... against the coordinator on MON_PORT, which must exit
 * with code; returns its stdout and stderr together (malloc'ed).
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

#endif /* CAUSAL_TEST_E2E_MONITOR_H */
