/*
 * log-fixture.h - write causal logs exactly per include/causal/log-format.h,
 * independently of libcausal.so, for the tracedump unit tests and the merge
 * benchmark's generator.  Header-only (static functions) so both can use it.
 *
 *	struct fixture_log fl;
 *	fixture_log_open(&fl, path, CAUSAL_FORMAT_VERSION);
 *	fixture_log_header(&fl, uuid, "host", 42, 1, ...);
 *	fixture_log_flush(&fl);		-- ends a zstd frame
 *	fixture_log_close(&fl);
 */
#ifndef CAUSAL_LOG_FIXTURE_H
#define CAUSAL_LOG_FIXTURE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <msgpack.h>
#include <zstd.h>

#include "causal/log-format.h"

/*
 * The heap fields (records.def, CAUSAL_FIELDS_HEAP) the next thread start
 * or end, RPC probe or process end carries: all zero (epoch 0, absent)
 * unless a test sets them.  peak: the thread's at a thread end, the
 * process's at its end.
 */
struct fixture_heap {
	uint64_t epoch, alloc_bytes, freed_bytes, allocs, frees;
	int64_t peak;
};

/* The fields common to the four RPC probes. */
struct fixture_rpc {
	uint64_t tid, mono, mono_exit, cpu;
	const uint8_t *chain; /* CAUSAL_CHAIN_ID_LEN */
	uint64_t event, function;
};

struct fixture_log {
	struct fixture_heap heap;
	FILE *f;
	msgpack_sbuffer sb;
	msgpack_packer pk;
	ZSTD_CCtx *cctx;
	void *cbuf;
	size_t ccap;
	int level;
	unsigned rpc_mon_off;	 /* mon_off of the RPC probes written (0) */
	unsigned thread_mon_off; /* ... and of the thread records */
	uint32_t version;	 /* the format written */
	/* fixture_log_pair_next(): 1 till the start, 2 till the end */
	int pair_state;
	struct fixture_rpc pair; /* the start's */
	/* format 5: each thread's last pair of each kind in this frame, what
	 * a NEXT pair steps from (records.def); next: the open pair is one */
	struct fixture_pair_last {
		uint64_t frame, tid, event, function, cpu, xid;
		unsigned type;
	} last[16], *pair_last;
	uint64_t frame_no, pair_xid;
	int next;
	unsigned nexts; /* NEXT pairs written */
};

static inline void fixture_le32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static inline int fixture_log_open(struct fixture_log *fl, const char *path,
				   uint32_t version)
{
	uint8_t hdr[20];

	memset(fl, 0, sizeof(*fl));
	fl->version = version;
	fl->f = fopen(path, "wb");
	if (!fl->f)
		return -1;
	fixture_le32(hdr, CAUSAL_SKIPPABLE_MAGIC);
	fixture_le32(hdr + 4, 12);
	memcpy(hdr + 8, CAUSAL_FILE_MAGIC, CAUSAL_FILE_MAGIC_LEN);
	fixture_le32(hdr + 16, version);
	fwrite(hdr, 1, sizeof(hdr), fl->f);
	msgpack_sbuffer_init(&fl->sb);
	msgpack_packer_init(&fl->pk, &fl->sb, msgpack_sbuffer_write);
	fl->cctx = ZSTD_createCCtx();
	fl->level = 1;
	ZSTD_CCtx_setParameter(fl->cctx, ZSTD_c_checksumFlag, 1);
	ZSTD_CCtx_setParameter(fl->cctx, ZSTD_c_contentSizeFlag, 1);
	return 0;
}

/* Compress what was packed since the last flush into one frame. */
static inline int fixture_log_flush(struct fixture_log *fl)
{
	size_t need = ZSTD_compressBound(fl->sb.size), n;

	if (need > fl->ccap) {
		fl->cbuf = realloc(fl->cbuf, need);
		fl->ccap = need;
	}
	ZSTD_CCtx_setParameter(fl->cctx, ZSTD_c_compressionLevel, fl->level);
	n = ZSTD_compress2(fl->cctx, fl->cbuf, fl->ccap, fl->sb.data, fl->sb.size);
	if (ZSTD_isError(n))
		return -1;
	fwrite(fl->cbuf, 1, n, fl->f);
	msgpack_sbuffer_clear(&fl->sb);
	fl->frame_no++; /* no NEXT pair steps from a pair of another frame */
	return 0;
}

