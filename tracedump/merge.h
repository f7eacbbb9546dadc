/*
 * merge.h - load every log under a directory into one SQLite database.
 *
 * The database is written to a temporary file next to the output and
 * renamed into place only when complete, so a database at the output path
 * is never a partial one.  The content depends only on the logs (no merge
 * time is stored, files are read in sorted order), so merging the same
 * directory twice gives byte-identical files.
 */
#ifndef CAUSAL_MERGE_H
#define CAUSAL_MERGE_H

#include <stdbool.h>
#include <stdint.h>

#include "db-ends.h"

struct merge_opts {
	const char *dir;
	const char *output;	/* NULL: DIR/trace.db */
	bool progress;		/* \r progress line on stderr */
	bool raw;		/* --raw: the records table too */
	bool ends;		/* find how the processes ended (stats->ends) */
};

/* Rows of rpc_calls with one value of a column. */
struct merge_count {
	char value[24];		/* "other": the values past MERGE_VALUES - 1 */
	uint64_t n;
};

#define MERGE_VALUES 8

struct merge_stats {
	uint64_t files;		/* *.clog files found */
	uint64_t hosts;
	uint64_t processes;
	uint64_t threads;
	uint64_t records;
	uint64_t dropped;	/* sum of processes.dropped */
	uint64_t keep_overflow; /* sum of processes.keep_overflow */
	uint64_t bad_records;	/* malformed records skipped */
	uint64_t truncated;	/* files with status 'truncated' */
	uint64_t corrupt;	/* files with status 'corrupt' */
	uint64_t write_failed;	/* 'disk_full' or 'write_error' */
	uint64_t disk_full;	/* of which 'disk_full' */
	uint64_t lost;		/* records their failed writes lost */
	uint64_t rpc_calls;	/* rows of rpc_calls */
	uint64_t rpc_no_server;	/* calls with missing = 'server' */
	uint64_t rpc_no_client;	/* calls with missing = 'client' */
	/* rotated logs: the segments the cap deleted, their records and
	 * bytes (processes.deleted_*) */
	uint64_t deleted_segments, deleted_records, deleted_bytes;
	double seconds;		/* the merge's wall time */
	/*
	 * Calls by tag status at the skeleton start (tag) and of the reply
	 * (reply_tag): every value the table holds, NULL aside, 'ok' first,
	 * then by name.
	 */
	struct merge_count tags[MERGE_VALUES], reply_tags[MERGE_VALUES];
	size_t n_tags, n_reply_tags;
	/* the processes that did not end cleanly (db-ends.h), when
	 * merge_opts.ends asked */
	struct db_ends ends;
};

/* Free what a merge_run() left in stats. */
void merge_stats_release(struct merge_stats *stats);

/*
 * Merge o->dir.  Damaged and foreign logs are reported on stderr by name
 * and skipped or partly loaded.  Returns 0, or -1 after printing why, with
 * no database left behind: missing or non-directory DIR, no *.clog files,
 * no readable log, unwritable output, database errors.
 */
int merge_run(const struct merge_opts *o, struct merge_stats *stats);

#endif
