/*
 * workers.h - a trace's CCSG folded by several workers at once, each a
 * thread that reads and folds its share of the chains (a WHERE on a hash
 * of the chain id where the rows are: ccsg_trace_open_share()), their
 * folds then merged (ccsg_graph_merge()): the graphs one reader makes.
 */
#ifndef CCSG_WORKERS_H
#define CCSG_WORKERS_H

#include "stream.h"

/* Workers at most (each has its own copy of a store's tables). */
#define CCSG_WORKERS_MAX 16

/*
 * ccsg_stream_build() by workers workers (2 .. CCSG_WORKERS_MAX): t is
 * share 0 of db, opened by the caller with ccsg_trace_open_share(), which
 * d and the graphs point to; the other shares are opened here (one after
 * the other, so a bad store says so once), folded at once, merged into
 * t's and released.  0, or -1 after fail() with d and the graphs
 * released.
 */
int ccsg_workers_build(struct ccsg_dscg *d, struct ccsg_trace *t,
		       unsigned workers, const struct ccsg_dims *dims,
		       int by_object, struct ccsg_graph *const *graphs,
		       const int *resources, size_t n);

#endif
