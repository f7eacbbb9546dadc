/*
 * impact-stream.h - impact estimation (impact.h) of a trace read chain
 * by chain, twice (`ccsg impact`): once for the CCSG, the latency table
 * and the calls of each function node on each host, which is what
 * resolving the changes needs; once more for their effect, which the
 * changes fix per (node, host) before it begins.  The estimate is the
 * one ccsg_impact_apply() of each change in turn gives on the loaded
 * trace (impact-stream.c says why), with memory for the threads and the
 * graph, not the calls.
 */
#ifndef CCSG_IMPACT_STREAM_H
#define CCSG_IMPACT_STREAM_H

#include "impact.h"
#include "latency.h"
#include "stream.h"

/* The first reading's: calls per [node * trace.nhosts + host]. */
struct ccsg_impact_counts {
	int64_t *calls;
	size_t nnodes;
	struct ccsg_latency_acc *latency; /* also fed, or NULL */
	struct ccsg_stream_watch watch;
};

/* The watch of the first reading (ccsg_stream_build()), which also feeds
 * latency (NULL: no latency table). */
const struct ccsg_stream_watch *
ccsg_impact_counts_watch(struct ccsg_impact_counts *c,
			 struct ccsg_latency_acc *latency);
void ccsg_impact_counts_release(struct ccsg_impact_counts *c);

/* An estimate of g (the first reading's graph, named) with no change
 * yet; ccsg_impact_resolve() then works on it.  0 or -ENOMEM. */
int ccsg_impact_stream_init(struct ccsg_impact *im, const struct ccsg_graph *g,
			    struct ccsg_impact_counts *c);

/* Resolved change c on top of those added before: its factor on the
 * (node, host) it reaches.  0, or -ERANGE when a product no longer fits
 * in 64 bits (nothing added). */
int ccsg_impact_stream_add(struct ccsg_impact *im, const struct ccsg_change *c);

/* The second reading of db (dims: g's), filling im's deltas and CCDG
 * with the changes added.  0, or -1 after fail(). */
int ccsg_impact_stream_apply(struct ccsg_impact *im, const char *db,
			     const struct ccsg_dims *dims);

#endif
