/*
 * merge-read.c - the reader thread of `tracedump merge`: reads the logs
 * in sorted order (decompression and msgpack in logread.c, decoding in
 * log-record.c), builds each file's process and thread rows in memory,
 * pairs the RPC probes into the call join (rpc-calls.c) and hands the
 * records the store needs (merge_stores(), or all of them for --raw), in
 * file order, to the store through a chunk queue.  Which record goes
 * where is records.def's CAUSAL_RECORD_DESTS: the read_<handler>()
 * functions here are its READ and BOTH handlers.
 *
 * Nothing here touches SQLite: the store (merge.c) alone does, in the
 * calling thread, taking the chunks in the order they were pushed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "chunk-queue.h"
#include "internal.h"
#include "log-record.h"
#include "logdir.h"
#include "logread.h"
#include "merge.h"
#include "msgpack-json.h"
#include "rpc-calls.h"

/* The thread row of tid, made on first sight; NULL when out of memory. */
static struct thread *thread_get(struct thread_map *tm, uint64_t tid)
{
	int32_t i = hashmap_get(&tm->index, tid);

	if (i >= 0)
		return &tm->v[i];
	if (tm->n >= INT32_MAX || GROW(tm->v, tm->cap, tm->n + 1) ||
	    hashmap_put(&tm->index, tid, (int32_t)tm->n) < 0)
		return NULL;
	memset(&tm->v[tm->n], 0, sizeof(tm->v[tm->n]));
	tm->v[tm->n].tid = tid;
	return &tm->v[tm->n++];
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

/*
 * The read handlers: read_<handler>() of records.def's
 * CAUSAL_RECORD_DESTS, a record of the type folded into the rows of its
 * process.  0, -errno, or a STOP_* to stop reading the file.
 */

/*
 * The process row from the log's first record, its HEADER (host_id comes
 * later); another HEADER is only counted.
 */
static int read_header(struct merge_reader *rd, const struct record *r)
{
	struct proc *p = &rd->p;

	/* each segment's: the counts only grow */
	if (r->header.deleted_segments > p->deleted_segments) {
		p->deleted_segments = r->header.deleted_segments;
		p->deleted_records = r->header.deleted_records;
		p->deleted_bytes = r->header.deleted_bytes;
	}
	if (p->have_header)
		return 0;
	/* Few processes per run: a linear scan is cheaper than a hash. */
	for (size_t i = 0; i < rd->n_uuids; i++)
		if (!memcmp(rd->uuids[i], r->header.uuid, CAUSAL_UUID_LEN))
			return STOP_DUPLICATE;
	if (GROW(rd->uuids, rd->cap_uuids, rd->n_uuids + 1))
		return -ENOMEM;
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
	p->cpu_clock = r->header.cpu_clock;
	p->sample_skip = r->header.sample_skip;
	if (r->header.parent_uuid) {
		p->has_parent = true;
		memcpy(p->parent_uuid, r->header.parent_uuid, CAUSAL_UUID_LEN);
	}
	return 0;
}

/* A LOSS record (the last one wins): what a failed write lost. */
static int read_loss(struct merge_reader *rd, const struct record *r)
{
	struct proc *p = &rd->p;
	size_t len = 0, size = sizeof(p->lost_types);
	uint64_t type, count;

	p->has_loss = true;
	p->loss_err = r->loss.err;
	p->lost = r->loss.lost;
	p->lost_types[0] = '\0';
	for (uint32_t i = 0; record_loss_pair(r, i, &type, &count); i++) {
		const char *name = record_type_name((unsigned)type, true);
		int n;

		if (name)
			n = snprintf(p->lost_types + len, size - len, "%s%s %" PRIu64,
				     i ? ", " : "", name, count);
		else
			n = snprintf(p->lost_types + len, size - len,
				     "%stype %" PRIu64 " %" PRIu64, i ? ", " : "",
				     type, count);
		if (n < 0 || (size_t)n >= size - len) {
			/* cut: say so rather than end mid-word */
			snprintf(p->lost_types + (len < size - 6 ? len : size - 6),
				 6, ", ...");
			break;
		}
		len += (size_t)n;
	}
	return 0;
}

static int read_thread_start(struct merge_reader *rd, const struct record *r)
{
	struct thread *t = thread_get(&rd->p.threads, r->tid);

	if (!t)
		return -ENOMEM;
	t->has |= T_START;
	t->parent_tid = r->thread_start.parent_tid;
	t->os_tid = r->thread_start.os_tid;
	t->marker = r->thread_start.marker;
	t->start_mono = r->mono_ns;
	t->start_cpu = r->thread_start.cpu_ns;
	if (!(r->thread_start.mon_off & CAUSAL_MONTYPE_CPU))
		t->has |= T_START_CPU;
	t->heap_start = (struct heap_sample){ r->thread_start.heap_epoch,
					      r->thread_start.alloc_bytes,
					      r->thread_start.freed_bytes,
					      r->thread_start.allocs,
					      r->thread_start.frees };
	if (r->thread_start.ctx.set) {
		t->has |= T_CTX;
		memcpy(t->chain, r->thread_start.ctx.chain,
		       CAUSAL_CHAIN_ID_LEN);
		t->ctx_event = r->thread_start.ctx.event;
		t->ctx_function = r->thread_start.ctx.function;
	}
	return 0;
}

static int read_thread_end(struct merge_reader *rd, const struct record *r)
{
	struct thread *t = thread_get(&rd->p.threads, r->tid);

	if (!t)
		return -ENOMEM;
	t->has |= T_END;
	t->end_mono = r->mono_ns;
	t->end_cpu = r->thread_end.cpu_ns;
	if (!(r->thread_end.mon_off & CAUSAL_MONTYPE_CPU))
		t->has |= T_END_CPU;
	t->end_how = r->thread_end.how;
	t->heap_end = (struct heap_sample){ r->thread_end.heap_epoch,
					    r->thread_end.alloc_bytes,
					    r->thread_end.freed_bytes,
					    r->thread_end.allocs,
					    r->thread_end.frees };
	t->heap_peak = r->thread_end.heap_peak;
	return 0;
}

static int read_drops(struct merge_reader *rd, const struct record *r)
{
	struct thread *t = thread_get(&rd->p.threads, r->tid);

	if (!t)
		return -ENOMEM;
	t->dropped = r->drops.dropped; /* a running total */
	return 0;
}

/* Tail keep's counts: running totals, the last one wins. */
static int read_keep(struct merge_reader *rd, const struct record *r)
{
	rd->p.has_keep = true;
	rd->p.keep_held = r->keep.held;
	rd->p.keep_written = r->keep.written;
	rd->p.keep_overflow = r->keep.overflow;
	rd->p.keep_chains = r->keep.chains;
	return 0;
}

static int read_thread_spawn(struct merge_reader *rd, const struct record *r)
{
	struct thread *t =
		thread_get(&rd->p.threads, r->thread_spawn.child_tid);

	if (!t)
		return -ENOMEM;
	t->has |= T_SPAWN;
	t->spawn_mono = r->mono_ns;
	/* The parent is known even if the child's start was lost. */
	if (!(t->has & T_START))
		t->parent_tid = r->tid;
	return 0;
}

static int read_fork(struct merge_reader *rd, const struct record *r)
{
	struct proc *p = &rd->p;

	/* a fork child names its parent itself; these cannot */
	if (r->fork.how == CAUSAL_FORK_FORK)
		return 0;
	if (GROW(p->spawns, p->cap_spawns, p->n_spawns + 1))
		return -ENOMEM;
	p->spawns[p->n_spawns++] =
		(struct spawn_note){ 0, r->fork.child_pid, r->mono_ns };
	return 0;
}

static int read_process_end(struct merge_reader *rd, const struct record *r)
{
	struct proc *p = &rd->p;

	p->ended = true;
	p->end_mono = r->mono_ns;
	p->end_realtime = r->process_end.realtime_ns;
	p->end_reason = r->process_end.reason;
	p->end_detail = r->process_end.detail;
	p->end_dropped = r->process_end.dropped;
	p->end_heap_epoch = r->process_end.heap_epoch;
	p->end_heap_peak = r->process_end.heap_peak;
	return 0;
}

/* The four probes: into the call join, which pairs them into calls. */
static int read_rpc_probe(struct merge_reader *rd, const struct record *r)
{
	return rpc_calls_add(rd->rpc, rd->p.records, r);
}

/* A call site: the join names its calls' client stub by it. */
static int read_rpc_site(struct merge_reader *rd, const struct record *r)
{
	return rpc_calls_add(rd->rpc, rd->p.records, r);
}

/*
 * The handler of each type of stage READ or BOTH, by type: a handler the
 * table names and nobody wrote fails the build here ("'read_<handler>'
 * undeclared").
 */
/* clang-format off */
#define READ_FN_READ(UPPER, handler) [CAUSAL_REC_##UPPER] = read_##handler,
#define READ_FN_BOTH READ_FN_READ
#define READ_FN_STORE(UPPER, handler)
#define READ_FN_RAW(UPPER, handler)
#define READ_FN(UPPER, STAGE, handler, tables) READ_FN_##STAGE(UPPER, handler)
static int (*const read_fn[])(struct merge_reader *rd,
			      const struct record *r) = {
	CAUSAL_RECORD_DESTS(READ_FN)
};
/* clang-format on */

/* A record into the rows of its process (records.def, CAUSAL_RECORD_DESTS). */
static int read_record(struct merge_reader *rd, const struct record *r)
{
	if (r->type >= sizeof(read_fn) / sizeof(read_fn[0]) ||
	    !read_fn[r->type])
		return 0; /* STORE, RAW, or a type of a later format */
	return read_fn[r->type](rd, r);
}

static int chunk_add(struct merge_reader *rd, uint64_t seq,
		     const struct logread_record *lr)
{
	struct chunk *c = rd->cur;
	struct chunk_rec *cr;
	size_t need;
	int rc;

	if (c->n == CHUNK) {
		rd->cur = NULL;
		if ((rc = chunk_queue_push(rd->q, c)))
			return rc;
		if (!(c = rd->cur = chunk_queue_get(rd->q)))
			return -ENOMEM;
	}
	if (lr->part == 2 && c->n && c->rec[c->n - 1].part == 1) {
		/* the end of the PAIR whose bytes the start took */
		const struct chunk_rec *start = &c->rec[c->n - 1];

		c->rec[c->n++] =
			(struct chunk_rec){ seq,	 lr->type,   lr->tid,
					    lr->mono_ns, start->off, start->len,
					    2,		 start->next };
		return 0;
	}
	need = lr->raw_len + (lr->next ? sizeof(*lr->next) : 0);
	if (c->used + need > c->cap) {
		size_t cap = c->cap ? c->cap : 65536;
		uint8_t *buf;

		while (cap < c->used + need)
			cap *= 2;
		if (!(buf = realloc(c->buf, cap)))
			return -ENOMEM;
		c->buf = buf;
		c->cap = cap;
	}
	memcpy(c->buf + c->used, lr->raw, lr->raw_len);
	if (lr->next) /* what its bytes hold steps of */
		memcpy(c->buf + c->used + lr->raw_len, lr->next,
		       sizeof(*lr->next));
	cr = &c->rec[c->n++];
	*cr = (struct chunk_rec){ seq,	   lr->type,	lr->tid,  lr->mono_ns,
				  c->used, lr->raw_len, lr->part, lr->next };
	c->used += need;
	return 0;
}

static int on_record(void *arg, const struct logread_record *lr)
{
	struct merge_reader *rd = arg;
	struct proc *p = &rd->p;
	struct record r;
	int rc;

	if (chunk_queue_cancelled(rd->q))
		return STOP_CANCELLED;
	if (record_decode(lr->obj, &r) < 0) {
		if (!p->have_header)
			return STOP_NO_HEADER;
		p->bad_records++;
		return 0;
	}
	if (!p->have_header && r.type != CAUSAL_REC_HEADER)
		return STOP_NO_HEADER;
	if ((rc = read_record(rd, &r)))
		return rc;
	if (r.mono_ns > p->last_mono)
		p->last_mono = r.mono_ns;
	/* The store needs the records of its own tables, and all for --raw. */
	if ((rd->o->raw || merge_stores(r.type)) &&
	    (rc = chunk_add(rd, p->records, lr)))
		return rc;
	p->records++;
	return 0;
}

/* A segment's result added to its log's: the worst damage, the first
 * error, named by the segment when the log has several. */
static void add_result(struct logread_result *sum,
		       const struct logread_result *res, const char *name,
		       size_t k, size_t n)
{
	if (!k) {
		*sum = *res;
		sum->error[0] = '\0';
	} else {
		sum->bytes += res->bytes;
		sum->frames += res->frames;
		sum->bad_frames += res->bad_frames;
		sum->records += res->records;
		sum->bad_records += res->bad_records;
		sum->slot_records += res->slot_records;
		if (res->status > sum->status)
			sum->status = res->status;
	}
	if (res->error[0] && !sum->error[0])
		snprintf(sum->error, sizeof(sum->error), "%.120s%s%.120s",
			 n > 1 ? name : "", n > 1 ? ": " : "", res->error);
}

/* The segments of log i, in order, into rd->p; 0, a STOP_* or -errno. */
static int read_log(struct merge_reader *rd, size_t i,
		    struct logread_result *sum)
{
	const struct logdir_log *log = &rd->ld->logs[i];
	char path[8192];
	int rc = 0;

