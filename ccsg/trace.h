/*
 * trace.h - a merged trace database (docs/database.md) loaded
 * into memory for the ccsg engine: hosts, processes, threads and every
 * rpc_calls row, the calls grouped by chain and ordered by event.
 *
 * ccsg_trace_load() reads rpc_calls with one query ordered by (chain,
 * first event); everything after that works on these arrays.  Columns
 * that are NULL in the database are CCSG_NONE here.
 */
#ifndef CCSG_TRACE_H
#define CCSG_TRACE_H

#include <stdint.h>
#include <stddef.h>
#include <string.h>

#include <sqlite3.h>

#include "causal/db-schema.h"
#include "db-ends.h"
#include "hashmap.h"
#include "monitoring.h"

#define CCSG_NONE INT64_MIN

/*
 * The oldest schema version of the merged database that ccsg reads: 2,
 * whose chain ids are hex text; the newest is DB_SCHEMA_VERSION.
 */
#define CCSG_SCHEMA_OLDEST 2

/* enum clnt_stat values ccsg interprets (fixed by the ONC RPC API). */
#define CCSG_RPC_SUCCESS 0
#define CCSG_RPC_TIMEDOUT 5

/* rpc_calls.reply: the reply a server sent (enum causal_rpc_reply). */
enum ccsg_reply {
	CCSG_REPLY_SUCCESS, CCSG_REPLY_NONE, CCSG_REPLY_PROG_UNAVAIL, CCSG_REPLY_PROG_MISMATCH,
	CCSG_REPLY_PROC_UNAVAIL, CCSG_REPLY_GARBAGE_ARGS, CCSG_REPLY_SYSTEM_ERR,
	CCSG_REPLY_DENIED, CCSG_NREPLY
};
extern const char *const ccsg_reply_names[CCSG_NREPLY];	/* "success", ... */

/*
 * What a graph measures (ccsg_graph_build_res()): CPU (ns), or heap bytes
 * allocated or freed (usable sizes; docs/tracing.md, "Heap memory").
 */
enum ccsg_resource { CCSG_RES_CPU, CCSG_RES_ALLOC, CCSG_RES_FREED };
#define CCSG_HEAP(res) ((res)-CCSG_RES_ALLOC) /* index of heap[] below */

/* The schema version that has the heap columns. */
#define CCSG_SCHEMA_HEAP 4

/* The four probes of a call, in their order along a chain (Figure 4). */
enum ccsg_probe { CCSG_STUB_START, CCSG_SKEL_START, CCSG_SKEL_END, CCSG_STUB_END };

enum ccsg_missing { CCSG_BOTH = 0, CCSG_NO_SERVER = 1, CCSG_NO_CLIENT = 2 };

struct ccsg_call {
	int64_t call_id;
	int32_t chain;			/* index into trace.chains */
	uint32_t prog, vers, proc;
	int64_t ev[4];			/* event numbers by enum ccsg_probe */
	int64_t cpu[4];			/* thread CPU at each probe */
	/* bytes allocated [0] and freed [1] between the stub's start and
	 * end, and between the skeleton's (rpc_calls.stub_alloc_bytes ...);
	 * CCSG_NONE when not counted */
	int64_t stub_heap[2], skel_heap[2];
	int64_t stub_start_ns, stub_end_exit_ns;	/* client clock */
	int64_t skel_start_exit_ns, skel_end_ns;	/* server clock */
	/* the probes' other edges: Equation 3 takes the stub probes' inner
	 * edges, the probes' own time is exit - entry (latency.h) */
	int64_t stub_start_exit_ns, stub_end_ns; /* client clock */
	int64_t skel_start_ns, skel_end_exit_ns; /* server clock */
	int32_t client_proc, client_tid;	/* 0 when unknown */
	int32_t server_proc, server_tid;
	int64_t server_function_id;
	int32_t object_id;		/* -1 when unknown */
	int32_t symbol;			/* trace.strings index of site_symbol, -1 */
	int32_t peer;			/* trace.strings index of peer, -1 */
	int32_t transport;		/* ... of rpc_calls.transport, -1 */
	/* The outcome: the client's status (stub end), the server's reply
	 * (skeleton end), the tag statuses, the sizes; -1 / CCSG_NONE when
	 * that probe is missing. */
	int32_t status;			/* enum clnt_stat */
	int32_t status_name;		/* trace.strings index: "RPC_TIMEDOUT" */
	int32_t tag;			/* trace.strings index of rpc_calls.tag */
	int32_t reply_tag;		/* ... of rpc_calls.reply_tag */
	int64_t args_bytes, results_bytes;		/* as the client saw them */
	int64_t server_args_bytes, server_results_bytes;	/* as the server saw them */
	int8_t reply;			/* enum ccsg_reply */
	uint8_t missing;		/* enum ccsg_missing */
	uint8_t one_way;
	uint8_t lost;			/* no start probe (dropped): function unknown */
	uint8_t failed;			/* ccsg_call_failed() */
	/* Filled by ccsg_dscg_build(). */
	int32_t parent;			/* parent call, -1 for a chain's roots */
	int32_t seg;			/* segment of a broken chain, else 0 */
	int32_t depth;			/* 1 for a root call */
	uint8_t abnormal;		/* an abnormal transition happened here */
};

