/*
 * impact-against.h - `ccsg impact --change SPEC --against B`: the
 * prediction made from trace A beside what trace B, taken with the change
 * really made, measured, node by node and host by host
 * (docs/impact.md, "Against a second run").
 *
 * Nodes are matched by their names (the names ccsg gives them: the same
 * --idl on both sides), the k-th of a name in A with the k-th in B;
 * hosts (or --groups' groups) by their names.  A row is one matched node
 * on one matched host: A's self and descendant CPU, the prediction's, and
 * B's, with the prediction's error (predicted - B).  The runtime nodes
 * (<serving threads>, <threads of main>, <unmonitored>), whose CPU moves
 * with the machine's load and which no change predicts, are rows but are
 * left out of the summary; <main>'s descendants are compared less them.
 * A row agrees when both its errors are within CCSG_AGAINST_TOL_REL of
 * B's figure plus CCSG_AGAINST_TOL_ABS_NS.
 */
#ifndef CCSG_IMPACT_AGAINST_H
#define CCSG_IMPACT_AGAINST_H

#include <stdio.h>

#include "impact.h"
#include "latency.h"

/* two runs of one deployment agree this well (docs/impact.md) */
#define CCSG_AGAINST_TOL_REL 0.05
#define CCSG_AGAINST_TOL_ABS_NS 1000000

/* One figure of a row, ns: A's, predicted from A, B's. */
struct ccsg_against_fig {
	int64_t a, pred, b;
};

struct ccsg_against_row {
	int32_t node_a, node_b;
	int32_t dim_a, dim_b;
	uint8_t runtime;      /* not predicted: out of the summary */
	uint8_t less_runtime; /* <main>: desc less the runtime nodes */
	uint8_t agrees;
	struct ccsg_against_fig self, desc;
};

/* A function's mean latency, ns: A's, predicted, B's. */
struct ccsg_against_latency {
	int32_t node_a;
	double a, pred, b;
};

/* The largest error of the summary: row, figure (0 self, 1 desc). */
struct ccsg_against_worst {
	double value; /* ns, or a fraction */
	int64_t row;  /* -1: none */
	int desc;
};

struct ccsg_against {
	const struct ccsg_impact *im; /* A's estimate */
	const struct ccsg_graph *b;
	struct ccsg_against_row *rows; /* by A's node, then A's host */
	size_t nrows;
	int32_t *only_a, *only_b; /* nodes, by id */
	size_t nonly_a, nonly_b;
	int32_t *dims_only_a, *dims_only_b;
	size_t ndims_only_a, ndims_only_b;
	uint32_t *progs_a, *progs_b; /* RPC programs, sorted */
	size_t nprogs_a, nprogs_b;
	int same_programs;
	struct ccsg_against_latency *latency;
	size_t nlatency;
	/* over the rows not runtime */
	size_t compared, agree;
	struct ccsg_against_worst worst_rel; /* figures of B >= 1 ms */
	struct ccsg_against_worst worst_abs;
};

/*
 * Compare im's estimate (of A's graph) with b, B's graph (named), and
 * the mean latencies of lat_a (A's graph's) and lat_b (b's).  0 or
 * -ENOMEM.
 */
int ccsg_against_build(struct ccsg_against *x, const struct ccsg_impact *im,
		       const struct ccsg_graph *b,
		       const struct ccsg_latency *lat_a, size_t nlat_a,
		       const struct ccsg_latency *lat_b, size_t nlat_b);
void ccsg_against_release(struct ccsg_against *x);

/* A runtime node (above). */
int ccsg_against_runtime(const struct ccsg_graph *g, int32_t n);

/*
 * impact-against-output.c: x as text or JSON (enum ccsg_format), A and B
 * named by path_a and path_b, with the changes cs.  0 or -EIO.
 */
int ccsg_against_print(FILE *f, const struct ccsg_against *x,
		       const struct ccsg_changes *cs, const char *path_a,
		       const char *path_b, int format);

#endif
