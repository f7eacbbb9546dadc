/*
 * merge.c - `tracedump merge` engine: logs -> one SQLite database.
 *
 * Two threads: a reader thread reads the files in sorted order
 * (decompression, msgpack, decoding, the process and thread rows in
 * memory) and hands the records in chunks through a small bounded queue
 * to the calling thread, which alone talks to SQLite.  Everything reaches
 * the database in file order, so the output does not depend on timing.
 *
 * SQLite speed comes from one transaction with journal and sync off,
 * statements prepared once, multi-row inserts bound straight from the
 * chunk (SQLITE_STATIC, no copy) and indexes built after the bulk insert.
 */
#include <errno.h>
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
#include "json.h"
#include "logdir.h"
#include "logread.h"
#include "merge.h"
#include "rpc-calls.h"
#include "log-record.h"
#include "schema.h"
#include "usage.h"

/* Why on_record() stopped reading a file (positive: not a failure). */
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
};

#define T_USED 0x80000000u	/* slot in use: tid 0 is a valid tid */

struct thread {
	uint64_t tid;
	unsigned has;			/* T_* */
	uint64_t parent_tid, os_tid, marker, start_mono, start_cpu;
	uint64_t spawn_mono, end_mono, end_cpu, end_how;
	uint64_t ctx_event, ctx_function, dropped;
	uint8_t chain[CAUSAL_CHAIN_ID_LEN];
};

/* Open addressing on tid: tids are small but a log is input. */
struct thread_map {
	struct thread *slots;
	size_t cap, n;
};

struct proc {
	bool have_header;
	uint8_t uuid[CAUSAL_UUID_LEN];
	int64_t host_id, pid, ppid;
	char *host, *exe, *argv;
	uint64_t start_realtime, start_mono, buffer_kb, flush_ms;
	bool has_parent;
	uint8_t parent_uuid[CAUSAL_UUID_LEN];
	bool ended;
	uint64_t end_mono, end_realtime, end_reason, end_dropped;
	int64_t end_detail;
	uint64_t records, bad_records;
	struct thread_map threads;
};

/*
 * Records go to SQLite BATCH rows per statement: a multi-row INSERT
 * halves the per-row VDBE overhead.
 */
#define BATCH 64

/*
 * What the reader hands over: up to CHUNK records of one file, their
 * bytes copied into one arena (the decompression buffer is reused frame
 * after frame), and, in the last chunk of a file, how the read ended.
 */
#define CHUNK (BATCH * 64)
#define QUEUE_LEN 4		/* chunks in flight: bounds the memory */

struct chunk_rec {
	uint64_t seq, type, tid, mono;
	size_t off, len;
};

struct chunk {
	int n;
	struct chunk_rec rec[CHUNK];
	uint8_t *buf;
	size_t used, cap;
	bool eof;			/* the file's last chunk: */
	int rc;				/* logread_file() or a STOP_* */
	struct logread_result res;
	struct proc p;			/* owned by the chunk until stored */
	struct chunk *next_free;
};

struct queue {
	pthread_mutex_t lock;
	pthread_cond_t not_empty, not_full;
	struct chunk *slot[QUEUE_LEN];
	size_t head, n;
	struct chunk *free;		/* recycled chunks */
	bool cancel;			/* set by the main thread on failure */
};

/* The reader thread's state: nothing in it is touched by the other. */
struct reader {
	const struct merge_opts *o;
	const struct logdir *ld;
	struct queue *q;
	struct chunk *cur;
	struct proc p;
	uint8_t (*uuids)[CAUSAL_UUID_LEN];
	size_t n_uuids;
};

struct merge {
	const struct merge_opts *o;
	struct merge_stats *stats;
	sqlite3 *db;
	sqlite3_stmt *ins_file, *ins_host, *ins_proc, *ins_thread, *ins_rec;
	sqlite3_stmt *ins_recs;		/* BATCH rows */
	sqlite3_stmt *ins_probe, *ins_site, *ins_object;
	struct rpc_calls rpc;
	msgpack_zone zone;		/* to decode RPC records again */
	int64_t proc_id;		/* of the file being stored */
	struct proc *p;			/* its process */
	char **hosts;			/* index + 1 = host_id */
	size_t n_hosts;
	char db_error[256];
	/* progress */
	size_t file_no, n_files;
	uint64_t last_progress_ns;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
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

static struct thread *thread_get(struct thread_map *tm, uint64_t tid)
{
	size_t i, mask;

