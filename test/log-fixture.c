/*
 * log-fixture.c - causal logs written as log-format.h says, independently
 * of libcausal.so (log-fixture.h): the record types by hand, then any
 * type generated from records.def.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "log-fixture.h"
#include "log-record.h"

void fixture_le32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

int fixture_log_open(struct fixture_log *fl, const char *path, uint32_t version)
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

int fixture_log_flush(struct fixture_log *fl)
{
	size_t need = ZSTD_compressBound(fl->sb.size), n;

	if (need > fl->ccap) {
		fl->cbuf = realloc(fl->cbuf, need);
		fl->ccap = need;
	}
	ZSTD_CCtx_setParameter(fl->cctx, ZSTD_c_compressionLevel, fl->level);
	n = ZSTD_compress2(fl->cctx, fl->cbuf, fl->ccap, fl->sb.data,
			   fl->sb.size);
	if (ZSTD_isError(n))
		return -1;
	fwrite(fl->cbuf, 1, n, fl->f);
	msgpack_sbuffer_clear(&fl->sb);
	fl->frame_no++; /* no NEXT pair steps from a pair of another frame */
	return 0;
}

int fixture_log_close(struct fixture_log *fl)
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

void fixture_log_begin(struct fixture_log *fl, unsigned type, uint64_t tid,
		       uint64_t mono, size_t nfields)
{
	msgpack_pack_array(&fl->pk, 3 + nfields);
	msgpack_pack_uint64(&fl->pk, type);
	msgpack_pack_uint64(&fl->pk, tid);
	msgpack_pack_uint64(&fl->pk, mono);
}

void fixture_log_str(struct fixture_log *fl, const char *s)
{
	msgpack_pack_str(&fl->pk, strlen(s));
	msgpack_pack_str_body(&fl->pk, s, strlen(s));
}

void fixture_log_bin(struct fixture_log *fl, const void *p, size_t n)
{
	if (!p) {
		msgpack_pack_nil(&fl->pk);
		return;
	}
	msgpack_pack_bin(&fl->pk, n);
	msgpack_pack_bin_body(&fl->pk, p, n);
}

/* A CTX element: [chain, event, function], nil when chain is NULL. */
static void fixture_log_ctx(struct fixture_log *fl, const uint8_t *chain,
			    uint64_t event, uint64_t function)
{
	if (!chain) {
		msgpack_pack_nil(&fl->pk);
		return;
	}
	msgpack_pack_array(&fl->pk, 3);
	fixture_log_bin(fl, chain, CAUSAL_CHAIN_ID_LEN);
	msgpack_pack_uint64(&fl->pk, event);
	msgpack_pack_uint64(&fl->pk, function);
}

void fixture_log_header_clock(struct fixture_log *fl, uint64_t mono,
			      const uint8_t uuid[16], const char *host,
			      int64_t pid, int64_t ppid, const char *exe,
			      int argc, const char *const *argv,
			      uint64_t realtime, const uint8_t *parent_uuid,
			      uint64_t buffer_kb, uint64_t flush_ms,
			      int64_t cpu_clock)
{
	fixture_log_begin(fl, CAUSAL_REC_HEADER, 0, mono,
			  cpu_clock < 0 ? 12 : 18);
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
	if (cpu_clock < 0)
		return;
	msgpack_pack_uint64(&fl->pk, (uint64_t)cpu_clock);
	for (int i = 0; i < 4; i++)
		msgpack_pack_uint64(&fl->pk, fl->header_segment[i]);
	msgpack_pack_uint64(&fl->pk, 0); /* sample_skip: all */
}

void fixture_log_header(struct fixture_log *fl, uint64_t mono,
			const uint8_t uuid[16], const char *host, int64_t pid,
			int64_t ppid, const char *exe, int argc,
			const char *const *argv, uint64_t realtime,
			const uint8_t *parent_uuid, uint64_t buffer_kb,
			uint64_t flush_ms)
{
	fixture_log_header_clock(fl, mono, uuid, host, pid, ppid, exe, argc,
				 argv, realtime, parent_uuid, buffer_kb,
				 flush_ms, -1);
}