static inline int fixture_log_close(struct fixture_log *fl)
{
	int rc = 0;

	if (fl->sb.size)
		rc = fixture_log_flush(fl);
	if (fclose(fl->f))
		rc = -1;
	msgpack_sbuffer_destroy(&fl->sb);
	ZSTD_freeCCtx(fl->cctx);
	free(fl->cbuf);
	return rc;
}

/* Start a record: [type, tid, mono_ns, <nfields more>]. */
static inline void fixture_log_begin(struct fixture_log *fl, unsigned type,
				     uint64_t tid, uint64_t mono, size_t nfields)
{
	msgpack_pack_array(&fl->pk, 3 + nfields);
	msgpack_pack_uint64(&fl->pk, type);
	msgpack_pack_uint64(&fl->pk, tid);
	msgpack_pack_uint64(&fl->pk, mono);
}

static inline void fixture_log_str(struct fixture_log *fl, const char *s)
{
	msgpack_pack_str(&fl->pk, strlen(s));
	msgpack_pack_str_body(&fl->pk, s, strlen(s));
}

static inline void fixture_log_bin(struct fixture_log *fl, const void *p, size_t n)
{
	if (!p) {
		msgpack_pack_nil(&fl->pk);
		return;
	}
	msgpack_pack_bin(&fl->pk, n);
	msgpack_pack_bin_body(&fl->pk, p, n);
}

/* cpu_clock: enum causal_cpu_clock_kind, or -1 for a header without it
 * (written before it was added). */
static inline void fixture_log_header_clock(
	struct fixture_log *fl, uint64_t mono, const uint8_t uuid[16],
	const char *host, int64_t pid, int64_t ppid, const char *exe, int argc,
	const char *const *argv, uint64_t realtime, const uint8_t *parent_uuid,
	uint64_t buffer_kb, uint64_t flush_ms, int64_t cpu_clock)
{
	fixture_log_begin(fl, CAUSAL_REC_HEADER, 0, mono,
			  cpu_clock < 0 ? 12 : 13);
	msgpack_pack_uint64(&fl->pk, CAUSAL_FORMAT_VERSION);
	fixture_log_bin(fl, uuid, CAUSAL_UUID_LEN);
	fixture_log_str(fl, host);
	msgpack_pack_int64(&fl->pk, pid);
	msgpack_pack_int64(&fl->pk, ppid);
	fixture_log_str(fl, exe);
	msgpack_pack_array(&fl->pk, argc);
	for (int i = 0; i < argc; i++)
		fixture_log_str(fl, argv[i]);
	msgpack_pack_uint64(&fl->pk, realtime);
	msgpack_pack_uint64(&fl->pk, mono);
	fixture_log_bin(fl, parent_uuid, CAUSAL_UUID_LEN);
	msgpack_pack_uint64(&fl->pk, buffer_kb);
	msgpack_pack_uint64(&fl->pk, flush_ms);
	if (cpu_clock >= 0)
		msgpack_pack_uint64(&fl->pk, (uint64_t)cpu_clock);
}

static inline void fixture_log_header(
	struct fixture_log *fl, uint64_t mono, const uint8_t uuid[16],
	const char *host, int64_t pid, int64_t ppid, const char *exe, int argc,
	const char *const *argv, uint64_t realtime, const uint8_t *parent_uuid,
	uint64_t buffer_kb, uint64_t flush_ms)
{
	fixture_log_header_clock(fl, mono, uuid, host, pid, ppid, exe, argc,
				 argv, realtime, parent_uuid, buffer_kb,
				 flush_ms, -1);
}