struct ccsg_thread {
	int32_t proc, tid, parent_tid;
	uint8_t infra;			/* marker 'infra' */
	int64_t cpu_ns;			/* CCSG_NONE when not measured */
	int64_t heap[2];		/* bytes allocated, freed; CCSG_NONE */
	int64_t heap_peak;		/* highest live bytes; CCSG_NONE */
	int64_t start_mono_ns;		/* CCSG_NONE without THREAD_START */
	int64_t end_mono_ns;		/* CCSG_NONE without THREAD_END */
	int64_t ctx_function;		/* CCSG_NONE */
	/* Filled by ccsg_dscg_build(). */
	int32_t parent_thread;		/* thread-spawn-thread, -1 */
	int32_t spawn_call;		/* function-spawn-thread: the call's
					 * ordinal (after workers' merge, in the
					 * share that read it), -1 */
};

struct ccsg_chain {
	uint8_t id[DB_CHAIN_LEN];
	int32_t first, n;		/* its calls: calls[first .. first+n) */
	int64_t base;			/* calls of it before calls[first]: the
					 * parts a stream read before, else 0 */
	/* Filled by ccsg_dscg_build(). */
	int32_t breaks;			/* abnormal transitions */
	int32_t segments;		/* 0 when the chain is whole */
	int32_t owner;			/* thread that started it, -1 */
	uint8_t truncated;		/* ended with calls still open */
	/* Filled by ccsg_scan_count(): kept by tail keep, not sampled
	 * (sampling.h); some call lacks a traced host's side (chain-kind.h) */
	uint8_t kept, gap;
};

struct ccsg_proc {
	int32_t host;			/* index into trace.hosts, -1 if no row */
	int32_t pid;
	char *exe;
	int64_t peak_heap; /* processes.peak_heap_bytes, CCSG_NONE */
	uint8_t present;   /* it has a processes row */
	uint8_t deselected; /* some of its calls ran unmonitored for the
			     * CPU (ccsg_monitoring_deselected()) */
	uint8_t uuid[16];   /* the first part of the chain ids it made */
};

struct ccsg_object {
	int32_t proc, object_id;
	char *address;
};

struct ccsg_site {
	int32_t proc;
	int32_t symbol;			/* trace.strings index */
	uint8_t tirpc;			/* module is libtirpc.so* */
};

/*
 * Where a call stands in the order every reader folds the calls in
 * (chain order): its chain's id, then its place in its chain.  Readers
 * of shares of the chains (ccsg_trace_open_share()) each see whole
 * chains, so the keys they give are those one reader gives.
 */
struct ccsg_call_key {
	uint8_t chain[DB_CHAIN_LEN];
	int64_t at;
};
static inline struct ccsg_call_key ccsg_call_key_of(const struct ccsg_chain *ch,
						    int32_t i)
{
	struct ccsg_call_key k;

	memcpy(k.chain, ch->id, DB_CHAIN_LEN);
	k.at = ch->base + (i - ch->first);
	return k;
}
static inline int ccsg_call_key_cmp(const struct ccsg_call_key *a,
				    const struct ccsg_call_key *b)
{
	int c = memcmp(a->chain, b->chain, DB_CHAIN_LEN);

	if (c)
		return c;
	return a->at < b->at ? -1 : a->at > b->at;
}
/* A part of a chain read (ccsg_trace_next_part()). */
struct ccsg_part {
	int32_t from;	      /* its first call in t->calls */
	uint8_t starts, ends; /* it begins, ends its chain */
};

