/*
 * rpc-calls.h - join the Sun RPC probes of every process into calls, one
 * row of rpc_calls per call (README.md, "The database").
 *
 * The merge hands every RPC record to rpc_calls_add() as it loads it, and
 * calls rpc_calls_store() once after the last file:
 *
 *  - a start probe and its end probe have the same (proc_id, function_id):
 *    that pair is one side of a call, the client's (stub) or the
 *    server's (skeleton); a start without its end (process killed) or an
 *    end without its start (record dropped) is a side too;
 *  - a client side whose stub start has (chain C, event e) and a server
 *    side whose skeleton start has (C, e + 1) and tag status 'ok' are the
 *    two sides of one call: the tag carried e and the server counted one
 *    event on receipt.  Each server side joins at most one client side,
 *    the first in (proc_id, seq) order;
 *  - a side left alone gets a row of its own, missing = 'server' or
 *    'client'.
 *
 * Rows come in a fixed order: client sides by (proc_id, seq of their
 * first probe), then the server sides without a client likewise, so the
 * database depends only on the logs.  Everything is sorted, not hashed:
 * O(M log M) in the number of probes.
 */
#ifndef CAUSAL_RPC_CALLS_H
#define CAUSAL_RPC_CALLS_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "log-record.h"

struct rpc_probe;
struct rpc_site;

struct rpc_calls {
	struct rpc_probe *probes;
	size_t n_probes, cap_probes;
	struct rpc_site *sites;
	size_t n_sites, cap_sites;
	char *strings;			/* addresses and symbols, NUL-separated */
	size_t n_strings, cap_strings;
};

struct rpc_calls_stats {
	uint64_t calls;			/* rows of rpc_calls */
	uint64_t no_server;		/* rows with missing = 'server' */
	uint64_t no_client;		/* rows with missing = 'client' */
};

void rpc_calls_init(struct rpc_calls *rc);
void rpc_calls_release(struct rpc_calls *rc);

/*
 * Remember r (a probe or an RPC_SITE record; other types are ignored),
 * record number seq of process proc_id.  Returns 0 or -ENOMEM.
 */
int rpc_calls_add(struct rpc_calls *rc, int64_t proc_id, uint64_t seq,
		  const struct record *r);

/*
 * Join what was added and insert the rows into db's rpc_calls table
 * (which must exist).  Returns 0, -ENOMEM, or -EIO on a database error
 * (sqlite3_errmsg(db) says which).
 */
int rpc_calls_store(struct rpc_calls *rc, sqlite3 *db,
		    struct rpc_calls_stats *stats);

#endif