static inline void fixture_log_heap(struct fixture_log *fl)
{
	msgpack_pack_uint64(&fl->pk, fl->heap.epoch);
	msgpack_pack_uint64(&fl->pk, fl->heap.alloc_bytes);
	msgpack_pack_uint64(&fl->pk, fl->heap.freed_bytes);
	msgpack_pack_uint64(&fl->pk, fl->heap.allocs);
	msgpack_pack_uint64(&fl->pk, fl->heap.frees);
}
#define FIXTURE_HEAP_FIELDS 5

/* chain: NULL for a nil ctx. */
static inline void fixture_log_thread_start(struct fixture_log *fl, uint64_t tid,
					    uint64_t mono, uint64_t parent_tid,
					    uint64_t os_tid, unsigned marker,
					    uint64_t cpu, const uint8_t *chain,
					    uint64_t event, uint64_t function)
{
	fixture_log_begin(fl, CAUSAL_REC_THREAD_START, tid, mono,
			  6 + FIXTURE_HEAP_FIELDS);
	msgpack_pack_uint64(&fl->pk, parent_tid);
	msgpack_pack_uint64(&fl->pk, os_tid);
	msgpack_pack_uint64(&fl->pk, marker);
	msgpack_pack_uint64(&fl->pk, cpu);
	if (!chain) {
		msgpack_pack_nil(&fl->pk);
	} else {
		msgpack_pack_array(&fl->pk, 3);
		fixture_log_bin(fl, chain, CAUSAL_CHAIN_ID_LEN);
		msgpack_pack_uint64(&fl->pk, event);
		msgpack_pack_uint64(&fl->pk, function);
	}
	fixture_log_heap(fl);
	msgpack_pack_uint64(&fl->pk, fl->thread_mon_off);
}

static inline void fixture_log_thread_end(struct fixture_log *fl, uint64_t tid,
					  uint64_t mono, uint64_t cpu,
					  unsigned how)
{
	fixture_log_begin(fl, CAUSAL_REC_THREAD_END, tid, mono,
			  4 + FIXTURE_HEAP_FIELDS);
	msgpack_pack_uint64(&fl->pk, cpu);
	msgpack_pack_uint64(&fl->pk, how);
	fixture_log_heap(fl);
	msgpack_pack_int64(&fl->pk, fl->heap.peak);
	msgpack_pack_uint64(&fl->pk, fl->thread_mon_off);
}

/* MONITOR: host, iface, func NULL for none (an empty string). */
static inline void fixture_log_monitor(struct fixture_log *fl, uint64_t mono,
				       uint64_t seq, unsigned kind,
				       unsigned types, unsigned named,
				       unsigned on, uint64_t selections,
				       const char *host, const char *iface,
				       const char *func)
{
	fixture_log_begin(fl, CAUSAL_REC_MONITOR, 0, mono, 9);
	msgpack_pack_uint64(&fl->pk, seq);
	msgpack_pack_uint64(&fl->pk, kind);
	msgpack_pack_uint64(&fl->pk, types);
	msgpack_pack_uint64(&fl->pk, named);
	msgpack_pack_uint64(&fl->pk, on);
	msgpack_pack_uint64(&fl->pk, selections);
	fixture_log_str(fl, host ? host : "");
	fixture_log_str(fl, iface ? iface : "");
	fixture_log_str(fl, func ? func : "");
}

static inline void fixture_log_drops(struct fixture_log *fl, uint64_t tid,
				     uint64_t mono, uint64_t total)
{
	fixture_log_begin(fl, CAUSAL_REC_DROPS, tid, mono, 1);
	msgpack_pack_uint64(&fl->pk, total);
}

static inline void fixture_log_spawn(struct fixture_log *fl, uint64_t tid,
				     uint64_t mono, uint64_t child_tid)
{
	fixture_log_begin(fl, CAUSAL_REC_THREAD_SPAWN, tid, mono, 1);
	msgpack_pack_uint64(&fl->pk, child_tid);
}

static inline void fixture_log_lock(struct fixture_log *fl, uint64_t tid,
				    uint64_t mono, unsigned op, uint64_t lock,
				    unsigned kind)
{
	fixture_log_begin(fl, CAUSAL_REC_LOCK, tid, mono, 3);
	msgpack_pack_uint64(&fl->pk, op);
	msgpack_pack_uint64(&fl->pk, lock);
	msgpack_pack_uint64(&fl->pk, kind);
}

