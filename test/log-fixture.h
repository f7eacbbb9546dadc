/*
 * log-fixture.h - write causal logs exactly per include/causal/log-format.h,
 * independently of libcausal.so, for the tracedump unit tests and the merge
 * benchmarks' generators (test/log-fixture.c, compiled once).
 *
 *	struct fixture_log fl;
 *	fixture_log_open(&fl, path, CAUSAL_FORMAT_VERSION);
 *	fixture_log_header(&fl, uuid, "host", 42, 1, ...);
 *	fixture_log_flush(&fl);		-- ends a zstd frame
 *	fixture_log_close(&fl);
 *
 * Two kinds of writers.  fixture_log_<type>() write the record types that
 * existed when they were written, by hand, field by field, from
 * log-format.h and records.def's comments: the suite records checks that
 * the library's encoder writes their bytes, so that a change of
 * records.def that would move the format of an existing type fails it.
 * fixture_log_record() writes any type of records.def, generated from its
 * fields: a type added later needs no writer here (docs/adding-a-record-
 * type.md), and fixture_record_fill() gives any type values to write.
 */
#ifndef CAUSAL_LOG_FIXTURE_H
#define CAUSAL_LOG_FIXTURE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <msgpack.h>
#include <zstd.h>

#include "causal/log-format.h"

struct record;

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
	unsigned skel_fork;	 /* fork of the skeleton ends written (0) */
	uint32_t version;	 /* the format written */
	/* a HEADER's segment, deleted_segments, deleted_records and
	 * deleted_bytes (records.def), written with a cpu_clock (0s) */
	uint64_t header_segment[4];
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

/* ---- the file ------------------------------------------------------------ */

/* p[0..3] = v, little-endian (the file header, the loss slot). */
void fixture_le32(uint8_t *p, uint32_t v);

/* Create path with the file header of format version: 0, or -1. */
int fixture_log_open(struct fixture_log *fl, const char *path,
		     uint32_t version);
/* Compress what was packed since the last flush into one frame. */
int fixture_log_flush(struct fixture_log *fl);
/* Flush what is left and close: 0, or -1. */
int fixture_log_close(struct fixture_log *fl);

/* Start a record: [type, tid, mono_ns, <nfields more>]. */
void fixture_log_begin(struct fixture_log *fl, unsigned type, uint64_t tid,
		       uint64_t mono, size_t nfields);
/* A str element; a bin element of n bytes, nil when p is NULL. */
void fixture_log_str(struct fixture_log *fl, const char *s);
void fixture_log_bin(struct fixture_log *fl, const void *p, size_t n);
/* An EXIT_NS element: from format 2, an exit at or after mono as
 * -(distance) - 1, else the value itself. */
void fixture_log_exit(struct fixture_log *fl, uint64_t mono, uint64_t exit);

/* ---- the record types, by hand ------------------------------------------ */

/*
 * cpu_clock: enum causal_cpu_clock_kind, or -1 for a header without it
 * (written before it was added).  fixture_log_header(): without it.
 */
void fixture_log_header_clock(struct fixture_log *fl, uint64_t mono,
			      const uint8_t uuid[16], const char *host,
			      int64_t pid, int64_t ppid, const char *exe,
			      int argc, const char *const *argv,
			      uint64_t realtime, const uint8_t *parent_uuid,
			      uint64_t buffer_kb, uint64_t flush_ms,
			      int64_t cpu_clock);
void fixture_log_header(struct fixture_log *fl, uint64_t mono,
			const uint8_t uuid[16], const char *host, int64_t pid,
			int64_t ppid, const char *exe, int argc,
			const char *const *argv, uint64_t realtime,
			const uint8_t *parent_uuid, uint64_t buffer_kb,
			uint64_t flush_ms);

/* The heap fields from fl->heap, mon_off from fl->thread_mon_off; chain:
 * NULL for a nil ctx. */
void fixture_log_thread_start(struct fixture_log *fl, uint64_t tid,
			      uint64_t mono, uint64_t parent_tid,
			      uint64_t os_tid, unsigned marker, uint64_t cpu,
			      const uint8_t *chain, uint64_t event,
			      uint64_t function);
void fixture_log_thread_end(struct fixture_log *fl, uint64_t tid, uint64_t mono,
			    uint64_t cpu, unsigned how);

/* MONITOR: host, iface, func NULL for none (an empty string). */
void fixture_log_monitor(struct fixture_log *fl, uint64_t mono, uint64_t seq,
			 unsigned kind, unsigned types, unsigned named,
			 unsigned on, uint64_t selections, const char *host,
			 const char *iface, const char *func);
void fixture_log_drops(struct fixture_log *fl, uint64_t tid, uint64_t mono,
		       uint64_t total);
void fixture_log_spawn(struct fixture_log *fl, uint64_t tid, uint64_t mono,
		       uint64_t child_tid);
void fixture_log_lock(struct fixture_log *fl, uint64_t tid, uint64_t mono,
		      unsigned op, uint64_t lock, unsigned kind);
void fixture_log_fork(struct fixture_log *fl, uint64_t tid, uint64_t mono,
		      int64_t child_pid, unsigned how);
void fixture_log_exec(struct fixture_log *fl, uint64_t tid, uint64_t mono,
		      const char *path);
