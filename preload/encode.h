/*
 * encode.h - msgpack encoding of records, as laid out in log-format.h.
 *
 * Used only by the background writer (and by the final flush at exit), never
 * on the probe hot path.  The packer writes through a caller-supplied
 * callback, so the writer can encode into a preallocated frame buffer
 * without malloc (the final flush may run in a signal handler).
 */
#ifndef CAUSAL_ENCODE_H
#define CAUSAL_ENCODE_H

#include <msgpack.h>

#include "record.h"

struct causal_identity;
struct causal_heap_tls;

/* Encode one ring record; 0, or -EINVAL for a type this encoder lacks. */
int causal_encode_record(msgpack_packer *pk, const struct causal_rec *rec);

/*
 * The last pair written of each thread and kind in the open frame, as far
 * as the encoder remembers (a slot per thread and kind, a thread that
 * shares its slot with another forgotten): what a NEXT pair
 * (records.def, CAUSAL_RPC_PAIRS_NEXT) counts its steps from.  Zeroed, it
 * remembers nothing.
 */
#define CAUSAL_PAIR_MEMO_SLOTS 256
struct causal_pair_memo {
	struct causal_pair_last {
		uint64_t frame; /* the frame it went into, + 1; 0: none */
		uint64_t event, function, cpu_ns;
		uint32_t tid, xid;
		uint32_t type; /* its PAIR type */
	} slot[CAUSAL_PAIR_MEMO_SLOTS];
};

/*
 * A probe's start and its end as one PAIR record (records.def,
 * CAUSAL_RPC_PAIRS), or as a NEXT pair when memo (NULL: never) holds its
 * thread's previous pair of its kind in this same frame (frame: the open
 * frame's number, which changes whenever the frame does); memo then
 * holds this one.  -EINVAL, having written nothing, when they are not the
 * two ends of one probe (types, thread, chain, function).
 */
int causal_encode_pair(msgpack_packer *pk, const struct causal_rec *start,
		       const struct causal_rec *end,
		       struct causal_pair_memo *memo, uint64_t frame);

/* cpu_clock: enum causal_cpu_clock_kind; sample_skip: records.def */
int causal_encode_header(msgpack_packer *pk, const struct causal_identity *id,
			 uint32_t buffer_kb, uint32_t flush_ms,
			 uint32_t cpu_clock, uint64_t sample_skip);

/* A rotated log's segment (records.def, HEADER): its number and what the
 * cap deleted of the log before it. */
struct causal_segment_note {
	uint32_t segment;
	uint64_t deleted_segments, deleted_records, deleted_bytes;
};

/* The HEADER of a segment (seg NULL: of a log that is not rotated). */
int causal_encode_segment_header(msgpack_packer *pk,
				 const struct causal_identity *id,
				 uint32_t buffer_kb, uint32_t flush_ms,
				 uint32_t cpu_clock, uint64_t sample_skip,
				 const struct causal_segment_note *seg);

void causal_encode_drops(msgpack_packer *pk, uint32_t tid, uint64_t mono_ns,
			 uint64_t dropped_total);

/* heap: the thread's counters read at mono_ns under accounting state
 * heap_epoch (heap.h), or NULL when unknown (written as absent) */
void causal_encode_thread_end(msgpack_packer *pk, uint32_t tid,
			      uint64_t mono_ns, uint64_t cpu_ns, uint32_t how,
			      const struct causal_heap_tls *heap,
			      uint32_t heap_epoch, uint8_t mon_off);

void causal_encode_process_end(msgpack_packer *pk, uint64_t mono_ns,
			       uint64_t realtime_ns, uint32_t reason,
			       int64_t detail, uint64_t records,
			       uint64_t dropped, uint32_t heap_epoch,
			       uint64_t heap_peak);

/* LOSS: by_type[t] records of type t lost, for t < types (0: none). */
void causal_encode_loss(msgpack_packer *pk, uint64_t mono_ns, int err,
			uint64_t lost, const uint64_t *by_type, unsigned types);

/* Upper bound of the encoded size of a ring record of `size` bytes. */
#define CAUSAL_ENCODED_MAX(size) (2 * (size_t)(size) + 64)

#endif
