/*
 * sampling.h - what ccsg estimates from a head-sampled trace (docs/ccsg.md,
 * "Exact totals and estimates"): which chains count (sampling.c), and
 * the CCSG scaled to the whole run (scale.c).
 *
 * Every estimate of a sampled trace is made of the chains head sampling
 * chose (causal/sample.h), recomputed here from each chain's id and its
 * root process's rate: a chain that tail keep recorded although unsampled
 * is in the trace, but in no estimate (it would tip them toward the slow
 * and failed chains).
 */
#ifndef CCSG_SAMPLING_H
#define CCSG_SAMPLING_H

#include "ccsg.h"
#include "exact-totals.h"

/*
 * Did head sampling choose chain ch?  The decision of causal/sample.h at
 * the rate of the process whose UUID begins the chain id (the root's); 1
 * for a trace without exact totals (t->totals NULL: not sampled) and for
 * a chain whose root process is not in the trace.
 */
int ccsg_chain_sampled(const struct ccsg_trace *t, const struct ccsg_chain *ch);
/* The same with the rates of x (NULL: not sampled), for a trace read
 * without them (the exports: their spans are every recorded chain's). */
int ccsg_chain_sampled_by(const struct ccsg_totals *x,
			  const struct ccsg_trace *t,
			  const struct ccsg_chain *ch);

/* A chain's mark, not 0, the same in each part of it (the nodes' chain
 * counts, ccsg.h). */
uint64_t ccsg_chain_mark(const struct ccsg_chain *ch);

/*
 * Scale g, a CCSG of the sampled chains of a trace sampled at rate r
 * (below 1), to the whole run: each function node, each thread node a
 * function spawned, and the arcs into them, their counts and CPU (or
 * bytes) times 1 / rate; the other nodes (main, the thread nodes under
 * it) keep their self figure, their descendant one gaining what their
 * arcs gained.  keep (NULL: not kept) then holds each node's sampled
 * count and self figure, and the half-widths of its figures' 95%
 * intervals (ccsg_totals_estimate()).  0 or -ENOMEM.
 */
int ccsg_graph_scale(struct ccsg_graph *g, double r, struct ccsg_scaled *keep);

/* Is node n of g scaled (a sampled-chain figure)? */
int ccsg_node_scaled(const struct ccsg_graph *g, int32_t n);

#endif
