/*
 * ch-write.h - a merged SQLite database copied into a shared ClickHouse
 * store as one load (docs/clickhouse.md): the mechanics of
 * `tracedump merge DIR --db clickhouse://...` (tracedump/ch-load.h
 * merges DIR first).
 *
 * The database's rows are copied into the store's tables in RowBinary,
 * each with this load's load_id, between a 'started' and a 'finished'
 * row of the loads table.  Readers take finished loads only, so a load
 * cut short (a server killed, a loader killed) is never read, and running
 * it again loads everything.  A process already in a finished load with
 * the same records and completeness is not loaded again: loading the same
 * logs twice adds nothing.
 */
#ifndef CAUSAL_CH_WRITE_H
#define CAUSAL_CH_WRITE_H

#include <stdint.h>

#include "store-url.h"

struct ch_load_stats {
	uint64_t load_id;   /* 0: nothing was loaded */
	uint64_t processes; /* loaded by this load */
	uint64_t skipped;   /* already in the store as they are */
	uint64_t rows;	    /* written, all tables */
	double seconds;	    /* copying into the store */
};

/*
 * Load the merged database at path, the merge of dir (the loads table
 * names it), into u's store.  Returns 0, or -1 after printing one line
 * of why: a server that cannot be reached or refuses, a database that
 * is not a causal store of this schema version.
 */
int ch_write_load(const char *path, const char *dir, const struct store_url *u,
		  struct ch_load_stats *ls);

/*
 * One closed segment, merged alone into the database at path with its
 * row of loaded_segments, as one load (`tracedump merge --follow`): its
 * processes are all loaded (the follower asked for the segment by name;
 * readers put a process's segment loads together), a load of nothing
 * but the row when nothing of it could be read.  0, or -1 with err
 * saying why, unprinted: the follower says it once and tries again.
 */
int ch_write_segment(const char *path, const char *dir,
		     const struct store_url *u, struct ch_load_stats *ls,
		     char *err, size_t len);

#endif