	if (2 * (tm->n + 1) > tm->cap) {
		size_t ncap = tm->cap ? tm->cap * 2 : 64;
		struct thread *ns = calloc(ncap, sizeof(*ns));

		if (!ns)
			return NULL;
		for (size_t j = 0; j < tm->cap; j++) {
			const struct thread *t = &tm->slots[j];

			if (!(t->has & T_USED))
				continue;
			for (i = t->tid & (ncap - 1); ns[i].has; i = (i + 1) & (ncap - 1))
				;
			ns[i] = *t;
		}
		free(tm->slots);
		tm->slots = ns;
		tm->cap = ncap;
	}
	mask = tm->cap - 1;
	for (i = tid & mask; tm->slots[i].has; i = (i + 1) & mask)
		if (tm->slots[i].tid == tid)
			return &tm->slots[i];
	tm->slots[i].tid = tid;
	tm->slots[i].has = T_USED;
	tm->n++;
	return &tm->slots[i];
}

static void proc_release(struct proc *p)
{
	free(p->host);
	free(p->exe);
	free(p->argv);
	free(p->threads.slots);
	memset(p, 0, sizeof(*p));
}

static int db_fail(struct merge *m, const char *what)
{
	snprintf(m->db_error, sizeof(m->db_error), "%s: %s", what,
		 sqlite3_errmsg(m->db));
	return -EIO;
}

static int step(struct merge *m, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : db_fail(m, what);
}

static void bind_text(sqlite3_stmt *st, int i, const char *s, size_t n)
{
	sqlite3_bind_text(st, i, s, (int)n, SQLITE_TRANSIENT);
}

static void bind_hex(sqlite3_stmt *st, int i, const uint8_t *p, size_t n)
{
	char buf[2 * CAUSAL_CHAIN_ID_LEN + 1];

	record_hex(buf, p, n);
	sqlite3_bind_text(st, i, buf, (int)(2 * n), SQLITE_TRANSIENT);
}

static void bind_name(sqlite3_stmt *st, int i, const char *name)
{
	if (name)
		sqlite3_bind_text(st, i, name, -1, SQLITE_STATIC);
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
	sqlite3_bind_int64(m->ins_host, 1, *id);
	sqlite3_bind_text(m->ins_host, 2, copy, -1, SQLITE_STATIC);
	m->stats->hosts++;
	return step(m, m->ins_host, "insert host");
}

static char *argv_json(const msgpack_object *argv)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	json_msgpack(f, argv);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Reader thread: the process row from HEADER (host_id comes later). */
static int take_header(struct reader *rd, const struct record *r)
{
	struct proc *p = &rd->p;
	uint8_t (*uuids)[CAUSAL_UUID_LEN];

	/* Few processes per run: a linear scan is cheaper than a hash. */
	for (size_t i = 0; i < rd->n_uuids; i++)
		if (!memcmp(rd->uuids[i], r->header.uuid, CAUSAL_UUID_LEN))
			return STOP_DUPLICATE;
	uuids = realloc(rd->uuids, (rd->n_uuids + 1) * sizeof(*uuids));
	if (!uuids)
		return -ENOMEM;
	rd->uuids = uuids;
	memcpy(rd->uuids[rd->n_uuids++], r->header.uuid, CAUSAL_UUID_LEN);

	p->have_header = true;
	memcpy(p->uuid, r->header.uuid, CAUSAL_UUID_LEN);
	p->pid = r->header.pid;
	p->ppid = r->header.ppid;
	p->host = strndup(r->header.host.ptr, r->header.host.len);
	p->exe = strndup(r->header.exe.ptr, r->header.exe.len);
	p->argv = argv_json(r->header.argv);
	if (!p->host || !p->exe || !p->argv)
		return -ENOMEM;
	p->start_realtime = r->header.start_realtime_ns;
	p->start_mono = r->header.start_mono_ns;
	p->buffer_kb = r->header.buffer_kb;
	p->flush_ms = r->header.flush_ms;
	if (r->header.parent_uuid) {
		p->has_parent = true;
		memcpy(p->parent_uuid, r->header.parent_uuid, CAUSAL_UUID_LEN);
	}
	return 0;
}

/* An RPC probe row; the probe also goes to the call join. */
static int take_probe(struct merge *m, uint64_t seq, const struct record *r,
		      const struct record_rpc *p)
{
	sqlite3_stmt *st = m->ins_probe;

	sqlite3_bind_int64(st, 1, m->proc_id);
	sqlite3_bind_int64(st, 2, (int64_t)seq);
	bind_name(st, 3, record_rpc_kind(r->type));
	sqlite3_bind_int64(st, 4, (int64_t)r->tid);
	bind_hex(st, 5, p->chain, CAUSAL_CHAIN_ID_LEN);
	sqlite3_bind_int64(st, 6, (int64_t)p->event);
	sqlite3_bind_int64(st, 7, (int64_t)p->function);
	sqlite3_bind_int64(st, 8, (int64_t)r->mono_ns);
	sqlite3_bind_int64(st, 9, (int64_t)p->mono_exit_ns);
	sqlite3_bind_int64(st, 10, (int64_t)p->cpu_ns);
	if (rpc_calls_add(&m->rpc, m->proc_id, seq, r))
		return -ENOMEM;
	return step(m, st, "insert rpc probe");
}

static void bind_addr(sqlite3_stmt *st, int i, const struct record_bin *b)
{
	char buf[RECORD_SOCKADDR_MAX];

	if (b->ptr)
		sqlite3_bind_text(st, i, record_sockaddr(buf, b->ptr, b->len), -1,
				  SQLITE_TRANSIENT);
}

/* RPC_SITE and RPC_OBJECT: the first record of an id wins. */
static int take_rpc_meta(struct merge *m, uint64_t seq, const struct record *r)
{
	sqlite3_stmt *st;

	if (r->type == CAUSAL_REC_RPC_SITE) {
		st = m->ins_site;
		sqlite3_bind_int64(st, 1, m->proc_id);
		sqlite3_bind_int64(st, 2, (int64_t)r->rpc_site.site_id);
		bind_text(st, 3, r->rpc_site.symbol.ptr, r->rpc_site.symbol.len);
		bind_text(st, 4, r->rpc_site.module.ptr, r->rpc_site.module.len);
		if (rpc_calls_add(&m->rpc, m->proc_id, seq, r))
			return -ENOMEM;
		return step(m, st, "insert rpc site");
	}
	st = m->ins_object;
	sqlite3_bind_int64(st, 1, m->proc_id);
	sqlite3_bind_int64(st, 2, (int64_t)r->rpc_object.object_id);
	sqlite3_bind_int64(st, 3, (int64_t)r->rpc_object.prog);
	sqlite3_bind_int64(st, 4, (int64_t)r->rpc_object.vers);
	bind_name(st, 5, record_transport_name(r->rpc_object.transport));
	bind_addr(st, 6, &r->rpc_object.address);
	bind_text(st, 7, r->rpc_object.netid.ptr, r->rpc_object.netid.len);
	return step(m, st, "insert rpc object");
}

/* Main thread: an RPC record (number seq of the process). */
static int take_rpc(struct merge *m, uint64_t seq, const struct record *r)
{
	switch (r->type) {
	case CAUSAL_REC_RPC_STUB_START:
		return take_probe(m, seq, r, &r->stub_start.p);
	case CAUSAL_REC_RPC_STUB_END:
		return take_probe(m, seq, r, &r->stub_end.p);
	case CAUSAL_REC_RPC_SKEL_START:
		return take_probe(m, seq, r, &r->skel_start.p);
	case CAUSAL_REC_RPC_SKEL_END:
		return take_probe(m, seq, r, &r->skel_end.p);
	case CAUSAL_REC_RPC_SITE:
	case CAUSAL_REC_RPC_OBJECT:
		return take_rpc_meta(m, seq, r);
	}
	return 0;
}

static bool is_rpc(uint64_t type)
{
	return type >= CAUSAL_REC_RPC_STUB_START && type <= CAUSAL_REC_RPC_OBJECT;
}

/* Reader thread: fold a record into the process and thread rows. */
static int take_record(struct proc *p, const struct record *r)
{
	struct thread *t;

	switch (r->type) {
	case CAUSAL_REC_THREAD_START:
		if (!(t = thread_get(&p->threads, r->tid)))
			return -ENOMEM;
		t->has |= T_START;
		t->parent_tid = r->thread_start.parent_tid;
		t->os_tid = r->thread_start.os_tid;
		t->marker = r->thread_start.marker;
		t->start_mono = r->mono_ns;
		t->start_cpu = r->thread_start.cpu_ns;
		if (r->thread_start.ctx.set) {
			t->has |= T_CTX;
			memcpy(t->chain, r->thread_start.ctx.chain, CAUSAL_CHAIN_ID_LEN);
			t->ctx_event = r->thread_start.ctx.event;
			t->ctx_function = r->thread_start.ctx.function;
		}
		break;
	case CAUSAL_REC_THREAD_END:
		if (!(t = thread_get(&p->threads, r->tid)))
			return -ENOMEM;
		t->has |= T_END;
		t->end_mono = r->mono_ns;
		t->end_cpu = r->thread_end.cpu_ns;
		t->end_how = r->thread_end.how;
		break;
	case CAUSAL_REC_DROPS:
		if (!(t = thread_get(&p->threads, r->tid)))
			return -ENOMEM;
		t->dropped = r->drops.dropped;	/* a running total */
		break;
	case CAUSAL_REC_THREAD_SPAWN:
		if (!(t = thread_get(&p->threads, r->thread_spawn.child_tid)))
			return -ENOMEM;
		t->has |= T_SPAWN;
		t->spawn_mono = r->mono_ns;
		/* The parent is known even if the child's start was lost. */
		if (!(t->has & T_START))
			t->parent_tid = r->tid;
		break;
	case CAUSAL_REC_PROCESS_END:
		p->ended = true;
		p->end_mono = r->mono_ns;
		p->end_realtime = r->process_end.realtime_ns;
		p->end_reason = r->process_end.reason;
		p->end_detail = r->process_end.detail;
		p->end_dropped = r->process_end.dropped;
		break;
	}
	return 0;
}

/* --- the queue between the reader thread and the main thread --- */

static int queue_init(struct queue *q)
{
	memset(q, 0, sizeof(*q));
	if (pthread_mutex_init(&q->lock, NULL))
		return -ENOMEM;
	pthread_cond_init(&q->not_empty, NULL);
	pthread_cond_init(&q->not_full, NULL);
	return 0;
}

static void chunk_free(struct chunk *c)
{
	proc_release(&c->p);
	free(c->buf);
	free(c);
}

static void queue_release(struct queue *q)
{
	struct chunk *c;

	for (size_t i = 0; i < q->n; i++)
		chunk_free(q->slot[(q->head + i) % QUEUE_LEN]);
	while ((c = q->free)) {
		q->free = c->next_free;
		chunk_free(c);
	}
	pthread_cond_destroy(&q->not_empty);
	pthread_cond_destroy(&q->not_full);
	pthread_mutex_destroy(&q->lock);
}

/* An empty chunk, recycled when possible; NULL when out of memory. */
static struct chunk *chunk_get(struct queue *q)
{
	struct chunk *c;

