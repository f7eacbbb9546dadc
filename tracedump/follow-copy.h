/*
 * follow-copy.h - one segment's rows, merged on their own into a staging
 * database (merge.h), into the database `tracedump merge --follow`
 * builds, as a continuation of what it holds:
 *
 *  - the segment gets a files row of its own; its process's row is made
 *    by its first segment loaded and updated in place by the later ones
 *    (records, segments and dropped added, the end, the cap's counts and
 *    tail keep's taken from the latest), its threads likewise (the start
 *    from the first segment that has it, the end from the last);
 *  - records numbered in their log (seq) go on from the process's
 *    records loaded so far, so they are numbered as a one-shot merge
 *    numbers them; call_totals rows replace the older ones (they are
 *    running totals);
 *  - rpc_calls: a side whose start and end fell in two segments is made
 *    one again (the later segment's end-only row is folded into the open
 *    row, by process and function id: rpc-calls.h's rule), and a side
 *    left without its other side waits in its row (missing = 'server' or
 *    'client') until the other side arrives, when the two rows become one
 *    by the rule of rpc-calls.h (chain C, event e and C, e + 1, tag 'ok').
 *
 * All of it in the caller's transaction.
 */
#ifndef CAUSAL_FOLLOW_COPY_H
#define CAUSAL_FOLLOW_COPY_H

#include <stdint.h>

#include <sqlite3.h>

struct follow_copied {
	int64_t proc_id, file_id; /* 0: none (nothing readable) */
	char uuid[33];		  /* "" when none */
	uint64_t records;
	char status[16]; /* files.status */
};

/*
 * Copy the staging database attached to db as "s" (one segment, one
 * files row, at most one process), the segment being name (relative to
 * the log directory).  0, or -EIO (sqlite3_errmsg(db) says why), -ENOMEM.
 */
int follow_copy(sqlite3 *db, const char *name, struct follow_copied *out);

/*
 * The partial indexes the copy's look-ups need (open sides, sides
 * waiting for their other side), made once.  0 or -EIO.
 */
int follow_copy_indexes(sqlite3 *db);

#endif
