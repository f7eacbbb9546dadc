/*
 * ch-load.h - `tracedump merge DIR --db clickhouse://...`: load one
 * host's logs into a shared ClickHouse store (docs/clickhouse.md, "ClickHouse
 * store").
 *
 * DIR is merged as for SQLite, into a temporary database (the same
 * decoding, the same join of the calls whose two sides are in DIR), and
 * that database is loaded into the store (store/ch-write.h: a load, its
 * load_id, what a reader takes).  The calls whose sides are on different
 * hosts are joined when the store is read (ccsg), by the rule merge uses.
 */
#ifndef CAUSAL_CH_LOAD_H
#define CAUSAL_CH_LOAD_H

#include "ch-write.h"
#include "merge.h"
#include "store-url.h"

/*
 * Merge o->dir (o->output is ignored) and load it into u's store.
 * Returns 0, or -1 after printing one line of why: the merge's errors, a
 * server that cannot be reached or refuses, a database that is not a
 * causal store of this schema version.
 */
int ch_load_run(const struct merge_opts *o, const struct store_url *u,
		struct merge_stats *ms, struct ch_load_stats *ls);

#endif
