/*
 * impact.h - impact estimation (CPU paper, Section 4): what the CCSG of a
 * trace becomes when some functions use a given percentage less (or more)
 * CPU on some processors, estimated from the trace already taken, and the
 * CPU Consumption Delta Graph (CCDG) that says which nodes change and by
 * how much.
 *
 * A change is written as in the paper (docs/impact.md):
 *
 *	reduction on processor group { G1, G2 } by 10% to function {
 *		FIG1_PROG::SAY_IT, FIG1_PROG::TIMES };
 *
 * ccsg_changes_parse() reads statements; ccsg_impact_resolve() finds the
 * hosts and function nodes they name in a CCSG; ccsg_impact_apply()
 * applies one, in the paper's steps:
 *
 *   (1) new exclusive CPU of the matching calls: Equation 1 of each call,
 *       kept by the CCSG build, scaled;
 *   (2) the self and descendant CPU of the affected call and thread
 *       instances of the DSCG re-evaluated (Equations 3 and 4): only the
 *       changed calls and their ancestors, leaves first;
 *   (3) the affected CCSG nodes re-evaluated (the aggregation phase);
 *   (4) the CCDG: the re-evaluated nodes and the edges the change went
 *       through, each node with its before, after and delta vectors;
 *   (5) superimposed on the CCSG: every node's after is its before plus
 *       its delta (zero where unaffected).
 *
 * The CCSG itself is never modified: the impact keeps deltas beside it,
 * so `report` output is untouched and ccsg_impact_reset() goes back to
 * the trace in time proportional to what changed.  The work of a change
 * is proportional to the calls it matches times their depth, not to the
 * trace: a user can try many changes on a large trace quickly.
 *
 * Exactness: each call keeps the product of the factors applied to it as
 * an exact fraction, and its new CPU is its traced CPU times that product,
 * rounded once to the nanosecond.  So a change followed by its inverse (a
 * 20% reduction, then a 25% increase; 30%, then 300/7%) gives back the
 * traced CCSG exactly, whatever the rounding of the step in between.
 *
 * Latency (beyond the paper): per function node, the sum over its calls
 * of the CPU change on the synchronous path of the call - its own
 * skeleton, its child calls but one-way ones, and the threads it joined
 * (those that ended before the call or thread that made them), with
 * their own synchronous descendants - from which the output predicts the
 * mean end-to-end latency (Equation 3 of the monitoring paper).  It is an
 * estimate: it assumes that CPU lies on the critical path and that the
 * host is not saturated.
 */
#ifndef CCSG_IMPACT_H
#define CCSG_IMPACT_H

#include "ccsg.h"
#include "impact-spec.h"
#include "names.h"

enum { CCSG_IMPACT_LATENCY = 1, CCSG_IMPACT_ONE_WAY = 2 };

struct ccsg_ratio {
	uint64_t num, den;
};

/* Per-instance scratch of one change (impact.c). */
struct ccsg_impact_slot;

struct ccsg_impact {
	const struct ccsg_graph *g;
	size_t k; /* vector dimensions */
	/* The calls of each function node: node_calls[node_start[n] ..
	 * node_start[n + 1]). */
	int32_t *node_start, *node_calls;
	/* The calls of each function node on each host (its self CPU's):
	 * [node * trace.nhosts + host]. */
	int64_t *node_host_calls;
	/* Per call, what the estimate reads of it, packed apart from the
	 * large struct ccsg_call: the host its self CPU is charged to (-1),
	 * and CCSG_IMPACT_LATENCY | CCSG_IMPACT_ONE_WAY. */
	int32_t *call_host;
	uint8_t *call_flags;
	/* Per thread: joined by the call or thread that made it (it ended
	 * before it), for latency. */
	uint8_t *joined;
	/* Per call: its factor, an index into scales (0: as traced). */
	int32_t *call_scale;
	struct ccsg_ratio *scales;
	size_t nscales, cap_scales;
	int32_t *changed; /* calls given a factor since reset */
	size_t nchanged, cap_changed;
	uint8_t *in_changed; /* per call: in changed */
	/* Per CCSG node: the CCDG superimposed. */
	int64_t *self_delta, *desc_delta; /* k per node */
	int64_t *sync_delta;		  /* CPU change on its calls' paths */
	uint8_t *affected;		  /* in the CCDG */
	int32_t *ccdg_nodes;		  /* the affected nodes, as affected */
	size_t nccdg_nodes;
	uint8_t *edge_affected; /* per CCSG edge: in the CCDG */
	int32_t *ccdg_edges;
	size_t nccdg_edges;
	int64_t *total_delta; /* k */
	size_t applied;	      /* changes applied since reset */
	int64_t instances;    /* DSCG instances re-evaluated */
	/* Scratch of ccsg_impact_apply(): per DSCG instance, its slot. */
	int32_t *slot_of;
	struct ccsg_impact_slot *slots;
	size_t nslots, cap_slots;
	int64_t *pool; /* 2k per slot */
	size_t cap_pool;
	int32_t *queue;
	size_t cap_queue;
	/* A streamed estimate's (impact-stream.h): per [node * nhosts +
	 * host], the product of the factors of the changes that reached
	 * it, and whether one did. */
	struct ccsg_ratio *factor;
	uint8_t *in_scope;
};

