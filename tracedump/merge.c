/*
 * merge.c - `tracedump merge` engine: logs -> one SQLite database.
 *
 * Two threads: a reader thread (merge-read.c) reads the files in sorted
 * order (decompression, msgpack, decoding, the process and thread rows in
 * memory) and hands the records in chunks through a small bounded queue
 * (chunk-queue.c) to the calling thread, which alone talks to SQLite, here.
 * Everything reaches the database in file order, so the output does not
 * depend on timing.
 *
 * SQLite speed comes from one transaction with journal and sync off,
 * statements prepared once, multi-row inserts bound straight from the
 * chunk (SQLITE_STATIC, no copy) and indexes built after the bulk insert.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "causal/log-format.h"
#include "chunk-queue.h"
#include "db-ends.h"
#include "hex.h"
#include "timespec.h"
#include "internal.h"
#include "logdir.h"
#include "log-pair.h"
#include "logread.h"
#include "merge.h"
#include "rpc-calls.h"
#include "spikes.h"
#include "log-record.h"
#include "schema.h"
#include "spawn-links.h"
#include "tmp-cleanup.h"
#include "usage.h"


static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return timespec_ns(&ts);
}

static void progress(struct merge *m, bool force)
{
	uint64_t t;

	if (!m->o->progress)
		return;
	t = now_ns();
	if (!force && t - m->last_progress_ns < 100000000u)
		return;
	m->last_progress_ns = t;
	fprintf(stderr, "\rmerging: %zu/%zu files, %" PRIu64 " records",
		m->file_no, m->n_files, m->stats->records);
}

/* A process uuid: 32 lowercase hex digits. */
static void bind_uuid(sqlite3_stmt *st, int col, const uint8_t *uuid)
{
	char buf[2 * CAUSAL_UUID_LEN + 1];

	hex_encode(buf, uuid, CAUSAL_UUID_LEN);
	schema_bind_text_copy(st, col, buf, 2 * CAUSAL_UUID_LEN);
}

/* host_id of name, inserting it on first sight: ids in file order. */
static int host_id(struct merge *m, const char *name, int64_t *id)
{
	char **hosts;
	char *copy;

	for (size_t i = 0; i < m->n_hosts; i++)
		if (!strcmp(m->hosts[i], name)) {
			*id = (int64_t)i + 1;
			return 0;
		}
	hosts = realloc(m->hosts, (m->n_hosts + 1) * sizeof(*hosts));
	if (!hosts || !(copy = strdup(name)))
		return -ENOMEM;
	m->hosts = hosts;
	m->hosts[m->n_hosts++] = copy;
	*id = (int64_t)m->n_hosts;
	schema_bind_int(m->ins_host, DB_HOSTS_HOST_ID, *id);
	schema_bind_text(m->ins_host, DB_HOSTS_NAME, copy, -1);
	m->stats->hosts++;
	return merge_step(m, m->ins_host, "insert host");
}

/* The values of the NEXT pair cr holds the bytes of, in *v; else NULL. */
static const struct pair_next_values *next_of(const struct chunk *c,
					      const struct chunk_rec *cr,
					      struct pair_next_values *v)
{
	if (!cr->next)
		return NULL;
	memcpy(v, c->buf + cr->off + cr->len, sizeof(*v));
	return v;
}

/* Decode a record of merge_stores() again from its bytes (the reader
 * decoded it once): most kinds are few; LOCK records can be millions, and
 * pay it twice.  Record k, and the one after it when it is the end of the
 * PAIR whose start k is: the pair split once for both.  *taken: how
 * many. */
static int chunk_stored(struct merge *m, const struct chunk *c, int k,
			int *taken)
{
	const struct chunk_rec *cr = &c->rec[k];
	const uint8_t *bytes = c->buf + cr->off;
	const struct pair_next_values *next;
	struct pair_next_values v;
	msgpack_object obj[2], pair;
	struct record r;
	int both, bad, rc = 0;

	msgpack_zone_clear(&m->zone);
	both = cr->part == 1 && k + 1 < c->n && c->rec[k + 1].part == 2 &&
	       c->rec[k + 1].off == cr->off;
	*taken = 1 + both;
	next = next_of(c, cr, &v);
	if (both)
		bad = log_pair_object(bytes, cr->len, 0, next, &m->zone,
				      &pair) ||
		      log_pair_split(&pair, &m->zone, &obj[0], &obj[1]);
	else
		bad = log_pair_object(bytes, cr->len, cr->part, next, &m->zone,
				      &obj[0]);
	if (bad)
		return 0;	/* cannot be: the reader decoded it */
	for (int i = 0; i < *taken && !rc; i++)
		if (record_decode(&obj[i], &r) == 0)
			rc = merge_store_record(m, c->rec[k + i].seq, &r);
	return rc;
}