static inline void fixture_log_fork(struct fixture_log *fl, uint64_t tid,
				    uint64_t mono, int64_t child_pid,
				    unsigned how)
{
	fixture_log_begin(fl, CAUSAL_REC_FORK, tid, mono, 2);
	msgpack_pack_int64(&fl->pk, child_pid);
	msgpack_pack_uint64(&fl->pk, how);
}

static inline void fixture_log_exec(struct fixture_log *fl, uint64_t tid,
				    uint64_t mono, const char *path)
{
	fixture_log_begin(fl, CAUSAL_REC_EXEC, tid, mono, 1);
	fixture_log_str(fl, path);
}

static inline void fixture_log_exec_failed(struct fixture_log *fl, uint64_t tid,
					   uint64_t mono, int64_t err)
{
	fixture_log_begin(fl, CAUSAL_REC_EXEC_FAILED, tid, mono, 1);
	msgpack_pack_int64(&fl->pk, err);
}

/* LOSS: n [type, count] pairs. */
static inline void fixture_log_loss(struct fixture_log *fl, uint64_t mono,
				    int64_t err, uint64_t lost,
				    const uint64_t (*pairs)[2], size_t n)
{
	fixture_log_begin(fl, CAUSAL_REC_LOSS, 0, mono, 3);
	msgpack_pack_int64(&fl->pk, err);
	msgpack_pack_uint64(&fl->pk, lost);
	msgpack_pack_array(&fl->pk, n);
	for (size_t i = 0; i < n; i++) {
		msgpack_pack_array(&fl->pk, 2);
		msgpack_pack_uint64(&fl->pk, pairs[i][0]);
		msgpack_pack_uint64(&fl->pk, pairs[i][1]);
	}
}

static inline void fixture_log_process_end(struct fixture_log *fl, uint64_t mono,
					   uint64_t realtime, unsigned reason,
					   int64_t detail, uint64_t records,
					   uint64_t dropped)
{
	fixture_log_begin(fl, CAUSAL_REC_PROCESS_END, 0, mono, 7);
	msgpack_pack_uint64(&fl->pk, realtime);
	msgpack_pack_uint64(&fl->pk, reason);
	msgpack_pack_int64(&fl->pk, detail);
	msgpack_pack_uint64(&fl->pk, records);
	msgpack_pack_uint64(&fl->pk, dropped);
	msgpack_pack_uint64(&fl->pk, fl->heap.epoch);
	msgpack_pack_uint64(&fl->pk, (uint64_t)fl->heap.peak);
}

/*
 * From format 3: the next probe start and end written (the same thread,
 * chain and function: the caller's business) go into one PAIR record, as
 * the library writes a start whose end came next in its thread.  Write
 * nothing else in between.
 */
static inline void fixture_log_pair_next(struct fixture_log *fl)
{
	fl->pair_state = 1;
}

/* from format 2: an exit at or after mono as -(distance) - 1 */
static inline void fixture_log_exit(struct fixture_log *fl, uint64_t mono,
				    uint64_t exit)
{
	if (fl->version >= 2 && exit >= mono && exit - mono <= INT64_MAX)
		msgpack_pack_int64(&fl->pk, -(int64_t)(exit - mono) - 1);
	else
		msgpack_pack_uint64(&fl->pk, exit);
}

#define FIXTURE_PAIR_CASE(num, UPPER, START, END)                              \
	case CAUSAL_REC_##START:                                               \
		return CAUSAL_REC_##UPPER;

/* The PAIR type a start opens in the format written, else 0 (before
 * format 3: none). */
static inline unsigned fixture_pair_type(const struct fixture_log *fl,
					 unsigned start)
{
	if (fl->version < 3)
		return 0;
	if (fl->version == 3)
		switch (start) {
			CAUSAL_RPC_PAIRS_3(FIXTURE_PAIR_CASE)
		default:
			return 0;
		}
	switch (start) {
		CAUSAL_RPC_PAIRS(FIXTURE_PAIR_CASE)
	default:
		return 0;
	}
}