/*
 * Prepare the impact estimation of g (built and named): the index of the
 * calls by function node, and the threads' ends (read from the trace's
 * database, for latency).  O(calls + threads), once.  0, -ENOMEM, or -1
 * after a fail() when the database cannot be read again.
 */
int ccsg_impact_init(struct ccsg_impact *im, const struct ccsg_graph *g);
/* What any estimate of g holds: its CCDG, empty.  0 or -ENOMEM. */
int ccsg_impact_alloc(struct ccsg_impact *im, const struct ccsg_graph *g);
void ccsg_impact_release(struct ccsg_impact *im);

/*
 * Find what change c names in im's CCSG: its hosts or groups, its
 * function nodes (patterns: INTERFACE::FUNCTION, each part a name - any
 * case, '*' and '?' wildcards - or a number; FUNCTION alone is
 * *::FUNCTION).  A host or group the trace does not have, a pattern that
 * matches no function (nm: to say when the .x defines it but the trace
 * never calls it), or one that never runs on the processors named is a
 * fail() naming the token: -EINVAL.  -ENOMEM.
 */
int ccsg_impact_resolve(struct ccsg_impact *im, struct ccsg_change *c,
			const struct idl_names *nm);

/* Apply resolved change c on top of those applied before.  0;
 * -ERANGE when the factors compounded on one call no longer fit in 64
 * bits (nothing applied); -ENOMEM, after which the estimate holds part
 * of c: ccsg_impact_reset() it. */
int ccsg_impact_apply(struct ccsg_impact *im, const struct ccsg_change *c);

/* Back to the CCSG as traced, in time proportional to what changed. */
void ccsg_impact_reset(struct ccsg_impact *im);

/* A node's after vectors into self / desc (k entries each). */
void ccsg_impact_after(const struct ccsg_impact *im, int32_t node,
		       int64_t *self, int64_t *desc);

/* orig * r, rounded half up; orig >= 0 (ccsg.c clamps). */
int64_t ccsg_ratio_scaled(int64_t orig, struct ccsg_ratio r);
/* a * b, reduced; -ERANGE when it does not fit. */
int ccsg_ratio_mul(struct ccsg_ratio a, struct ccsg_ratio b,
		   struct ccsg_ratio *out);
/* CCSG_IMPACT_LATENCY | CCSG_IMPACT_ONE_WAY of a call. */
unsigned ccsg_impact_call_flags(const struct ccsg_call *c);
/* Was thread th joined by what made it, which ended at upto (the
 * spawning call's skeleton, else the parent thread; CCSG_NONE)? */
int ccsg_impact_joined(const struct ccsg_thread *th, int64_t upto);
/* Node n, edge e in the CCDG (once; -1: none). */
void ccsg_impact_affect_node(struct ccsg_impact *im, int32_t n);
void ccsg_impact_affect_edge(struct ccsg_impact *im, int32_t e);

/* A call's self CPU now (Equation 1, scaled by the changes applied). */
int64_t ccsg_impact_call_self(const struct ccsg_impact *im, int32_t call);

#endif