/* The msgpack bytes of a PAIR's start or end, in m->part (for --raw). */
static int part_bytes(struct merge *m, const struct chunk *c,
		      const struct chunk_rec *cr)
{
	struct pair_next_values v;
	msgpack_packer pk;
	msgpack_object obj;

	msgpack_zone_clear(&m->zone);
	m->part.size = 0;
	msgpack_packer_init(&pk, &m->part, msgpack_sbuffer_write);
	if (log_pair_object(c->buf + cr->off, cr->len, cr->part,
			    next_of(c, cr, &v), &m->zone, &obj) ||
	    msgpack_pack_object(&pk, obj))
		return -ENOMEM; /* the reader split it: no other cause */
	return 0;
}

/* Store a chunk's records; for --raw, BATCH at a time, the rest one by one. */
static int chunk_store(struct merge *m, const struct chunk *c)
{
	sqlite3_stmt *st = m->ins_recs;
	int i = 0, row = 0, rc;

	for (int k = 0, taken = 1; k < c->n; k += taken) {
		taken = 1;
		if (merge_stores(c->rec[k].type) &&
		    (rc = chunk_stored(m, c, k, &taken)))
			return rc;
	}
	while (m->o->raw && i < c->n) {
		const struct chunk_rec *cr = &c->rec[i];
		int col = row * DB_RECORDS_NCOLS; /* row's first column */

		if (!row)
			st = c->n - i >= BATCH ? m->ins_recs : m->ins_rec;
		schema_bind_int(st, col + DB_RECORDS_PROC_ID, m->proc_id);
		schema_bind_u64(st, col + DB_RECORDS_SEQ, cr->seq);
		schema_bind_u64(st, col + DB_RECORDS_TYPE, cr->type);
		schema_bind_u64(st, col + DB_RECORDS_TID, cr->tid);
		schema_bind_u64(st, col + DB_RECORDS_MONO_NS, cr->mono);
		if (cr->part) {
			/* a PAIR's start or end: its own bytes, copied */
			if ((rc = part_bytes(m, c, cr)))
				return rc;
			schema_bind_blob_copy(st, col + DB_RECORDS_DATA,
					      m->part.data, (int)m->part.size);
		} else {
			/* The chunk outlives the step: no copy. */
			schema_bind_blob(st, col + DB_RECORDS_DATA,
					 c->buf + cr->off, (int)cr->len);
		}
		i++;
		if (st == m->ins_recs && ++row < BATCH)
			continue;
		if (sqlite3_step(st) != SQLITE_DONE) {
			sqlite3_reset(st);
			return merge_db_fail(m, "insert record");
		}
		sqlite3_reset(st);
		row = 0;
	}
	progress(m, false);
	return 0;
}

