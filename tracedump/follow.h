/*
 * follow.h - `tracedump merge --follow DIR --db DB`: load each closed
 * segment of the logs under DIR into the SQLite database DB as it
 * appears, once, until SIGINT, SIGTERM or SIGHUP (docs/tracedump.md
 * "Following a log directory").
 *
 * Each segment is merged on its own (merge.h) into a staging database,
 * whose rows are then added to DB as a continuation (follow-copy.h), in
 * one transaction with the segment's row of loaded_segments: a segment
 * is in DB whole, and named there, or not at all.  DB is in WAL mode, so
 * readers see it as of the last committed segment.
 */
#ifndef CAUSAL_FOLLOW_H
#define CAUSAL_FOLLOW_H

#include <stdint.h>

struct follow_opts {
	const char *dir;
	const char *db; /* a path, or a clickhouse:// URL (follow-ch.h) */
	int rescan_ms;	/* the periodic rescan */
};

struct follow_stats {
	uint64_t segments; /* loaded by this run */
	uint64_t records;
	uint64_t corrupt; /* of them, nothing readable or damaged */
	uint64_t known;	  /* found loaded already at start */
	uint64_t retries; /* loads tried again: the database failed */
};

/*
 * Follow until a stop signal: 0 then.  -1 after one line saying why:
 * DIR missing or not a directory, DB not a database --follow made or
 * cannot be opened.
 */
int follow_run(const struct follow_opts *o, struct follow_stats *stats);

#endif
