/*
 * e2e-rpc.h - helpers of the Sun RPC end-to-end suites (check-e2e-rpc*.c),
 * on top of e2e.h.
 *
 * The programs are build/test/rpc/demo-server and demo-client (made by
 * rpcgen from test/rpc/demo.x, see their heads for the commands).  A test
 * starts servers, waits for their ready file, runs clients, stops the
 * servers with SIGTERM, merges and asserts on the rpc_* tables.
 *
 * Each test first moves into a network and mount namespace of its own
 * (rpc_isolate()): loopback up, a private tmpfs on /run.  So the test can
 * run its own rpcbind (/run/rpcbind.sock, /run/rpcbind.lock, port 111)
 * whatever runs on the machine, and nothing it starts is seen outside.
 * Check's fork mode runs each test in a child, so the namespaces end with
 * the test.  Needs root, as `make test` on the target machine is run.
 */
#ifndef CAUSAL_TEST_E2E_RPC_H
#define CAUSAL_TEST_E2E_RPC_H

#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>

#include "e2e.h"

#define DEMO_PROG 0x20000c5a   /* test/rpc/demo.x */
#define DEMOCB_PROG 0x20000c5b /* test/rpc/democb.x */
enum {
	P_NULL = 0,
	P_SAY_IT = 1,
	P_TWICE = 2,
	P_BURN = 3,
	P_SLEEP_MS = 4,
	P_SPAWN = 5,
	P_RECURSE = 6,
	P_CALLBACK = 7,
	P_CPU_NS = 8,
	P_ADD = 9,
	P_TOTAL = 10,
	P_FILL = 11
};

/* The conditions of a call seen by both sides, in the order of events the
 * causality tag promises (stub start, skeleton start ... skeleton end,
 * stub end). */
#define RPC_LINKED                                                             \
	"(missing IS NULL AND tag = 'ok' AND reply_tag = 'ok' AND "            \
	"client_proc_id IS NOT NULL AND server_proc_id IS NOT NULL AND "       \
	"stub_start_event IS NOT NULL AND stub_end_event IS NOT NULL AND "     \
	"skel_start_event IS NOT NULL AND skel_end_event IS NOT NULL AND "     \
	"skel_start_event = stub_start_event + 1 AND "                         \
	"skel_end_event > skel_start_event AND "                               \
	"stub_end_event = skel_end_event + 1 AND "                             \
	"stub_start_ns <= stub_start_exit_ns AND "                             \
	"stub_end_ns <= stub_end_exit_ns AND "                                 \
	"skel_start_ns <= skel_start_exit_ns AND "                             \
	"skel_end_ns <= skel_end_exit_ns AND "                                 \
	"stub_start_cpu_ns IS NOT NULL AND stub_end_cpu_ns IS NOT NULL AND "   \
	"skel_start_cpu_ns IS NOT NULL AND skel_end_cpu_ns IS NOT NULL)"

/* The columns a failure message shows of a call (an sqlite3_mprintf()
 * format: its own %s are doubled). */
#define RPC_ROW_TEXT                                                           \
	"printf('call %%d chain %%s prog %%#x vers %%d proc %%d %%s status "   \
	"%%s "                                                                 \
	"client %%s/%%s fn %%s site %%s server %%s/%%s fn %%s events %%s %%s " \
	"%%s %%s "                                                             \
	"reply %%s tag %%s reply_tag %%s missing %%s one_way %%s', call_id, "  \
	"chain, prog, vers, proc, transport, status_name, client_proc_id, "    \
	"client_tid, client_function_id, site_symbol, server_proc_id, "        \
	"server_tid, server_function_id, stub_start_event, skel_start_event,"  \
	" skel_end_event, stub_end_event, reply, tag, reply_tag, missing, "    \
	"one_way)"

/* Move into a network and mount namespace of the test's own (above). */
void rpc_isolate(void);

/* Path of build/test/rpc/NAME. */
const char *rpc_prog(const char *name);

struct rpc_server {
	char name[32];
	pid_t pid;	/* what we started (unshare, when hosted) */
	int server_pid; /* demo-server's own, from its ready file */
	int tcp, udp;	/* its ports (0: none, or known to rpcbind only) */
	char out[PATH_MAX], err[PATH_MAX], ready[PATH_MAX];
	long long proc; /* proc_id, once merged */
};

