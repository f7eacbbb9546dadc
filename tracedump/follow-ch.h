/*
 * follow-ch.h - `tracedump merge --follow DIR --db clickhouse://...`:
 * follow.c's writer for a ClickHouse store (docs/clickhouse.md
 * "Following a log directory").  Each closed segment, merged alone into
 * a staging database that holds its loaded_segments row too, goes into
 * the store as one load (store/ch-write.h): a load cut short is never
 * read, so its segment is loaded again.  The segments already loaded are
 * the loaded_segments rows of the store's finished loads.
 */
#ifndef CAUSAL_FOLLOW_CH_H
#define CAUSAL_FOLLOW_CH_H

#include <stdbool.h>

struct follow_ch;

/* The writer for url (a clickhouse:// URL).  NULL after one line of why
 * (a malformed URL, no memory). */
struct follow_ch *follow_ch_open(const char *url);

/*
 * Read the names of the segments the store's finished loads hold, the
 * store made first when missing.  0 (again at once once done), or -1
 * with err saying why: the server away or refusing.
 */
int follow_ch_known(struct follow_ch *c, char *err, size_t len);

/* Whether segment name (relative to DIR) is loaded. */
bool follow_ch_is_loaded(const struct follow_ch *c, const char *name);

/*
 * Load the staging database at path (the merge of segment name of dir,
 * with its loaded_segments row) as one load.  0, or -1 with err saying
 * why: try again.
 */
int follow_ch_load(struct follow_ch *c, const char *path, const char *dir,
		   const char *name, char *err, size_t len);

void follow_ch_close(struct follow_ch *c);

#endif