#define FIXTURE_NEXT_CASE(num, UPPER, PAIR)                                    \
	case CAUSAL_REC_##PAIR:                                                \
		return CAUSAL_REC_##UPPER;

static inline unsigned fixture_next_type(unsigned pair)
{
	switch (pair) {
		CAUSAL_RPC_PAIRS_NEXT(FIXTURE_NEXT_CASE)
	default:
		return 0;
	}
}

/*
 * Format 5: the entry of fl->last for tid's pairs of this PAIR type in
 * this frame, made if none (and *found 0).
 */
static inline struct fixture_pair_last *
fixture_pair_last(struct fixture_log *fl, uint64_t tid, unsigned type,
		  int *found)
{
	struct fixture_pair_last *free_one = &fl->last[0];

	for (size_t i = 0; i < sizeof(fl->last) / sizeof(fl->last[0]); i++) {
		struct fixture_pair_last *l = &fl->last[i];

		if (l->frame == fl->frame_no + 1 && l->tid == tid &&
		    l->type == type) {
			*found = 1;
			return l;
		}
		if (l->frame != fl->frame_no + 1)
			free_one = l;
	}
	*found = 0;
	*free_one = (struct fixture_pair_last){ .frame = fl->frame_no + 1,
						.tid = tid,
						.type = type };
	return free_one;
}

/* A pair's start's xid: from format 5, in a NEXT pair its step from the
 * last pair's, modulo 2^32. */
static inline void fixture_log_xid(struct fixture_log *fl, uint64_t xid)
{
	if (fl->pair_state == 2) {
		fl->pair_xid = xid;
		if (fl->next)
			xid = (uint32_t)(xid - fl->pair_last->xid);
	}
	msgpack_pack_uint64(&fl->pk, xid);
}

/* A NEXT pair's step from the last pair's value, modulo 2^64; else v. */
static inline void fixture_log_step(struct fixture_log *fl, uint64_t v,
				    uint64_t last)
{
	if (fl->next)
		msgpack_pack_int64(&fl->pk, (int64_t)(v - last));
	else
		msgpack_pack_uint64(&fl->pk, v);
}

/* The end's mono_ns, event, mono_exit_ns and cpu_ns from the start's. */
static inline void fixture_log_end_head(struct fixture_log *fl,
					const struct fixture_rpc *p)
{
	msgpack_pack_int64(&fl->pk, (int64_t)(p->mono - fl->pair.mono));
	msgpack_pack_int64(&fl->pk, (int64_t)(p->event - fl->pair.event));
	fixture_log_exit(fl, p->mono, p->mono_exit);
	msgpack_pack_int64(&fl->pk, (int64_t)(p->cpu - fl->pair.cpu));
}