static void fixture_log_heap(struct fixture_log *fl)
{
	msgpack_pack_uint64(&fl->pk, fl->heap.epoch);
	msgpack_pack_uint64(&fl->pk, fl->heap.alloc_bytes);
	msgpack_pack_uint64(&fl->pk, fl->heap.freed_bytes);
	msgpack_pack_uint64(&fl->pk, fl->heap.allocs);
	msgpack_pack_uint64(&fl->pk, fl->heap.frees);
}
#define FIXTURE_HEAP_FIELDS 5

void fixture_log_thread_start(struct fixture_log *fl, uint64_t tid,
			      uint64_t mono, uint64_t parent_tid,
			      uint64_t os_tid, unsigned marker, uint64_t cpu,
			      const uint8_t *chain, uint64_t event,
			      uint64_t function)
{
	fixture_log_begin(fl, CAUSAL_REC_THREAD_START, tid, mono,
			  6 + FIXTURE_HEAP_FIELDS);
	msgpack_pack_uint64(&fl->pk, parent_tid);
	msgpack_pack_uint64(&fl->pk, os_tid);
	msgpack_pack_uint64(&fl->pk, marker);
	msgpack_pack_uint64(&fl->pk, cpu);
	fixture_log_ctx(fl, chain, event, function);
	fixture_log_heap(fl);
	msgpack_pack_uint64(&fl->pk, fl->thread_mon_off);
}

void fixture_log_thread_end(struct fixture_log *fl, uint64_t tid, uint64_t mono,
			    uint64_t cpu, unsigned how)
{
	fixture_log_begin(fl, CAUSAL_REC_THREAD_END, tid, mono,
			  4 + FIXTURE_HEAP_FIELDS);
	msgpack_pack_uint64(&fl->pk, cpu);
	msgpack_pack_uint64(&fl->pk, how);
	fixture_log_heap(fl);
	msgpack_pack_int64(&fl->pk, fl->heap.peak);
	msgpack_pack_uint64(&fl->pk, fl->thread_mon_off);
}

void fixture_log_monitor(struct fixture_log *fl, uint64_t mono, uint64_t seq,
			 unsigned kind, unsigned types, unsigned named,
			 unsigned on, uint64_t selections, const char *host,
			 const char *iface, const char *func)
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

void fixture_log_drops(struct fixture_log *fl, uint64_t tid, uint64_t mono,
		       uint64_t total)
{
	fixture_log_begin(fl, CAUSAL_REC_DROPS, tid, mono, 1);
	msgpack_pack_uint64(&fl->pk, total);
}

void fixture_log_spawn(struct fixture_log *fl, uint64_t tid, uint64_t mono,
		       uint64_t child_tid)
{
	fixture_log_begin(fl, CAUSAL_REC_THREAD_SPAWN, tid, mono, 1);
	msgpack_pack_uint64(&fl->pk, child_tid);
}

void fixture_log_lock(struct fixture_log *fl, uint64_t tid, uint64_t mono,
		      unsigned op, uint64_t lock, unsigned kind)
{
	fixture_log_begin(fl, CAUSAL_REC_LOCK, tid, mono, 3);
	msgpack_pack_uint64(&fl->pk, op);
	msgpack_pack_uint64(&fl->pk, lock);
	msgpack_pack_uint64(&fl->pk, kind);
}

void fixture_log_fork(struct fixture_log *fl, uint64_t tid, uint64_t mono,
		      int64_t child_pid, unsigned how)
{
	fixture_log_begin(fl, CAUSAL_REC_FORK, tid, mono, 2);
	msgpack_pack_int64(&fl->pk, child_pid);
	msgpack_pack_uint64(&fl->pk, how);
}

void fixture_log_exec(struct fixture_log *fl, uint64_t tid, uint64_t mono,
		      const char *path)
{
	fixture_log_begin(fl, CAUSAL_REC_EXEC, tid, mono, 1);
	fixture_log_str(fl, path);
}

void fixture_log_exec_failed(struct fixture_log *fl, uint64_t tid,
			     uint64_t mono, int64_t err)
{
	fixture_log_begin(fl, CAUSAL_REC_EXEC_FAILED, tid, mono, 1);
	msgpack_pack_int64(&fl->pk, err);
}

