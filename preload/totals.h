/*
 * totals.h - exact totals of every call under head sampling (docs/tracing.md,
 * "Exact totals"): per-thread counters keyed by (side, function, caller
 * function), the host being the process's, written by the writer as
 * CALL_TOTALS records (records.def) every second, at exit and when a log
 * segment opens.
 *
 * The counting thread alone writes its table (plain stores, no lock, no
 * system call); the writer reads it with relaxed loads, so a record may
 * catch a call half-counted (calls one ahead of cpu_ns): the next one,
 * and the one at exit, are whole.  A table takes one mmap() the first
 * time its thread counts, CAUSAL_TOTALS_SLOTS keys; the calls of a key
 * it has no room for are counted as lost.
 */
#ifndef CAUSAL_TOTALS_H
#define CAUSAL_TOTALS_H

#include <stdint.h>

#include "causal/latency-hist.h"

#define CAUSAL_TOTALS_SLOTS 64

enum causal_totals_side { CAUSAL_TOTALS_STUB = 0, CAUSAL_TOTALS_SKEL = 1 };

struct causal_totals_key {
	uint32_t prog, vers, proc;
	uint32_t caller_prog, caller_vers, caller_proc; /* 0: none */
	uint32_t side;					/* enum above */
};

/* What one call adds; latency_ns is counted into the histogram when
 * has_latency (stub side). */
struct causal_totals_add {
	uint64_t cpu_ns, alloc_bytes, latency_ns;
	uint8_t failed, has_latency;
};

/* Whether this process counts every call (its own CAUSAL_SAMPLE is below
 * 1) or only the unsampled ones (it records the others). */
int causal_totals_every_call(void);

/* Count one call of key k in the calling thread's table. */
void causal_totals_count(const struct causal_totals_key *k,
			 const struct causal_totals_add *a);

/*
 * Writer, for each buffer of a pass: the CALL_TOTALS records of tb's
 * table, the keys that counted since their last record, once a second
 * (and whenever its thread has ended, and at the end: final).  -1 when
 * the frame had no room for one: the buffer must not be recycled yet.
 */
struct causal_tbuf;
int causal_totals_report(struct causal_tbuf *tb, int final);

/* A new log segment opened: write every key of every thread now (the
 * contract with log rotation, docs/tracing.md "Exact totals"). */
void causal_segment_opened(void);

#endif
