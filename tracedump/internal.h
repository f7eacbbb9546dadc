/*
 * internal.h - what the tracedump engine files share and nobody else
 * needs: the in-memory process and thread rows that the merge reader
 * builds and the merge store writes (they travel in the last chunk of a
 * file, chunk-queue.h), and the reader thread's entry point.
 */
#ifndef TRACEDUMP_INTERNAL_H
#define TRACEDUMP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <msgpack.h>
#include <sqlite3.h>

#include "causal/db-schema.h"
#include "causal/log-format.h"
#include "hashmap.h"
#include "rpc-calls.h"
#include "spawn-links.h"
#include "spikes.h"

struct chunk;
struct chunk_queue;
struct logdir;
struct merge_opts;
struct merge_stats;
struct record;

/*
 * Why the reader's on_record() stopped reading a file (positive: not a
 * failure); the store finds it in the file's eof chunk.
 */
enum {
	STOP_NO_HEADER = 1,
	STOP_DUPLICATE = 2,
	STOP_CANCELLED = 3,	/* the main thread gave up */
};

enum {
	T_START = 1 << 0,
	T_END = 1 << 1,
	T_SPAWN = 1 << 2,
	T_CTX = 1 << 3,
	T_START_CPU = 1 << 4, /* start_cpu measured (mon_off) */
	T_END_CPU = 1 << 5,   /* end_cpu measured */
};

/* The heap counters a record sampled (records.def, CAUSAL_FIELDS_HEAP). */
struct heap_sample {
	uint64_t epoch, alloc_bytes, freed_bytes, allocs, frees;
};

struct thread {
	uint64_t tid;
	unsigned has;			/* T_* */
	uint64_t parent_tid, os_tid, marker, start_mono, start_cpu;
	uint64_t spawn_mono, end_mono, end_cpu, end_how;
	uint64_t ctx_event, ctx_function, dropped;
	struct heap_sample heap_start, heap_end;
	int64_t heap_peak;
	uint8_t chain[CAUSAL_CHAIN_ID_LEN];
};

/* A process's threads in the order first seen, found by tid (any 64-bit
 * value: a log is input). */
struct thread_map {
	struct thread *v;
	size_t n, cap;
	struct hashmap index;		/* tid -> v[i] */
};

struct proc {
	bool have_header;
	uint8_t uuid[CAUSAL_UUID_LEN];
	int64_t host_id, pid, ppid;
	char *host, *exe, *argv;
	uint64_t start_realtime, start_mono, buffer_kb, flush_ms, cpu_clock;
	uint64_t sample_skip; /* HEADER (records.def) */
	bool has_parent;
	uint8_t parent_uuid[CAUSAL_UUID_LEN];
	bool ended;
	uint64_t end_mono, end_realtime, end_reason, end_dropped;
	uint64_t end_heap_epoch, end_heap_peak;
	int64_t end_detail;
	uint64_t records, bad_records;
	uint64_t last_mono; /* the latest mono_ns of its records */
	struct thread_map threads;
	/* FORK records of children made by vfork / posix_spawn[p] */
	struct spawn_note *spawns;
	size_t n_spawns, cap_spawns;
	/* the LOSS record of the loss slot: a write failed */
	bool has_loss;
	int64_t loss_err;
	uint64_t lost;
	char lost_types[256];		/* "rpc_skel_start 600, ..." */
	/* a rotated log (records.def HEADER): its segments read, and what
	 * the cap deleted of it (the latest HEADER's counts) */
	uint64_t segments, deleted_segments, deleted_records, deleted_bytes;
	/* the last KEEP record (tail keep), if any */
	bool has_keep;
	uint64_t keep_held, keep_written, keep_overflow, keep_chains;
};

/*
 * Inline, so that the queue (which drops the procs of the chunks it
 * frees or recycles) does not depend on the reader.
 */
static inline void proc_release(struct proc *p)
{
	free(p->host);
	free(p->exe);
	free(p->argv);
	free(p->threads.v);
	hashmap_release(&p->threads.index);
	free(p->spawns);
	memset(p, 0, sizeof(*p));
}

/*
 * Records go to SQLite BATCH rows per statement: a multi-row INSERT
 * halves the per-row VDBE overhead.  A chunk holds a whole number of
 * batches (CHUNK in chunk-queue.h), so only a file's tail goes row by row.
 */
#define BATCH 64

/*
 * Where each record type goes is records.def's CAUSAL_RECORD_DESTS, from
 * which the dispatch is generated: the reader's read_record()
 * (merge-read.c), merge_stores() below and the store's store_record()
 * (merge.c).  A type of CAUSAL_RECORDS without a line there, a line twice
 * or a stage that is none of the four fail the build here, naming it.
 */