static inline void fixture_log_rpc_begin(struct fixture_log *fl, unsigned type,
					 const struct fixture_rpc *p, size_t nfields)
{
	if (fl->pair_state == 2 && fl->version == 3) {
		/* the end: [mono_ns, event, mono_exit_ns, cpu_ns] from the
		 * start's, then its own fields */
		msgpack_pack_array(&fl->pk, 4 + nfields);
		fixture_log_end_head(fl, p);
		fl->pair_state = 0;
		return;
	}
	if (fl->pair_state == 2) {
		/* the start's changing fields (a NEXT pair's as steps), the
		 * end's from them, the end's own fields */
		struct fixture_pair_last *l = fl->pair_last;

		fixture_log_step(fl, fl->pair.event, l ? l->event : 0);
		fixture_log_step(fl, fl->pair.function, l ? l->function : 0);
		fixture_log_exit(fl, fl->pair.mono, fl->pair.mono_exit);
		fixture_log_step(fl, fl->pair.cpu, l ? l->cpu : 0);
		fixture_log_end_head(fl, p);
		msgpack_pack_array(&fl->pk, nfields);
		if (l) {
			l->event = fl->pair.event;
			l->function = fl->pair.function;
			l->cpu = fl->pair.cpu;
			l->xid = fl->pair_xid;
		}
		fl->pair_state = 0;
		fl->pair_last = NULL;
		fl->next = 0;
		return;
	}
	if (fl->pair_state == 1 && fixture_pair_type(fl, type)) {
		type = fixture_pair_type(fl, type);
		fl->pair = *p;
		fl->pair_state = 2;
		if (fl->version >= 5) {
			fl->pair_last =
				fixture_pair_last(fl, p->tid, type, &fl->next);
			if (fl->next) {
				type = fixture_next_type(type);
				fl->nexts++;
			}
		}
		if (fl->version >= 4) {
			/* [type, tid, mono_ns, chain, [the start's own]...] */
			fixture_log_begin(fl, type, p->tid, p->mono,
					  CAUSAL_PAIR_ELEMS - 3);
			fixture_log_bin(fl, p->chain, CAUSAL_CHAIN_ID_LEN);
			msgpack_pack_array(&fl->pk, nfields);
			return;
		}
		nfields++; /* format 3: the end as one element more */
	}
	fixture_log_begin(fl, type, p->tid, p->mono, 5 + nfields);
	fixture_log_bin(fl, p->chain, CAUSAL_CHAIN_ID_LEN);
	msgpack_pack_uint64(&fl->pk, p->event);
	msgpack_pack_uint64(&fl->pk, p->function);
	fixture_log_exit(fl, p->mono, p->mono_exit);
	msgpack_pack_uint64(&fl->pk, p->cpu);
}

/* peer: a struct sockaddr of peer_len bytes, or NULL for nil. */
static inline void fixture_log_stub_start(struct fixture_log *fl,
					  const struct fixture_rpc *p,
					  uint64_t prog, uint64_t vers, uint64_t proc,
					  unsigned transport, const void *peer,
					  size_t peer_len, uint64_t site_id,
					  uint64_t xid, unsigned flags)
{
	fixture_log_rpc_begin(fl, CAUSAL_REC_RPC_STUB_START, p,
			      9 + FIXTURE_HEAP_FIELDS);
	msgpack_pack_uint64(&fl->pk, prog);
	msgpack_pack_uint64(&fl->pk, vers);
	msgpack_pack_uint64(&fl->pk, proc);
	msgpack_pack_uint64(&fl->pk, transport);
	fixture_log_bin(fl, peer, peer_len);
	msgpack_pack_uint64(&fl->pk, site_id);
	fixture_log_xid(fl, xid);
	msgpack_pack_uint64(&fl->pk, flags);
	fixture_log_heap(fl);
	msgpack_pack_uint64(&fl->pk, fl->rpc_mon_off);
}

static inline void fixture_log_stub_end(struct fixture_log *fl,
					const struct fixture_rpc *p, unsigned status,
					uint64_t args_bytes, uint64_t results_bytes,
					unsigned reply_tag)
{
	fixture_log_rpc_begin(fl, CAUSAL_REC_RPC_STUB_END, p,
			      6 + FIXTURE_HEAP_FIELDS);
	msgpack_pack_uint64(&fl->pk, status);
	msgpack_pack_uint64(&fl->pk, args_bytes);
	msgpack_pack_uint64(&fl->pk, results_bytes);
	msgpack_pack_uint64(&fl->pk, reply_tag);
	msgpack_pack_uint64(&fl->pk, 1); /* tag_sent: a traced client's */
	fixture_log_heap(fl);
	msgpack_pack_uint64(&fl->pk, fl->rpc_mon_off);
}

static inline void fixture_log_skel_start(struct fixture_log *fl,
					  const struct fixture_rpc *p,
					  uint64_t prog, uint64_t vers, uint64_t proc,
					  unsigned transport, const void *peer,
					  size_t peer_len, uint64_t object_id,
					  uint64_t xid, uint64_t args_bytes, unsigned tag)
{
	fixture_log_rpc_begin(fl, CAUSAL_REC_RPC_SKEL_START, p,
			      10 + FIXTURE_HEAP_FIELDS);
	msgpack_pack_uint64(&fl->pk, prog);
	msgpack_pack_uint64(&fl->pk, vers);
	msgpack_pack_uint64(&fl->pk, proc);
	msgpack_pack_uint64(&fl->pk, transport);
	fixture_log_bin(fl, peer, peer_len);
	msgpack_pack_uint64(&fl->pk, object_id);
	fixture_log_xid(fl, xid);
	msgpack_pack_uint64(&fl->pk, args_bytes);
	msgpack_pack_uint64(&fl->pk, tag);
	fixture_log_heap(fl);
	msgpack_pack_uint64(&fl->pk, fl->rpc_mon_off);
}