	pthread_mutex_lock(&q->lock);
	if ((c = q->free))
		q->free = c->next_free;
	pthread_mutex_unlock(&q->lock);
	if (!c && !(c = calloc(1, sizeof(*c))))
		return NULL;
	c->n = 0;
	c->used = 0;
	c->eof = false;
	return c;
}

static void chunk_put(struct queue *q, struct chunk *c)
{
	proc_release(&c->p);
	pthread_mutex_lock(&q->lock);
	c->next_free = q->free;
	q->free = c;
	pthread_mutex_unlock(&q->lock);
}

/*
 * Reader: hand c over, waiting for room; NULL says the reader ran out of
 * memory.  -ECANCELED if the main thread gave up.
 */
static int queue_push(struct queue *q, struct chunk *c)
{
	pthread_mutex_lock(&q->lock);
	while (q->n == QUEUE_LEN && !q->cancel)
		pthread_cond_wait(&q->not_full, &q->lock);
	if (q->cancel) {
		pthread_mutex_unlock(&q->lock);
		if (c)
			chunk_free(c);
		return -ECANCELED;
	}
	q->slot[(q->head + q->n++) % QUEUE_LEN] = c;
	pthread_cond_signal(&q->not_empty);
	pthread_mutex_unlock(&q->lock);
	return 0;
}

static struct chunk *queue_pop(struct queue *q)
{
	struct chunk *c;

