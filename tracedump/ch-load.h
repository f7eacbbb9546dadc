/*
 * ch-load.h - `tracedump merge DIR --db clickhouse://...`: load one
 * host's logs into a shared ClickHouse store (README, "ClickHouse
 * store").
 *
 * DIR is merged as for SQLite, into a temporary database (the same
 * decoding, the same join of the calls whose two sides are in DIR), and
 * its rows are copied into the store's tables in RowBinary, each with
 * this load's load_id, between a 'started' and a 'finished' row of the
 * loads table.  Readers take finished loads only, so a load cut short
 * (a server killed, a loader killed) is never read, and running it again
 * loads everything.  A process already in a finished load with the same
 * records and completeness is not loaded again: loading the same logs
 * twice adds nothing.  The calls whose sides are on different hosts are
 * joined when the store is read (ccsg), by the rule merge uses.
 */
#ifndef CAUSAL_CH_LOAD_H
#define CAUSAL_CH_LOAD_H

#include <stdint.h>

#include "merge.h"
#include "store-url.h"

struct ch_load_stats {
	uint64_t load_id;   /* 0: nothing was loaded */
	uint64_t processes; /* loaded by this load */
	uint64_t skipped;   /* already in the store as they are */
	uint64_t rows;	    /* written, all tables */
	double seconds;	    /* copying into the store */
};

/*
 * Merge o->dir (o->output is ignored) and load it into u's store.
 * Returns 0, or -1 after printing one line of why: the merge's errors, a
 * server that cannot be reached or refuses, a database that is not a
 * causal store of this schema version.
 */
int ch_load_run(const struct merge_opts *o, const struct store_url *u,
		struct merge_stats *ms, struct ch_load_stats *ls);

#endif