/* clang-format off */
#define MERGE_DEST_LINE(UPPER, STAGE, handler, tables)                         \
	record_type_##UPPER##_has_no_line_in_CAUSAL_RECORD_DESTS,
enum { CAUSAL_RECORD_DESTS(MERGE_DEST_LINE) };
#define MERGE_DEST_NEEDED(num, UPPER, lower, member, GROUP, nreq)              \
	+0 * record_type_##UPPER##_has_no_line_in_CAUSAL_RECORD_DESTS
_Static_assert(1 CAUSAL_RECORDS(MERGE_DEST_NEEDED),
	       "every record type has a line in CAUSAL_RECORD_DESTS");

enum {
	merge_dest_stage_READ = 1,
	merge_dest_stage_STORE = 1,
	merge_dest_stage_BOTH = 1,
	merge_dest_stage_RAW = 1,
};
#define MERGE_DEST_STAGE(UPPER, STAGE, handler, tables)                        \
	&& merge_dest_stage_##STAGE
_Static_assert(1 CAUSAL_RECORD_DESTS(MERGE_DEST_STAGE),
	       "a stage of CAUSAL_RECORD_DESTS is READ, STORE, BOTH or RAW");

#define MERGE_STORES_STORE(UPPER) case CAUSAL_REC_##UPPER:
#define MERGE_STORES_BOTH(UPPER) case CAUSAL_REC_##UPPER:
#define MERGE_STORES_READ(UPPER)
#define MERGE_STORES_RAW(UPPER)
#define MERGE_STORES(UPPER, STAGE, handler, tables) MERGE_STORES_##STAGE(UPPER)
/* clang-format on */

/*
 * The records the store itself reads (merge.c): the types of stage STORE
 * or BOTH, which have tables of their own.  The reader hands it those
 * and, for --raw, every record (the records table).
 */
static inline bool merge_stores(uint64_t type)
{
	switch (type) {
		CAUSAL_RECORD_DESTS(MERGE_STORES)
		return true;
	}
	return false;
}

/* The reader thread's state: nothing in it is touched by the other. */

struct rpc_calls;

struct merge_reader {
	const struct merge_opts *o;
	const struct logdir *ld;
	struct chunk_queue *q;
	struct chunk *cur;
	struct proc p;
	uint8_t (*uuids)[CAUSAL_UUID_LEN];
	size_t n_uuids, cap_uuids;
	struct rpc_calls *rpc; /* the probes go to the join from here */
	int64_t proc_id;       /* of the file being read: loaded ones + 1 */
};

/*
 * Thread body (merge-read.c): read rd->ld's files in order into chunks
 * pushed to rd->q, each file ending with an eof chunk; a NULL pushed says
 * it ran out of memory.  Stops early once the queue is cancelled.  rd must
 * be zeroed but for o, ld, q and rpc; returns NULL.
 */
void *merge_reader_main(void *rd);

/* The store's state (merge.c, merge-store.c): the main thread's alone. */
struct merge {
	const struct merge_opts *o;
	struct merge_stats *stats;
	sqlite3 *db;
	sqlite3_stmt *ins_file, *ins_host, *ins_proc, *ins_thread, *ins_rec;
	sqlite3_stmt *ins_recs;		/* BATCH rows */
	/* the store handlers' inserts, by table (merge-store.c) */
	sqlite3_stmt *ins_table[DB_NTABLES];
	struct spikes spikes;
	struct rpc_calls rpc;
	struct spawn_links spawns;	/* parent links made at the end */
	msgpack_zone zone;		/* to decode RPC records again */
	msgpack_sbuffer part;		/* a PAIR's start or end, for --raw */
	int64_t proc_id;		/* of the file being stored */
	struct proc *p;			/* its process */
	char **hosts;			/* index + 1 = host_id */
	size_t n_hosts;
	char db_error[256];
	/* progress */
	size_t file_no, n_files;
	uint64_t last_progress_ns;
};

/* The last SQLite error as the merge's error: -EIO. */
int merge_db_fail(struct merge *m, const char *what);

/* Run st once, reset it and clear its bindings: 0, or merge_db_fail(). */
int merge_step(struct merge *m, sqlite3_stmt *st, const char *what);

/*
 * merge-store.c: a record of merge_stores() (number seq of its process)
 * into its table, by the store handler records.def's CAUSAL_RECORD_DESTS
 * names for its type.  0, or -errno (-EIO after merge_db_fail()).
 */
int merge_store_record(struct merge *m, uint64_t seq, const struct record *r);

#endif