	pthread_mutex_lock(&q->lock);
	while (!q->n)
		pthread_cond_wait(&q->not_empty, &q->lock);
	c = q->slot[q->head];
	q->head = (q->head + 1) % QUEUE_LEN;
	q->n--;
	pthread_cond_signal(&q->not_full);
	pthread_mutex_unlock(&q->lock);
	return c;
}

static void queue_cancel(struct queue *q)
{
	pthread_mutex_lock(&q->lock);
	__atomic_store_n(&q->cancel, true, __ATOMIC_RELAXED);
	pthread_cond_broadcast(&q->not_full);
	pthread_mutex_unlock(&q->lock);
}

/* --- the reader thread --- */

static int chunk_add(struct reader *rd, uint64_t seq,
		     const struct logread_record *lr)
{
	struct chunk *c = rd->cur;
	struct chunk_rec *cr;
	int rc;

	if (c->n == CHUNK) {
		rd->cur = NULL;
		if ((rc = queue_push(rd->q, c)))
			return rc;
		if (!(c = rd->cur = chunk_get(rd->q)))
			return -ENOMEM;
	}
	if (c->used + lr->raw_len > c->cap) {
		size_t cap = c->cap ? c->cap : 65536;
		uint8_t *buf;

		while (cap < c->used + lr->raw_len)
			cap *= 2;
		if (!(buf = realloc(c->buf, cap)))
			return -ENOMEM;
		c->buf = buf;
		c->cap = cap;
	}
	memcpy(c->buf + c->used, lr->raw, lr->raw_len);
	cr = &c->rec[c->n++];
	*cr = (struct chunk_rec){ seq, lr->type, lr->tid, lr->mono_ns,
				  c->used, lr->raw_len };
	c->used += lr->raw_len;
	return 0;
}

static int on_record(void *arg, const struct logread_record *lr)
{
	struct reader *rd = arg;
	struct proc *p = &rd->p;
	struct record r;
	int rc;

	/* Without the lock: a stale read only delays the stop. */
	if (__atomic_load_n(&rd->q->cancel, __ATOMIC_RELAXED))
		return STOP_CANCELLED;
	if (record_decode(lr->obj, &r) < 0) {
		if (!p->have_header)
			return STOP_NO_HEADER;
		p->bad_records++;
		return 0;
	}
	if (!p->have_header) {
		if (r.type != CAUSAL_REC_HEADER)
			return STOP_NO_HEADER;
		if ((rc = take_header(rd, &r)))
			return rc;
	} else if ((rc = take_record(p, &r))) {
		return rc;
	}
	if ((rc = chunk_add(rd, p->records, lr)))
		return rc;
	p->records++;
	return 0;
}

/* Read every file in order; each ends with an eof chunk. */
static void *reader_main(void *arg)
{
	struct reader *rd = arg;
	char path[8192];
	int rc = 0;

	for (size_t i = 0; i < rd->ld->n && rc != -ECANCELED; i++) {
		struct chunk *c;

		snprintf(path, sizeof(path), "%s/%s", rd->o->dir, rd->ld->names[i]);
		memset(&rd->p, 0, sizeof(rd->p));
		if (!(rd->cur = chunk_get(rd->q))) {
			rc = -ENOMEM;
			c = NULL;
		} else {
			struct logread_result res;

			rc = logread_file(path, on_record, rd, &res);
			if ((c = rd->cur))
				c->res = res;
		}
		if (!c && rc != -ECANCELED && !(c = chunk_get(rd->q))) {
			queue_push(rd->q, NULL);	/* out of memory */
			break;
		}
		if (!c)
			break;
		if (rc == STOP_CANCELLED)
			rc = -ECANCELED;
		c->eof = true;
		c->rc = rc;
		c->p = rd->p;			/* moved */
		memset(&rd->p, 0, sizeof(rd->p));
		rd->cur = NULL;
		if (queue_push(rd->q, c))
			break;
		if (rc == -ENOMEM)
			break;
	}
	proc_release(&rd->p);
	free(rd->uuids);
	return NULL;
}

/* --- the main thread --- */

/* Decode an RPC record again from its bytes: few, so not worth a copy. */
static int chunk_rpc(struct merge *m, const struct chunk *c,
		     const struct chunk_rec *cr)
{
	msgpack_object obj;
	struct record r;
	size_t off = 0;

	msgpack_zone_clear(&m->zone);
	if (msgpack_unpack((const char *)c->buf + cr->off, cr->len, &off, &m->zone,
			   &obj) < 0 || record_decode(&obj, &r) < 0)
		return 0;	/* cannot be: the reader decoded it */
	return take_rpc(m, cr->seq, &r);
}

/* Insert a chunk's records, BATCH at a time, the rest one by one. */
static int chunk_store(struct merge *m, const struct chunk *c)
{
	sqlite3_stmt *st = m->ins_recs;
	int i = 0, col = 1, rc;

	for (int k = 0; k < c->n; k++)
		if (is_rpc(c->rec[k].type) && (rc = chunk_rpc(m, c, &c->rec[k])))
			return rc;
	while (i < c->n) {
		const struct chunk_rec *cr = &c->rec[i];

		if (col == 1)
			st = c->n - i >= BATCH ? m->ins_recs : m->ins_rec;
		sqlite3_bind_int64(st, col++, m->proc_id);
		sqlite3_bind_int64(st, col++, (int64_t)cr->seq);
		sqlite3_bind_int64(st, col++, (int64_t)cr->type);
		sqlite3_bind_int64(st, col++, (int64_t)cr->tid);
		sqlite3_bind_int64(st, col++, (int64_t)cr->mono);
		/* The chunk outlives the step: no copy. */
		sqlite3_bind_blob(st, col++, c->buf + cr->off, (int)cr->len,
				  SQLITE_STATIC);
		i++;
		if (st == m->ins_recs && col <= 6 * BATCH)
			continue;
		if (sqlite3_step(st) != SQLITE_DONE) {
			sqlite3_reset(st);
			return db_fail(m, "insert record");
		}
		sqlite3_reset(st);
		col = 1;
	}
	m->stats->records += c->n;
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
	for (size_t i = 0; i < tm->cap; i++)
		if (tm->slots[i].has & T_USED)
			v[n++] = &tm->slots[i];
	/* Sorted, so that the database does not depend on hashing. */
	qsort(v, n, sizeof(*v), cmp_threads);
	for (size_t i = 0; i < n && !rc; i++) {
		const struct thread *t = v[i];

		sqlite3_bind_int64(st, 1, m->proc_id);
		sqlite3_bind_int64(st, 2, (int64_t)t->tid);
		sqlite3_bind_int64(st, 3, (int64_t)t->parent_tid);
		if (t->has & T_START) {
			sqlite3_bind_int64(st, 4, (int64_t)t->os_tid);
			bind_name(st, 5, record_marker_name(t->marker));
			sqlite3_bind_int64(st, 6, (int64_t)t->start_mono);
			sqlite3_bind_int64(st, 7, (int64_t)t->start_cpu);
		}
		if (t->has & T_SPAWN)
			sqlite3_bind_int64(st, 8, (int64_t)t->spawn_mono);
		if (t->has & T_END) {
			sqlite3_bind_int64(st, 9, (int64_t)t->end_mono);
			sqlite3_bind_int64(st, 10, (int64_t)t->end_cpu);
			bind_name(st, 11, record_thread_end_name(t->end_how));
		}
		if ((t->has & T_START) && (t->has & T_END))
			sqlite3_bind_int64(st, 12, (int64_t)(t->end_cpu - t->start_cpu));
		if (t->has & T_CTX) {
			bind_hex(st, 13, t->chain, CAUSAL_CHAIN_ID_LEN);
			sqlite3_bind_int64(st, 14, (int64_t)t->ctx_event);
			sqlite3_bind_int64(st, 15, (int64_t)t->ctx_function);
		}
		sqlite3_bind_int64(st, 16, (int64_t)t->dropped);
		*dropped += t->dropped;
		rc = step(m, st, "insert thread");
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
	sqlite3_bind_int64(st, 1, m->proc_id);
	bind_hex(st, 2, p->uuid, CAUSAL_UUID_LEN);
	sqlite3_bind_int64(st, 3, p->host_id);
	sqlite3_bind_int64(st, 4, p->pid);
	sqlite3_bind_int64(st, 5, p->ppid);
	sqlite3_bind_text(st, 6, p->exe, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 7, p->argv, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 8, (int64_t)p->start_realtime);
	sqlite3_bind_int64(st, 9, (int64_t)p->start_mono);
	if (p->has_parent)
		bind_hex(st, 10, p->parent_uuid, CAUSAL_UUID_LEN);
	sqlite3_bind_int64(st, 11, (int64_t)p->buffer_kb);
	sqlite3_bind_int64(st, 12, (int64_t)p->flush_ms);
	if (p->ended) {
		sqlite3_bind_int64(st, 13, (int64_t)p->end_mono);
		sqlite3_bind_int64(st, 14, (int64_t)p->end_realtime);
		bind_name(st, 15, record_process_end_name(p->end_reason));
		sqlite3_bind_int64(st, 16, p->end_detail);
	}
	sqlite3_bind_int64(st, 17, (int64_t)p->records);
	sqlite3_bind_int64(st, 18, (int64_t)dropped);
	sqlite3_bind_int(st, 19, p->ended && ok);
	sqlite3_bind_int64(st, 20, file_id);
	m->stats->processes++;
	m->stats->dropped += dropped;
	return step(m, st, "insert process");
}

static int store_file(struct merge *m, int64_t id, const char *name,
		      const struct logread_result *res, uint64_t records,
		      const char *status, const char *err)
{
	sqlite3_stmt *st = m->ins_file;

	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, (int64_t)res->bytes);
	sqlite3_bind_int64(st, 4, (int64_t)res->frames);
	sqlite3_bind_int64(st, 5, (int64_t)records);
	sqlite3_bind_text(st, 6, status, -1, SQLITE_STATIC);
	if (err)
		sqlite3_bind_text(st, 7, err, -1, SQLITE_STATIC);
	return step(m, st, "insert file");
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
	const char *status = "ok";
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
		status = "ok";
	else if (rc == 0 && !bad && res.status != LOGREAD_CORRUPT &&
		 (res.status == LOGREAD_TRUNCATED || !res.records))
		status = "truncated";
	else
		status = "corrupt";
	if (bad && res.status != LOGREAD_OK && rc == 0)
		snprintf(err + strlen(err), sizeof(err) - strlen(err),
			 "; %" PRIu64 " malformed records", bad);
	if (!strcmp(status, "truncated"))
		m->stats->truncated++;
	else if (!strcmp(status, "corrupt"))
		m->stats->corrupt++;
	if (err[0]) {
		if (m->o->progress)
			fputs("\r\033[K", stderr);
		warning("'%s' is %s: %s", path, status, err);
	}

	rc = store_file(m, file_id, name, &res, loaded ? m->p->records : 0,
			status, err[0] ? err : NULL);
	if (!rc && loaded)
		rc = store_process(m, file_id, !err[0]);
	m->p = NULL;
	return rc;
}

static int prepare(struct merge *m, const char *sql, sqlite3_stmt **st)
{
	if (sqlite3_prepare_v3(m->db, sql, -1, SQLITE_PREPARE_PERSISTENT, st,
			       NULL) != SQLITE_OK)
		return error("database: %s", sqlite3_errmsg(m->db));
	return 0;
}

static int prepare_batch(struct merge *m)
{
	char sql[64 + BATCH * 16];
	size_t n = snprintf(sql, sizeof(sql), "INSERT INTO records VALUES");

	for (int i = 0; i < BATCH; i++)
		n += snprintf(sql + n, sizeof(sql) - n, "%s(?,?,?,?,?,?)", i ? "," : "");
	return prepare(m, sql, &m->ins_recs);
}

static int exec(sqlite3 *db, const char *sql)
{
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return error("database: %s", sqlite3_errmsg(db));
	return 0;
}

static int open_db(struct merge *m, const char *path)
{
	/*
	 * One connection, one thread: no mutexes, no memory statistics
	 * (each costs a lock per allocation).
	 */
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	if (sqlite3_open_v2(path, &m->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK)
		return error("cannot open database '%s': %s", path,
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
	if (exec(m->db, "PRAGMA page_size=65536; PRAGMA journal_mode=OFF;"
		 " PRAGMA synchronous=OFF; PRAGMA locking_mode=EXCLUSIVE;"
		 " PRAGMA cache_size=-65536; PRAGMA temp_store=MEMORY;"
		 " PRAGMA threads=2; BEGIN") ||
	    schema_create(m->db) ||
	    prepare(m, "INSERT INTO files VALUES(?,?,?,?,?,?,?)", &m->ins_file) ||
	    prepare(m, "INSERT INTO hosts VALUES(?,?)", &m->ins_host) ||
	    prepare(m, "INSERT INTO processes VALUES(?,?,?,?,?,?,?,?,?,?,"
		    "?,?,?,?,?,?,?,?,?,?)", &m->ins_proc) ||
	    prepare(m, "INSERT INTO threads VALUES(?,?,?,?,?,?,?,?,?,?,"
		    "?,?,?,?,?,?)", &m->ins_thread) ||
	    prepare(m, "INSERT INTO records VALUES(?,?,?,?,?,?)", &m->ins_rec) ||
	    prepare(m, "INSERT INTO rpc_probes VALUES(?,?,?,?,?,?,?,?,?,?)",
		    &m->ins_probe) ||
	    prepare(m, "INSERT OR IGNORE INTO rpc_sites VALUES(?,?,?,?)",
		    &m->ins_site) ||
	    prepare(m, "INSERT OR IGNORE INTO rpc_objects VALUES(?,?,?,?,?,?,?)",
		    &m->ins_object))
		return -1;
	return prepare_batch(m);
}

static void close_db(struct merge *m)
{
	sqlite3_finalize(m->ins_file);
	sqlite3_finalize(m->ins_host);
	sqlite3_finalize(m->ins_proc);
	sqlite3_finalize(m->ins_thread);
	sqlite3_finalize(m->ins_rec);
	sqlite3_finalize(m->ins_recs);
	sqlite3_finalize(m->ins_probe);
	sqlite3_finalize(m->ins_site);
	sqlite3_finalize(m->ins_object);
	m->ins_recs = m->ins_probe = m->ins_site = m->ins_object = NULL;
	m->ins_file = m->ins_host = m->ins_proc = m->ins_thread = m->ins_rec = NULL;
	sqlite3_close(m->db);
	m->db = NULL;
}

/* A fresh temporary file beside output, readable like any new file. */
static int make_temp(const char *output, char *tmp, size_t size)
{
	mode_t mask;
	int fd;

	if ((size_t)snprintf(tmp, size, "%s.tmp.XXXXXX", output) >= size)
		return error("output path too long");
	fd = mkstemp(tmp);
	if (fd < 0)
		return error("cannot create '%s': %s", output, strerror(errno));
	mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask);
	close(fd);
	return 0;
}

static int store_calls(struct merge *m)
{
	struct rpc_calls_stats cs;
	int rc = rpc_calls_store(&m->rpc, m->db, &cs);

	if (rc == -EIO)
		return error("database: insert rpc call: %s", sqlite3_errmsg(m->db));
	if (rc)
		return error("rpc calls: %s", strerror(-rc));
	m->stats->rpc_calls = cs.calls;
	m->stats->rpc_no_server = cs.no_server;
	m->stats->rpc_no_client = cs.no_client;
	return 0;
}

/* Store what the reader hands over, file by file, in order. */
static int store_all(struct merge *m, struct queue *q, const struct logdir *ld)
{
	size_t i = 0;
	int rc = 0;

	m->file_no = 1;
	m->proc_id = 1;
	progress(m, true);
	while (i < ld->n) {
		struct chunk *c = queue_pop(q);
		const char *name = ld->names[i];

		if (!c)
			return error("out of memory");
		rc = chunk_store(m, c);
		if (!rc && c->eof) {
			rc = finish_file(m, name, (int64_t)i + 1, c);
			m->proc_id = (int64_t)m->stats->processes + 1;
			m->file_no = ++i + 1;
		}
		chunk_put(q, c);
		if (rc == -EIO)
			return error("database: %s", m->db_error);
		if (rc < 0)
			return error("'%s/%s': %s", m->o->dir, name, strerror(-rc));
	}
	return 0;
}

static int merge_all(struct merge *m, const struct logdir *ld)
{
	struct reader rd = { .o = m->o, .ld = ld };
	struct queue q;
	pthread_t tid;
	int rc;

	m->n_files = ld->n;
	if (queue_init(&q))
		return error("out of memory");
	rd.q = &q;
	if ((rc = pthread_create(&tid, NULL, reader_main, &rd))) {
		queue_release(&q);
		return error("cannot start the reader thread: %s", strerror(rc));
	}
	rc = store_all(m, &q, ld);
	if (rc)
		queue_cancel(&q);
	pthread_join(tid, NULL);
	queue_release(&q);
	if (rc)
		return rc;
	if (m->o->progress)
		fputs("\r\033[K", stderr);
	if (!m->stats->processes)
		return error("no readable causal log in '%s'", m->o->dir);
	if ((rc = store_calls(m)))
		return rc;
	if (schema_create_indexes(m->db) || exec(m->db, "COMMIT"))
		return -1;
	return 0;
}

int merge_run(const struct merge_opts *o, struct merge_stats *stats)
{
	struct merge m = { .o = o, .stats = stats };
	char output[4096], tmp[4200];
	struct logdir ld;
	int rc;

	memset(stats, 0, sizeof(*stats));
	rc = logdir_scan(o->dir, &ld);
	if (rc == -ENOTDIR)
		return error("'%s' is not a directory", o->dir);
	if (rc == -ENOENT)
		return error("directory '%s' does not exist", o->dir);
	if (rc < 0)
		return error("cannot read directory '%s': %s", o->dir, strerror(-rc));
	stats->files = ld.n;
	if (!ld.n) {
		logdir_release(&ld);
		return error("no causal logs (*%s) in '%s'", CAUSAL_LOG_SUFFIX, o->dir);
	}
	if (o->output)
		snprintf(output, sizeof(output), "%s", o->output);
	else
		snprintf(output, sizeof(output), "%s/trace.db", o->dir);
	if (make_temp(output, tmp, sizeof(tmp))) {
		logdir_release(&ld);
		return -1;
	}

	rpc_calls_init(&m.rpc);
	if (!msgpack_zone_init(&m.zone, 8192))
		rc = error("out of memory");
	else
		rc = open_db(&m, tmp);
	if (!rc)
		rc = merge_all(&m, &ld);
	close_db(&m);
	if (!rc && rename(tmp, output) < 0)
		rc = error("cannot rename '%s' to '%s': %s", tmp, output,
			   strerror(errno));
	if (rc)
		unlink(tmp);

	for (size_t i = 0; i < m.n_hosts; i++)
		free(m.hosts[i]);
	free(m.hosts);
	rpc_calls_release(&m.rpc);
	msgpack_zone_destroy(&m.zone);
	logdir_release(&ld);
	return rc ? -1 : 0;
}