	for (size_t k = 0; k < log->n && rc == 0; k++) {
		const char *name = rd->ld->names[log->first + k];
		struct logread_result res;

		snprintf(path, sizeof(path), "%s/%s", rd->o->dir, name);
		rc = logread_file(path, on_record, rd, &res);
		/* an unreadable segment past the first: the log goes on */
		if (rc < 0 && rc != -ENOMEM && k && rd->p.have_header) {
			if (!res.error[0])
				snprintf(res.error, sizeof(res.error),
					 "cannot read: %s", strerror(-rc));
			res.status = LOGREAD_CORRUPT;
			rc = 0;
		}
		add_result(sum, &res, name, k, log->n);
		rd->p.segments++;
	}
	return rc;
}

/* Read every log in order; each ends with an eof chunk. */
void *merge_reader_main(void *arg)
{
	struct merge_reader *rd = arg;
	int rc = 0;

	for (size_t i = 0; i < rd->ld->n_logs && rc != -ECANCELED; i++) {
		struct chunk *c;

		memset(&rd->p, 0, sizeof(rd->p));
		if (!(rd->cur = chunk_queue_get(rd->q))) {
			rc = -ENOMEM;
			c = NULL;
		} else {
			struct logread_result res;
			bool loaded;

			rpc_calls_file_begin(rd->rpc, rd->proc_id);
			rc = read_log(rd, i, &res);
			/* as the store decides it (merge.c, finish_file) */
			loaded = rd->p.have_header && rc >= 0 &&
				 rc != STOP_DUPLICATE;
			if (rpc_calls_file_end(rd->rpc, loaded, rd->p.uuid,
					       rd->p.has_parent
						       ? rd->p.parent_uuid
						       : NULL) &&
			    rc >= 0)
				rc = -ENOMEM;
			rd->proc_id += loaded;
			if ((c = rd->cur))
				c->res = res;
		}
		if (!c && rc != -ECANCELED && !(c = chunk_queue_get(rd->q))) {
			chunk_queue_push(rd->q, NULL);	/* out of memory */
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
		if (chunk_queue_push(rd->q, c))
			break;
		if (rc == -ENOMEM)
			break;
	}
	proc_release(&rd->p);
	free(rd->uuids);
	return NULL;
}
