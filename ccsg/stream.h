/*
 * stream.h - the CCSG of a trace read chain by chain (ccsg_trace_open()):
 * each chain is scanned (the DSCG's Figure 7), its spawns noted and folded
 * into the graphs (ccsg_graph_chain()), then forgotten.  Memory holds the
 * threads, the graphs and the largest chain, never the calls; the graphs
 * equal those ccsg_graph_build_res() makes of the loaded trace, but
 * have no per-call arrays, and the DSCG only its stats and spawns.
 */
#ifndef CCSG_STREAM_H
#define CCSG_STREAM_H

#include "ccsg.h"

/* What else looks at each chain once folded: its calls are
 * t->calls[0 .. ch->n), node[j] the function node of the j-th in the
 * first graph, ord0 + j its ordinal (ccsg_spawns_note()).  0, -ENOMEM,
 * or another negative errno after the watch said why (the stream then
 * fails without a word). */
struct ccsg_stream_watch {
	int (*chain)(void *arg, const struct ccsg_graph *g,
		     const struct ccsg_chain *ch, const int32_t *node,
		     int64_t ord0);
	void *arg;
	/* NULL, or told of the first graph once begun, before any chain */
	void (*begun)(void *arg, struct ccsg_graph *g);
};

/*
 * Fold the rest of trace t (just opened) into n graphs, graphs[i] of
 * resources[i], with d the DSCG they point to, showing each chain to
 * watch (NULL: none).  0, or -1 after fail() (a bad row, out of memory),
 * with d and the graphs released.
 */
int ccsg_stream_build(struct ccsg_dscg *d, struct ccsg_trace *t,
		      const struct ccsg_dims *dims, int by_object,
		      struct ccsg_graph *const *graphs, const int *resources,
		      size_t n, const struct ccsg_stream_watch *watch);

/*
 * The same in two steps: the fold of every chain t gives (a share of the
 * trace's: ccsg_trace_open_share()), then its end, once the folds of the
 * other shares are added (workers.h).  Each is 0, or -1 after fail()
 * with d and the graphs released.
 */
int ccsg_stream_fold(struct ccsg_dscg *d, struct ccsg_trace *t,
		     const struct ccsg_dims *dims, int by_object,
		     struct ccsg_graph *const *graphs, const int *resources,
		     size_t n, const struct ccsg_stream_watch *watch);
int ccsg_stream_finish(struct ccsg_dscg *d, struct ccsg_trace *t,
		       struct ccsg_graph *const *graphs, size_t n);

#endif