void fixture_log_loss(struct fixture_log *fl, uint64_t mono, int64_t err,
		      uint64_t lost, const uint64_t (*pairs)[2], size_t n)
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

void fixture_log_process_end(struct fixture_log *fl, uint64_t mono,
			     uint64_t realtime, unsigned reason, int64_t detail,
			     uint64_t records, uint64_t dropped)
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

void fixture_log_pair_next(struct fixture_log *fl)
{
	fl->pair_state = 1;
}

void fixture_log_exit(struct fixture_log *fl, uint64_t mono, uint64_t exit)
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
static unsigned fixture_pair_type(const struct fixture_log *fl, unsigned start)
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

static unsigned fixture_next_type(unsigned pair)
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
static struct fixture_pair_last *fixture_pair_last(struct fixture_log *fl,
						   uint64_t tid, unsigned type,
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
static void fixture_log_xid(struct fixture_log *fl, uint64_t xid)
{
	if (fl->pair_state == 2) {
		fl->pair_xid = xid;
		if (fl->next)
			xid = (uint32_t)(xid - fl->pair_last->xid);
	}
	msgpack_pack_uint64(&fl->pk, xid);
}

/* A NEXT pair's step from the last pair's value, modulo 2^64; else v. */
static void fixture_log_step(struct fixture_log *fl, uint64_t v, uint64_t last)
{
	if (fl->next)
		msgpack_pack_int64(&fl->pk, (int64_t)(v - last));
	else
		msgpack_pack_uint64(&fl->pk, v);
}

/* The end's mono_ns, event, mono_exit_ns and cpu_ns from the start's. */
static void fixture_log_end_head(struct fixture_log *fl,
				 const struct fixture_rpc *p)
{
	msgpack_pack_int64(&fl->pk, (int64_t)(p->mono - fl->pair.mono));
	msgpack_pack_int64(&fl->pk, (int64_t)(p->event - fl->pair.event));
	fixture_log_exit(fl, p->mono, p->mono_exit);
	msgpack_pack_int64(&fl->pk, (int64_t)(p->cpu - fl->pair.cpu));
}

void fixture_log_rpc_begin(struct fixture_log *fl, unsigned type,
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

void fixture_log_stub_start(struct fixture_log *fl, const struct fixture_rpc *p,
			    uint64_t prog, uint64_t vers, uint64_t proc,
			    unsigned transport, const void *peer,
			    size_t peer_len, uint64_t site_id, uint64_t xid,
			    unsigned flags)
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

void fixture_log_stub_end(struct fixture_log *fl, const struct fixture_rpc *p,
			  unsigned status, uint64_t args_bytes,
			  uint64_t results_bytes, unsigned reply_tag)
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

void fixture_log_skel_start(struct fixture_log *fl, const struct fixture_rpc *p,
			    uint64_t prog, uint64_t vers, uint64_t proc,
			    unsigned transport, const void *peer,
			    size_t peer_len, uint64_t object_id, uint64_t xid,
			    uint64_t args_bytes, unsigned tag)
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

void fixture_log_skel_end(struct fixture_log *fl, const struct fixture_rpc *p,
			  unsigned reply, uint64_t results_bytes)
{
	fixture_log_rpc_begin(fl, CAUSAL_REC_RPC_SKEL_END, p,
			      4 + FIXTURE_HEAP_FIELDS);
	msgpack_pack_uint64(&fl->pk, reply);
	msgpack_pack_uint64(&fl->pk, results_bytes);
	fixture_log_heap(fl);
	msgpack_pack_uint64(&fl->pk, fl->rpc_mon_off);
	msgpack_pack_uint64(&fl->pk, fl->skel_fork);
}

void fixture_log_rpc_site(struct fixture_log *fl, uint64_t tid, uint64_t mono,
			  uint64_t site_id, const char *symbol,
			  const char *module)
{
	fixture_log_begin(fl, CAUSAL_REC_RPC_SITE, tid, mono, 3);
	msgpack_pack_uint64(&fl->pk, site_id);
	fixture_log_str(fl, symbol);
	fixture_log_str(fl, module);
}

void fixture_log_rpc_object(struct fixture_log *fl, uint64_t tid, uint64_t mono,
			    uint64_t object_id, uint64_t prog, uint64_t vers,
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

void fixture_log_spike_sample(struct fixture_log *fl, uint64_t tid,
			      uint64_t mono, uint64_t idx, uint64_t thread,
			      uint64_t ip, unsigned kind, const uint8_t *chain,
			      uint64_t event, uint64_t function,
			      const void *stack, size_t len)
{
	fixture_log_begin(fl, CAUSAL_REC_SPIKE_SAMPLE, tid, mono, 6);
	msgpack_pack_uint64(&fl->pk, idx);
	msgpack_pack_uint64(&fl->pk, thread);
	msgpack_pack_uint64(&fl->pk, ip);
	msgpack_pack_uint64(&fl->pk, kind);
	fixture_log_ctx(fl, chain, event, function);
	fixture_log_bin(fl, stack, len);
}

void fixture_log_spike_breach(struct fixture_log *fl, uint64_t tid,
			      uint64_t mono, uint64_t mark, uint64_t n,
			      uint64_t value, uint64_t threshold,
			      uint64_t window_ms, uint64_t lost,
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

void fixture_log_spike_map(struct fixture_log *fl, uint64_t tid, uint64_t mono,
			   uint64_t start, uint64_t end, uint64_t offset,
			   const char *path)
{
	fixture_log_begin(fl, CAUSAL_REC_SPIKE_MAP, tid, mono, 4);
	msgpack_pack_uint64(&fl->pk, start);
	msgpack_pack_uint64(&fl->pk, end);
	msgpack_pack_uint64(&fl->pk, offset);
	fixture_log_str(fl, path);
}

void fixture_log_spike_profile(struct fixture_log *fl, uint64_t tid,
			       uint64_t mono, uint64_t ip, uint64_t samples)
{
	fixture_log_begin(fl, CAUSAL_REC_SPIKE_PROFILE, tid, mono, 2);
	msgpack_pack_uint64(&fl->pk, ip);
	msgpack_pack_uint64(&fl->pk, samples);
}

int fixture_log_sample(const char *path, const uint8_t uuid[16],
		       const char *host, int64_t pid,
		       const uint8_t *parent_uuid, int ended, long ends[3])
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
		fixture_log_thread_end(&fl, 1, 1007, 110,
				       CAUSAL_THREAD_AT_EXIT);
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

/* ---- any record type, generated from records.def ------------------------ */

/* Each element as its KIND (records.def) writes it, from the decoded form. */
static void put_str(struct fixture_log *fl, struct record_str s)
{
	msgpack_pack_str(&fl->pk, s.len);
	msgpack_pack_str_body(&fl->pk, s.ptr, s.len);
}

/* "bin, or nil if empty" */
static void put_bin(struct fixture_log *fl, struct record_bin b)
{
	fixture_log_bin(fl, b.len ? b.ptr : NULL, b.len);
}

/* STRV, COUNTS: the array as decoded (none: an empty one). */
static void put_array(struct fixture_log *fl, const msgpack_object *o)
{
	if (o)
		msgpack_pack_object(&fl->pk, *o);
	else
		msgpack_pack_array(&fl->pk, 0);
}

/* clang-format off */
#define PUT_U8(v) msgpack_pack_uint64(&fl->pk, v);
#define PUT_U16 PUT_U8
#define PUT_U32 PUT_U8
#define PUT_U64 PUT_U8
#define PUT_AUX PUT_U8
#define PUT_I32(v) msgpack_pack_int64(&fl->pk, v);
#define PUT_I64 PUT_I32
#define PUT_AUX_I PUT_I32
#define PUT_EXIT_NS(v) fixture_log_exit(fl, r->mono_ns, v);
#define PUT_CHAIN(v) fixture_log_bin(fl, v, CAUSAL_CHAIN_ID_LEN);
#define PUT_UUID(v) fixture_log_bin(fl, v, CAUSAL_UUID_LEN);
#define PUT_UUID_NIL PUT_UUID
#define PUT_STRZ(v) put_str(fl, v);
#define PUT_STR_AUX PUT_STRZ
#define PUT_STR_L8 PUT_STRZ
#define PUT_STR_L16 PUT_STRZ
#define PUT_STRV(v) put_array(fl, v);
#define PUT_COUNTS PUT_STRV
#define PUT_CTX(v)                                                             \
	fixture_log_ctx(fl, v.set ? v.chain : NULL, v.event, v.function);
#define PUT_BIN_AUX(v) put_bin(fl, v);
#define PUT_BIN_L8 PUT_BIN_AUX

#define PUT_FIELD(name, KIND, SHOW, en, dump) PUT_##KIND(m->name)
#define PUT_PROBE_FIELD(name, KIND, SHOW, en, dump) PUT_##KIND(m->p.name)
#define PUT_START_NONE
#define PUT_START_RPC_PROBE CAUSAL_FIELDS_RPC_PROBE(PUT_PROBE_FIELD)
#define PUT_CASE(num, UPPER, lower, member, GROUP, nreq)                       \
	case CAUSAL_REC_##UPPER: {                                             \
		const struct record_##lower *m = &r->member;                   \
									       \
		fixture_log_begin(fl, r->type, r->tid, r->mono_ns,             \
				  CAUSAL_ELEMS_##UPPER - 3);                   \
		PUT_START_##GROUP                                              \
		CAUSAL_FIELDS_##UPPER(PUT_FIELD)                               \
		return 0;                                                      \
	}
/* clang-format on */

int fixture_log_record(struct fixture_log *fl, const struct record *r)
{
	switch (r->type) {
		CAUSAL_RECORDS(PUT_CASE)
	}
	return -1;
}

/* A value no other field of the record has, with every byte set. */
static uint64_t value(struct fixture_values *v, unsigned bits)
{
	uint64_t x = ++v->k * 0x0101010101010101ull;

	return bits >= 64 ? x : x & ((1ull << bits) - 1);
}

static void *pool(struct fixture_values *v, size_t n)
{
	void *p = v->pool + v->used;

	if (v->used + n > sizeof(v->pool))
		abort(); /* the test's mistake: a pool too small */
	v->used += (n + 7) & ~(size_t)7;
	return p;
}

static const uint8_t *bytes(struct fixture_values *v, size_t n)
{
	uint8_t *p = pool(v, n);
	unsigned k = ++v->k;

	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(k * 37 + i);
	return p;
}

static struct record_str text(struct fixture_values *v)
{
	size_t n = 3 + v->k % 5;
	char *p = pool(v, n);
	unsigned k = ++v->k;

	for (size_t i = 0; i < n; i++)
		p[i] = (char)('a' + (k * 7 + i) % 26);
	return (struct record_str){ p, n };
}

static msgpack_object *objects(struct fixture_values *v, size_t n)
{
	msgpack_object *o = v->obj + v->n_obj;

	if (v->n_obj + n > sizeof(v->obj) / sizeof(v->obj[0]))
		abort();
	v->n_obj += n;
	return o;
}

/* Two strings. */
static const msgpack_object *strv(struct fixture_values *v)
{
	msgpack_object *o = objects(v, 3);

	o[0].type = MSGPACK_OBJECT_ARRAY;
	o[0].via.array = (msgpack_object_array){ 2, o + 1 };
	for (int i = 1; i <= 2; i++) {
		struct record_str s = text(v);

		o[i].type = MSGPACK_OBJECT_STR;
		o[i].via.str = (msgpack_object_str){ (uint32_t)s.len, s.ptr };
	}
	return o;
}

/* Two [type, count] pairs, the types in order. */
static const msgpack_object *counts(struct fixture_values *v)
{
	msgpack_object *o = objects(v, 7);

	o[0].type = MSGPACK_OBJECT_ARRAY;
	o[0].via.array = (msgpack_object_array){ 2, o + 1 };
	for (int i = 0; i < 2; i++) {
		msgpack_object *pair = o + 1 + i, *tc = o + 3 + 2 * i;

		pair->type = MSGPACK_OBJECT_ARRAY;
		pair->via.array = (msgpack_object_array){ 2, tc };
		tc[0].type = tc[1].type = MSGPACK_OBJECT_POSITIVE_INTEGER;
		tc[0].via.u64 = 1 + 6 * (uint64_t)i;
		tc[1].via.u64 = value(v, 32);
	}
	return o;
}

static struct record_ctx ctx(struct fixture_values *v)
{
	struct record_ctx c = { .set = true };

	c.chain = bytes(v, CAUSAL_CHAIN_ID_LEN);
	c.event = value(v, 64);
	c.function = value(v, 64);
	return c;
}

/* clang-format off */
#define FILL_U8(d) d = value(v, 8);
#define FILL_U16(d) d = value(v, 16);
#define FILL_U32(d) d = value(v, 32);
#define FILL_U64(d) d = value(v, 64);
#define FILL_AUX(d) d = value(v, 31); /* hdr.aux's 32 bits in the library */
#define FILL_I32(d) d = -(int64_t)value(v, 31);
#define FILL_I64(d) d = -(int64_t)value(v, 63);
#define FILL_AUX_I FILL_I32
#define FILL_EXIT_NS(d) d = r->mono_ns + value(v, 32);
#define FILL_CHAIN(d) d = bytes(v, CAUSAL_CHAIN_ID_LEN);
#define FILL_UUID(d) d = bytes(v, CAUSAL_UUID_LEN);
#define FILL_UUID_NIL FILL_UUID
#define FILL_STRZ(d) d = text(v);
#define FILL_STR_AUX FILL_STRZ
#define FILL_STR_L8 FILL_STRZ
#define FILL_STR_L16 FILL_STRZ
#define FILL_STRV(d) d = strv(v);
#define FILL_COUNTS(d) d = counts(v);
#define FILL_CTX(d) d = ctx(v);
#define FILL_BIN_AUX(d) d = (struct record_bin){ bytes(v, 16), 16 };
#define FILL_BIN_L8 FILL_BIN_AUX

/* An enum's field (SHOW ENUM) takes one of its values, the others any. */
#define ENUM_VALUE(constant, value, name) value,
#define FILL_AS_ENUM(KIND, en, d)                                              \
	{                                                                      \
		static const uint64_t values[] = { CAUSAL_VALUES_##en(ENUM_VALUE) }; \
		d = values[++v->k % (sizeof(values) / sizeof(values[0]))];     \
	}
#define FILL_AS_NUM(KIND, en, d) FILL_##KIND(d)
#define FILL_AS_FLAGS FILL_AS_NUM
#define FILL_AS_HEX FILL_AS_NUM
#define FILL_AS_STR FILL_AS_NUM
#define FILL_AS_ADDR FILL_AS_NUM
#define FILL_AS_CTX FILL_AS_NUM
#define FILL_AS_RAW FILL_AS_NUM
#define FILL_AS_FRAMES FILL_AS_NUM
#define FILL_AS_BYTES FILL_AS_NUM

#define FILL_FIELD(name, KIND, SHOW, en, dump) FILL_AS_##SHOW(KIND, en, m->name)
#define FILL_PROBE_FIELD(name, KIND, SHOW, en, dump)                           \
	FILL_AS_##SHOW(KIND, en, m->p.name)
#define FILL_START_NONE
#define FILL_START_RPC_PROBE CAUSAL_FIELDS_RPC_PROBE(FILL_PROBE_FIELD)
#define FILL_CASE(num, UPPER, lower, member, GROUP, nreq)                      \
	case CAUSAL_REC_##UPPER: {                                             \
		struct record_##lower *m = &r->member;                         \
									       \
		FILL_START_##GROUP                                             \
		CAUSAL_FIELDS_##UPPER(FILL_FIELD)                              \
		return 0;                                                      \
	}
/* clang-format on */

int fixture_record_fill(struct record *r, unsigned type,
			struct fixture_values *v)
{
	memset(r, 0, sizeof(*r));
	v->used = v->n_obj = 0; /* the record filled before is left behind */
	r->type = type;
	r->tid = value(v, 32);
	r->mono_ns = value(v, 48);
	switch (type) {
		CAUSAL_RECORDS(FILL_CASE)
	}
	return -1;
}
