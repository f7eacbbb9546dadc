/*
 * ccsg.h - the CPU consumption summarization graph (CPU paper, Section 3
 * and Appendix A) built from a DSCG.
 *
 * Self CPU: Equation 1 for a call (skeleton end minus skeleton start
 * minus the stub-side CPU of its direct child calls; the probes read the
 * CPU clock so that their own cost falls outside), Equation 2 for a
 * thread (its CPU minus the stub CPU of the chains it starts and minus
 * the skeletons it ran, which are the calls' own).  Descendant CPU:
 * Equations 3 and 4, as vectors with one entry per host or per processor
 * group.  Node 0 is the global virtual main node; its descendant CPU is
 * the whole system's user CPU.  All CPU values are nanoseconds.
 *
 * The same machinery measures heap memory (ccsg_graph_build_res()):
 * Equations 1-4 with bytes allocated, or freed, in place of CPU time,
 * from the heap counters each probe and thread record sampled.
 */
#ifndef CCSG_CCSG_H
#define CCSG_CCSG_H

#include <stdio.h>

#include "dscg.h"

enum ccsg_kind { CCSG_MAIN, CCSG_FUNCTION, CCSG_THREAD };

/* The vector dimensions: hosts, or processor groups (--groups FILE). */
struct ccsg_dims {
	size_t n;
	char **names;
	int32_t *of_host;		/* trace host index -> dimension */
};

/* One dimension per host of the trace, in host_id order. */
int ccsg_dims_hosts(struct ccsg_dims *g, const struct ccsg_trace *t);
/*
 * Processor groups from a file: lines "GROUP: HOST HOST...", '#' starts a
 * comment.  Hosts of the trace named in no group become groups of their
 * own, after the file's.  A host unknown to the trace, a host in two
 * groups or a line without ':' is a fail() naming FILE:LINE.
 */
int ccsg_dims_groups(struct ccsg_dims *g, const struct ccsg_trace *t, const char *path);
int ccsg_dims_parse(struct ccsg_dims *g, const struct ccsg_trace *t, FILE *f, const char *path);
void ccsg_dims_release(struct ccsg_dims *g);

struct ccsg_node {
	int kind;			/* enum ccsg_kind */
	char *name;			/* set by ccsg_graph_name() */
	uint32_t prog, vers, proc;
	int32_t server_proc, object_id;	/* --by=object; -1 when unknown */
	int32_t peer;			/* object of an untraced server, -1 */
	int32_t symbol;			/* a client stub symbol seen, -1 */
	int32_t parent;			/* thread node: its function node */
	int32_t thread_node;		/* function / main: its thread node, -1 */
	uint8_t serving;		/* main's node of the serving threads */
	uint8_t unmonitored;		/* main's node of what ran deselected */
	int64_t calls, threads;
	int64_t failed;			/* function: calls that failed (ccsg_call_failed) */
	int64_t chains;			/* function: chains with a call of it:
					 * the unit head sampling draws
					 * (sampling.h); chain_mark, the last's */
	uint64_t chain_mark;
	int64_t *self, *desc;		/* dims.n entries each */
};

/*
 * An arc: count calls (or threads) of its destination made by its
 * source, and what they cost, as gprof's call graph shows an arc's
 * share: self, their own figures (Equations 1 and 2), desc, their
 * descendants' (3 and 4), dims.n entries each.  The arcs into a node add
 * up to its self and desc.
 */
struct ccsg_edge {
	int32_t from, to;
	int64_t count;
	uint8_t primary;		/* breadth-first tree link */
	int64_t *self, *desc;
};

struct ccsg_graph {
	struct ccsg_dscg *dscg;
	const struct ccsg_dims *dims;
	int by_object;
	int resource; /* enum ccsg_resource */
	struct ccsg_node *nodes;
	size_t nnodes;
	struct ccsg_edge *edges;
	size_t nedges;
	size_t ncalls;			/* calls of the per-call arrays: the
					 * trace's, or 0 when streamed (NULL) */
	int32_t *call_node;		/* function node of each call; -1 when its
					 * start was lost (in no node, dscg stats) */
	int64_t *call_self;		/* Equation 1 of each call */
	int32_t *call_edge; /* the arc of each call into its node, -1 */
	/* Per thread instance, kept for impact estimation (impact.h): */
	int64_t *thread_self;		/* Equation 2 */
	int32_t *thread_node;		/* its thread node */
	uint8_t *root_thread;		/* no call or thread made it: its
					 * chains hang under main, not its node */
	struct hashmap edge_index;	/* (from, to) -> edge */
	int64_t clamped;		/* negative self CPU set to 0 (clock granularity) */
	int64_t unmeasured_threads;	/* user threads without a CPU time
					 * (or heap figures) */
	int64_t unmeasured_calls; /* heap: skeletons without heap figures */
	int64_t *total;			/* main's self + descendant */
	int64_t *vec_pool;
	size_t cap_nodes, cap_edges, cap_pool;
	struct ccsg_fold *fold; /* between begin and end (ccsg.c) */
	/* The edge each pending edge of the fold became (the indices
	 * ccsg_graph_chain_edges() gave), once ended. */
	int32_t *edge_of_pending;
	/*
	 * A fold of changes (impact-stream.c), set after begin: each call's
	 * Equation 1 value self, of its function node and the host it ran
	 * on (-1), becomes what self_map() returns, and threads count 0.
	 */
	int64_t (*self_map)(void *arg, int32_t node, int32_t host,
			    int64_t self);
	void *self_map_arg;
};