void fixture_log_exec_failed(struct fixture_log *fl, uint64_t tid,
			     uint64_t mono, int64_t err);
/* LOSS: n [type, count] pairs. */
void fixture_log_loss(struct fixture_log *fl, uint64_t mono, int64_t err,
		      uint64_t lost, const uint64_t (*pairs)[2], size_t n);
/* The heap epoch and peak from fl->heap. */
void fixture_log_process_end(struct fixture_log *fl, uint64_t mono,
			     uint64_t realtime, unsigned reason, int64_t detail,
			     uint64_t records, uint64_t dropped);

/*
 * From format 3: the next probe start and end written (the same thread,
 * chain and function: the caller's business) go into one PAIR record, as
 * the library writes a start whose end came next in its thread (from
 * format 5 a NEXT pair where the thread's last pair of its kind in the
 * frame allows).  Write nothing else in between.
 */
void fixture_log_pair_next(struct fixture_log *fl);

/*
 * An RPC probe of type with its group's fields from p, nfields of its own
 * to follow (or its place in a pair); the four writers below call it.
 * The heap fields come from fl->heap, mon_off from fl->rpc_mon_off, a
 * skeleton end's fork from fl->skel_fork.
 */
void fixture_log_rpc_begin(struct fixture_log *fl, unsigned type,
			   const struct fixture_rpc *p, size_t nfields);
/* peer: a struct sockaddr of peer_len bytes, or NULL for nil. */
void fixture_log_stub_start(struct fixture_log *fl, const struct fixture_rpc *p,
			    uint64_t prog, uint64_t vers, uint64_t proc,
			    unsigned transport, const void *peer,
			    size_t peer_len, uint64_t site_id, uint64_t xid,
			    unsigned flags);
void fixture_log_stub_end(struct fixture_log *fl, const struct fixture_rpc *p,
			  unsigned status, uint64_t args_bytes,
			  uint64_t results_bytes, unsigned reply_tag);
void fixture_log_skel_start(struct fixture_log *fl, const struct fixture_rpc *p,
			    uint64_t prog, uint64_t vers, uint64_t proc,
			    unsigned transport, const void *peer,
			    size_t peer_len, uint64_t object_id, uint64_t xid,
			    uint64_t args_bytes, unsigned tag);
void fixture_log_skel_end(struct fixture_log *fl, const struct fixture_rpc *p,
			  unsigned reply, uint64_t results_bytes);
void fixture_log_rpc_site(struct fixture_log *fl, uint64_t tid, uint64_t mono,
			  uint64_t site_id, const char *symbol,
			  const char *module);
void fixture_log_rpc_object(struct fixture_log *fl, uint64_t tid, uint64_t mono,
			    uint64_t object_id, uint64_t prog, uint64_t vers,
			    unsigned transport, const void *addr,
			    size_t addr_len, const char *netid);

/* SPIKE_SAMPLE: chain NULL for a nil ctx; stack NULL (nil) when empty. */
void fixture_log_spike_sample(struct fixture_log *fl, uint64_t tid,
			      uint64_t mono, uint64_t idx, uint64_t thread,
			      uint64_t ip, unsigned kind, const uint8_t *chain,
			      uint64_t event, uint64_t function,
			      const void *stack, size_t len);
void fixture_log_spike_breach(struct fixture_log *fl, uint64_t tid,
			      uint64_t mono, uint64_t mark, uint64_t n,
			      uint64_t value, uint64_t threshold,
			      uint64_t window_ms, uint64_t lost,
			      const char *resource, const char *rule);
void fixture_log_spike_map(struct fixture_log *fl, uint64_t tid, uint64_t mono,
			   uint64_t start, uint64_t end, uint64_t offset,
			   const char *path);
void fixture_log_spike_profile(struct fixture_log *fl, uint64_t tid,
			       uint64_t mono, uint64_t ip, uint64_t samples);

/* ---- any record type, generated from records.def ------------------------ */

/*
 * r (struct record, tracedump/log-record.h: the tools' decoded form) as
 * the record of its type, every field as its KIND says (records.def), a
 * probe as a record of its own (no PAIR): what the library's encoder
 * writes for the same values, and what record_decode() reads back.
 * Returns 0, or -1 for a type records.def does not have.
 */
int fixture_log_record(struct fixture_log *fl, const struct record *r);

/* Where the strings, bytes and arrays of a filled record are kept. */
struct fixture_values {
	unsigned k;  /* values drawn so far: the next one's seed */
	size_t used; /* of pool */
	_Alignas(8) uint8_t pool[1024];
	msgpack_object obj[16]; /* STRV, COUNTS */
	size_t n_obj;
};

/*
 * *r: a record of type, every field a value of its own drawn from v
 * (zeroed; kept from one record to the next, it draws other values), an
 * enum's field one of its values (enums.def), every nil-able field set;
 * tid and mono_ns drawn too.  Its strings, bytes and arrays are in v,
 * until v fills another.  Returns 0, or -1 for a type records.def does
 * not have.
 */
int fixture_record_fill(struct record *r, unsigned type,
			struct fixture_values *v);

/* ---- the unit tests' sample log ------------------------------------------ */

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
int fixture_log_sample(const char *path, const uint8_t uuid[16],
		       const char *host, int64_t pid,
		       const uint8_t *parent_uuid, int ended, long ends[3]);

#endif