static inline void fixture_log_skel_end(struct fixture_log *fl,
					const struct fixture_rpc *p, unsigned reply,
					uint64_t results_bytes)
{
	fixture_log_rpc_begin(fl, CAUSAL_REC_RPC_SKEL_END, p,
			      3 + FIXTURE_HEAP_FIELDS);
	msgpack_pack_uint64(&fl->pk, reply);
	msgpack_pack_uint64(&fl->pk, results_bytes);
	fixture_log_heap(fl);
	msgpack_pack_uint64(&fl->pk, fl->rpc_mon_off);
}

static inline void fixture_log_rpc_site(struct fixture_log *fl, uint64_t tid,
					uint64_t mono, uint64_t site_id,
					const char *symbol, const char *module)
{
	fixture_log_begin(fl, CAUSAL_REC_RPC_SITE, tid, mono, 3);
	msgpack_pack_uint64(&fl->pk, site_id);
	fixture_log_str(fl, symbol);
	fixture_log_str(fl, module);
}

static inline void fixture_log_rpc_object(struct fixture_log *fl, uint64_t tid,
					  uint64_t mono, uint64_t object_id,
					  uint64_t prog, uint64_t vers,
					  unsigned transport, const void *addr,
					  size_t addr_len, const char *netid)
{
	fixture_log_begin(fl, CAUSAL_REC_RPC_OBJECT, tid, mono, 6);
	msgpack_pack_uint64(&fl->pk, object_id);
	msgpack_pack_uint64(&fl->pk, prog);
	msgpack_pack_uint64(&fl->pk, vers);
	msgpack_pack_uint64(&fl->pk, transport);
	fixture_log_bin(fl, addr, addr_len);
	fixture_log_str(fl, netid);
}

/* SPIKE_SAMPLE: chain NULL for a nil ctx; stack NULL (nil) when empty. */
static inline void
fixture_log_spike_sample(struct fixture_log *fl, uint64_t tid, uint64_t mono,
			 uint64_t idx, uint64_t thread, uint64_t ip,
			 unsigned kind, const uint8_t *chain, uint64_t event,
			 uint64_t function, const void *stack, size_t len)
{
	fixture_log_begin(fl, CAUSAL_REC_SPIKE_SAMPLE, tid, mono, 6);
	msgpack_pack_uint64(&fl->pk, idx);
	msgpack_pack_uint64(&fl->pk, thread);
	msgpack_pack_uint64(&fl->pk, ip);
	msgpack_pack_uint64(&fl->pk, kind);
	if (!chain) {
		msgpack_pack_nil(&fl->pk);
	} else {
		msgpack_pack_array(&fl->pk, 3);
		fixture_log_bin(fl, chain, CAUSAL_CHAIN_ID_LEN);
		msgpack_pack_uint64(&fl->pk, event);
		msgpack_pack_uint64(&fl->pk, function);
	}
	fixture_log_bin(fl, stack, len);
}

static inline void
fixture_log_spike_breach(struct fixture_log *fl, uint64_t tid, uint64_t mono,
			 uint64_t mark, uint64_t n, uint64_t value,
			 uint64_t threshold, uint64_t window_ms, uint64_t lost,
			 const char *resource, const char *rule)
{
	fixture_log_begin(fl, CAUSAL_REC_SPIKE_BREACH, tid, mono, 8);
	msgpack_pack_uint64(&fl->pk, mark);
	msgpack_pack_uint64(&fl->pk, n);
	msgpack_pack_uint64(&fl->pk, value);
	msgpack_pack_uint64(&fl->pk, threshold);
	msgpack_pack_uint64(&fl->pk, window_ms);
	msgpack_pack_uint64(&fl->pk, lost);
	fixture_log_str(fl, resource);
	fixture_log_str(fl, rule);
}