/* Wait until path exists (up to 30 s). */
void rpc_wait_file(const char *path, pid_t pid);

/*
 * Start demo-server NAME with args (NULL-terminated, after the program
 * name), traced or not.  host: run it under `unshare --uts` with that
 * hostname.  Returns when the server is serving.
 */
void rpc_server_start(struct e2e *t, struct rpc_server *s, const char *name,
		      int traced, const char *host, const char *const args[]);
/* The same with another program of build/test/rpc/ that takes -r READY
 * and writes demo-server's ready file (lat-demo serve). */
void rpc_server_start_prog(struct e2e *t, struct rpc_server *s,
			   const char *prog, const char *name, int traced,
			   const char *host, const char *const args[]);

/* SIGTERM, which must end it with exit 0. */
void rpc_server_stop(struct rpc_server *s);

/* SIGKILL, when it was started and not stopped yet. */
void rpc_server_kill(struct rpc_server *s);

/* demo-server's proc_id in the merged database. */
long long rpc_server_proc(struct e2e *t, struct rpc_server *s);

/*
 * Run demo-client with args, traced (with env added to its environment)
 * or not, output into dir/NAME.out; it must exit with `code`.  Returns
 * its pid; *out gets its stdout.
 */
pid_t rpc_client_env(struct e2e *t, const char *name, int traced,
		     const char *const env[], const char *const args[],
		     int code, char **out);
pid_t rpc_client(struct e2e *t, const char *name, int traced,
		 const char *const args[], int code, char **out);

/* printf into one of 8 rotating static buffers: a WHERE clause. */
const char *rpc_q(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A port as the text demo-client's -P takes. */
const char *rpc_port(int port);

/* The first line of text starting with prefix (in a static buffer). */
const char *rpc_line(const char *text, const char *prefix);

/* rpc_line() without its " tid N" tail: what a run must print alike. */
const char *rpc_head(const char *text, const char *prefix);

/* The integer after "key " in the first line starting with prefix. */
long long rpc_fact(const char *text, const char *prefix, const char *key);

/*
 * Every rpc_calls row matching `where` satisfies `cond`; there are
 * `count` of them (-1: any number, at least one).  A failure shows the
 * first offending row.
 */
void rpc_assert_calls(struct e2e *t, const char *where, const char *cond,
		      long long count);

/* The call_id of the one call matching where. */
long long rpc_call_id(struct e2e *t, const char *where);

/* A column of call id, as an integer (must not be NULL), or as text
 * (malloc'ed, NULL for NULL). */
long long rpc_col(struct e2e *t, long long id, const char *col);
char *rpc_col_text(struct e2e *t, long long id, const char *col);

/* Assert the text column col of call id is want. */
void rpc_assert_text(struct e2e *t, long long id, const char *col,
		     const char *want);

/*
 * Call inner was made inside the skeleton of call outer: same chain, its
 * events strictly between outer's skeleton start and end, made by the
 * thread and process that ran outer's implementation.
 */
void rpc_assert_nested(struct e2e *t, long long outer, long long inner);

/*
 * rpcbind -f -w (traced or not) in the test's namespace, -r too if
 * rmtcalls (it then forwards the remote calls broadcasts are made of);
 * returns when it answers on 127.0.0.1:111.  The test's namespace holds
 * no other rpcbind.
 */
pid_t rpc_rpcbind_start_with(struct e2e *t, int traced, int rmtcalls);
pid_t rpc_rpcbind_start(struct e2e *t, int traced);

/*
 * A link that broadcasts, in the test's network namespace: loopback has
 * no broadcast address, so rpc_broadcast finds nothing to send on.  A
 * veth pair, one end 10.77.0.1/24 (broadcast 10.77.0.255): a broadcast
 * sent there is also delivered to this host's own sockets.
 */
void rpc_broadcast_link(void);

/* SIGTERM; rpcbind saves its state and exits. */
void rpc_rpcbind_stop(pid_t pid);

#endif /* CAUSAL_TEST_E2E_RPC_H */
