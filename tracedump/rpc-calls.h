/*
 * rpc-calls.h - join the Sun RPC probes of every process into calls, one
 * row of rpc_calls per call (docs/database.md).
 *
 * The merge's reader thread hands every RPC record to rpc_calls_add() as
 * it decodes it, file by file between rpc_calls_file_begin() and
 * rpc_calls_file_end(), and the store calls rpc_calls_store() once after
 * the last file:
 *
 *  - a start probe and its end probe have the same (proc_id, function_id):
 *    that pair is one side of a call, the client's (stub) or the
 *    server's (skeleton); a start without its end (process killed) or an
 *    end without its start (record dropped) is a side too.  Of the probes
 *    of one function in seq order, a start followed by an end pair;
 *  - a client side whose stub start has (chain C, event e) and a server
 *    side whose skeleton start has (C, e + 1) and tag status 'ok' are the
 *    two sides of one call: the tag carried e and the server counted one
 *    event on receipt.  Each server side joins at most one client side,
 *    the first in (proc_id, seq) order;
 *  - a skeleton end a fork child wrote for the call its parent was
 *    serving joins that call's server side first (rpc-forks.h);
 *  - a side left alone gets a row of its own, missing = 'server' or
 *    'client'.
 *
 * Rows come in a fixed order: client sides by (proc_id, seq of their
 * first probe), then the server sides without a client likewise, so the
 * database depends only on the logs.
 *
 * Probes are not kept: each is paired into its side as it comes (a side
 * opens at its start probe and is found again by its function id while
 * open), so sides are made, and appended, in row order.  A side holds
 * what its row needs, the chain as an index into a table of the distinct
 * chain ids, addresses as offsets of distinct strings.  The join is one
 * pass over the client sides with a hash of the server sides by (chain,
 * event): O(M) in the number of probes.
 */
#ifndef CAUSAL_RPC_CALLS_H
#define CAUSAL_RPC_CALLS_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "hashmap.h"
#include "log-record.h"
#include "rpc-forks.h"

struct rpc_side;
struct rpc_site;
struct rpc_heap;
struct rpc_open;
struct rpc_addr;

struct rpc_calls {
	struct rpc_side *clients, *servers; /* in row order */
	size_t n_clients, cap_clients, n_servers, cap_servers;
	struct rpc_site *sites;
	size_t n_sites, cap_sites;
	struct rpc_heap *heaps; /* heap samples, [0] unused */
	size_t n_heaps, cap_heaps;
	uint8_t (*chains)[CAUSAL_CHAIN_ID_LEN]; /* distinct chain ids */
	size_t n_chains, cap_chains;
	struct hashmap chain_map; /* hash of the id -> chains index */
	struct rpc_addr *addrs;	  /* distinct raw addresses */
	size_t n_addrs, cap_addrs;
	struct hashmap addr_map;
	char *strings; /* raw addresses, formatted ones and symbols */
	size_t n_strings, cap_strings;
	/* the file being read */
	int64_t proc_id;
	size_t file_clients, file_servers, file_sites, file_heaps;
	struct rpc_open *open; /* open sides by (kind, function) */
	size_t cap_open, n_open;
	struct rpc_forks
		forks; /* the processes, for replies of fork children */
};

struct rpc_calls_stats {
	uint64_t calls;			/* rows of rpc_calls */
	uint64_t no_server;		/* rows with missing = 'server' */
	uint64_t no_client;		/* rows with missing = 'client' */
};

void rpc_calls_init(struct rpc_calls *rc);
void rpc_calls_release(struct rpc_calls *rc);

/* The records of process proc_id follow. */
void rpc_calls_file_begin(struct rpc_calls *rc, int64_t proc_id);

/*
 * Remember r (a probe or an RPC_SITE record; other types are ignored),
 * record number seq of the current process.  Returns 0 or -ENOMEM.
 */
int rpc_calls_add(struct rpc_calls *rc, uint64_t seq, const struct record *r);

/*
 * The file's records end; keep: its process is loaded, with that uuid and
 * the uuid of the process it was forked from (NULL: none), else forget
 * them.  Returns 0 or -ENOMEM.
 */
int rpc_calls_file_end(struct rpc_calls *rc, bool keep, const uint8_t *uuid,
		       const uint8_t *parent_uuid);

/*
 * Join what was added and insert the rows into db's rpc_calls table
 * (which must exist).  Returns 0, -ENOMEM, or -EIO on a database error
 * (sqlite3_errmsg(db) says which).
 */
int rpc_calls_store(struct rpc_calls *rc, sqlite3 *db,
		    struct rpc_calls_stats *stats);

/* Bytes the join holds (for the summary). */
size_t rpc_calls_bytes(const struct rpc_calls *rc);

#endif