static inline void fixture_log_spike_map(struct fixture_log *fl, uint64_t tid,
					 uint64_t mono, uint64_t start,
					 uint64_t end, uint64_t offset,
					 const char *path)
{
	fixture_log_begin(fl, CAUSAL_REC_SPIKE_MAP, tid, mono, 4);
	msgpack_pack_uint64(&fl->pk, start);
	msgpack_pack_uint64(&fl->pk, end);
	msgpack_pack_uint64(&fl->pk, offset);
	fixture_log_str(fl, path);
}

static inline void fixture_log_spike_profile(struct fixture_log *fl,
					     uint64_t tid, uint64_t mono,
					     uint64_t ip, uint64_t samples)
{
	fixture_log_begin(fl, CAUSAL_REC_SPIKE_PROFILE, tid, mono, 2);
	msgpack_pack_uint64(&fl->pk, ip);
	msgpack_pack_uint64(&fl->pk, samples);
}

/* A record type no format version defines (above CAUSAL_REC_RPC_LAST). */
#define FIXTURE_UNKNOWN_TYPE 99

/*
 * The sample log of the unit tests, in three frames:
 *   0: HEADER, THREAD_START 1, THREAD_SPAWN 1->2, THREAD_START 2 (ctx set)
 *   1: DROPS 2 (5), THREAD_END 2, an unknown type-99 record
 *   2: THREAD_END 1 (at_exit), PROCESS_END (dropped 7)  [if ended]
 * ends[i] is the file offset just past frame i; chain[] = 0xC0 + i.
 * Returns the number of records written, or -1.
 */
static inline int fixture_log_sample(const char *path, const uint8_t uuid[16],
				     const char *host, int64_t pid,
				     const uint8_t *parent_uuid, int ended,
				     long ends[3])
{
	static const char *const argv[] = { "prog", "-x", "a \"q\"" };
	struct fixture_log fl;
	uint8_t chain[CAUSAL_CHAIN_ID_LEN];
	int n = 0;

	for (int i = 0; i < CAUSAL_CHAIN_ID_LEN; i++)
		chain[i] = 0xC0 + i;
	if (fixture_log_open(&fl, path, CAUSAL_FORMAT_VERSION))
		return -1;
	fixture_log_header(&fl, 1000, uuid, host, pid, 1, "/bin/prog", 3, argv,
			   1700000000000000000ull, parent_uuid, 64, 100);
	fixture_log_thread_start(&fl, 1, 1001, 0, pid, CAUSAL_MARKER_USER, 10,
				 NULL, 0, 0);
	fixture_log_spawn(&fl, 1, 1002, 2);
	fixture_log_thread_start(&fl, 2, 1003, 1, pid + 1, CAUSAL_MARKER_INFRA,
				 20, chain, 3, 4);
	n += 4;
	fixture_log_flush(&fl);
	fflush(fl.f);
	ends[0] = ftell(fl.f);
	fixture_log_drops(&fl, 2, 1004, 5);
	fixture_log_thread_end(&fl, 2, 1005, 70, CAUSAL_THREAD_RETURNED);
	fixture_log_begin(&fl, FIXTURE_UNKNOWN_TYPE, 1, 1006, 2);
	fixture_log_str(&fl, "x");
	msgpack_pack_int(&fl.pk, -3);
	n += 3;
	fixture_log_flush(&fl);
	fflush(fl.f);
	ends[1] = ftell(fl.f);
	if (ended) {
		fixture_log_thread_end(&fl, 1, 1007, 110, CAUSAL_THREAD_AT_EXIT);
		fixture_log_process_end(&fl, 1008, 1700000000000000008ull,
					CAUSAL_END_EXIT, 0, 9, 7);
		n += 2;
		fixture_log_flush(&fl);
	}
	fflush(fl.f);
	ends[2] = ftell(fl.f);
	if (fixture_log_close(&fl))
		return -1;
	return n;
}

#endif
