/*
 * store.h - the trace a --db names, as an SQLite file to read.
 *
 * A path is the file itself.  A clickhouse:// URL (store-url.h) is read
 * once per process into a temporary SQLite file, removed at exit, that
 * is what `tracedump merge` would have made of all the logs the store's
 * finished loads hold (docs/clickhouse.md):
 *
 *  - of a process loaded more than once, the last finished load;
 *  - ids given again as one merge gives them: processes and files in
 *    the order of the log names, hosts in order of first appearance;
 *  - the calls whose client and server sides were loaded apart (two
 *    hosts, two loads) joined by merge's rule (rpc-calls.h): a client
 *    side with stub start (chain C, event e) and the first unused server
 *    side with skeleton start (C, e + 1) and tag 'ok'.
 *
 * Every reader (ccsg's commands) reads that file as it reads a merged
 * database, so the results are those of one merge of the same logs.
 */
#ifndef CAUSAL_STORE_H
#define CAUSAL_STORE_H

#include <stddef.h>
#include <stdint.h>

/*
 * The SQLite file of db: db itself when it is a path (not checked here),
 * else the copy of the store (made on the first call for that URL).
 * NULL after printing one line of why (fail()).
 */
const char *store_sqlite_path(const char *db);
/* Remove the copy store_sqlite_path() made, if any: the next call copies
 * the store again (`ccsg serve --follow`, after a new load). */
void store_sqlite_forget(void);
/* The store URL db's finished loads: how many (0 while there is none,
 * or no loads table) and the newest load_id.  0, or -1 with one line in
 * err (len bytes). */
int store_finished_loads(const char *db, uint64_t *count, uint64_t *newest,
			 char *err, size_t len);

/*
 * The same copy of a store URL but for rpc_calls, which is empty: each
 * store_stream_next() fills it with the calls of the next range of whole
 * chains (16 Ki sides or so), or of a part of a longer one, in chain
 * order and numbered on (DB_META_CALLS_ORDER), and the calls before are
 * gone.  So a reader of chains (ccsg_trace_open()) reads the store with
 * memory for a range, not the trace.  open: the file's path, or NULL
 * after fail(); next: 1, 0 when no chain is left, -1 after fail().
 *
 * share of shares (1: the whole store): the chains whose
 * DB_CH_CHAIN_SHARD % shares is share, a WHERE the server runs (a
 * reader's share of the chains, for workers).  Each stream has a copy of
 * its own.
 */
struct store_stream;
const char *store_stream_open(const char *db, unsigned share, unsigned shares,
			      struct store_stream **s);
int store_stream_next(struct store_stream *s);
/*
 * Once the stream is read: rpc_calls holds every call of the store,
 * every share's, numbered as in the whole copy (for a reader that names
 * calls by call_id across shares: ccsg's monitoring cuts).  The file
 * then holds all the calls; the join's keys are in memory for a moment.
 * 0, or -1 after fail().
 */
int store_stream_all_calls(struct store_stream *s);
void store_stream_close(struct store_stream *s);

#endif
