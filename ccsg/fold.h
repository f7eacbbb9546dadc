/*
 * fold.h - the state of a CCSG being folded (ccsg.c), between
 * ccsg_graph_begin() and ccsg_graph_end(): what fold-merge.c adds up.
 */
#ifndef CCSG_FOLD_H
#define CCSG_FOLD_H

#include "ccsg.h"

/* The arc a call came in by: from a node, or PENDING_OWNER(thread),
 * to its function node. */
struct fold_arc {
	int32_t from, to;
};

/* A thread's place, learnt when the chain of the call that spawned it is
 * folded: the arcs of that call and of its ancestors in the chain (whose
 * nodes, and arcs, its descendant figure goes to), and the thread that
 * started that chain. */
struct spawn_place {
	int32_t node;	       /* the spawning call's function node */
	int32_t owner;	       /* the chain's owner thread, -1 */
	struct fold_arc *path; /* ancestor calls' arcs, the call's first */
	size_t npath;
};

/* A call edge made while folding: its source may be the thread that
 * started the chain, whose node is known at the end only.  self and
 * desc: what its calls cost (k entries each), as the final edge's. */
struct pending_edge {
	int32_t from; /* a node, or PENDING_OWNER(thread) */
	int32_t to;
	int64_t count;
	struct ccsg_call_key at; /* its first call */
	int64_t *self, *desc;
};
#define PENDING_OWNER(th) (-2 - (th))

/* struct ccsg_fold's served[]: a thread ran recorded skeletons; it made
 * the first recorded call of a chain another process made, so it was
 * in a call of that chain the probes did not record */
enum { SERVED_RECORDED = 1, SERVED_UNRECORDED = 2 };

struct ccsg_fold {
	struct ccsg_trace *t;
	/* a call's function, by exact keys through a chain of small maps:
	 * (prog, vers) -> pv, (pv, proc) -> fn, (server, object) -> obj,
	 * (fn, obj) -> fo */
	struct hashmap pv, fn, obj, fo;
	struct hashmap fn_node; /* fn (or fo, by object) -> its node */
	/* per node: its first call, and the first whose symbol it took
	 * (how the folds of shares are merged in one order: fold-merge.c) */
	struct ccsg_call_key *node_at, *sym_at;
	size_t cap_node_at, cap_sym_at;
	uint8_t *served;	    /* per thread: SERVED_* bits */
	int64_t **chains_sum;	    /* per thread: its chains' CPU, k each */
	struct spawn_place *spawn;  /* per thread */
	struct pending_edge *edges; /* in creation order */
	size_t nedges, cap_edges;
	struct hashmap edge_slot; /* (from, to) -> edges[] index */
	int32_t *chain_node;	  /* the chain being folded: per call */
	int32_t *chain_edge;	  /* ... its pending edge, -1 */
	size_t cap_chain_edge;
	int64_t *chain_self;
	size_t cap_chain_node, cap_chain_self;
	int64_t *chain_sum;   /* k entries */
	int32_t serving_node; /* under main, made on demand, or -1 */
	int32_t *thread_edge; /* per thread: its edge, once mapped */
	/* <unmonitored> under main, made on demand, or -1; its arc from
	 * main; per thread, 1 when its sum is <unmonitored>'s descendants
	 * (spawned in an unrecorded call, its parent not) */
	int32_t unmonitored_node, unmonitored_edge;
	uint8_t *unmon_top;
};

/* A new node of g (its vectors zero, its links -1): its index, -ENOMEM. */
int32_t ccsg_graph_new_node(struct ccsg_graph *g, int kind);
/* What thread i's figure (Equation 2) starts from, before its skeletons
 * are taken out: 0 for an infrastructure or unmeasured thread. */
int64_t ccsg_graph_thread_start(const struct ccsg_graph *g, size_t i);
/* Section 3.3: a breadth-first search from main marks the primary
 * links (fold-order.c); 0 or -ENOMEM. */
int ccsg_graph_mark_primary(struct ccsg_graph *g);
/* Two vectors of k zeros for a pending edge; 0 or -ENOMEM. */
int ccsg_fold_edge_vectors(struct pending_edge *p, size_t k);

#endif