struct ccsg_trace {
	char *path;	    /* the --db as given: a path or a store URL */
	char *file;	    /* the SQLite file read (store.h: a store's copy) */
	int schema_version; /* meta.schema_version */
	int has_heap;	    /* the heap columns: version >= CCSG_SCHEMA_HEAP */
	char **hosts;			/* names, in host_id order */
	size_t nhosts;
	struct ccsg_proc *procs;	/* indexed by proc_id */
	size_t nprocs;			/* max proc_id + 1 */
	size_t nproc_rows;		/* rows of the processes table */
	struct ccsg_thread *threads;	/* ordered by (proc, tid) */
	size_t nthreads;
	struct ccsg_call *calls;
	size_t ncalls;
	struct ccsg_chain *chains;
	size_t nchains;
	struct ccsg_object *objects;
	size_t nobjects;
	struct ccsg_site *sites;
	size_t nsites;
	char **strings;			/* interned symbols and peers */
	size_t nstrings;
	struct hashmap thread_map;	/* (proc, tid) -> thread index */
	struct hashmap string_map;	/* string hash -> first index */
	size_t cap_strings;
	struct ccsg_monitoring mon; /* what selective monitoring covered */
	struct db_ends ends;	    /* processes that did not end cleanly */
	struct ccsg_stream *stream; /* ccsg_trace_open()'s, else NULL */
	struct ccsg_part part;	    /* the last ccsg_trace_next_part()'s */
	/* exact totals of a sampled trace (exact-totals.h), when a command
	 * loaded them; NULL: none, the outputs say nothing of sampling */
	const struct ccsg_totals *totals;
	int empty_ok; /* no process is no error (ccsg_trace_load_empty_ok()) */
};

/*
 * Load the database at path, or the store a URL names (store.h).  A
 * missing file, a database that is not a merged trace (no rpc_calls / threads /
 * processes / hosts tables), a schema version before CCSG_SCHEMA_OLDEST or
 * after DB_SCHEMA_VERSION, a value of the wrong type or out of range in a
 * column ccsg reads (fail() names the table, row and column) or a trace without
 * processes is a fail(): -1 and nothing to release.
 */
int ccsg_trace_load(struct ccsg_trace *t, const char *path);
/* The same, but a trace without processes is an empty trace, not an
 * error: `ccsg serve --follow`'s view of a store not yet written. */
int ccsg_trace_load_empty_ok(struct ccsg_trace *t, const char *path);
/*
 * The same, but the calls are read in parts of chains: ccsg_trace_open()
 * loads everything else, then each ccsg_trace_next_part() appends the
 * next part of a chain, in the order of ccsg_trace_load(), to t->calls
 * (after the calls of the part before when keep, else in their place),
 * t->part saying where it begins and whether it begins or ends its
 * chain, t->chains[0] the chain (nchains 1; its counts carry on from
 * part to part).  A part ends at the chain's end, or where every event
 * of the chain read so far comes before those to come (a client's loop
 * is one chain: each of its calls can be a part).  1, or 0 at the end
 * (the monitoring cuts, t->mon, are loaded then), or -1 after fail().
 * ccsg_trace_release() ends it at any point.
 */
int ccsg_trace_open(struct ccsg_trace *t, const char *path);
/*
 * The same, of the chains of share share of shares (0 <= share < shares):
 * those whose key (a hash of the chain id: causal_shard() for an SQLite
 * file, DB_CH_CHAIN_SHARD for a store, each a WHERE where the rows are)
 * modulo shares is share.  Each share holds whole chains, in the order
 * of the whole trace.  Everything but the calls is the whole trace's.
 */
int ccsg_trace_open_share(struct ccsg_trace *t, const char *path,
			  unsigned share, unsigned shares);
/* The monitoring of the calls read by shares of a trace (their streams
 * ended): into's gains from's; once all are in, ccsg_trace_shares_end()
 * makes it the whole trace's.  0, -1 after fail(). */
int ccsg_trace_merge_mon(struct ccsg_trace *into,
			 const struct ccsg_trace *from);
int ccsg_trace_shares_end(struct ccsg_trace *t);
int ccsg_trace_next_part(struct ccsg_trace *t, int keep);

void ccsg_trace_release(struct ccsg_trace *t);

/*
 * Did the call fail?  The client's status when the stub end gives one:
 * anything but RPC_SUCCESS, except RPC_TIMEDOUT of a one-way call (zero
 * timeout: no reply awaited, libtirpc's normal answer).  Else (no client
 * side, or its end lost) the server's reply: anything but success / none.
 */
int ccsg_call_failed(const struct ccsg_call *c);

/*
 * Did the call fail on one side (server 0: the client's, 1: the
 * server's)?  Each side's status is its own: a call the client gave up on
 * (RPC_TIMEDOUT) may have been served and answered success.  The client
 * side is ccsg_call_failed(); the server side, its reply.
 */
int ccsg_call_side_failed(const struct ccsg_call *c, int server);

/* Thread index of (proc, tid), or -1. */
int32_t ccsg_trace_thread(const struct ccsg_trace *t, int32_t proc, int32_t tid);
/* Host index of a process, or -1. */
int32_t ccsg_trace_host(const struct ccsg_trace *t, int32_t proc);
/* Intern s; its index or -ENOMEM. */
int32_t ccsg_trace_intern(struct ccsg_trace *t, const char *s);

#endif