static int cmp_threads(const void *a, const void *b)
{
	const struct thread *x = *(struct thread *const *)a;
	const struct thread *y = *(struct thread *const *)b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int store_threads(struct merge *m, uint64_t *dropped)
{
	struct thread_map *tm = &m->p->threads;
	sqlite3_stmt *st = m->ins_thread;
	struct thread **v;
	size_t n = 0;
	int rc = 0;

	*dropped = 0;
	if (!tm->n)
		return 0;
	if (!(v = malloc(tm->n * sizeof(*v))))
		return -ENOMEM;
	for (size_t i = 0; i < tm->n; i++)
		v[n++] = &tm->v[i];
	/* Sorted by tid, not in the order the log named them. */
	qsort(v, n, sizeof(*v), cmp_threads);
	for (size_t i = 0; i < n && !rc; i++) {
		const struct thread *t = v[i];

		schema_bind_int(st, DB_THREADS_PROC_ID, m->proc_id);
		schema_bind_u64(st, DB_THREADS_TID, t->tid);
		schema_bind_u64(st, DB_THREADS_PARENT_TID, t->parent_tid);
		if (t->has & T_START) {
			schema_bind_u64(st, DB_THREADS_OS_TID, t->os_tid);
			schema_bind_text(st, DB_THREADS_MARKER,
					 record_marker_name(t->marker), -1);
			schema_bind_u64(st, DB_THREADS_START_MONO_NS,
					t->start_mono);
			/* NULL: the cpu type was off (monitor_switches) */
			if (t->has & T_START_CPU)
				schema_bind_u64(st, DB_THREADS_START_CPU_NS,
						t->start_cpu);
		}
		if (t->has & T_SPAWN)
			schema_bind_u64(st, DB_THREADS_SPAWN_MONO_NS,
					t->spawn_mono);
		if (t->has & T_END) {
			schema_bind_u64(st, DB_THREADS_END_MONO_NS,
					t->end_mono);
			if (t->has & T_END_CPU)
				schema_bind_u64(st, DB_THREADS_END_CPU_NS,
						t->end_cpu);
			schema_bind_text(st, DB_THREADS_END_HOW,
					 record_thread_end_name(t->end_how),
					 -1);
		}
		if ((t->has & (T_START | T_START_CPU | T_END | T_END_CPU)) ==
		    (T_START | T_START_CPU | T_END | T_END_CPU))
			schema_bind_u64(st, DB_THREADS_CPU_NS,
					t->end_cpu - t->start_cpu);
		if (t->has & T_CTX) {
			/* the thread map outlives the step */
			schema_bind_chain(st, DB_THREADS_CTX_CHAIN, t->chain);
			schema_bind_u64(st, DB_THREADS_CTX_EVENT, t->ctx_event);
			schema_bind_u64(st, DB_THREADS_CTX_FUNCTION,
					t->ctx_function);
		}
		schema_bind_u64(st, DB_THREADS_DROPPED, t->dropped);
		/* heap: counted from start to end in one accounting period */
		if ((t->has & T_START) && (t->has & T_END) &&
		    t->heap_start.epoch &&
		    t->heap_start.epoch == t->heap_end.epoch) {
			const struct heap_sample *a = &t->heap_start;
			const struct heap_sample *b = &t->heap_end;

			schema_bind_u64(st, DB_THREADS_ALLOC_BYTES,
					b->alloc_bytes - a->alloc_bytes);
			schema_bind_u64(st, DB_THREADS_FREED_BYTES,
					b->freed_bytes - a->freed_bytes);
			schema_bind_u64(st, DB_THREADS_ALLOCS,
					b->allocs - a->allocs);
			schema_bind_u64(st, DB_THREADS_FREES,
					b->frees - a->frees);
			schema_bind_int(st, DB_THREADS_PEAK_HEAP_BYTES,
					t->heap_peak);
		}
		*dropped += t->dropped;
		rc = merge_step(m, st, "insert thread");
	}
	m->stats->threads += n;
	free(v);
	return rc;
}

static int store_process(struct merge *m, int64_t file_id, bool ok)
{
	struct proc *p = m->p;
	sqlite3_stmt *st = m->ins_proc;
	uint64_t dropped;
	int rc;

	if ((rc = host_id(m, p->host, &p->host_id)) ||
	    (rc = store_threads(m, &dropped)))
		return rc;
	/* DROPS may be lost with a buffer; the process total may be absent. */
	if (p->ended && p->end_dropped > dropped)
		dropped = p->end_dropped;
	dropped += p->lost; /* never written: the disk was full */
	schema_bind_int(st, DB_PROCESSES_PROC_ID, m->proc_id);
	bind_uuid(st, DB_PROCESSES_UUID, p->uuid);
	schema_bind_int(st, DB_PROCESSES_HOST_ID, p->host_id);
	schema_bind_int(st, DB_PROCESSES_PID, p->pid);
	schema_bind_int(st, DB_PROCESSES_PPID, p->ppid);
	schema_bind_text(st, DB_PROCESSES_EXE, p->exe, -1);
	schema_bind_text(st, DB_PROCESSES_ARGV, p->argv, -1);
	schema_bind_u64(st, DB_PROCESSES_START_REALTIME_NS, p->start_realtime);
	schema_bind_u64(st, DB_PROCESSES_START_MONO_NS, p->start_mono);
	if (p->has_parent)
		bind_uuid(st, DB_PROCESSES_PARENT_UUID, p->parent_uuid);
	schema_bind_u64(st, DB_PROCESSES_BUFFER_KB, p->buffer_kb);
	schema_bind_u64(st, DB_PROCESSES_FLUSH_MS, p->flush_ms);
	if (p->ended) {
		schema_bind_u64(st, DB_PROCESSES_END_MONO_NS, p->end_mono);
		schema_bind_u64(st, DB_PROCESSES_END_REALTIME_NS,
				p->end_realtime);
		schema_bind_text(st, DB_PROCESSES_END_REASON,
				 record_process_end_name(p->end_reason), -1);
		schema_bind_int(st, DB_PROCESSES_END_DETAIL, p->end_detail);
	}
	schema_bind_u64(st, DB_PROCESSES_RECORDS, p->records);
	schema_bind_u64(st, DB_PROCESSES_DROPPED, dropped);
	schema_bind_int(st, DB_PROCESSES_COMPLETE, p->ended && ok);
	schema_bind_int(st, DB_PROCESSES_FILE_ID, file_id);
	schema_bind_text(st, DB_PROCESSES_CPU_CLOCK,
			 record_cpu_clock_name(p->cpu_clock), -1);
	/* the peak is the process's only if counted from its start on */
	if (p->ended && p->end_heap_epoch == 1)
		schema_bind_u64(st, DB_PROCESSES_PEAK_HEAP_BYTES,
				p->end_heap_peak);
	schema_bind_u64(st, DB_PROCESSES_LAST_MONO_NS, p->last_mono);
	schema_bind_u64(st, DB_PROCESSES_SEGMENTS, p->segments);
	schema_bind_u64(st, DB_PROCESSES_DELETED_SEGMENTS, p->deleted_segments);
	schema_bind_u64(st, DB_PROCESSES_DELETED_RECORDS, p->deleted_records);
	schema_bind_u64(st, DB_PROCESSES_DELETED_BYTES, p->deleted_bytes);
	m->stats->deleted_segments += p->deleted_segments;
	m->stats->deleted_records += p->deleted_records;
	m->stats->deleted_bytes += p->deleted_bytes;
	if (p->has_keep) {
		schema_bind_u64(st, DB_PROCESSES_KEEP_HELD, p->keep_held);
		schema_bind_u64(st, DB_PROCESSES_KEEP_WRITTEN, p->keep_written);
		schema_bind_u64(st, DB_PROCESSES_KEEP_OVERFLOW,
				p->keep_overflow);
		schema_bind_u64(st, DB_PROCESSES_KEEP_CHAINS, p->keep_chains);
		m->stats->keep_overflow += p->keep_overflow;
	}
	/* the threshold, 2^64 - 1 - sample_skip, scaled to 2^32 */
	schema_bind_u64(st, DB_PROCESSES_SAMPLE_RATE_Q32,
			p->sample_skip ? (~p->sample_skip) >> 32
				       : (uint64_t)1 << 32);
	m->stats->processes++;
	m->stats->dropped += dropped;
	for (size_t i = 0; i < p->n_spawns; i++)
		if (spawn_links_add(&m->spawns, m->proc_id,
				    p->spawns[i].child_pid,
				    p->spawns[i].mono_ns))
			return -ENOMEM;
	return merge_step(m, st, "insert process");
}

static int store_file(struct merge *m, int64_t id, const char *name,
		      const struct logread_result *res, uint64_t records,
		      const char *status, const char *err)
{
	sqlite3_stmt *st = m->ins_file;

	schema_bind_int(st, DB_FILES_FILE_ID, id);
	schema_bind_text(st, DB_FILES_NAME, name, -1);
	schema_bind_u64(st, DB_FILES_BYTES, res->bytes);
	schema_bind_u64(st, DB_FILES_FRAMES, res->frames);
	schema_bind_u64(st, DB_FILES_RECORDS, records);
	schema_bind_text(st, DB_FILES_STATUS, status, -1);
	schema_bind_text(st, DB_FILES_ERROR, err, -1);
	return merge_step(m, st, "insert file");
}

/*
 * A log whose writes failed (its loss slot holds a LOSS record) stops at
 * its last whole frame, which is not the mark of a crash: its status says
 * why ('disk_full' for ENOSPC and EDQUOT, else 'write_error'), its error
 * what was lost.  *shown: the status as the warning words it.
 */
static const char *loss_status(struct merge *m, char *err, size_t size,
			       const char **shown)
{
	const struct proc *p = m->p;
	bool full = p->loss_err == ENOSPC || p->loss_err == EDQUOT;

	snprintf(err, size, "%s (%s): %" PRIu64 " records lost%s%s%s",
		 full ? "disk full" : "write failed",
		 p->loss_err > 0 && p->loss_err < 4096 ?
			 strerror((int)p->loss_err) : "unknown error",
		 p->lost, p->lost_types[0] ? " (" : "", p->lost_types,
		 p->lost_types[0] ? ")" : "");
	m->stats->write_failed++;
	m->stats->disk_full += full;
	m->stats->lost += p->lost;
	*shown = full ? "cut short by a full disk" : "cut short by a failed write";
	return full ? DB_FILE_DISK_FULL : DB_FILE_WRITE_ERROR;
}

/*
 * The end of one log, as the reader saw it (c->rc, c->res, c->p): the
 * files row and the process row.  Returns 0 (damage is reported, not
 * fatal) or -errno.
 */
static int finish_file(struct merge *m, const char *name, int64_t file_id,
		       struct chunk *c)
{
	const struct logread_result res = c->res;
	char path[8192], err[512] = "";
	const char *status = DB_FILE_OK, *shown;
	int rc = c->rc;
	uint64_t bad;
	bool loaded;

	snprintf(path, sizeof(path), "%s/%s", m->o->dir, name);
	m->p = &c->p;
	if (rc < 0 && rc != -EINVAL && rc != -EPROTO && rc != -ENOMEM &&
	    rc != -EIO) {
		/* Unreadable: like a foreign file, it is skipped. */
		snprintf(err, sizeof(err), "cannot read: %s", strerror(-rc));
		rc = -EINVAL;
	}
	if (rc == -ENOMEM || rc == -EIO)
		return rc;
	loaded = m->p->have_header && rc >= 0 && rc != STOP_DUPLICATE;
	bad = res.bad_records + m->p->bad_records;
	m->stats->bad_records += bad;

	if (rc == -EINVAL && !err[0])
		snprintf(err, sizeof(err), "not a causal log (%s)", res.error);
	else if (rc == -EPROTO)
		snprintf(err, sizeof(err), "%s", res.error);
	else if (rc == STOP_DUPLICATE)
		snprintf(err, sizeof(err), "duplicate process uuid");
	else if (rc == STOP_NO_HEADER || (rc == 0 && !loaded && res.records))
		snprintf(err, sizeof(err), "%s%sno header record", res.error,
			 res.error[0] ? "; " : "");
	else if (res.status != LOGREAD_OK)
		snprintf(err, sizeof(err), "%s", res.error);
	else if (bad)
		snprintf(err, sizeof(err), "%" PRIu64 " malformed records", bad);
	else if (!loaded)
		snprintf(err, sizeof(err), "no records");

	/*
	 * Truncated: only the end is missing (SIGKILL), everything read was
	 * sound.  Anything else wrong makes the file corrupt.
	 */
	if (!err[0])
		status = DB_FILE_OK;
	else if (rc == 0 && !bad && res.status != LOGREAD_CORRUPT &&
		 (res.status == LOGREAD_TRUNCATED || !res.records))
		status = DB_FILE_TRUNCATED;
	else
		status = DB_FILE_CORRUPT;
	if (bad && res.status != LOGREAD_OK && rc == 0)
		snprintf(err + strlen(err), sizeof(err) - strlen(err),
			 "; %" PRIu64 " malformed records", bad);
	shown = status;
	if (loaded && m->p->has_loss && strcmp(status, DB_FILE_CORRUPT))
		status = loss_status(m, err, sizeof(err), &shown);
	if (!strcmp(status, DB_FILE_TRUNCATED))
		m->stats->truncated++;
	else if (!strcmp(status, DB_FILE_CORRUPT))
		m->stats->corrupt++;
	if (err[0]) {
		if (m->o->progress)
			fputs("\r\033[K", stderr);
		warning("'%s' is %s: %s", path, shown, err);
	}

	m->stats->records += m->p->records;
	rc = store_file(m, file_id, name, &res, loaded ? m->p->records : 0,
			status, err[0] ? err : NULL);
	if (!rc && loaded)
		rc = store_process(m, file_id, !err[0]);
	m->p = NULL;
	return rc;
}

static int prepare(struct merge *m, enum db_table t, const char *verb, int rows,
		   sqlite3_stmt **st)
{
	return schema_prepare_insert(m->db, t, verb, rows, st);
}

static int exec(sqlite3 *db, const char *sql)
{
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return fail("database: %s", sqlite3_errmsg(db));
	return 0;
}

static int open_db(struct merge *m, const char *path)
{
	/*
	 * One connection, one thread: no mutexes, no memory statistics
	 * (each costs a lock per allocation).
	 */
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	if (sqlite3_open_v2(path, &m->db, SQLITE_OPEN_READWRITE |
			    SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW,
			    NULL) != SQLITE_OK)
		return fail("cannot open database '%s': %s", path,
			     m->db ? sqlite3_errmsg(m->db) : "out of memory");
	/*
	 * Nothing to protect until the rename: no journal, no fsync.  Big
	 * pages and cache for the bulk insert; two sorter threads for the
	 * index builds.  Page size is fixed so that output is reproducible.
	 * No mmap: it saved 0.1 s on 2M records but mapped the whole output
	 * into the process (1M calls: 1.84 GB resident against 1.19 GB, and
	 * 17.4 s against 16.0 s).  A bigger cache only moved the writes to
	 * the commit; 4 KiB or 16 KiB pages were slower.
	 */
	if (exec(m->db,
		 "PRAGMA page_size=65536; PRAGMA journal_mode=OFF;"
		 " PRAGMA synchronous=OFF; PRAGMA locking_mode=EXCLUSIVE;"
		 " PRAGMA cache_size=-65536; PRAGMA temp_store=MEMORY;"
		 " PRAGMA threads=2; BEGIN") ||
	    schema_create(m->db, m->o->raw) ||
	    prepare(m, DB_FILES, "INSERT", 1, &m->ins_file) ||
	    prepare(m, DB_HOSTS, "INSERT", 1, &m->ins_host) ||
	    prepare(m, DB_PROCESSES, "INSERT", 1, &m->ins_proc) ||
	    prepare(m, DB_THREADS, "INSERT", 1, &m->ins_thread) ||
	    (m->o->raw &&
	     (prepare(m, DB_RECORDS, "INSERT", 1, &m->ins_rec) ||
	      prepare(m, DB_RECORDS, "INSERT", BATCH, &m->ins_recs))) ||
	    spikes_open(&m->spikes, m->db))
		return -1;
	return 0;
}

static void close_db(struct merge *m)
{
	sqlite3_finalize(m->ins_file);
	sqlite3_finalize(m->ins_host);
	sqlite3_finalize(m->ins_proc);
	sqlite3_finalize(m->ins_thread);
	sqlite3_finalize(m->ins_rec);
	sqlite3_finalize(m->ins_recs);
	for (int t = 0; t < DB_NTABLES; t++) {
		sqlite3_finalize(m->ins_table[t]);
		m->ins_table[t] = NULL;
	}
	spikes_close(&m->spikes);
	m->ins_recs = NULL;
	m->ins_file = m->ins_host = m->ins_proc = m->ins_thread = m->ins_rec = NULL;
	sqlite3_close(m->db);
	m->db = NULL;
}

/*
 * The output must be a regular file or nothing: rename() would put the
 * database in place of a device, a FIFO or a socket (as root, -o /dev/full
 * replaced the device), and in place of a symbolic link rather than its
 * target.  Those are refused, not resolved: whoever wants the target can
 * name it.
 */
static int check_output(const char *output)
{
	struct stat st;

	/* Nothing there (or no way there: creating the file will say why). */
	if (lstat(output, &st) < 0 || S_ISREG(st.st_mode))
		return 0;
	return fail("'%s' is %s, not a regular file: refusing to replace it",
		     output,
		     S_ISLNK(st.st_mode) ? "a symbolic link" :
		     S_ISDIR(st.st_mode) ? "a directory" :
		     S_ISCHR(st.st_mode) ? "a character device" :
		     S_ISBLK(st.st_mode) ? "a block device" :
		     S_ISFIFO(st.st_mode) ? "a FIFO" :
		     S_ISSOCK(st.st_mode) ? "a socket" : "something else");
}

/*
 * A fresh temporary file beside output, mode 0600 whatever the umask: the
 * database holds argv and addresses, like the logs it comes from.
 * mkostemp() creates with O_EXCL, which never follows a symbolic link.
 */
static int make_temp(const char *output, char *tmp, size_t size)
{
	int fd;

	if ((size_t)snprintf(tmp, size, "%s.tmp.XXXXXX", output) >= size)
		return fail("output path too long");
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return fail("cannot create '%s': %s", output, strerror(errno));
	if (fchmod(fd, 0600) < 0) {
		fail("cannot create '%s': %s", output, strerror(errno));
		close(fd);
		unlink(tmp);
		return -1;
	}
	close(fd);
	return 0;
}

/* One more row with value (NULL: not counted) in v[0 .. *n). */
static void count_value(struct merge_count *v, size_t *n, const unsigned char *value)
{
	const char *s = (const char *)value;
	size_t i;

	if (!s)
		return;
	for (i = 0; i < *n; i++)
		if (!strcmp(v[i].value, s))
			break;
	if (i == *n) {
		/* Past the last slot, the rest are summed as "other". */
		if (*n == MERGE_VALUES) {
			i = MERGE_VALUES - 1;
			snprintf(v[i].value, sizeof(v[i].value), "other");
		} else {
			snprintf(v[i].value, sizeof(v[i].value), "%s", s);
			++*n;
		}
	}
	v[i].n++;
}

/* 'ok' first, then by name. */
static int cmp_count(const void *a, const void *b)
{
	const struct merge_count *x = a, *y = b;
	int xo = !strcmp(x->value, "ok"), yo = !strcmp(y->value, "ok");

	return xo != yo ? yo - xo : strcmp(x->value, y->value);
}

/*
 * The calls by tag status, both columns, for the summary: whatever values
 * the table holds, so that a new status is counted too.  One scan and
 * counting here: two GROUP BY queries sorted the whole table, three times
 * as long (0.65 s against 0.2 s for 1M calls).
 */
static int count_tags(struct merge *m)
{
	static const int cols[] = { DB_RPC_CALLS_TAG, DB_RPC_CALLS_REPLY_TAG };
	struct merge_stats *s = m->stats;
	char *sql = db_sql_select(DB_RPC_CALLS, cols, 2, NULL);
	sqlite3_stmt *st;
	int rc;

	if (!sql)
		return fail("out of memory");
	rc = sqlite3_prepare_v2(m->db, sql, -1, &st, NULL);
	free(sql);
	if (rc != SQLITE_OK)
		return fail("database: %s", sqlite3_errmsg(m->db));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		count_value(s->tags, &s->n_tags, sqlite3_column_text(st, 0));
		count_value(s->reply_tags, &s->n_reply_tags,
			    sqlite3_column_text(st, 1));
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return fail("database: %s", sqlite3_errmsg(m->db));
	qsort(s->tags, s->n_tags, sizeof(s->tags[0]), cmp_count);
	qsort(s->reply_tags, s->n_reply_tags, sizeof(s->reply_tags[0]), cmp_count);
	return 0;
}

static int store_calls(struct merge *m)
{
	struct rpc_calls_stats cs;
	int rc = rpc_calls_store(&m->rpc, m->db, &cs);

	if (rc == -EIO)
		return fail("database: insert rpc call: %s", sqlite3_errmsg(m->db));
	if (rc)
		return fail("rpc calls: %s", strerror(-rc));
	if (schema_set_meta(m->db, DB_META_CALLS_ORDER, DB_CALLS_ORDER_CHAIN))
		return -1;
	m->stats->rpc_calls = cs.calls;
	m->stats->rpc_no_server = cs.no_server;
	m->stats->rpc_no_client = cs.no_client;
	return cs.calls ? count_tags(m) : 0;
}

/* Store what the reader hands over, file by file, in order. */
static int store_all(struct merge *m, struct chunk_queue *q,
		     const struct logdir *ld)
{
	size_t i = 0;
	int rc = 0;

	m->file_no = 1;
	m->proc_id = 1;
	progress(m, true);
	while (i < ld->n_logs) {
		struct chunk *c = chunk_queue_pop(q);
		/* a rotated log's row is named by its first segment */
		const char *name = ld->names[ld->logs[i].first];

		if (!c)
			return fail("out of memory");
		rc = chunk_store(m, c);
		if (!rc && c->eof) {
			rc = finish_file(m, name, (int64_t)i + 1, c);
			m->proc_id = (int64_t)m->stats->processes + 1;
			m->file_no = ++i + 1;
		}
		chunk_queue_put(q, c);
		if (rc == -EIO)
			return fail("database: %s", m->db_error);
		if (rc < 0)
			return fail("'%s/%s': %s", m->o->dir, name, strerror(-rc));
	}
	return 0;
}

static int merge_all(struct merge *m, const struct logdir *ld)
{
	struct merge_reader rd = {
		.o = m->o, .ld = ld, .rpc = &m->rpc, .proc_id = 1
	};
	struct chunk_queue q;
	uint64_t linked;
	pthread_t tid;
	int rc;

	m->n_files = ld->n_logs;
	if (chunk_queue_init(&q))
		return fail("out of memory");
	rd.q = &q;
	if ((rc = pthread_create(&tid, NULL, merge_reader_main, &rd))) {
		chunk_queue_release(&q);
		return fail("cannot start the reader thread: %s", strerror(rc));
	}
	rc = store_all(m, &q, ld);
	if (rc)
		chunk_queue_cancel(&q);
	pthread_join(tid, NULL);
	chunk_queue_release(&q);
	if (rc)
		return rc;
	if (m->o->progress)
		fputs("\r\033[K", stderr);
	if (!m->stats->processes)
		return fail("no readable causal log in '%s'", m->o->dir);
	if (spawn_links_store(&m->spawns, m->db, &linked))
		return fail("database: parent links: %s", sqlite3_errmsg(m->db));
	if ((rc = store_calls(m)))
		return rc;
	rc = m->o->ends
		     ? db_ends_load(&m->stats->ends, m->db, DB_SCHEMA_VERSION)
		     : 0;
	if (rc)
		return rc == -EIO ? merge_db_fail(m, "how the processes ended")
				  : rc;
	if (schema_create_indexes(m->db) || exec(m->db, "COMMIT"))
		return -1;
	return 0;
}

void merge_stats_release(struct merge_stats *stats)
{
	db_ends_release(&stats->ends);
}

int merge_run(const struct merge_opts *o, struct merge_stats *stats)
{
	struct merge m = { .o = o, .stats = stats };
	char output[4096], tmp[4200];
	uint64_t start = now_ns();
	struct logdir ld;
	int rc;

	memset(stats, 0, sizeof(*stats));
	if ((o->output ? snprintf(output, sizeof(output), "%s", o->output) :
	     snprintf(output, sizeof(output), "%s/trace.db", o->dir)) >=
	    (int)sizeof(output))
		return fail("output path too long");
	if (check_output(output))
		return -1;
	rc = logdir_scan(o->dir, &ld);
	if (rc == -ENOTDIR)
		return fail("'%s' is not a directory", o->dir);
	if (rc == -ENOENT)
		return fail("directory '%s' does not exist", o->dir);
	if (rc < 0)
		return fail("cannot read directory '%s': %s", o->dir, strerror(-rc));
	stats->files = ld.n;
	if (!ld.n) {
		logdir_release(&ld);
		return fail("no causal logs (*%s) in '%s'", CAUSAL_LOG_SUFFIX, o->dir);
	}
	if (make_temp(output, tmp, sizeof(tmp))) {
		logdir_release(&ld);
		return -1;
	}
	/* an interrupted merge leaves no temporary database behind */
	tmp_cleanup_add(tmp, NULL);

	rpc_calls_init(&m.rpc);
	if (!msgpack_zone_init(&m.zone, 8192))
		rc = fail("out of memory");
	else
		rc = open_db(&m, tmp);
	if (!rc)
		rc = merge_all(&m, &ld);
	close_db(&m);
	/* Again: the output may have been replaced during the merge. */
	if (!rc)
		rc = check_output(output);
	if (!rc && rename(tmp, output) < 0)
		rc = fail("cannot rename '%s' to '%s': %s", tmp, output,
			   strerror(errno));
	if (rc)
		unlink(tmp);
	tmp_cleanup_forget(tmp, NULL);

	for (size_t i = 0; i < m.n_hosts; i++)
		free(m.hosts[i]);
	free(m.hosts);
	rpc_calls_release(&m.rpc);
	spawn_links_release(&m.spawns);
	msgpack_zone_destroy(&m.zone);
	msgpack_sbuffer_destroy(&m.part);
	logdir_release(&ld);
	stats->seconds = (double)(now_ns() - start) / 1e9;
	return rc ? -1 : 0;
}
