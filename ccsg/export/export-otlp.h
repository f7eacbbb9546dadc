/*
 * export-otlp.h - OTLP/JSON (export.h): the ExportTraceServiceRequest of
 * opentelemetry-proto in its JSON mapping (lowerCamelCase fields, trace
 * and span ids as hex, 64-bit integers as strings, enums as numbers).
 *
 * A resource per traced process (host.name, process.pid,
 * process.executable.name and .path, service.name, service.instance.id
 * = its UUID), one span per side of every call (kind CLIENT on the
 * calling process, SERVER on the serving one) and one INTERNAL span per
 * thread that calls were made in or that a call spawned, so that the
 * spans' parents are the DSCG's: a server span's parent is its client
 * span, a client span's the server span of the call it was made in
 * (nesting) or the span of its thread, whose calls follow one another
 * (cascading), a thread's the server span of the call that spawned it or
 * its parent thread's span (thread spawn).
 *
 * Trace id: the chain id, its 4-byte counter XORed into the last 4 bytes
 * of its 16-byte process UUID (one trace per chain).  A thread's span is
 * in the trace of the first chain it started, else its parent's.  A
 * thread spawned in a call starts a chain of its own, so its span's
 * parent is in another trace: the parent span id names it all the same,
 * and a link says so for the backends that look for the parent in the
 * same trace.  Span id: 64 bits of a hash of (chain id, the event number
 * of the side's first probe), of (process UUID, thread id) for a thread.
 */
#ifndef CCSG_EXPORT_OTLP_H
#define CCSG_EXPORT_OTLP_H

#include <stdint.h>
#include <stdio.h>

#include "export-buf.h"
#include "export-spill.h"
#include "export.h"

/*
 * What the two files of the OTLP export share: export-otlp.c makes the
 * passes over the calls and writes the documents, export-otlp-span.c
 * writes one span (and one resource), the ids in it computed from the
 * chains, the events and the threads.
 */

/* The span a thread hangs under when a call spawned it. */
struct spawner {
	uint8_t chain[DB_CHAIN_LEN];
	uint64_t span;
};

struct otlp {
	const struct export_ctx *x;
	const struct export_otlp_opts *o;
	struct xbuf *b;
	char **fn; /* per CCSG node: its name, JSON-escaped, no quotes */
	/* per thread */
	uint8_t *emit;		      /* it has a span */
	uint8_t *roots;		      /* a chain it started has calls */
	uint8_t (*own)[DB_CHAIN_LEN]; /* the first chain it started */
	uint8_t *own_set;
	int32_t *spawn_ctx; /* the thread that started the spawning chain */
	struct spawner *spawner;
	uint8_t *spawner_set;
	int64_t *chains_self; /* CPU of the calls of the chains it started */
	int64_t *sum;	      /* its span's self + descendant CPU, or -1 */
	uint8_t (*th_trace)[16];
	uint8_t *th_trace_set;
	/* the calls that spawned threads: (ordinal, thread) by ordinal, and
	 * the next to meet in the second pass */
	struct spawn_at {
		int64_t ord;
		int32_t th;
	} * spawns;
	size_t nspawns, next_spawn;
	/* the call whose spawns are being noted (the first pass) */
	const struct export_part *at_p;
	size_t at_i;
	int32_t at_owner;
	uint8_t *seen; /* export_spawned()'s */
	/* the part being written: per call, self and descendant CPU */
	int64_t *self, *desc;
	size_t cap_self, cap_desc;
	/* per process: its call spans, a line each */
	struct export_spill spill;
	int32_t cur;	   /* the process a span is formatted for */
	struct xbuf *line; /* formats it, into that process's spill */
	FILE *line_file;
	/* batching */
	size_t in_batch, batches;
	export_batch_fn fn_batch;
	void *arg;
	FILE *mem;
	char *mem_buf;
	size_t mem_len;
	int stopped;
};

/* --- export-otlp-span.c ----------------------------------------------- */

/* Has call c a client side, a server side (a span each)? */
int otlp_has_client(const struct ccsg_call *c);
int otlp_has_server(const struct ccsg_call *c);
/* The chain id of call i of p. */
const uint8_t *otlp_chain_of(const struct export_part *p, size_t i);
/* The span id of a side of call i of p. */
uint64_t otlp_call_span(const struct export_part *p, size_t i, int server);
/* Thread j's trace into ot->th_trace[j]: its first chain's, else its
 * parent's, else one of its own. */
void otlp_thread_trace(struct otlp *ot, size_t j);
/* Thread j's own CPU (Equation 2), on a host of the graph. */
int64_t otlp_thread_cpu(const struct export_ctx *x, size_t j);
/* A resource (process p) and its scope opened, its spans to follow, and
 * closed. */
void otlp_open_resource(struct otlp *ot, int32_t p, int first);
void otlp_close_resource(struct otlp *ot);
/* Thread j's span, after a separator unless first. */
void otlp_thread_span_write(struct otlp *ot, size_t j, int first);
/* A side of call i of p: its span, without a leading separator. */
void otlp_call_span_write(struct otlp *ot, const struct export_part *p,
			  size_t i, int server);

#endif