/* Build the graph; by_object aggregates by (object, interface, function). */
int ccsg_graph_build(struct ccsg_graph *g, struct ccsg_dscg *d, const struct ccsg_dims *dims,
		     int by_object);
/*
 * The same, of a resource (enum ccsg_resource): CPU (what
 * ccsg_graph_build() measures), or heap bytes allocated or freed.  A
 * call or thread whose figures are missing counts 0 and is counted in
 * unmeasured_calls / unmeasured_threads.
 */
int ccsg_graph_build_res(struct ccsg_graph *g, struct ccsg_dscg *d,
			 const struct ccsg_dims *dims, int by_object,
			 int resource);
/*
 * The same, chain by chain (ccsg.c says how): begin, one call of
 * ccsg_graph_chain() per chain of the trace - the DSCG's scan of it done
 * (ccsg_scan_chain()) and its calls' spawns noted - then, the spawns
 * finished, end.  The chain's calls are t->calls[ch->first ..]; the
 * i-th has the ordinal ord0 + i in the trace, the index of the per-call
 * arrays, which exist when ncalls (the trace's calls) is not 0.  Each
 * returns 0 or -ENOMEM; ccsg_graph_release() frees a graph left half-built.
 */
int ccsg_graph_begin(struct ccsg_graph *g, struct ccsg_dscg *d,
		     const struct ccsg_dims *dims, int by_object, int resource,
		     size_t ncalls);
int ccsg_graph_chain(struct ccsg_graph *g, const struct ccsg_chain *ch,
		     int64_t ord0);
/* The function node of each call of the chain just folded (-1: none),
 * until the next ccsg_graph_chain(). */
const int32_t *ccsg_graph_chain_nodes(const struct ccsg_graph *g);
/* ... the pending edge of each (-1: none; g->edge_of_pending maps them
 * once ended), and its Equation 1 value (or self_map()'s). */
const int32_t *ccsg_graph_chain_edges(const struct ccsg_graph *g);
const int64_t *ccsg_graph_chain_self(const struct ccsg_graph *g);
int ccsg_graph_end(struct ccsg_graph *g);
/*
 * Folds of shares of one trace's chains (ccsg_trace_open_share()), each
 * begun, fed its share's chains and not ended: add from's into into
 * (before the shares' spawn decisions are merged, ccsg_spawns_merge()),
 * then, once every share is in, put into's nodes and edges in the order
 * one reader of the whole trace makes them; into then ends as that
 * reader's graph would (fold-merge.c).  0 or -ENOMEM.
 */
int ccsg_graph_merge(struct ccsg_graph *into, const struct ccsg_graph *from);
/* Between begin and the first chain: g folds changes, self_map above. */
void ccsg_graph_map_self(struct ccsg_graph *g,
			 int64_t (*map)(void *arg, int32_t node, int32_t host,
					int64_t self),
			 void *arg);
/*
 * The forest the threads' sums climb: a spawned thread's parent (up[]) is
 * the thread that started the spawning chain (owner[], per thread), any
 * other's its parent thread; -1 at a root (or where corrupt ids made a
 * cycle).  The threads deepest first (malloc'd), or NULL.
 */
int32_t *ccsg_threads_deepest_first(const struct ccsg_trace *t,
				    const int32_t *owner, int32_t *up);
int ccsg_graph_merge_order(struct ccsg_graph *into);
void ccsg_graph_release(struct ccsg_graph *g);

/* The vector dimension of a process's host, or -1 when it has none. */
int32_t ccsg_proc_dim(const struct ccsg_graph *g, int32_t proc);
/*
 * The CCSG node that the CPU of DSCG instance u (a call or a thread) is
 * added to: its function node (-1 for a call whose start was lost) or
 * its thread node.
 */
int32_t ccsg_instance_node(const struct ccsg_graph *g, int32_t u);
/*
 * The node a call's arc comes from when its DSCG parent is instance p: the
 * parent call's function node, the thread node of a thread made by a call
 * or a thread (thread-invoke-function), else main (0).
 */
int32_t ccsg_caller_node(const struct ccsg_graph *g, int32_t p);
/* The edge from -> to, or -1. */
int32_t ccsg_edge_find(const struct ccsg_graph *g, int32_t from, int32_t to);
static inline int64_t ccsg_vec_sum(const int64_t *v, size_t n)
{
	int64_t s = 0;

	for (size_t i = 0; i < n; i++)
		s += v[i];
	return s;
}

#endif
