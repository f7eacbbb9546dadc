/*
 * clickhouse.h - a client of ClickHouse's HTTP interface (libcurl), for
 * the trace store (docs/clickhouse.md).
 *
 * Statements are POSTed as the request body; an INSERT's rows go as the
 * body, in RowBinary (rowbinary.h), with the statement in the URL.  Every
 * request but ch_create_database() runs in the URL's database.  A failed
 * request leaves one line in ch_error(): the URL (without its password),
 * then what went wrong: "cannot connect: Connection refused", or the
 * server's own message ("Wrong password for user causal").
 */
#ifndef CAUSAL_CLICKHOUSE_H
#define CAUSAL_CLICKHOUSE_H

#include <stddef.h>

#include "store-url.h"

struct ch_client;

/* A client of u's server (no request is made yet); NULL without memory. */
struct ch_client *ch_open(const struct store_url *u);
void ch_close(struct ch_client *c);

/* The last failure, one line. */
const char *ch_error(const struct ch_client *c);

/* Run a statement whose answer is not wanted.  0, or -1 (ch_error()). */
int ch_exec(struct ch_client *c, const char *sql);

/* Make the URL's database unless it exists.  0, or -1 (ch_error()). */
int ch_create_database(struct ch_client *c);

/*
 * Run a SELECT and hand its answer to sink as it arrives, in pieces of
 * any size; a sink returns 0 to go on, or -1 to stop (after saying why
 * with ch_fail()).  0, or -1 (ch_error()).
 */
typedef int (*ch_sink_fn)(const char *p, size_t n, void *arg);
int ch_select(struct ch_client *c, const char *sql, ch_sink_fn sink, void *arg);

/*
 * The answer of a SELECT as one NUL-terminated string, malloc'd (its
 * last newline removed): for short answers (a count, a list).  NULL on
 * failure (ch_error()).
 */
char *ch_select_text(struct ch_client *c, const char *sql);

/*
 * INSERT INTO <into> FORMAT RowBinary, the rows data[0..len): into is a
 * table and its column list, "threads (load_id, proc_id, ...)".  0, or
 * -1 (ch_error()).
 */
int ch_insert(struct ch_client *c, const char *into, const void *data,
	      size_t len);

/*
 * Inserts from now on return once a Distributed table (a cluster's:
 * docs/clickhouse.md, "A cluster") has put the rows on every shard, not when it
 * has queued them to be sent (insert_distributed_sync): a load says it finished
 * only then.  Not the default: a read-only user may not set it, and its refused
 * insert would then be about the setting.
 */
void ch_insert_sync(struct ch_client *c);

/* Set ch_error() to "<url>: <message>" (for sinks); returns -1. */
int ch_fail(struct ch_client *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
